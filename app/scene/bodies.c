// bodies.c — a run's moving bodies (bodies.h).
#include "bodies.h"

#include "array.h"
#include "atomic_file.h"
#include "files.h"
#include "inputs.h"
#include "obj.h"
#include "output_set.h"
#include "blobsim/base.h"
#include "blobsim/body.h"
#include "blobsim/field.h"
#include "blobsim/version.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bsEnvBody
{
	bsBody* body;
	char include[48];   // body_N_HASH.inc (named by its content: see bsEnvBodies_WriteIncludes)
	char declared[32];  // BlobsimBodyN
	char* name;         // the OBJ's path, for the comment
	bsTriangle* shape;  // deforming: the world's shape at the scene's time (the scene outlives the world)
	bsTriangle* sampleShape;  // deforming, with motion blur: its shape at a sample's time (made when first needed)
	bsVec3* weights;          // and the deformation's weights there
	bsDistanceGrid field;  // environment.bodies[i].field: its grid around the rest mesh (cells NULL: none)
} bsEnvBody;

struct bsEnvBodies
{
	bsEnvBody* items;
	bsPovBody* pov;
	int count;
	bsBodyDynamicsDef dynamics;  // environment.dynamics, gravity from motion.gravity
	bsBodyField* fields;         // the bodies' own grids, in body order (bsStepDef.bodyFields)
	int fieldCount;
	bsVec3* sensors;             // the scene's sensor particles
	uint8_t* sensorSide;
	size_t sensorCapacity;
};

void bsEnvBodies_Free(bsEnvBodies* bodies)
{
	if (bodies == NULL)
	{
		return;
	}
	for (int i = 0; i < bodies->count; ++i)
	{
		bsBody_Destroy(bodies->items[i].body);
		free(bodies->items[i].shape);
		free(bodies->items[i].sampleShape);
		free(bodies->items[i].weights);
		bsDistanceGrid_Free(&bodies->items[i].field);
	}
	free(bodies->items);
	free(bodies->fields);
	free(bodies->pov);
	free(bodies->sensors);
	free(bodies->sensorSide);
	free(bodies);
}

// A dynamic body's mesh: no edge of one face (open) and no edge its two faces run the same way (a face
// wound the other way), each reported with one example edge numbered as the OBJ numbers its vertices
// (objTriangle[i]: kept triangle i's triangle in the file). Edges are welded by exact position.
static bool bsCheckClosed(const char* context, const char* file, const bsObjMesh* mesh,
	const uint32_t* objTriangle, const bsTriangle* tris, uint32_t count, char* err, size_t errlen)
{
	bsOrientation o;
	bsResult r = bsOrientation_Edges(tris, count, &o);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: cannot find the edges of %s (%s)", context, file, bsResultString(r));
		return false;
	}
	bool open = o.boundaryEdges > 0;
	if (!open && o.inconsistentEdges == 0)
	{
		return true;
	}
	const uint32_t* corners = mesh->triangles[objTriangle[open ? o.boundaryFace : o.inconsistentFace]];
	int edge = open ? o.boundaryEdge : o.inconsistentEdge;
	uint32_t n = open ? o.boundaryEdges : o.inconsistentEdges;
	snprintf(err, errlen, "%s: %s has %" PRIu32 " %s, e.g. the edge of vertices %" PRIu32 " and %" PRIu32 ")",
		context, file, n, open ? (n == 1 ? "boundary edge (open" : "boundary edges (open")
		: (n == 1 ? "edge wound inconsistently (its two faces run it the same way"
		          : "edges wound inconsistently (their two faces run them the same way"),
		corners[edge] + 1, corners[(edge + 1) % 3] + 1);
	return false;
}

