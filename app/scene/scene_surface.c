#include "scene_surface.h"
#include "surface_colors.h"

#include "ply.h"
#include "surface_cost.h"
#include "surface_file.h"

#include "blobsim/base.h"
#include "blobsim/surface.h"

#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	bsSurfacePathMax = 4096,
	bsNormalDecimals = 3,
};

// Vertices are written to within spacing / 64 (docs/rendering.md).
static const double bsPositionStep = 1.0 / 64.0;

bsSceneSurface bsSceneSurface_FromConfig(const bsRenderConfig* rc, int threads)
{
	bsSceneSurface s;
	memset(&s, 0, sizeof(s));
	s.mode = rc->surface;
	s.spacing = rc->surfaceSpacing;
	s.simplifyError = rc->mesh.simplifyError;
	s.simplifyAngle = rc->mesh.simplifyAngle;
	s.obj = rc->surfaceObj;
	s.ply = rc->surfacePly;
	s.threads = threads;
	s.cull = rc->blob.cull;
	return s;
}

// path with its ".pov" replaced by suffix ("DIR/scene.pov" -> "DIR/scene_surface.inc").
static bool bsSiblingPath(char* out, size_t size, const char* path, const char* suffix)
{
	size_t n = strlen(path);
	if (n >= 4 && strcmp(path + n - 4, ".pov") == 0)
	{
		n -= 4;
	}
	int written = snprintf(out, size, "%.*s%s", (int)n, path, suffix);
	return written > 0 && (size_t)written < size;
}

