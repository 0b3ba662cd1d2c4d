// config_render.c — render: camera, lights, the blob and mesh looks, instances, motion blur and gas, and the
// checks across render and particles (which looks go with several species, ramps or spins).
#include "config_read.h"

#include "config_instances.h"
#include "config_material.h"
#include "pov_writer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const bsRange bsAngle = {1.0, 179.0, false, "a number from 1 to 179 (degrees)"};

static const bsSchemaKey bsCameraKeys[] = {
	BS_VEC3("location", bsCameraConfig, location, &bsAnyNumber, "3 numbers", 0, 2, -5),
	BS_VEC3("look_at", bsCameraConfig, lookAt, &bsAnyNumber, "3 numbers", 0, 0, 0),
	BS_NUMBER("angle", bsCameraConfig, angle, &bsAngle, 60)};

static const bsSchema bsCameraSchema = BS_OBJECT(bsCameraKeys);

static const bsSchemaKey bsLightKeys[] = {
	BS_REQUIRED_VEC3("location", bsLightConfig, location, &bsAnyNumber, "3 numbers"),
	BS_VEC3("color", bsLightConfig, color, &bsNonNegative, "3 numbers >= 0 (rgb)", 1, 1, 1)};

static const bsSchema bsLightSchema = BS_ELEMENT(bsLightKeys, "an object (a light)");

static const bsSchema bsLightArraySchema = BS_ARRAY(&bsLightSchema);

static const bsRange bsSurfaceSpacing = {0.05, 2.0, false, "a number from 0.05 to 2 (component radii)"};

static const bsSchemaKey bsBlobKeys[] = {
	BS_NUMBER("threshold", bsBlobConfig, threshold, &bsPositive, 0.6),
	BS_NUMBER("strength", bsBlobConfig, strength, &bsPositive, 1),
	BS_NUMBER("radius_scale", bsBlobConfig, radiusScale, &bsPositive, 1.6),
	BS_INT("max_components", bsBlobConfig, maxComponents, 1, INT_MAX, 30000),
	BS_KEY("cull", BS_VALUE)};

static const bsSchema bsBlobSchema = BS_OBJECT(bsBlobKeys);

static const bsRange bsSimplifyError = {0.0, 1.0, false, "a number from 0 to 1 (grid cells; 0: no decimation)"};

static const bsRange bsSimplifyAngle = {1.0, 90.0, false, "a number from 1 to 90 (degrees)"};

static const bsSchemaKey bsMeshRenderKeys[] = {
	BS_NUMBER("simplify_error", bsMeshRenderConfig, simplifyError, &bsSimplifyError, 0),
	BS_NUMBER("simplify_angle", bsMeshRenderConfig, simplifyAngle, &bsSimplifyAngle, 10)};

static const bsSchema bsMeshRenderSchema = BS_OBJECT(bsMeshRenderKeys);

static const bsRange bsShutterAngle = {0.0, 360.0, false, "a number from 0 to 360 (degrees)"};

static const bsSchemaKey bsMotionBlurKeys[] = {
	BS_NUMBER("shutter_angle", bsMotionBlurConfig, shutterAngle, &bsShutterAngle, 180),
	BS_INT("samples", bsMotionBlurConfig, samples, 2, 64, 8)};

static const bsSchema bsMotionBlurSchema = BS_OBJECT(bsMotionBlurKeys);

static const bsSchemaKey bsGasKeys[] = {
	BS_VEC3("color", bsGasConfig, color, &bsUnit, "3 numbers from 0 to 1 (rgb)", 1, 0.55, 0.2),
	BS_NUMBER("density", bsGasConfig, density, &bsPositive, 4),
	BS_NUMBER("emission", bsGasConfig, emission, &bsNonNegative, 1),
	BS_NUMBER("absorption", bsGasConfig, absorption, &bsNonNegative, 1),
	BS_NUMBER("scattering", bsGasConfig, scattering, &bsNonNegative, 0),
	BS_NUMBER("radius_scale", bsGasConfig, radiusScale, &bsPositive, 2),
	BS_NUMBER("growth", bsGasConfig, growth, &bsNonNegative, 0),
	BS_NUMBER("fade", bsGasConfig, fade, &bsNonNegative, 0),
	BS_INT("samples", bsGasConfig, samples, 1, 100, 5),
	BS_INT("resolution", bsGasConfig, resolution, 8, 512, 96)};

static const bsSchema bsGasSchema = BS_OBJECT(bsGasKeys);