// The OBJ's triangles, in the body's own frame. With a closed context (a dynamic body: its mass is a
// volume integral) the mesh must be closed and wound consistently, or err says so after the context,
// naming the file and one offending edge by the OBJ's vertex numbers, as `check` does for the
// environment's meshes.
static bool bsLoadTriangles(const char* file, const char* closed, bsTriangle** tris, uint32_t* count,
	char* err, size_t errlen)
{
	bsObjMesh mesh;
	bsObjError oerr;
	if (bsObj_Load(file, &mesh, &oerr) != bs_ok)
	{
		char hint[256];
		bsInputFile_MadeBy(file, hint, sizeof hint);
		snprintf(err, errlen, "%s%s", oerr.message, hint);
		return false;
	}
	*tris = malloc(mesh.triangleCount * sizeof(bsTriangle));
	uint32_t* objTriangle = closed != NULL ? malloc(mesh.triangleCount * sizeof(uint32_t)) : NULL;
	*count = 0;
	bool ok = *tris != NULL && (closed == NULL || objTriangle != NULL);
	for (uint32_t t = 0; ok && t < mesh.triangleCount; ++t)
	{
		const uint32_t* v = mesh.triangles[t];
		if (bsMakeTriangle(mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]], *tris + *count) == bs_ok)
		{
			if (objTriangle != NULL)
			{
				objTriangle[*count] = t;
			}
			*count += 1;
		}
	}
	if (!ok)
	{
		snprintf(err, errlen, "%s: out of memory", file);
	}
	else if (closed != NULL && *count > 0)
	{
		ok = bsCheckClosed(closed, file, &mesh, objTriangle, *tris, *count, err, errlen);
	}
	bsObj_Free(&mesh);
	free(objTriangle);
	if (!ok)
	{
		free(*tris);
		*tris = NULL;
	}
	return ok;
}

// A mesh sequence's frames, all loaded at once: every frame's vertices (24 bytes each per frame, kept
// by the body for the run) and the first frame's triangles as indices. Each frame must have the first
// frame's vertex count and the same triangles (the same corners in the same order); err names the
// body's JSON path, the file and what differs.
typedef struct bsLoadedSequence
{
	bsVec3* positions;
	uint32_t vertexCount;
	uint32_t* indices;
	uint32_t triangleCount;
	double* times;
} bsLoadedSequence;

static void bsLoadedSequence_Free(bsLoadedSequence* s)
{
	free(s->positions);
	free(s->indices);
	free(s->times);
	memset(s, 0, sizeof *s);
}

// Frame k (k > 0) against the first, whose indices s holds.
static bool bsSequence_SameTopology(const char* context, const char* first, const char* file, const bsObjMesh* mesh,
	const bsLoadedSequence* s, char* err, size_t errlen)
{
	const char* why = " (a sequence's frames share one topology: the same vertices and faces)";
	if (mesh->vertexCount != s->vertexCount)
	{
		snprintf(err, errlen, "%s: %s has %" PRIu32 " vertices, not the %" PRIu32 " of %s%s", context, file,
			mesh->vertexCount, s->vertexCount, first, why);
		return false;
	}
	if (mesh->triangleCount != s->triangleCount)
	{
		snprintf(err, errlen, "%s: %s has %" PRIu32 " triangles (%" PRIu32 " dropped as degenerate), not the %" PRIu32
			" of %s%s", context, file, mesh->triangleCount, mesh->droppedDegenerate, s->triangleCount, first, why);
		return false;
	}
	for (uint32_t t = 0; t < mesh->triangleCount; ++t)
	{
		const uint32_t* a = mesh->triangles[t];
		const uint32_t* b = s->indices + 3 * (size_t)t;
		if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2])
		{
			snprintf(err, errlen, "%s: %s: triangle %" PRIu32 " has vertices %" PRIu32 " %" PRIu32 " %" PRIu32
				", not %" PRIu32 " %" PRIu32 " %" PRIu32 " as in %s%s", context, file, t + 1, a[0] + 1, a[1] + 1,
				a[2] + 1, b[0] + 1, b[1] + 1, b[2] + 1, first, why);
			return false;
		}
	}
	return true;
}

