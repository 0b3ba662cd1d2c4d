// config_read.c — the whole config, from the JSON tree into a bsConfig: the top level's key table (its
// sections' schemas, so that --set walks them), the environment and output sections, and bsReadConfig,
// which reads the sections in order (each section's keys and readers are in config_<section>.c). A key
// whose value needs no more than its type, range and default is a row of its section's table, read by
// bsReadFields; the readers do only what a row cannot say: choices, checks across keys, arrays of objects.
#include "config_read.h"

#include "config_bodies.h"
#include "config_fluid.h"
#include "config_material.h"
#include "config_trail.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

static const bsSchemaKey bsMeshKeys[] = {
	BS_REQUIRED_FILE("file", bsMeshConfig, file),
	BS_VEC3("translate", bsMeshConfig, translate, &bsAnyNumber, "3 numbers", 0, 0, 0),
	BS_VEC3("rotate", bsMeshConfig, rotate, &bsAnyNumber, "3 numbers (degrees)", 0, 0, 0),
	BS_KEY("scale", BS_VALUE),
	BS_KEY("material", &bsMaterialSchema),
	BS_KEY("materials", &bsMaterialMapSchema)};

static const bsSchema bsMeshSchema = BS_ELEMENT(bsMeshKeys, "an object (a mesh)");

static const bsSchema bsMeshArraySchema = BS_ARRAY(&bsMeshSchema);

static const bsSchemaKey bsPlaneKeys[] = {
	BS_VEC3("point", bsPlaneConfig, point, &bsAnyNumber, "3 numbers", 0, 0, 0),
	BS_VEC3("normal", bsPlaneConfig, normal, &bsAnyNumber, BS_NORMAL_WHAT, 0, 1, 0),
	BS_KEY("material", &bsMaterialSchema)};

static const bsSchema bsPlaneSchema = BS_ELEMENT(bsPlaneKeys, "an object (a plane)");

static const bsSchema bsPlaneArraySchema = BS_ARRAY(&bsPlaneSchema);

static const bsSchemaKey bsEnvironmentKeys[] = {
	BS_KEY("meshes", &bsMeshArraySchema), BS_KEY("planes", &bsPlaneArraySchema), BS_KEY("bodies", &bsBodyArraySchema),
	BS_KEY("dynamics", &bsDynamicsSchema)};

static const bsSchema bsEnvironmentSchema = BS_OBJECT(bsEnvironmentKeys);

static const bsSchemaKey bsOutputKeys[] = {
	BS_FILE("directory", bsOutputConfig, directory, "out"),
	BS_INT("frame_every", bsOutputConfig, frameEvery, 0, INT_MAX, 0),
	BS_KEY("cache", BS_VALUE),
	BS_INT("checkpoint", bsOutputConfig, checkpointEvery, 0, INT_MAX, 0)};

static const bsSchema bsOutputSchema = BS_OBJECT(bsOutputKeys);

static const bsSchemaKey bsRootKeys[] = {BS_KEY("seed", BS_VALUE),
	BS_KEY("environment", &bsEnvironmentSchema), BS_KEY("particles", &bsParticlesSchema),
	BS_KEY("interactions", &bsSpeciesPairArraySchema),
	BS_KEY("motion", &bsMotionSchema), BS_KEY("collision", &bsCollisionSchema),
	BS_KEY("render", &bsRenderSchema), BS_KEY("output", &bsOutputSchema), BS_KEY("field", &bsFieldSchema)};

const bsSchema bsRootSchema = BS_OBJECT(bsRootKeys);