static const bsSchemaKey bsRenderKeys[] = {
	BS_KEY("camera", &bsCameraSchema),
	BS_KEY("lights", &bsLightArraySchema),
	BS_VEC3("background", bsRenderConfig, background, &bsUnit, "3 numbers from 0 to 1 (rgb)", 1, 1, 1),
	BS_INT("width", bsRenderConfig, width, 16, 16384, 800),
	BS_INT("height", bsRenderConfig, height, 16, 16384, 600),
	BS_NUMBER("antialias", bsRenderConfig, antialias, &bsNonNegative, 0.3),
	BS_NUMBER("jitter", bsRenderConfig, jitter, &bsNonNegative, 1),
	BS_KEY("movie", BS_VALUE),
	BS_INT("fps", bsRenderConfig, fps, 1, 240, 25),
	BS_KEY("blob", &bsBlobSchema),
	BS_KEY("particle_material", &bsMaterialSchema),
	BS_KEY("surface", BS_VALUE),
	BS_NUMBER("surface_spacing", bsRenderConfig, surfaceSpacing, &bsSurfaceSpacing, 0.3),
	BS_KEY("surface_files", BS_VALUE),
	BS_KEY("mesh", &bsMeshRenderSchema),
	BS_NUMBER("sensors", bsRenderConfig, sensors, &bsNonNegative, 0),
	BS_KEY("instances", &bsInstancesSchema),
	BS_KEY("motion_blur", &bsMotionBlurSchema),
	BS_KEY("gas", &bsGasSchema)};

const bsSchema bsRenderSchema = BS_OBJECT(bsRenderKeys);

static bool bsReadCamera(bsCtx* c, const cJSON* render, bsCameraConfig* camera)
{
	if (!bsReadSection(c, render, "camera", &bsCameraSchema, camera))
	{
		return false;
	}
	bsVec3 at = camera->lookAt;
	if (camera->location.x == at.x && camera->location.y == at.y && camera->location.z == at.z)
	{
		bsPushKey(c, "camera");
		bsPushKey(c, "look_at");
		return bsFail(c, "the camera looks at its own location <%g, %g, %g>", at.x, at.y, at.z);
	}
	// The scene writer would refuse it after the whole simulation, naming scene.pov.
	const char* why = bsPov_CameraViewProblem(camera->location, at, bsV3(0.0, 0.0, 0.0));
	if (why != NULL)
	{
		bsVec3 l = camera->location;
		bsPushKey(c, "camera");
		bsPushKey(c, "location");
		return bsFail(c, "the camera at <%g, %g, %g> cannot look at <%g, %g, %g>: %s%s", l.x, l.y, l.z,
			at.x, at.y, at.z, why, strstr(why, "sky") != NULL ? " (the sky, the image's up direction, is y)" : "");
	}
	return true;
}

static bool bsReadLight(bsCtx* c, const cJSON* v, void* element, void* user)
{
	return bsReadElementFields(c, v, &bsLightSchema, element);
}

// Absent: one white light; [] gives no light.
static bool bsReadLights(bsCtx* c, const cJSON* render, bsRenderConfig* r)
{
	const cJSON* lights;
	int lightCount;
	if (!bsReadArray(c, render, "lights", "an array of lights", &lights, &lightCount))
	{
		return false;
	}
	if (lights != NULL && lightCount == 0)
	{
		return true;
	}
	r->lights = calloc(lights == NULL ? 1 : (size_t)lightCount, sizeof *r->lights);
	if (r->lights == NULL)
	{
		return bsOutOfMemory(c);
	}
	if (lights == NULL)
	{
		r->lightCount = 1;
		r->lights[0].location = bsV3(5.0, 10.0, -5.0);
		r->lights[0].color = bsV3(1.0, 1.0, 1.0);
		return true;
	}
	return bsReadElements(c, "lights", lights, bsReadLight, r->lights, sizeof *r->lights,
		&r->lightCount, NULL);
}

// The blob section; its threshold must be below its strength.
static bool bsReadBlob(bsCtx* c, const cJSON* render, bsBlobConfig* blob)
{
	if (!bsReadSection(c, render, "blob", &bsBlobSchema, blob))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "blob");
	if (!bsReadBool(c, bsMember(render, "blob"), "cull", false, &blob->cull))
	{
		return false;
	}
	bsPop(c, mark);
	if (blob->threshold < blob->strength)
	{
		return true;
	}
	char strength[32];
	bsFormatNumber(blob->strength, strength);
	const cJSON* threshold = bsMember(bsMember(render, "blob"), "threshold");
	bsPushKey(c, "blob");
	bsPushKey(c, "threshold");
	if (threshold == NULL)
	{
		return bsFail(c, "the default threshold 0.6 is not below strength %s", strength);
	}
	char what[96];
	snprintf(what, sizeof what, "a number > 0 and below strength %s", strength);
	return bsFailExpected(c, what, threshold);
}

// render.surface and render.surface_files.
static bool bsReadRenderSurface(bsCtx* c, const cJSON* render, bsRenderConfig* r)
{
	static const char* const surfaces[] = {"blob", "mesh", "auto"};
	if (!bsReadChoice(c, render, "surface", false, surfaces, BS_COUNT(surfaces), bs_surfaceBlobs, &r->surface))
	{
		return false;
	}
	const cJSON* files;
	int count;
	if (!bsReadArray(c, render, "surface_files", "an array of \"obj\" and \"ply\"", &files, &count))
	{
		return false;
	}
	if (files == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "surface_files");
	int i = 0;
	for (const cJSON* e = files->child; e != NULL; e = e->next, ++i)
	{
		size_t at = bsPushIndex(c, i);
		if (cJSON_IsString(e) && strcmp(e->valuestring, "obj") == 0)
		{
			r->surfaceObj = true;
		}
		else if (cJSON_IsString(e) && strcmp(e->valuestring, "ply") == 0)
		{
			r->surfacePly = true;
		}
		else
		{
			return bsFailExpected(c, "\"obj\" or \"ply\"", e);
		}
		bsPop(c, at);
	}
	bsPop(c, mark);
	return true;
}