// Frame k into s (the first frame sets the topology).
static bool bsSequence_AddFrame(const char* context, const bsBodyConfig* bc, int k, const bsObjMesh* mesh,
	bsLoadedSequence* s, char* err, size_t errlen)
{
	if (k == 0)
	{
		s->vertexCount = mesh->vertexCount;
		s->triangleCount = mesh->triangleCount;
		s->positions = malloc((size_t)bc->frameCount * mesh->vertexCount * sizeof(bsVec3));
		s->indices = malloc(3 * (size_t)mesh->triangleCount * sizeof(uint32_t));
		s->times = malloc((size_t)bc->frameCount * sizeof(double));
		if (s->positions == NULL || s->indices == NULL || s->times == NULL)
		{
			snprintf(err, errlen, "%s: out of memory for %d frames of %" PRIu32 " vertices", context, bc->frameCount,
				mesh->vertexCount);
			return false;
		}
		memcpy(s->indices, mesh->triangles, 3 * (size_t)mesh->triangleCount * sizeof(uint32_t));
	}
	else if (!bsSequence_SameTopology(context, bc->frames[0], bc->frames[k], mesh, s, err, errlen))
	{
		return false;
	}
	memcpy(s->positions + (size_t)k * s->vertexCount, mesh->vertices, s->vertexCount * sizeof(bsVec3));
	s->times[k] = bc->start + k / bc->fps;
	return true;
}

static bool bsLoadSequence(const char* configPath, int index, const bsBodyConfig* bc, bsLoadedSequence* s,
	char* err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	char context[512];
	snprintf(context, sizeof context, "%s: environment.bodies[%d].sequence", configPath, index);
	for (int k = 0; k < bc->frameCount; ++k)
	{
		bsObjMesh mesh;
		bsObjError oerr;
		if (bsObj_Load(bc->frames[k], &mesh, &oerr) != bs_ok)
		{
			char hint[256];
			bsInputFile_MadeBy(bc->frames[k], hint, sizeof hint);
			snprintf(err, errlen, "%s: frame %d: %s%s", context, k, oerr.message, hint);
			bsLoadedSequence_Free(s);
			return false;
		}
		bool ok = bsSequence_AddFrame(context, bc, k, &mesh, s, err, errlen);
		bsObj_Free(&mesh);
		if (!ok)
		{
			bsLoadedSequence_Free(s);
			return false;
		}
	}
	return true;
}

// The body's keys as the engine's tracks (and its sequence, when seq is not NULL).
static bsResult bsMakeBody(const bsBodyConfig* bc, const bsTriangle* tris, uint32_t count,
	const bsLoadedSequence* seq, bsBody** body)
{
	bsVec3Key* translate = calloc((size_t)bc->keyCount + 1, sizeof(bsVec3Key));
	bsQuatKey* rotate = calloc((size_t)bc->keyCount + 1, sizeof(bsQuatKey));
	bsVec3Key* scale = calloc((size_t)bc->keyCount + 1, sizeof(bsVec3Key));
	bsBodyDef def = bsDefaultBodyDef();
	bsResult r = translate == NULL || rotate == NULL || scale == NULL ? bs_errOutOfMemory : bs_ok;
	for (int k = 0; r == bs_ok && k < bc->keyCount; ++k)
	{
		const bsBodyKeyConfig* key = bc->keys + k;
		if (key->hasTranslate)
		{
			translate[def.keys.translateCount++] = (bsVec3Key){key->time, key->translate};
		}
		if (key->hasRotate)
		{
			rotate[def.keys.rotateCount++] = (bsQuatKey){key->time, bsQuat_FromAxisAngle(key->axis, key->angle)};
		}
		if (key->hasScale)
		{
			scale[def.keys.scaleCount++] = (bsVec3Key){key->time, key->scale};
		}
	}
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bc->dynamic ? bs_motionDynamic : bc->deforming ? bs_motionDeforming : bs_motionKeyframed;
	def.density = bc->density;
	def.velocity = bc->velocity;
	def.angularVelocity = bc->angularVelocity;
	def.sensorParticles = bc->sensorParticles;
	def.twoWay = bc->twoWay;
	def.keys.translate = translate;
	def.keys.rotate = rotate;
	def.keys.scale = scale;
	def.keys.loop = bc->loop;
	def.maxAngle = bc->maxAngle;
	bsDeformDef deform = {bc->controls, bc->controlCount, bc->support, bc->times, bc->displacements, bc->timeCount};
	def.deform = deform;
	if (seq != NULL)
	{
		bsSequenceDef sd = {seq->positions, seq->vertexCount, seq->indices, seq->times, bc->frameCount};
		def.sequence = sd;
		def.triangleCount = seq->triangleCount;
	}
	r = r == bs_ok ? bsBody_Create(&def, body) : r;
	free(translate);
	free(rotate);
	free(scale);
	return r;
}