static const char* bsBaseName(const char* path)
{
	const char* slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

static double bsLargestRadius(const bsPovParticles* ps)
{
	double r = ps->radius;
	if (ps->radii != NULL)
	{
		r = 0.0;
		for (size_t i = 0; i < ps->count; ++i)
		{
			r = ps->radii[i] > r ? ps->radii[i] : r;
		}
	}
	return r * ps->radiusScale;
}

// The component radii (collision radius x radius scale), or NULL with *uniform set when they are equal.
static double* bsComponentRadii(const bsPovParticles* ps, double* uniform)
{
	*uniform = ps->radius * ps->radiusScale;
	if (ps->radii == NULL)
	{
		return NULL;
	}
	double* r = malloc((ps->count + 1) * sizeof(double));
	for (size_t i = 0; r != NULL && i < ps->count; ++i)
	{
		r[i] = ps->radii[i] * ps->radiusScale;
	}
	return r;
}

// The particles' surface polygonized (and decimated) into *mesh, whose grid spacing goes to
// *spacing; the caller frees the mesh (also on failure). False with a message naming the file.
static bool bsBuildSurface(bsSceneSurface* s, const char* path, const bsPovScene* scene, bsSurfaceMesh* mesh,
	double* spacing, char* err, size_t errlen)
{
	memset(mesh, 0, sizeof(*mesh));
	const bsPovParticles* ps = &scene->particles;
	double uniform;
	double* radii = bsComponentRadii(ps, &uniform);
	if (ps->radii != NULL && radii == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	bsSurfaceDef def = bsDefaultSurfaceDef();
	def.centers = ps->centers;
	def.radii = radii;
	def.radius = uniform;
	def.count = ps->count;
	def.strength = ps->strength;
	def.threshold = ps->threshold;
	def.spacing = s->spacing * bsLargestRadius(ps);
	def.threads = s->threads;
	*spacing = def.spacing;
	double t0 = bsNow();
	bsResult r = ps->count > 0 ? bsSurface_Build(&def, mesh) : bs_ok;
	s->seconds += bsNow() - t0;
	free(radii);
	s->trianglesFull = mesh->triangleCount;
	if (r == bs_ok && s->simplifyError > 0.0 && mesh->triangleCount > 0)
	{
		t0 = bsNow();
		bsSurfaceSimplifyStats stats;
		bsSurfaceSimplifyDef sd = bsDefaultSurfaceSimplifyDef();
		sd.maxError = s->simplifyError * def.spacing;
		sd.maxNormalAngle = s->simplifyAngle * (BS_PI / 180.0);
		sd.threads = s->threads;
		r = bsSurfaceMesh_Simplify(mesh, &sd, &stats);
		s->notClosed += !stats.closed;
		s->simplifyPasses += stats.passes;
		s->simplifySeconds += bsNow() - t0;
	}
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: the particles' surface mesh: %s", path, bsResultString(r));
		return false;
	}
	return true;
}

// The surface files of a built mesh; include gets the POV-Ray include's base name.
static bool bsWriteSurfaceFiles(bsSceneSurface* s, const char* path, const bsPovScene* scene,
	const bsSurfaceMesh* mesh, double spacing, char* include, size_t includeSize, char* err, size_t errlen)
{
	const bsPovParticles* ps = &scene->particles;
	s->triangles = mesh->triangleCount;
	s->vertices = mesh->vertexCount;
	s->scenes += 1;

	char file[bsSurfacePathMax], comment[160];
	snprintf(comment, sizeof(comment),
		"grid spacing %.6g (%.6g component radii), threshold %.6g, strength %.6g, decimated within %.6g cells",
		spacing, s->spacing, ps->threshold, ps->strength, s->simplifyError);
	bsSurfaceFileDef fd = bsDefaultSurfaceFileDef();
	fd.mesh = mesh;
	fd.material = ps->material;
	fd.positionDecimals = bsSurfaceFile_Decimals(spacing, bsPositionStep);
	fd.normalDecimals = bsNormalDecimals;
	fd.comment = comment;
	bsSurfaceColors colors;
	memset(&colors, 0, sizeof(colors));
	if (ps->colors != NULL && mesh->triangleCount > 0 && !bsSurfaceColors_Build(ps, mesh, &colors))
	{
		snprintf(err, errlen, "%s: out of memory colouring the particles' surface", path);
		return false;
	}
	fd.palette = colors.palette;
	fd.paletteCount = colors.paletteCount;
	fd.vertexColor = colors.vertexColor;
	bool ok = bsSceneSurface_IncludePath(path, file, sizeof(file));
	if (!ok)
	{
		snprintf(err, errlen, "%s: path too long", path);
	}
	ok = ok && bsSurfaceFile_WritePov(file, &fd, err, errlen);
	bsSurfaceColors_Free(&colors);
	if (ok)
	{
		snprintf(include, includeSize, "%s", bsBaseName(file));
	}
	if (ok && s->obj)
	{
		ok = bsSiblingPath(file, sizeof(file), path, "_surface.obj") && bsSurfaceFile_WriteObj(file, &fd, err, errlen);
	}
	if (ok && s->ply)
	{
		ok = bsSiblingPath(file, sizeof(file), path, "_surface.ply") && bsPly_WriteSurface(file, mesh, err, errlen);
	}
	return ok;
}

// The particles that can change the surface (bsBlobCull), compacted into centers and radii (NULL
// when the scene's are uniform); *kept their count. *centers NULL when the particles are not valid
// (bsPov_WriteScene, given them whole, names the problem). False when out of memory.
static bool bsCullParticles(bsSceneSurface* s, const bsPovScene* scene, bsVec3** centers, double** radii,
	float** colors, size_t* kept)
{
	const bsPovParticles* ps = &scene->particles;
	double uniform;
	double* component = bsComponentRadii(ps, &uniform);
	uint8_t* keep = malloc(ps->count + 1);
	bsBlobCullDef def = bsDefaultBlobCullDef();
	def.centers = ps->centers;
	def.radii = component;
	def.radius = uniform;
	def.count = ps->count;
	def.strength = ps->strength;
	def.threshold = ps->threshold;
	def.slack = bsPov_PositionStep(scene);  // how far the writer may round a centre or a radius
	def.threads = s->threads;
	size_t dropped = 0;
	bool ok = (ps->radii == NULL || component != NULL) && keep != NULL;
	bsResult r = ok ? bsBlobCull(&def, keep, &dropped) : bs_errOutOfMemory;
	free(component);
	if (r == bs_errInvalidArgument || r == bs_errNonFinite)
	{
		free(keep);
		*centers = NULL;
		*radii = NULL;
		return true;
	}
	ok = r == bs_ok;
	*centers = ok ? malloc((ps->count - dropped + 1) * sizeof(bsVec3)) : NULL;
	*radii = ok && ps->radii != NULL ? malloc((ps->count - dropped + 1) * sizeof(double)) : NULL;
	*colors = ok && ps->colors != NULL ? malloc((ps->count - dropped + 1) * 4 * sizeof(float)) : NULL;
	ok = ok && *centers != NULL && (ps->radii == NULL || *radii != NULL) && (ps->colors == NULL || *colors != NULL);
	*kept = 0;
	for (size_t i = 0; ok && i < ps->count; ++i)
	{
		if (keep[i])
		{
			(*centers)[*kept] = ps->centers[i];
			if (ps->radii != NULL)
			{
				(*radii)[*kept] = ps->radii[i];
			}
			if (ps->colors != NULL)
			{
				memcpy(*colors + 4 * *kept, ps->colors + 4 * i, 4 * sizeof(float));
			}
			*kept += 1;
		}
	}
	free(keep);
	if (ok)
	{
		s->cullComponents = ps->count;
		s->cullLeftOut = dropped;
		s->cullLeftOutAll += dropped;
		s->cullScenes += 1;
	}
	return ok;
}

// A blob scene, without the components that cannot change the surface when cull is on. The step the
// writer rounds positions within is the whole scene's (the smallest radius may be left out).
static bool bsWriteBlobScene(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen)
{
	bsPovParticles whole = scene->particles;
	// Every instance is seen, and the gas is one box.
	if (!s->cull || whole.count < 2 || whole.instances.object != NULL || whole.gas.file != NULL)
	{
		return bsPov_WriteScene(path, scene, err, errlen);
	}
	bsVec3* centers = NULL;
	double* radii = NULL;
	float* colors = NULL;
	size_t kept = 0;
	if (!bsCullParticles(s, scene, &centers, &radii, &colors, &kept))
	{
		free(centers);
		free(radii);
		free(colors);
		snprintf(err, errlen, "%s: out of memory finding the blob components that cannot change the surface", path);
		return false;
	}
	if (centers == NULL)
	{
		return bsPov_WriteScene(path, scene, err, errlen);
	}
	double step = scene->positionStep;
	scene->positionStep = bsPov_PositionStep(scene);
	scene->particles.centers = centers;
	scene->particles.radii = radii;
	scene->particles.colors = colors;
	scene->particles.count = kept;
	bool ok = bsPov_WriteScene(path, scene, err, errlen);
	scene->particles = whole;
	scene->positionStep = step;
	free(centers);
	free(radii);
	free(colors);
	return ok;
}

// A mesh scene from a built mesh: the surface files, then the scene including them.
static bool bsWriteMeshScene(bsSceneSurface* s, const char* path, bsPovScene* scene, const bsSurfaceMesh* mesh,
	double spacing, char* err, size_t errlen)
{
	char include[bsSurfacePathMax];
	if (!bsWriteSurfaceFiles(s, path, scene, mesh, spacing, include, sizeof(include), err, errlen))
	{
		return false;
	}
	scene->particles.surfaceInclude = include;
	bool ok = bsPov_WriteScene(path, scene, err, errlen);
	scene->particles.surfaceInclude = NULL;
	return ok;
}

// render.surface "auto": the blob or the mesh, whichever the cost model predicts cheaper
// (surface_cost.h); the mesh is built only when it could win.
static bool bsWriteAutoScene(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen)
{
	bsSurfaceCostInput in = bsSurfaceCost_Inputs(scene);
	bsSurfaceCost cost = bsSurfaceCost_Predict(&in);
	bsSurfaceMesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	double spacing = 0.0;
	bool ok = true, useMesh = false;
	if (scene->particles.count > 0 && !bsSurfaceCost_BlobBeforeMesh(&cost))
	{
		ok = bsBuildSurface(s, path, scene, &mesh, &spacing, err, errlen);
		in.triangles = (double)mesh.triangleCount;
		cost = bsSurfaceCost_Predict(&in);
		useMesh = bsSurfaceCost_MeshAfter(&cost);
	}
	s->autoInput = in;
	s->autoCost = cost;
	s->autoMesh = useMesh;
	s->autoScenes += ok;
	s->autoMeshScenes += ok && useMesh;
	if (ok)
	{
		ok = useMesh ? bsWriteMeshScene(s, path, scene, &mesh, spacing, err, errlen)
		             : bsWriteBlobScene(s, path, scene, err, errlen);
	}
	bsSurfaceMesh_Free(&mesh);
	return ok;
}

bool bsSceneSurface_WriteScene(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen)
{
	if (s->mode == bs_surfaceAuto)
	{
		return bsWriteAutoScene(s, path, scene, err, errlen);
	}
	if (s->mode != bs_surfaceMesh)
	{
		return bsWriteBlobScene(s, path, scene, err, errlen);
	}
	bsSurfaceMesh mesh;
	double spacing = 0.0;
	bool ok = bsBuildSurface(s, path, scene, &mesh, &spacing, err, errlen) &&
		bsWriteMeshScene(s, path, scene, &mesh, spacing, err, errlen);
	bsSurfaceMesh_Free(&mesh);
	return ok;
}

bool bsSceneSurface_WriteSample(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen)
{
	if (s->mode == bs_surfaceBlobs)
	{
		return bsWriteBlobScene(s, path, scene, err, errlen);
	}
	// The summary's "last scene" figures stay the image's.
	size_t triangles = s->triangles, vertices = s->vertices, full = s->trianglesFull;
	bool ok = true;
	if (s->mode == bs_surfaceAuto && !s->autoMesh)
	{
		ok = bsWriteBlobScene(s, path, scene, err, errlen);
	}
	else
	{
		bsSurfaceMesh mesh;
		double spacing = 0.0;
		ok = bsBuildSurface(s, path, scene, &mesh, &spacing, err, errlen) &&
			bsWriteMeshScene(s, path, scene, &mesh, spacing, err, errlen);
		bsSurfaceMesh_Free(&mesh);
		s->blurScenes += ok;
	}
	s->triangles = triangles;
	s->vertices = vertices;
	s->trianglesFull = full;
	return ok;
}

bool bsSceneSurface_IncludePath(const char* scenePath, char* out, size_t size)
{
	return bsSiblingPath(out, size, scenePath, "_surface.inc");
}

static void bsAddAutoSummary(const bsSceneSurface* s, cJSON* root)
{
	cJSON* a = cJSON_AddObjectToObject(root, "surface_auto");
	cJSON_AddNumberToObject(a, "scenes", s->autoScenes);
	cJSON_AddNumberToObject(a, "mesh_scenes", s->autoMeshScenes);
	cJSON_AddStringToObject(a, "choice", s->autoMesh ? "mesh" : "blob");
	cJSON* in = cJSON_AddObjectToObject(a, "inputs");
	cJSON_AddNumberToObject(in, "components", s->autoInput.components);
	cJSON_AddNumberToObject(in, "pixels", s->autoInput.pixels);
	cJSON_AddNumberToObject(in, "coverage", s->autoInput.coverage);
	cJSON_AddBoolToObject(in, "transparent", s->autoInput.transparent);
	if (s->autoInput.triangles >= 0.0)
	{
		cJSON_AddNumberToObject(in, "triangles", s->autoInput.triangles);
	}
	const bsSurfaceCost* c = &s->autoCost;
	cJSON* p = cJSON_AddObjectToObject(a, "predicted");
	cJSON_AddNumberToObject(p, "blob", c->blobParse + c->blobTrace);
	cJSON_AddNumberToObject(p, "blob_parse", c->blobParse);
	cJSON_AddNumberToObject(p, "blob_trace", c->blobTrace);
	cJSON_AddNumberToObject(p, "polygonize", c->polygonize);
	cJSON_AddNumberToObject(p, "mesh_trace", c->meshTrace);
	if (c->meshParse >= 0.0)
	{
		cJSON_AddNumberToObject(p, "mesh", c->meshParse + c->meshTrace);
		cJSON_AddNumberToObject(p, "mesh_parse", c->meshParse);
	}
}

void bsSceneSurface_AddSummary(const bsSceneSurface* s, cJSON* root)
{
	if (s->cull && s->cullScenes > 0)
	{
		cJSON* c = cJSON_AddObjectToObject(root, "blob_cull");
		cJSON_AddNumberToObject(c, "components", (double)s->cullComponents);
		cJSON_AddNumberToObject(c, "left_out", (double)s->cullLeftOut);
		cJSON_AddNumberToObject(c, "left_out_all", (double)s->cullLeftOutAll);
		cJSON_AddNumberToObject(c, "scenes", s->cullScenes);
	}
	if (s->mode == bs_surfaceAuto && s->autoScenes > 0)
	{
		bsAddAutoSummary(s, root);
	}
	if (s->mode != bs_surfaceMesh && s->scenes == 0)
	{
		return;
	}
	cJSON* o = cJSON_AddObjectToObject(root, "surface");
	cJSON_AddNumberToObject(o, "spacing", s->spacing);
	cJSON_AddNumberToObject(o, "triangles", (double)s->triangles);
	cJSON_AddNumberToObject(o, "vertices", (double)s->vertices);
	cJSON_AddNumberToObject(o, "scenes", s->scenes - s->blurScenes);
	if (s->blurScenes > 0)
	{
		cJSON_AddNumberToObject(o, "blur_scenes", s->blurScenes);
	}
	cJSON_AddNumberToObject(o, "seconds", s->seconds);
	if (s->simplifyError > 0.0)
	{
		cJSON* d = cJSON_AddObjectToObject(o, "simplify");
		cJSON_AddNumberToObject(d, "error", s->simplifyError);
		cJSON_AddNumberToObject(d, "angle", s->simplifyAngle);
		cJSON_AddNumberToObject(d, "triangles_full", (double)s->trianglesFull);
		cJSON_AddNumberToObject(d, "seconds", s->simplifySeconds);
		cJSON_AddNumberToObject(d, "not_closed", s->notClosed);
		cJSON_AddNumberToObject(d, "passes", s->simplifyPasses);
	}
}
