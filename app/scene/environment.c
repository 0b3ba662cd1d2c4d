#include "environment.h"

#include "bodies.h"

#include "array.h"
#include "inputs.h"
#include "obj.h"
#include "blobsim/base.h"
#include "blobsim/quat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Where a mesh's OBJ goes: scale, then rotate about x, then y, then z, then translate. An affine map
// (the scale need not be uniform), so not a rigid bsTransform (quat.h); its rotation is the engine's
// bsRotation_EulerXYZ with the scale folded into the columns.
typedef struct bsMeshPlacement
{
	double m[3][3];
	bsVec3 t;
} bsMeshPlacement;

static bsMeshPlacement bsMakePlacement(const bsMeshConfig* mc)
{
	double rad = BS_PI / 180.0;  // the config's degrees
	double r[3][3];
	bsRotation_EulerXYZ(bsV3(mc->rotate.x * rad, mc->rotate.y * rad, mc->rotate.z * rad), r);
	double s[3] = {mc->scale.x, mc->scale.y, mc->scale.z};
	bsMeshPlacement pl;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			pl.m[i][j] = r[i][j] * s[j];
		}
	}
	pl.t = mc->translate;
	return pl;
}

static bsVec3 bsPlace(const bsMeshPlacement* pl, bsVec3 p)
{
	return bsV3(pl->m[0][0] * p.x + pl->m[0][1] * p.y + pl->m[0][2] * p.z + pl->t.x,
		pl->m[1][0] * p.x + pl->m[1][1] * p.y + pl->m[1][2] * p.z + pl->t.y,
		pl->m[2][0] * p.x + pl->m[2][1] * p.y + pl->m[2][2] * p.z + pl->t.z);
}

int bsEnvGroup_Match(const char* configName, const char* key)
{
	if (strcmp(configName, key) == 0)
	{
		return 3;
	}
	const char* colon = strrchr(key, ':');
	if (colon == NULL)
	{
		return 0;
	}
	size_t baseLength = (size_t)(colon - key);
	if (strlen(configName) == baseLength && strncmp(configName, key, baseLength) == 0)
	{
		return 2;
	}
	return strcmp(configName, colon + 1) == 0 ? 1 : 0;
}

// The material the config gives the group `key` by name (the best match), NULL when none does.
static const bsMaterial* bsConfiguredMaterial(const bsMeshConfig* mc, const char* key)
{
	int best = 0;
	const bsMaterial* material = NULL;
	for (int g = 0; g < mc->groupCount; ++g)
	{
		int m = bsEnvGroup_Match(mc->groups[g].group, key);
		if (m > best)
		{
			best = m;
			material = &mc->groups[g].material;
		}
	}
	return material;
}

// The group's material: the config's by name, else a preset the key names ("base:stone"), else the
// mesh's. Sets *look to the material's look without its pigment when it takes vertex colours (else
// NULL).
static const char* bsMaterialForGroup(const bsMeshConfig* mc, const char* key, const char** look)
{
	const bsMaterial* material = bsConfiguredMaterial(mc, key);
	const char* colon = strrchr(key, ':');
	if (material == NULL && colon != NULL && bsMaterialPreset(colon + 1) != NULL)
	{
		*look = NULL;
		return bsMaterialPreset(colon + 1);
	}
	material = material != NULL ? material : &mc->material;
	*look = material->vertexColors ? material->look : NULL;
	return material->texture;
}