// A deforming dynamic body's deformation fits its mesh: each control point within the support of
// the mesh's box (else it moves nothing), and the shape at each key a closed mesh with positive volume
// (its mass properties come from it: docs/bodies_dynamics.md, "Deforming dynamic bodies").
static bool bsCheckDeformingDynamic(const char* configPath, int index, const bsBodyConfig* bc, const bsBody* body,
	char* err, size_t errlen)
{
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(body, &count);
	bsVec3 lo = rest[0].p1, hi = rest[0].p1;
	for (uint32_t i = 0; i < count; ++i)
	{
		lo = bsMin(lo, bsMin(rest[i].p1, bsMin(rest[i].p2, rest[i].p3)));
		hi = bsMax(hi, bsMax(rest[i].p1, bsMax(rest[i].p2, rest[i].p3)));
	}
	for (int j = 0; j < bc->controlCount; ++j)
	{
		bsVec3 c = bc->controls[j];
		bsVec3 near = bsMax(lo, bsMin(hi, c));
		if (!(bsDistance(c, near) < bc->support))
		{
			snprintf(err, errlen, "%s: environment.bodies[%d].deform.controls[%d].point: (%g, %g, %g) is %g from %s's "
				"box, not within the support %g: it would move nothing", configPath, index, j, c.x, c.y, c.z,
				bsDistance(c, near), bc->file, bc->support);
			return false;
		}
	}
	int n = bsBody_DeformWeightCount(body);
	bsVec3* weights = malloc((size_t)n * sizeof(bsVec3));
	bsTriangle* shape = malloc((size_t)count * sizeof(bsTriangle));
	bool ok = weights != NULL && shape != NULL;
	if (!ok)
	{
		snprintf(err, errlen, "%s: out of memory", configPath);
	}
	for (int k = 0; ok && k < bc->timeCount; ++k)
	{
		bsBody_DeformWeights(body, bc->times[k], weights);
		for (uint32_t i = 0; i < count; ++i)
		{
			shape[i].p1 = bsBody_ShapePoint(body, weights, bsV3(1, 1, 1), rest[i].p1);
			shape[i].p2 = bsBody_ShapePoint(body, weights, bsV3(1, 1, 1), rest[i].p2);
			shape[i].p3 = bsBody_ShapePoint(body, weights, bsV3(1, 1, 1), rest[i].p3);
		}
		bsMassProperties mass;
		if (bsComputeMassProperties(shape, count, bc->density, &mass) != bs_ok)
		{
			snprintf(err, errlen, "%s: environment.bodies[%d].deform.times[%d]: the deformation at %g s turns %s "
				"inside out (no positive volume), and a dynamic body's mass properties come from its shape",
				configPath, index, k, bc->times[k], bc->file);
			ok = false;
		}
	}
	free(weights);
	free(shape);
	return ok;
}