// A number s (stored as <s, s, s>) or 3 numbers, none zero.
static bool bsReadMeshScale(bsCtx* c, const cJSON* v, bsMeshConfig* mesh)
{
	const cJSON* scale = bsMember(v, "scale");
	if (scale == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "scale");
	static const bsRange nonZero = {-DBL_MAX, DBL_MAX, false, "a non-zero number"};
	const char* what = "a non-zero number or 3 non-zero numbers";
	if (cJSON_IsNumber(scale))
	{
		double s = scale->valuedouble;
		if (!isfinite(s) || s == 0.0)
		{
			return bsFailExpected(c, what, scale);
		}
		mesh->scale = bsV3(s, s, s);
	}
	else if (!bsVec3FromValue(c, scale, &nonZero, what, &mesh->scale))
	{
		return false;
	}
	if (mesh->scale.x == 0.0 || mesh->scale.y == 0.0 || mesh->scale.z == 0.0)
	{
		return bsFailExpected(c, what, scale);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadMesh(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsMeshConfig* mesh = element;
	mesh->scale = bsV3(1.0, 1.0, 1.0);
	return bsReadElementFields(c, v, &bsMeshSchema, mesh) && bsReadMeshScale(c, v, mesh) &&
		bsReadMaterial(c, v, "material", "white", &mesh->material) &&
		bsReadGroupMaterials(c, v, mesh);
}

static bool bsReadPlane(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsPlaneConfig* plane = element;
	if (!bsReadElementFields(c, v, &bsPlaneSchema, plane))
	{
		return false;
	}
	// Scaled by the largest component first, so tiny and huge normals normalise too.
	double m = bsMaxAbs(plane->normal);
	if (m == 0.0)
	{
		bsPushKey(c, "normal");
		return bsFailExpected(c, BS_NORMAL_WHAT, bsMember(v, "normal"));
	}
	bsVec3 n = bsV3(plane->normal.x / m, plane->normal.y / m, plane->normal.z / m);
	plane->normal = bsNormalize(n);
	return bsReadMaterial(c, v, "material", "white", &plane->material);
}

static bool bsReadEnvironment(bsCtx* c, const cJSON* root, bsEnvironmentConfig* env)
{
	const cJSON* e;
	if (!bsReadObject(c, root, "environment", &bsEnvironmentSchema, &e))
	{
		return false;
	}
	if (e == NULL)
	{
		return bsMissing(c, "environment");
	}
	size_t mark = bsPushKey(c, "environment");
	const cJSON* meshes;
	const cJSON* planes;
	int meshCount, planeCount;
	if (!bsReadArray(c, e, "meshes", "an array of meshes", &meshes, &meshCount) ||
		!bsReadArray(c, e, "planes", "an array of planes", &planes, &planeCount))
	{
		return false;
	}
	if (meshCount + (double)planeCount < 1.0)
	{
		return bsFail(c, "expected at least one mesh or plane");
	}
	env->meshes = meshCount > 0 ? calloc((size_t)meshCount, sizeof *env->meshes) : NULL;
	env->planes = planeCount > 0 ? calloc((size_t)planeCount, sizeof *env->planes) : NULL;
	if ((meshCount > 0 && env->meshes == NULL) || (planeCount > 0 && env->planes == NULL))
	{
		return bsOutOfMemory(c);
	}
	if (!bsReadElements(c, "meshes", meshes, bsReadMesh, env->meshes, sizeof *env->meshes,
			&env->meshCount, NULL) ||
		!bsReadElements(c, "planes", planes, bsReadPlane, env->planes, sizeof *env->planes,
			&env->planeCount, NULL) ||
		!bsReadBodiesConfig(c, e, env))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// The per-frame cache and the checkpoints are written with the frames: both need output.frame_every.
static bool bsReadOutput(bsCtx* c, const cJSON* root, bsOutputConfig* out)
{
	if (!bsReadSection(c, root, "output", &bsOutputSchema, out))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "output");
	if (!bsReadBool(c, bsMember(root, "output"), "cache", false, &out->cache))
	{
		return false;
	}
	const char* needs = out->cache ? "cache" : out->checkpointEvery > 0 ? "checkpoint" : NULL;
	if (needs != NULL && out->frameEvery <= 0)
	{
		bsPushKey(c, needs);
		return bsFail(c, "%s is written with the frames: set output.frame_every too (e.g. 10)",
			out->cache ? "the per-frame cache" : "a checkpoint");
	}
	bsPop(c, mark);
	return true;
}

bool bsReadConfig(bsCtx* c, const cJSON* root, bsConfig* config)
{
	if (!cJSON_IsObject(root))
	{
		return bsFailExpected(c, "a JSON object at the top level", root);
	}
	if (!bsCheckKeys(c, root, bsRootKeys, BS_COUNT(bsRootKeys)))
	{
		return false;
	}
	double seed;
	if (!bsReadInteger(c, root, "seed", 0.0, 9007199254740991.0, 1.0, &seed))
	{
		return false;
	}
	config->seed = (uint64_t)seed;
	config->step = bsDefaultStepDef();
	return bsReadEnvironment(c, root, &config->environment) &&
		bsReadParticles(c, root, &config->particles) && bsReadInteraction(c, root, config) &&
		bsReadInteractions(c, root, config) && bsResolveTrails(c, root, &config->particles) &&
		bsReadMotion(c, root, config) &&
		bsReadCollision(c, root, &config->step) &&
		bsReadRender(c, root, &config->render, bsFluidMaterial_Look(config->particles.material)) &&
		bsCheckSpeciesLooks(c, config) && bsCheckGasLooks(c, config) && bsCheckInstanceRotation(c, config) &&
		bsReadOutput(c, root, &config->output) &&
		bsReadFieldConfig(c, root, &config->field);
}