static const char* bsBaseName(const char* path)
{
	const char* slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

void bsEnvironment_Free(bsEnvironment* env)
{
	for (uint32_t g = 0; g < env->groupCount; ++g)
	{
		free(env->groups[g].name);
	}
	free(env->groups);
	free(env->triangles);
	free(env->cornerColors);
	free(env->planes);
	free((void*)env->planeMaterials);
	free(env->meshEdges);
	bsBvh_Destroy(&env->bvh);
	bsEnvBodies_Free(env->bodies);
	memset(env, 0, sizeof(*env));
}

// The edges of the mesh's triangles env->triangles[first ..] (objTriangle: each one's triangle in the
// OBJ mesh), their examples numbered as the file numbers its vertices. Out of memory leaves them 0.
static void bsEnvironment_MeshEdges(const bsEnvironment* env, uint32_t first, const bsObjMesh* mesh,
	const uint32_t* objTriangle, bsEnvMeshEdges* out)
{
	memset(out, 0, sizeof(*out));
	uint32_t count = env->triangleCount - first;
	if (count == 0 || bsOrientation_Edges(env->triangles + first, count, &out->edges) != bs_ok)
	{
		memset(out, 0, sizeof(*out));
		return;
	}
	const bsOrientation* o = &out->edges;
	uint32_t faces[2] = {o->inconsistentFace, o->boundaryFace};
	int edges[2] = {o->inconsistentEdge, o->boundaryEdge};
	uint32_t* vertices[2] = {out->inconsistentVertices, out->boundaryVertices};
	for (int e = 0; e < 2; ++e)
	{
		if (edges[e] >= 0)
		{
			const uint32_t* corners = mesh->triangles[objTriangle[faces[e]]];
			vertices[e][0] = corners[edges[e]] + 1;
			vertices[e][1] = corners[(edges[e] + 1) % 3] + 1;
		}
	}
}

bool bsEnvironment_DescribeEdges(const bsEnvironment* env, const bsConfig* c, int m, char* out, size_t size)
{
	out[0] = '\0';
	const bsEnvMeshEdges* me = env->meshEdges + m;
	const bsOrientation* o = &me->edges;
	if (o->inconsistentEdges == 0 && o->boundaryEdges == 0)
	{
		return false;
	}
	int n = snprintf(out, size, "%s: %" PRIu32 " edge%s wound inconsistently", c->environment.meshes[m].file,
		o->inconsistentEdges, o->inconsistentEdges == 1 ? "" : "s");
	if (o->inconsistentEdges > 0 && n > 0 && (size_t)n < size)
	{
		n += snprintf(out + n, size - (size_t)n, " (their two faces run them the same way, e.g. the edge of "
			"vertices %" PRIu32 " and %" PRIu32 ")", me->inconsistentVertices[0], me->inconsistentVertices[1]);
	}
	if (n > 0 && (size_t)n < size)
	{
		n += snprintf(out + n, size - (size_t)n, ", %" PRIu32 " boundary edge%s", o->boundaryEdges,
			o->boundaryEdges == 1 ? "" : "s");
	}
	if (o->boundaryEdges > 0 && n > 0 && (size_t)n < size)
	{
		snprintf(out + n, size - (size_t)n, " (open, e.g. the edge of vertices %" PRIu32 " and %" PRIu32 ")",
			me->boundaryVertices[0], me->boundaryVertices[1]);
	}
	return true;
}

// The OBJ's colours as POV-Ray's rgb: as written when every component is within [0, 1], else over
// 255 (files written with 0-255 components).
static double bsColorScale(const bsObjMesh* mesh)
{
	for (uint32_t v = 0; v < mesh->vertexCount; ++v)
	{
		bsVec3 c = mesh->colors[v];
		if (c.x > 1.0 || c.y > 1.0 || c.z > 1.0)
		{
			return 1.0 / 255.0;
		}
	}
	return 1.0;
}

// The vertex colours of a group's triangles (env->triangles[group->first ..], the i-th of the mesh's
// kept triangles being OBJ triangle objTriangle[i]; the group's first is the mesh's kept `at`), into
// env->cornerColors, three a triangle. A mesh without colours is an error: the material asked for
// them.
static bsResult bsEnvironment_CornerColors(bsEnvironment* env, const bsObjMesh* mesh, const char* file,
	const uint32_t* objTriangle, uint32_t at, const bsEnvGroup* group, char* err, size_t errlen)
{
	if (mesh->colors == NULL)
	{
		snprintf(err, errlen, "%s: environment.meshes[%d]: the material of group '%s' asks for vertex_colors, "
			"but the file has no vertex colours (a coloured vertex is `v x y z r g b`)", file, group->mesh,
			group->key);
		return bs_errInvalidArgument;
	}
	size_t need = 3 * (size_t)(group->first + group->count);
	if (need > 0 && !BS_ARRAY_RESIZE(env->cornerColors, need))
	{
		snprintf(err, errlen, "%s: out of memory", group->name);
		return bs_errOutOfMemory;
	}
	double scale = bsColorScale(mesh);
	for (uint32_t i = 0; i < group->count; ++i)
	{
		const uint32_t* corners = mesh->triangles[objTriangle[at + i]];
		for (int c = 0; c < 3; ++c)
		{
			env->cornerColors[3 * (size_t)(group->first + i) + (size_t)c] = bsScale(scale, mesh->colors[corners[c]]);
		}
	}
	return bs_ok;
}

// Appends one mesh's groups and triangles.
static bsResult bsEnvironment_AddMesh(bsEnvironment* env, const bsMeshConfig* mc, const char* configPath,
	int meshIndex, char* err, size_t errlen)
{
	bsObjMesh mesh;
	bsObjError oerr;
	bsResult r = bsObj_Load(mc->file, &mesh, &oerr);
	if (r != bs_ok)
	{
		char hint[256];
		bsInputFile_MadeBy(mc->file, hint, sizeof hint);
		snprintf(err, errlen, "%s%s", oerr.message, hint);
		return r;
	}
	env->droppedDegenerate += mesh.droppedDegenerate;

	// Every configured group name must match a group of this mesh.
	for (int g = 0; g < mc->groupCount; ++g)
	{
		bool found = false;
		for (uint32_t k = 0; k < mesh.groupCount && !found; ++k)
		{
			found = bsEnvGroup_Match(mc->groups[g].group, mesh.groups[k].name) > 0;
		}
		if (!found)
		{
			int n = snprintf(err, errlen, "%s: environment.meshes[%d].materials.%s: no group '%s' in %s (groups:",
				configPath, meshIndex, mc->groups[g].group, mc->groups[g].group, mc->file);
			for (uint32_t k = 0; k < mesh.groupCount && n > 0 && (size_t)n < errlen; ++k)
			{
				n += snprintf(err + n, errlen - (size_t)n, "%s %s", k == 0 ? "" : ",", mesh.groups[k].name);
			}
			if (n > 0 && (size_t)n < errlen)
			{
				snprintf(err + n, errlen - (size_t)n, ")");
			}
			bsObj_Free(&mesh);
			return bs_errInvalidArgument;
		}
	}

	uint64_t total = (uint64_t)env->triangleCount + mesh.triangleCount;
	uint64_t groups = (uint64_t)env->groupCount + mesh.groupCount;
	if (total >= (1u << 31) || groups >= (1u << 31))
	{
		snprintf(err, errlen, "%s: more than 2^31 triangles in the environment", mc->file);
		bsObj_Free(&mesh);
		return bs_errTooLarge;
	}
	if (!BS_ARRAY_RESIZE(env->triangles, (size_t)total) || !BS_ARRAY_RESIZE(env->groups, (size_t)groups))
	{
		snprintf(err, errlen, "%s: out of memory", mc->file);
		bsObj_Free(&mesh);
		return bs_errOutOfMemory;
	}

	// Group by group, so each group's triangles are one run (a counting sort of the triangles by
	// group); transformed triangles that come out degenerate are dropped and counted.
	uint32_t* start = calloc((size_t)mesh.groupCount + 1, sizeof(uint32_t));
	uint32_t* order = malloc((size_t)(mesh.triangleCount > 0 ? mesh.triangleCount : 1) * sizeof(uint32_t));
	if (start == NULL || order == NULL)
	{
		free(start);
		free(order);
		snprintf(err, errlen, "%s: out of memory", mc->file);
		bsObj_Free(&mesh);
		return bs_errOutOfMemory;
	}
	for (uint32_t k = 0; k < mesh.triangleCount; ++k)
	{
		start[mesh.triangleGroup[k] + 1] += 1;
	}
	for (uint32_t g = 0; g < mesh.groupCount; ++g)
	{
		start[g + 1] += start[g];
	}
	for (uint32_t k = 0; k < mesh.triangleCount; ++k)
	{
		order[start[mesh.triangleGroup[k]]++] = k;
	}
	bsMeshPlacement placement = bsMakePlacement(mc);
	const char* fileName = bsBaseName(mc->file);
	uint32_t next = 0;
	uint32_t meshFirst = env->triangleCount;
	uint32_t* objTriangle = order;  // order[i]: the OBJ triangle of the mesh's i-th kept one (rewritten in place)
	bsResult result = bs_ok;
	for (uint32_t g = 0; g < mesh.groupCount && result == bs_ok; ++g)
	{
		uint32_t first = env->triangleCount;
		for (; next < start[g]; ++next)
		{
			uint32_t k = order[next];
			bsVec3 p[3];
			for (int c = 0; c < 3; ++c)
			{
				p[c] = bsPlace(&placement, mesh.vertices[mesh.triangles[k][c]]);
			}
			bsResult tri = bsMakeTriangle(p[0], p[1], p[2], env->triangles + env->triangleCount);
			if (tri == bs_ok)
			{
				objTriangle[env->triangleCount - meshFirst] = k;  // never ahead of next: read already
				env->triangleCount += 1;
			}
			else if (tri == bs_errDegenerateTriangle)
			{
				env->droppedDegenerate += 1;
			}
			else
			{
				snprintf(err, errlen, "%s: a transformed vertex is not finite (translate/rotate/scale of "
					"environment.meshes[%d] too large)", mc->file, meshIndex);
				result = tri;
				break;
			}
		}
		if (result != bs_ok)
		{
			break;
		}
		size_t nameLength = strlen(fileName) + strlen(mesh.groups[g].name) + 2;
		char* name = malloc(nameLength);
		if (name == NULL)
		{
			snprintf(err, errlen, "%s: out of memory", mc->file);
			result = bs_errOutOfMemory;
			break;
		}
		snprintf(name, nameLength, "%s/%s", fileName, mesh.groups[g].name);
		bsEnvGroup* group = env->groups + env->groupCount++;
		group->name = name;
		group->key = name + strlen(fileName) + 1;
		group->mesh = meshIndex;
		group->first = first;
		group->count = env->triangleCount - first;
		group->material = bsMaterialForGroup(mc, mesh.groups[g].name, &group->look);
		if (group->look != NULL)
		{
			result = bsEnvironment_CornerColors(env, &mesh, mc->file, objTriangle, first - meshFirst, group, err, errlen);
		}
	}
	if (result == bs_ok)
	{
		bsEnvironment_MeshEdges(env, meshFirst, &mesh, objTriangle, env->meshEdges + meshIndex);
	}
	free(start);
	free(order);
	bsObj_Free(&mesh);
	return result;
}

bsResult bsEnvironment_Load(bsEnvironment* env, const bsConfig* config, int threads, char* err,
	size_t errlen)
{
	memset(env, 0, sizeof(*env));
	double t0 = bsNow();
	const bsEnvironmentConfig* ec = &config->environment;
	env->meshEdges = calloc((size_t)ec->meshCount + 1, sizeof(bsEnvMeshEdges));
	if (env->meshEdges == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", config->path);
		return bs_errOutOfMemory;
	}
	for (int m = 0; m < ec->meshCount; ++m)
	{
		bsResult r = bsEnvironment_AddMesh(env, ec->meshes + m, config->path, m, err, errlen);
		if (r != bs_ok)
		{
			bsEnvironment_Free(env);
			return r;
		}
	}
	if (ec->planeCount > 0)
	{
		env->planes = malloc((size_t)ec->planeCount * sizeof(bsPlane));
		env->planeMaterials = malloc((size_t)ec->planeCount * sizeof(const char*));
		if (env->planes == NULL || env->planeMaterials == NULL)
		{
			snprintf(err, errlen, "%s: out of memory", config->path);
			bsEnvironment_Free(env);
			return bs_errOutOfMemory;
		}
		for (int k = 0; k < ec->planeCount; ++k)
		{
			bsResult r = bsMakePlane(ec->planes[k].point, ec->planes[k].normal, env->planes + k);
			if (r != bs_ok)
			{
				snprintf(err, errlen, "%s: environment.planes[%d]: %s", config->path, k, bsResultString(r));
				bsEnvironment_Free(env);
				return r;
			}
			env->planeMaterials[k] = ec->planes[k].material.texture;
		}
		env->planeCount = (uint32_t)ec->planeCount;
	}
	double t1 = bsNow();
	bsBvhOptions options = bsDefaultBvhOptions();
	options.threads = threads;
	bsResult r = bsBvh_Build(&env->bvh, env->triangles, env->triangleCount, &options);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: cannot build the BVH: %s", config->path, bsResultString(r));
		bsEnvironment_Free(env);
		return r;
	}
	if (!bsEnvBodies_Load(&env->bodies, config, err, errlen))
	{
		bsEnvironment_Free(env);
		return bs_errInvalidArgument;
	}
	env->loadSeconds = t1 - t0;
	env->buildSeconds = bsNow() - t1;
	return bs_ok;
}

bsResult bsEnvironment_AddToWorld(const bsEnvironment* env, bsWorld* world)
{
	bsResult r = env->triangleCount > 0 ? bsWorld_AddMesh(world, &env->bvh) : bs_ok;
	r = r == bs_ok ? bsWorld_AddPlanes(world, env->planes, env->planeCount) : r;
	return r == bs_ok ? bsEnvBodies_AddToWorld(env->bodies, world) : r;
}