// body_N_HASH.inc: HASH is the FNV-1a of everything the include holds (the version, the declared
// name, the mesh's name and its triangles), so one name never has two contents.
static void bsEnvBody_NameInclude(bsEnvBody* b, int index)
{
	uint32_t count;
	const bsTriangle* tris = bsBody_Triangles(b->body, &count);
	uint64_t h = bsFnv1a(BS_FNV1A_BASIS, BLOBSIM_VERSION, strlen(BLOBSIM_VERSION));
	h = bsFnv1a(h, b->declared, strlen(b->declared));
	h = bsFnv1a(h, b->name, strlen(b->name));
	h = bsFnv1a(h, tris, (size_t)count * sizeof(bsTriangle));
	snprintf(b->include, sizeof b->include, "body_%d_%016llx.inc", index, (unsigned long long)h);
}

// Body i's own grid (environment.bodies[i].field), built around its rest mesh with all cores (the grid
// is the same for any count), on the list of bodies->fields. The `field` block gives its rules; a
// deforming body is refused (the grid follows only the pose).
static bool bsEnvBody_BuildField(bsEnvBodies* bodies, const bsConfig* config, int i, char* err, size_t errlen)
{
	const bsBodyConfig* bc = config->environment.bodies + i;
	if (!bc->hasField)
	{
		return true;
	}
	if (!config->field.enabled)
	{
		snprintf(err, errlen, "%s: environment.bodies[%d].field: the grid's rules come from the `field` block "
			"(spring, impact, drag, surface_flow): add one", config->path, i);
		return false;
	}
	if (bc->deforming)
	{
		snprintf(err, errlen, "%s: environment.bodies[%d].field: a deforming body (deform or sequence) cannot "
			"carry a grid: the grid follows only rotation, translation and uniform scale", config->path, i);
		return false;
	}
	bsEnvBody* b = bodies->items + i;
	uint32_t count;
	const bsTriangle* tris = bsBody_Triangles(b->body, &count);
	bsDistanceGridDef def = bc->fieldBuild;
	def.threads = 0;
	bsResult r = bsDistanceGrid_Build(&b->field, tris, count, &def, NULL);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: environment.bodies[%d].field.build: %s", config->path, i, bsResultString(r));
		return false;
	}
	bodies->fields[bodies->fieldCount++] = (bsBodyField){i, &b->field};
	return true;
}

const bsBodyField* bsEnvBodies_Fields(const bsEnvBodies* bodies, int* count)
{
	*count = bodies != NULL ? bodies->fieldCount : 0;
	return *count > 0 ? bodies->fields : NULL;
}