// render.motion_blur (docs/rendering.md). With render.surface "mesh" or "auto" each sub-frame scene
// has its own surface files, polygonized at its time (scene_surface.h).
static bool bsReadMotionBlur(bsCtx* c, const cJSON* render, bsRenderConfig* r)
{
	const cJSON* o;
	if (!bsReadObject(c, render, "motion_blur", &bsMotionBlurSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "motion_blur");
	r->motionBlur.enabled = o != NULL;
	if (!bsReadFields(c, o, &bsMotionBlurSchema, &r->motionBlur))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// render.gas (docs/rendering.md): the puffs replace the blobs, so a mesh surface or instances with it
// are refused.
static bool bsReadGas(bsCtx* c, const cJSON* render, bsRenderConfig* r)
{
	const cJSON* o;
	if (!bsReadObject(c, render, "gas", &bsGasSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "gas");
	r->gas.enabled = o != NULL;
	if (!bsReadFields(c, o, &bsGasSchema, &r->gas))
	{
		return false;
	}
	if (o != NULL && (r->surface != bs_surfaceBlobs || r->instances.enabled))
	{
		return bsFail(c, "draws the particles as media puffs: it cannot go with render.surface \"%s\" or "
			"render.instances", r->surface != bs_surfaceBlobs ? "mesh or auto" : "blob");
	}
	bsPop(c, mark);
	return true;
}

// look: the particles' material when render.particle_material is absent (NULL: "snow").
bool bsReadRender(bsCtx* c, const cJSON* root, bsRenderConfig* r, const char* look)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "render", &bsRenderSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "render");
	if (!bsReadCamera(c, o, &r->camera) || !bsReadLights(c, o, r) ||
		!bsReadFields(c, o, &bsRenderSchema, r) || !bsReadBool(c, o, "movie", false, &r->movie) ||
		!bsReadBlob(c, o, &r->blob) ||
		!bsReadMaterial(c, o, "particle_material", look != NULL ? look : "snow", &r->particleMaterial) ||
		!bsReadRenderSurface(c, o, r) || !bsReadSection(c, o, "mesh", &bsMeshRenderSchema, &r->mesh) ||
		!bsReadInstances(c, o, r->surface, &r->instances) || !bsReadMotionBlur(c, o, r) ||
		!bsReadGas(c, o, r))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// render.gas's puffs (which grow and fade by their own settings) are one set of particles in one
// material: several species or over-life ramps would be lost in them. (render.motion_blur's samples
// draw each species with its looks at the sample's time: motion_blur.h.)
bool bsCheckGasLooks(bsCtx* c, const bsConfig* config)
{
	const bsParticlesConfig* pc = &config->particles;
	bool ramps = bsOverLife_Any(&pc->overLife);
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		ramps = ramps || bsOverLife_Any(&pc->species[k].overLife);
	}
	if (!config->render.gas.enabled || (pc->speciesCount <= 1 && !ramps))
	{
		return true;
	}
	bsPushKey(c, "render");
	bsPushKey(c, "gas");
	return bsFail(c, "draws one set of particles in one material: it cannot go with %s",
		pc->speciesCount > 1 ? "several species" : "particles.over_life");
}

// Several species draw as blobs, one set of blob objects each: the mesh surface (one field polygonized)
// and the instances (one object) draw one species, so they are refused with several.
bool bsCheckSpeciesLooks(bsCtx* c, const bsConfig* config)
{
	int n = config->particles.speciesCount;
	if (n <= 1 || (config->render.surface == bs_surfaceBlobs && !config->render.instances.enabled))
	{
		return true;
	}
	bsPushKey(c, "render");
	bsPushKey(c, config->render.instances.enabled ? "instances" : "surface");
	return bsFail(c, "draws one species, and particles has %d: with several species the particles are blobs "
		"(render.surface \"blob\", no render.instances)", n);
}

// render.instances.orient "rotation" turns each object by its particle's orientation, which the spins
// turn: without particles.interaction.rotation nothing spins.
bool bsCheckInstanceRotation(bsCtx* c, const bsConfig* config)
{
	if (!config->render.instances.rotation || config->step.interaction.rotation)
	{
		return true;
	}
	bsPushKey(c, "render");
	bsPushKey(c, "instances");
	bsPushKey(c, "orient");
	return bsFail(c, "\"rotation\" turns each object by its particle's spin, and the particles do not spin: set "
		"particles.interaction.rotation to true (granular), or use \"velocity\" or \"none\"");
}