bool bsEnvBodies_Load(bsEnvBodies** out, const bsConfig* config, char* err, size_t errlen)
{
	*out = NULL;
	const bsEnvironmentConfig* env = &config->environment;
	if (env->bodyCount == 0)
	{
		return true;
	}
	bsEnvBodies* bodies = calloc(1, sizeof *bodies);
	if (bodies == NULL || (bodies->items = calloc((size_t)env->bodyCount, sizeof(bsEnvBody))) == NULL ||
		(bodies->pov = calloc((size_t)env->bodyCount, sizeof(bsPovBody))) == NULL ||
		(bodies->fields = calloc((size_t)env->bodyCount, sizeof(bsBodyField))) == NULL)
	{
		bsEnvBodies_Free(bodies);
		snprintf(err, errlen, "%s: out of memory", config->path);
		return false;
	}
	bodies->dynamics = env->bodyDynamics != NULL ? *env->bodyDynamics : bsDefaultBodyDynamicsDef();
	bodies->dynamics.step.gravity = config->step.gravity;
	for (int i = 0; i < env->bodyCount; ++i)
	{
		const bsBodyConfig* bc = env->bodies + i;
		bsEnvBody* b = bodies->items + i;
		bsTriangle* tris = NULL;
		uint32_t count = 0;
		char closed[256];
		snprintf(closed, sizeof closed, "%s: environment.bodies[%d]: a dynamic body needs a closed mesh with "
			"outward normals", config->path, i);
		if (!bsLoadTriangles(bc->file, bc->dynamic ? closed : NULL, &tris, &count, err, errlen))
		{
			bsEnvBodies_Free(bodies);
			return false;
		}
		bsLoadedSequence seq;
		if (bc->frameCount > 0 && !bsLoadSequence(config->path, i, bc, &seq, err, errlen))
		{
			free(tris);
			bsEnvBodies_Free(bodies);
			return false;
		}
		bsResult r = bsMakeBody(bc, tris, count, bc->frameCount > 0 ? &seq : NULL, &b->body);
		if (bc->frameCount > 0)
		{
			bsLoadedSequence_Free(&seq);
		}
		// A dynamic body's mass comes from its volume: say so here rather than at the first step.
		bsMassProperties mass;
		bool open = r == bs_ok && bc->dynamic && bsComputeMassProperties(tris, count, bc->density, &mass) != bs_ok;
		free(tris);
		if (open)
		{
			snprintf(err, errlen, "%s: environment.bodies[%d]: a dynamic body needs a closed mesh with outward "
				"normals (%s has no positive volume)", config->path, i, bc->file);
			bodies->count = i + 1;
			bsEnvBodies_Free(bodies);
			return false;
		}
		bodies->count = i + 1;
		if (r != bs_ok)
		{
			snprintf(err, errlen, "%s: environment.bodies[%d]: %s (%s)", config->path, i,
				count == 0 ? "the mesh has no triangles" : "cannot make the body", bsResultString(r));
			bsEnvBodies_Free(bodies);
			return false;
		}
		if (bc->dynamic && bc->controlCount > 0 && !bsCheckDeformingDynamic(config->path, i, bc, b->body, err, errlen))
		{
			bsEnvBodies_Free(bodies);
			return false;
		}
		snprintf(b->declared, sizeof b->declared, "BlobsimBody%d", i);
		b->name = bc->file;
		bsEnvBody_NameInclude(b, i);
		bodies->pov[i].name = bc->file;
		bodies->pov[i].material = bc->material.texture;
		if (!bsEnvBody_BuildField(bodies, config, i, err, errlen))
		{
			bsEnvBodies_Free(bodies);
			return false;
		}
		if (bc->deforming)
		{
			bsBody_Triangles(b->body, &count);  // a sequence's: its first frame's
			b->shape = malloc(count * sizeof(bsTriangle));
			if (b->shape == NULL)
			{
				snprintf(err, errlen, "%s: out of memory", config->path);
				bsEnvBodies_Free(bodies);
				return false;
			}
		}
	}
	*out = bodies;
	return true;
}

const bsBody* bsEnvBodies_Body(const bsEnvBodies* bodies, int i)
{
	return bodies != NULL && i >= 0 && i < bodies->count ? bodies->items[i].body : NULL;
}

bsResult bsEnvBodies_AddToWorld(const bsEnvBodies* bodies, bsWorld* world)
{
	bsResult r = bodies != NULL ? bsWorld_SetBodyDynamics(world, &bodies->dynamics) : bs_ok;
	for (int i = 0; bodies != NULL && r == bs_ok && i < bodies->count; ++i)
	{
		r = bsWorld_AddBody(world, bodies->items[i].body);
	}
	return r;
}

// The includes of the non-deforming bodies not yet in dir, in names (count of them): listed in
// outputs.txt with one rewrite of the list, not one a body (which cost the square of the bodies).
static bool bsEnvBodies_ListNew(const bsEnvBodies* bodies, const char* dir, char* err, size_t errlen)
{
	const char** names = malloc(((size_t)bodies->count + 1) * sizeof *names);
	if (names == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", dir);
		return false;
	}
	size_t count = 0;
	for (int i = 0; i < bodies->count; ++i)
	{
		const bsEnvBody* b = bodies->items + i;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, b->include);
		if (b->shape == NULL && !bsIsRegularFile(path))
		{
			names[count++] = b->include;
		}
	}
	bool ok = count == 0 || bsOutputSet_ListManyNow(dir, names, count, err, errlen);
	free(names);
	return ok;
}

bool bsEnvBodies_WriteIncludes(const bsEnvBodies* bodies, const char* dir, char* err, size_t errlen)
{
	// In place at once, not with the run's deferred outputs: the frames and the scene are rendered
	// before those are renamed in, and POV-Ray must find an include by its final name. Named by its
	// content, a file already there is this one, and one written now changes no earlier scene's
	// include. The new ones are listed in outputs.txt first, so that a run failing after them leaves
	// no unlisted file; each joins the run's list of outputs either way.
	if (bodies == NULL || !bsEnvBodies_ListNew(bodies, dir, err, errlen))
	{
		return bodies == NULL;
	}
	for (int i = 0; i < bodies->count; ++i)
	{
		const bsEnvBody* b = bodies->items + i;
		if (b->shape != NULL)
		{
			continue;  // deforming: inline in each scene
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, b->include);
		uint32_t count;
		bsPovMesh mesh = {b->name, bsBody_Triangles(b->body, &count), 0, NULL, NULL};
		mesh.triangleCount = count;
		if ((!bsIsRegularFile(path) && !bsPov_WriteMeshInclude(path, b->declared, &mesh, bs_atomicFileNow, err, errlen)) ||
			!bsAtomicFile_DeferKeep(path, err, errlen))
		{
			return false;
		}
	}
	return true;
}

const bsPovBody* bsEnvBodies_Scene(const bsEnvBodies* bodies, size_t* count)
{
	*count = bodies != NULL ? (size_t)bodies->count : 0;
	return bodies != NULL ? bodies->pov : NULL;
}

// POV-Ray's matrix of a pose and scale: it maps a row vector, so the rows are the images of the scaled
// axes, then the translation.
static void bsPovBody_SetMatrix(bsPovBody* pov, bsTransform pose, bsVec3 scale)
{
	bsVec3 rows[4] = {bsQuat_Rotate(pose.rotation, bsV3(scale.x, 0, 0)),
		bsQuat_Rotate(pose.rotation, bsV3(0, scale.y, 0)), bsQuat_Rotate(pose.rotation, bsV3(0, 0, scale.z)),
		pose.translation};
	for (int r = 0; r < 4; ++r)
	{
		pov->matrix[3 * r] = rows[r].x;
		pov->matrix[3 * r + 1] = rows[r].y;
		pov->matrix[3 * r + 2] = rows[r].z;
	}
}

void bsEnvBodies_Pose(bsEnvBodies* bodies, const bsWorld* world)
{
	double t = bsWorld_Time(world);
	for (int i = 0; bodies != NULL && i < bodies->count; ++i)
	{
		bsEnvBody* b = bodies->items + i;
		bsPovBody* pov = bodies->pov + i;
		bsTransform pose;
		bsVec3 scale;
		bsBody_Pose(b->body, t, &pose, &scale);
		uint32_t n = 0;
		if (b->shape != NULL)
		{
			// The shape carries the scale and the deformation; the matrix is the pose alone.
			const bsTriangle* shape = bsWorld_BodyShape(world, b->body, &n);
			if (shape != NULL)
			{
				memcpy(b->shape, shape, n * sizeof(bsTriangle));
			}
			scale = bsV3(1.0, 1.0, 1.0);
		}
		pov->include = b->shape == NULL ? b->include : NULL;
		pov->declared = b->declared;
		pov->triangles = b->shape;
		pov->triangleCount = n;
		bsPovBody_SetMatrix(pov, pose, scale);
	}
}

int bsEnvBodies_Count(const bsEnvBodies* bodies)
{
	return bodies != NULL ? bodies->count : 0;
}

void bsEnvBodies_Record(const bsEnvBodies* bodies, double t, bsEnvBodyPose* poses)
{
	for (int i = 0; i < bsEnvBodies_Count(bodies); ++i)
	{
		bsBody_Pose(bodies->items[i].body, t, &poses[i].pose, &poses[i].scale);
	}
}

// A deforming body's shape at time t with scale `scale`, as the world makes it (collider_body.c): the
// rest triangles deformed by the weights at t; a triangle the deformation makes degenerate keeps the
// image's shape. False when out of memory.
static bool bsEnvBody_SampleShape(bsEnvBody* b, double t, bsVec3 scale)
{
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(b->body, &count);
	int n = bsBody_DeformWeightCount(b->body);
	if ((b->sampleShape == NULL && (b->sampleShape = malloc(count * sizeof(bsTriangle))) == NULL) ||
		(n > 0 && b->weights == NULL && (b->weights = malloc((size_t)n * sizeof(bsVec3))) == NULL))
	{
		return false;
	}
	bsBody_DeformWeights(b->body, t, b->weights);
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p1 = bsBody_ShapePoint(b->body, b->weights, scale, rest[i].p1);
		bsVec3 p2 = bsBody_ShapePoint(b->body, b->weights, scale, rest[i].p2);
		bsVec3 p3 = bsBody_ShapePoint(b->body, b->weights, scale, rest[i].p3);
		if (bsMakeTriangle(p1, p2, p3, b->sampleShape + i) != bs_ok)
		{
			b->sampleShape[i] = b->shape[i];
		}
	}
	return true;
}

bool bsEnvBodies_PoseSample(bsEnvBodies* bodies, double t, const bsEnvBodyPose* poses, bsPovBody* out)
{
	for (int i = 0; i < bsEnvBodies_Count(bodies); ++i)
	{
		bsEnvBody* b = bodies->items + i;
		out[i] = bodies->pov[i];
		if (b->shape == NULL)
		{
			bsPovBody_SetMatrix(out + i, poses[i].pose, poses[i].scale);
			continue;
		}
		if (!bsEnvBody_SampleShape(b, t, poses[i].scale))
		{
			return false;
		}
		out[i].triangles = b->sampleShape;
		bsPovBody_SetMatrix(out + i, poses[i].pose, bsV3(1.0, 1.0, 1.0));
	}
	return true;
}

void bsEnvBodies_Sensors(bsEnvBodies* bodies, const bsWorld* world, double radius, bsPovScene* scene)
{
	scene->sensorCount = 0;
	if (bodies == NULL || !(radius > 0.0))
	{
		return;
	}
	size_t n = bsWorld_SensorParticles(world, NULL, NULL, 0);
	if (n > bodies->sensorCapacity)
	{
		// Both arrays grow together, to one capacity.
		size_t capacity = bsArray_NextCapacity(bodies->sensorCapacity, n);
		if (!BS_ARRAY_RESIZE(bodies->sensors, capacity) || !BS_ARRAY_RESIZE(bodies->sensorSide, capacity))
		{
			return;  // out of memory: the scene goes without them
		}
		bodies->sensorCapacity = capacity;
	}
	scene->sensorCount = bsWorld_SensorParticles(world, bodies->sensors, bodies->sensorSide, n);
	scene->sensors = bodies->sensors;
	scene->sensorSide = bodies->sensorSide;
	scene->sensorRadius = radius;
}

uint64_t bsEnvBodies_TriangleCount(const bsEnvBodies* bodies)
{
	uint64_t total = 0;
	for (int i = 0; bodies != NULL && i < bodies->count; ++i)
	{
		uint32_t count = 0;
		bsBody_Triangles(bodies->items[i].body, &count);
		total += count;
	}
	return total;
}
