// config_read.c — the sections of a config, from the JSON tree into a bsConfig: their key tables
// (every key of docs/config.md) and their readers. A key whose value needs no more than its type,
// range and default is a row of its section's table, read by bsReadFields; the readers below do only
// what a row cannot say: choices, checks across keys, arrays of objects.
#include "config_read.h"

#include "config_bodies.h"
#include "config_fluid.h"
#include "config_instances.h"
#include "config_material.h"
#include "config_path.h"
#include "config_track.h"
#include "config_trail.h"
#include "pov_writer.h"
#include "core.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- The schema ---

#define BS_NORMAL_WHAT "3 numbers, not all zero"

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

// Every emitter key; each type allows a subset (its key table in bsEmitterReaders: bsGridKeys,
// bsRandomKeys, bsFileKeys, bsNozzleKeys, bsSurfaceKeys, bsTrailKeys), and every type the timing keys
// (BS_TIMING_KEYS, with the motion; a trail's its own, without).
// An emitter's motion (emitter.h: bsEmitterMotion), every type's too: three keyframe tracks; and its
// rate, a number or keys (the keys' schema, so that --set reaches rate.K.value).
static const bsSchema bsMotionTrackSchema = BS_ARRAY(&bsTrackKeySchema);
static const bsSchemaKey bsEmitterMotionKeys[] = {BS_KEY("translate", &bsMotionTrackSchema),
	BS_KEY("rotate", &bsMotionTrackSchema), BS_KEY("scale", &bsMotionTrackSchema)};
static const bsSchema bsEmitterMotionSchema = BS_OBJECT(bsEmitterMotionKeys);
#define BS_TIMING_KEYS BS_KEY("start", BS_VALUE), BS_KEY("stop", BS_VALUE), BS_KEY("rate", &bsMotionTrackSchema), \
	BS_KEY("motion", &bsEmitterMotionSchema)
static const bsSchemaKey bsEmitterKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("jitter", BS_VALUE),
	BS_KEY("file", BS_VALUE), BS_KEY("center", BS_VALUE), BS_KEY("direction", BS_VALUE),
	BS_KEY("disk_radius", BS_VALUE), BS_KEY("cone_angle", BS_VALUE), BS_KEY("speed", BS_VALUE),
	BS_KEY("mesh", BS_VALUE), BS_KEY("body", BS_VALUE), BS_KEY("group", BS_VALUE), BS_KEY("gap", BS_VALUE),
	BS_KEY("side", BS_VALUE), BS_KEY("source", BS_VALUE), BS_KEY("inherit", BS_VALUE), BS_KEY("offset", BS_VALUE),
	BS_KEY("on", BS_VALUE), BS_KEY("count_per_speed", BS_VALUE), BS_TIMING_KEYS};
static const bsSchema bsEmitterSchema = BS_ELEMENT(bsEmitterKeys, "an object (an emitter)");
static const bsSchema bsEmitterArraySchema = BS_ARRAY(&bsEmitterSchema);
static const bsSchemaKey bsGridKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("jitter", BS_VALUE), BS_TIMING_KEYS};
static const bsSchemaKey bsRandomKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};
static const bsSchemaKey bsFileKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("file", BS_VALUE), BS_TIMING_KEYS};
static const bsSchemaKey bsNozzleKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("center", BS_VALUE),
	BS_KEY("direction", BS_VALUE), BS_KEY("disk_radius", BS_VALUE), BS_KEY("cone_angle", BS_VALUE),
	BS_KEY("speed", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};
static const bsSchemaKey bsTrailKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("source", BS_VALUE), BS_KEY("inherit", BS_VALUE),
	BS_KEY("offset", BS_VALUE), BS_KEY("start", BS_VALUE), BS_KEY("stop", BS_VALUE), BS_KEY("rate", &bsMotionTrackSchema),
	BS_KEY("on", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("count_per_speed", BS_VALUE),
	BS_KEY("cone_angle", BS_VALUE), BS_KEY("speed", BS_VALUE)};
static const bsSchemaKey bsSurfaceKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("mesh", BS_VALUE), BS_KEY("body", BS_VALUE),
	BS_KEY("group", BS_VALUE), BS_KEY("gap", BS_VALUE), BS_KEY("side", BS_VALUE), BS_KEY("cone_angle", BS_VALUE),
	BS_KEY("speed", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};

// particles.interaction: a type name, or an object with a type and that type's keys (bsCheckKeysOf),
// read straight into the config's bsStepDef.interaction (filled by bsDefaultStepDef() first).
static const bsRange bsOpenUnit = {0.0, 1.0, true, "a number > 0 and <= 1"};
static const bsRange bsRangeFactor = {1.0, 1000.0, false, "a number from 1 to 1000"};
static const bsRange bsTangentialDamping = {0.0, 10.0, false, "a number from 0 to 10"};
static const bsRange bsFlowIndex = {0.2, 2.0, false, "a number from 0.2 to 2"};
static const bsRange bsSkinRange = {0.0, 10.0, false, "a number from 0 to 10"};
static const bsRange bsPoisson = {0.0, 0.5, false, "a number from 0 to 0.5"};
#define BS_INTERACTION_KEY(K, M, R) BS_NUMBER_IN(K, bsInteractionDef, M, R)
#define BS_INTERACTION_DENSITY_KEYS BS_KEY("type", BS_VALUE), BS_INTERACTION_KEY("density", density, &bsPositive)
#define BS_INTERACTION_COMMON_KEYS BS_INTERACTION_DENSITY_KEYS, \
	BS_INTERACTION_KEY("cohesion", cohesion, &bsNonNegative), \
	BS_INTERACTION_KEY("cohesion_range", cohesionRange, &bsRangeFactor), \
	BS_INTERACTION_KEY("viscosity", viscosity, &bsNonNegative), \
	BS_INTERACTION_KEY("skin", skin, &bsSkinRange)
#define BS_REPULSION_KEYS BS_INTERACTION_KEY("strength", strength, &bsPositive), \
	BS_INTERACTION_KEY("range", range, &bsRangeFactor)
#define BS_GRANULAR_KEYS BS_INTERACTION_KEY("restitution", restitution, &bsOpenUnit), \
	BS_INTERACTION_KEY("contact_time", contactTime, &bsPositive), \
	BS_INTERACTION_KEY("stiffness", stiffness, &bsPositive), \
	BS_INTERACTION_KEY("friction", friction, &bsNonNegative), \
	BS_INTERACTION_KEY("tangential_damping", tangentialDamping, &bsTangentialDamping), \
	BS_INTERACTION_KEY("tangential_stiffness", tangentialStiffness, &bsUnit), \
	BS_KEY("contact_model", BS_VALUE), \
	BS_INTERACTION_KEY("youngs_modulus", youngsModulus, &bsPositive), \
	BS_INTERACTION_KEY("poisson_ratio", poissonRatio, &bsPoisson), \
	BS_KEY("rotation", BS_VALUE), \
	BS_INTERACTION_KEY("rolling_friction", rollingFriction, &bsNonNegative), \
	BS_INTERACTION_KEY("rolling_friction_fresh", rollingFresh, &bsNonNegative), \
	BS_KEY("rolling_model", BS_VALUE), \
	BS_INTERACTION_KEY("bond_strength", bondStrength, &bsNonNegative), \
	BS_INTERACTION_KEY("sintering_time", sinteringTime, &bsPositive), \
	BS_INTERACTION_KEY("wall_bond", wallBond, &bsNonNegative)
// The fluid's own keys (bsFluidDef): not the pair kinds' cohesion, cohesion_range and viscosity. Its
// checks across keys are bsCheckFluid's (config_fluid.c).
#define BS_FLUID_KEY(K, M, R) BS_INTERACTION_KEY(K, fluid.M, R)
#define BS_FLUID_INT(K, M) BS_INT_IN(K, bsInteractionDef, fluid.M, 1, 10000)
#define BS_FLUID_KEYS BS_FLUID_KEY("kinematic_viscosity", kinematicViscosity, &bsNonNegative), \
	BS_FLUID_KEY("wall_viscosity", wallViscosity, &bsNonNegative), \
	BS_FLUID_KEY("yield_stress", yieldStress, &bsNonNegative), \
	BS_FLUID_KEY("flow_index", flowIndex, &bsFlowIndex), \
	BS_FLUID_KEY("max_viscosity", maxViscosity, &bsNonNegative), \
	BS_FLUID_KEY("surface_tension", surfaceTension, &bsNonNegative), \
	BS_FLUID_KEY("adhesion", adhesion, &bsNonNegative), \
	BS_FLUID_KEY("density_error", densityError, &bsPositive), \
	BS_FLUID_KEY("density_error_max", densityErrorMax, &bsPositive), \
	BS_FLUID_KEY("divergence_error", divergenceError, &bsPositive), \
	BS_FLUID_INT("max_iterations", maxIterations), \
	BS_FLUID_KEY("viscosity_error", viscosityError, &bsPositive), \
	BS_FLUID_INT("max_viscosity_iterations", maxViscosityIterations), \
	BS_FLUID_KEY("cfl", cfl, &bsOpenUnit)
static const bsSchemaKey bsInteractionKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_REPULSION_KEYS, BS_GRANULAR_KEYS,
	BS_FLUID_KEYS};
static const bsSchema bsInteractionSchema = BS_OBJECT(bsInteractionKeys);
static const bsSchemaKey bsNoInteractionKeys[] = {BS_KEY("type", BS_VALUE)};
static const bsSchemaKey bsRepulsionKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_REPULSION_KEYS};
static const bsSchemaKey bsGranularKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_GRANULAR_KEYS};
static const bsSchemaKey bsFluidKeys[] = {BS_INTERACTION_DENSITY_KEYS, BS_FLUID_KEYS};

// The keys of each bsInteractionType, at its type (an error lists them); its name is the engine's
// (bsInteractionName). A new interaction is its key table and one line here.
typedef struct bsInteractionKeyTable
{
	const bsSchemaKey* keys;
	int count;
} bsInteractionKeyTable;

static const bsInteractionKeyTable bsInteractionKeysOf[] = {
	[bs_interactionNone] = {bsNoInteractionKeys, BS_COUNT(bsNoInteractionKeys)},
	[bs_interactionRepulsion] = {bsRepulsionKeys, BS_COUNT(bsRepulsionKeys)},
	[bs_interactionGranular] = {bsGranularKeys, BS_COUNT(bsGranularKeys)},
	[bs_interactionFluid] = {bsFluidKeys, BS_COUNT(bsFluidKeys)},
};
_Static_assert(BS_COUNT(bsInteractionKeysOf) == bs_interactionCount, "config keys for every interaction type");

static const bsSchema bsTrackKeyArraySchema = BS_ARRAY(&bsTrackKeySchema);
// particles.over_life: ramps keyed by age (config.h: bsOverLifeConfig), read by bsReadOverLife.
static const bsSchemaKey bsOverLifeKeys[] = {BS_KEY("radius", &bsTrackKeyArraySchema),
	BS_KEY("color", &bsTrackKeyArraySchema), BS_KEY("opacity", &bsTrackKeyArraySchema)};
static const bsSchema bsOverLifeSchema = BS_OBJECT(bsOverLifeKeys);

// motion.buoyancy and particles[k].buoyancy: a lift that decays with each particle's age (step.h: bsBuoyancyDef).
static const bsSchemaKey bsBuoyancyKeys[] = {
	BS_REQUIRED_VEC3("acceleration", bsBuoyancyDef, acceleration, &bsAnyNumber, "3 numbers"),
	BS_NUMBER_IN("decay", bsBuoyancyDef, decay, &bsNonNegative)};
static const bsSchema bsBuoyancySchema = BS_OBJECT(bsBuoyancyKeys);
static const bsSchemaKey bsParticlesKeys[] = {
	BS_REQUIRED_NUMBER("radius", bsParticlesConfig, radius, &bsPositive),
	BS_NUMBER("radius_spread", bsParticlesConfig, radiusSpread, &bsUnit, 0),
	BS_VEC3("velocity", bsParticlesConfig, velocity, &bsAnyNumber, "3 numbers", 0, 0, 0),
	BS_NUMBER("lifetime", bsParticlesConfig, lifetime, &bsPositive, (double)INFINITY),
	BS_KEY("accumulate", BS_VALUE),
	BS_KEY("interaction", &bsInteractionSchema),
	BS_KEY("material", BS_VALUE),
	BS_KEY("over_life", &bsOverLifeSchema),
	BS_KEY("name", BS_VALUE),
	BS_KEY("look", &bsMaterialSchema),
	BS_KEY("buoyancy", &bsBuoyancySchema),
	BS_KEY("emitters", &bsEmitterArraySchema)};
// An object, or (element: itself) a list of such objects, one a species (--set walks either).
static const bsSchema bsParticlesSchema = {bs_kindObject, bsParticlesKeys, BS_COUNT(bsParticlesKeys), &bsParticlesSchema,
	NULL};

// motion and collision are read straight into the config's bsStepDef (filled by bsDefaultStepDef()
// first, so the defaults are the engine's).
// motion.sleep: present, it turns rest on (steps 10 unless given); absent, particles never sleep.
static const bsSchemaKey bsSleepKeys[] = {
	BS_INT("steps", bsStepDef, sleepSteps, 1, INT_MAX, 10),
	BS_NUMBER("speed", bsStepDef, sleepSpeed, &bsNonNegative, 0),
	BS_NUMBER("acceleration", bsStepDef, sleepAcceleration, &bsNonNegative, 0),
	BS_NUMBER("wake_speed", bsStepDef, wakeSpeed, &bsNonNegative, 0)};
static const bsSchema bsSleepSchema = BS_OBJECT(bsSleepKeys);
// motion.radial: a push away from a point (step.h), read into a bsRadialDef filled with its
// defaults first; falloff is a choice, center and strength a value or keys, and body an index of
// environment.bodies, read by bsReadRadial.
static const bsSchemaKey bsRadialKeys[] = {
	BS_KEY("center", BS_VALUE),
	BS_KEY("body", BS_VALUE),
	BS_KEY("strength", BS_VALUE),
	BS_KEY("falloff", BS_VALUE),
	BS_NUMBER_IN("radius", bsRadialDef, radius, &bsPositive),
	BS_NUMBER_IN("softening", bsRadialDef, softening, &bsPositive),
	BS_NUMBER_IN("start", bsRadialDef, start, &bsAnyNumber),
	BS_NUMBER_IN("duration", bsRadialDef, duration, &bsPositive)};
static const bsSchema bsRadialSchema = BS_ELEMENT(bsRadialKeys, "an object (a radial force)");
// motion.wind: a drag towards a moving air (step.h: bsWindDef), read into the step's wind (filled with its
// defaults first) by bsReadWind; velocity is a keyframe track (config_track.h).
static const bsSchemaKey bsGustKeys[] = {
	BS_NUMBER_IN("strength", bsWindDef, strength, &bsNonNegative),
	BS_NUMBER_IN("direction", bsWindDef, direction, &bsNonNegative),
	BS_NUMBER_IN("period", bsWindDef, period, &bsPositive)};
static const bsSchema bsGustSchema = BS_OBJECT(bsGustKeys);
static const bsSchemaKey bsWindKeys[] = {
	BS_REQUIRED_NUMBER("rate", bsWindDef, rate, &bsPositive),
	BS_KEY("velocity", &bsTrackKeyArraySchema),
	BS_KEY("gusts", &bsGustSchema)};
static const bsSchema bsWindSchema = BS_OBJECT(bsWindKeys);
// motion.turbulence: a drag towards curl noise (step.h: bsTurbulenceDef), read into the step's
// turbulence (filled with its defaults first).
static const bsSchemaKey bsTurbulenceKeys[] = {
	BS_REQUIRED_NUMBER("rate", bsTurbulenceDef, rate, &bsPositive),
	BS_REQUIRED_NUMBER("amplitude", bsTurbulenceDef, amplitude, &bsPositive),
	BS_NUMBER_IN("scale", bsTurbulenceDef, scale, &bsPositive),
	BS_NUMBER_IN("speed", bsTurbulenceDef, speed, &bsNonNegative)};
static const bsSchema bsTurbulenceSchema = BS_OBJECT(bsTurbulenceKeys);
// motion.vortex: a drag round an axis (step.h: bsVortexDef), read into the step's vortex (filled with
// its defaults first); profile is a choice and the axis must not be zero, read by bsReadVortex.
static const bsSchemaKey bsVortexKeys[] = {
	BS_REQUIRED_NUMBER("rate", bsVortexDef, rate, &bsPositive),
	BS_REQUIRED_NUMBER("circulation", bsVortexDef, circulation, &bsAnyNumber),
	BS_VEC3_IN("center", bsVortexDef, center, &bsAnyNumber, "3 numbers"),
	BS_VEC3_IN("axis", bsVortexDef, axis, &bsAnyNumber, BS_NORMAL_WHAT),
	BS_NUMBER_IN("core_radius", bsVortexDef, coreRadius, &bsPositive),
	BS_KEY("profile", BS_VALUE),
	BS_NUMBER_IN("pull", bsVortexDef, pull, &bsAnyNumber)};
static const bsSchema bsVortexSchema = BS_OBJECT(bsVortexKeys);
static const bsSchemaKey bsMotionKeys[] = {
	BS_INT("steps", bsConfig, motion.steps, 1, INT_MAX, 1),
	BS_NUMBER_IN("dt", bsConfig, step.dt, &bsPositive),
	BS_VEC3_IN("gravity", bsConfig, step.gravity, &bsAnyNumber, "3 numbers"),
	BS_NUMBER_IN("drag", bsConfig, step.drag, &bsNonNegative),
	BS_INT_IN("substeps", bsConfig, step.substeps, 1, 1000000),
	BS_INT_IN("max_substeps", bsConfig, step.maxSubsteps, 1, 1000000),
	BS_KEY("radial", BS_VALUE),
	BS_KEY("wind", &bsWindSchema),
	BS_KEY("turbulence", &bsTurbulenceSchema),
	BS_KEY("vortex", &bsVortexSchema),
	BS_KEY("buoyancy", &bsBuoyancySchema),
	BS_KEY("sleep", &bsSleepSchema)};
static const bsSchema bsMotionSchema = BS_OBJECT(bsMotionKeys);

static const bsSchemaKey bsBoundsKeys[] = {
	BS_REQUIRED_VEC3("min", bsStepDef, boundsMin, &bsAnyNumber, "3 numbers"),
	BS_REQUIRED_VEC3("max", bsStepDef, boundsMax, &bsAnyNumber, "3 numbers")};
static const bsSchema bsBoundsSchema = BS_OBJECT(bsBoundsKeys);
static const bsSchemaKey bsCollisionKeys[] = {
	BS_KEY("method", BS_VALUE),
	BS_KEY("response", BS_VALUE),
	BS_NUMBER_IN("restitution", bsStepDef, restitution, &bsUnit),
	BS_NUMBER_IN("friction", bsStepDef, friction, &bsUnit),
	BS_INT_IN("max_contacts", bsStepDef, maxContacts, 1, 64),
	BS_KEY("bounds", &bsBoundsSchema)};
static const bsSchema bsCollisionSchema = BS_OBJECT(bsCollisionKeys);

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
static const bsSchema bsRenderSchema = BS_OBJECT(bsRenderKeys);

static const bsSchemaKey bsOutputKeys[] = {
	BS_FILE("directory", bsOutputConfig, directory, "out"),
	BS_INT("frame_every", bsOutputConfig, frameEvery, 0, INT_MAX, 0),
	BS_KEY("cache", BS_VALUE),
	BS_INT("checkpoint", bsOutputConfig, checkpointEvery, 0, INT_MAX, 0)};
static const bsSchema bsOutputSchema = BS_OBJECT(bsOutputKeys);

// interactions: rules between species (bsSpeciesPair), read by bsReadInteractions.
static const bsSchemaKey bsSpeciesPairKeys[] = {BS_KEY("between", BS_VALUE), BS_KEY("interact", BS_VALUE),
	BS_KEY("restitution", BS_VALUE), BS_KEY("friction", BS_VALUE)};
static const bsSchema bsSpeciesPairSchema = BS_ELEMENT(bsSpeciesPairKeys, "an object (a rule between two species)");
static const bsSchema bsSpeciesPairArraySchema = BS_ARRAY(&bsSpeciesPairSchema);

static const bsSchemaKey bsRootKeys[] = {BS_KEY("seed", BS_VALUE),
	BS_KEY("environment", &bsEnvironmentSchema), BS_KEY("particles", &bsParticlesSchema),
	BS_KEY("interactions", &bsSpeciesPairArraySchema),
	BS_KEY("motion", &bsMotionSchema), BS_KEY("collision", &bsCollisionSchema),
	BS_KEY("render", &bsRenderSchema), BS_KEY("output", &bsOutputSchema), BS_KEY("field", &bsFieldSchema)};
const bsSchema bsRootSchema = BS_OBJECT(bsRootKeys);

// --- Environment ---

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

// --- Particles ---

// A key of object v that keys (a type's subset) does not have: an error that lists the ones it does.
static bool bsCheckKeysOf(bsCtx* c, const cJSON* v, const bsSchemaKey* keys, int keyCount, const char* kind,
	const char* type)
{
	for (const cJSON* m = v->child; m != NULL; m = m->next)
	{
		if (bsFindKey(keys, keyCount, m->string) == NULL)
		{
			char list[512];
			const char* names[32];
			for (int i = 0; i < keyCount && i < 32; ++i)
			{
				names[i] = keys[i].name;
			}
			bsJoinNames(list, sizeof list, names, keyCount < 32 ? keyCount : 32, false);
			bsPushKey(c, m->string);
			return bsFail(c, "not used by a \"%s\" %s (its keys: %s)", type, kind, list);
		}
	}
	return true;
}

// The count of a grid (3 positive integers) or random (1) emitter into e->count, each held to at
// most one above the limit, so that bsEmitter_Count refuses what is beyond it. *asRead is the number
// of particles as the config gives it, for that message: a product of doubles, exact up to 2^53.
static bool bsReadEmitterCount(bsCtx* c, const cJSON* v, bsEmitter* e, double* asRead)
{
	const cJSON* count = bsMember(v, "count");
	if (count == NULL)
	{
		return e->type == bs_emitterGrid ? bsMissing(c, "count")
			: bsFail(c, "missing required key 'count' (or a rate and a stop, to emit over time)");
	}
	size_t mark = bsPushKey(c, "count");
	static const bsRange atLeastOne = {1.0, DBL_MAX, false, "a positive integer"};
	const double cap = (double)BS_CONFIG_MAX_PARTICLES + 1.0;
	if (e->type == bs_emitterGrid)
	{
		const char* what = "3 positive integers";
		bsVec3 n;
		if (!bsVec3FromValue(c, count, &atLeastOne, what, &n))
		{
			return false;
		}
		if (n.x != floor(n.x) || n.y != floor(n.y) || n.z != floor(n.z))
		{
			return bsFailExpected(c, what, count);
		}
		*asRead = n.x * n.y * n.z;
		e->count[0] = (uint64_t)fmin(n.x, cap);
		e->count[1] = (uint64_t)fmin(n.y, cap);
		e->count[2] = (uint64_t)fmin(n.z, cap);
	}
	else
	{
		if (!cJSON_IsNumber(count) || !bsInRange(count->valuedouble, &atLeastOne) ||
			count->valuedouble != floor(count->valuedouble))
		{
			return bsFailExpected(c, atLeastOne.what, count);
		}
		*asRead = count->valuedouble;
		e->count[0] = (uint64_t)fmin(*asRead, cap);
	}
	bsPop(c, mark);
	return true;
}

// The emitter's n particles (asRead as the config gives them, `over` when beyond the limit alone),
// at key, within the limit alone and with the emitters before it (*total). `what` names the number:
// "" for a count, "rate x (stop - start) = " for a rate.
static bool bsCountParticles(bsCtx* c, const char* key, const char* what, double asRead, bool over,
	uint64_t n, bsEmitterConfig* em, int64_t* total)
{
	size_t mark = bsPushKey(c, key);
	if (over)
	{
		char text[32];
		bsFormatNumber(asRead, text);
		c->result = bs_errTooLarge;
		return bsFail(c, "%s%s particles, more than the limit of %d", what, text, BS_CONFIG_MAX_PARTICLES);
	}
	em->particleCount = (int64_t)n;
	*total += em->particleCount;
	if (*total > BS_CONFIG_MAX_PARTICLES)
	{
		c->result = bs_errTooLarge;
		return bsFail(c, "the emitters make %lld particles in total, more than the limit of %d",
			(long long)*total, BS_CONFIG_MAX_PARTICLES);
	}
	bsPop(c, mark);
	return true;
}

// The emitter emits over time: a rate or a rate curve.
static bool bsEmitsOverTime(const bsEmitterConfig* em)
{
	return em->rate > 0.0 || em->rateKeys.count > 0;
}

// A rate: a number > 0, or keys {"time": t, "value": particles a second >= 0} (a rate curve).
static bool bsReadRate(bsCtx* c, const cJSON* v, bsEmitterConfig* em)
{
	const cJSON* rate = bsMember(v, "rate");
	if (!cJSON_IsArray(rate))
	{
		return bsReadNumber(c, v, "rate", false, &bsPositive, 0.0, &em->rate);
	}
	size_t mark = bsPushKey(c, "rate");
	if (!bsIsKeys(rate))
	{
		return bsFailExpected(c, "a number > 0 or an array of keys {\"time\": t, \"value\": x}", rate);
	}
	if (!bsReadKeys(c, rate, true, &em->rateKeys))
	{
		return false;
	}
	for (int k = 0; k < em->rateKeys.count; ++k)
	{
		if (!(em->rateKeys.value[k].x >= 0.0))
		{
			bsPushIndex(c, k);
			bsPushKey(c, "value");
			return bsFailExpected(c, "a number >= 0 (particles a second)", bsMember(cJSON_GetArrayItem(rate, k), "value"));
		}
	}
	bsPop(c, mark);
	return true;
}

// motion.rotate's keys, read in degrees, into radians.
static void bsTrackToRadians(bsTrack* track)
{
	for (int k = 0; k < track->count; ++k)
	{
		track->value[k] = bsScale(BS_PI / 180.0, track->value[k]);
	}
}

// motion: translate, rotate (Euler angles, degrees) and scale (> 0), each 3 numbers or keys.
static bool bsReadEmitterMotion(bsCtx* c, const cJSON* v, bsEmitterMotion* m)
{
	const cJSON* o = bsMember(v, "motion");
	if (o == NULL)
	{
		return true;
	}
	if (!bsReadSection(c, v, "motion", &bsEmitterMotionSchema, NULL))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "motion");
	if (!bsReadTrack(c, o, "translate", false, &m->translate) || !bsReadTrack(c, o, "rotate", false, &m->rotate) ||
		!bsReadTrack(c, o, "scale", false, &m->scale))
	{
		return false;
	}
	bsTrackToRadians(&m->rotate);
	for (int k = 0; k < m->scale.count; ++k)
	{
		bsVec3 s = m->scale.value[k];
		if (!(s.x > 0.0 && s.y > 0.0 && s.z > 0.0))
		{
			bsPushKey(c, "scale");
			if (bsIsKeys(bsMember(o, "scale")))
			{
				bsPushIndex(c, k);
				bsPushKey(c, "value");
			}
			return bsFail(c, "expected 3 numbers > 0");
		}
	}
	bsPop(c, mark);
	return true;
}

// start, and with a rate the stop that must follow it (a trail's may be left out: for ever); a stop
// without a rate is an error; the motion.
static bool bsReadEmitterTiming(bsCtx* c, const cJSON* v, bsEmitterConfig* em)
{
	em->stop = INFINITY;
	if (!bsReadNumber(c, v, "start", false, &bsNonNegative, 0.0, &em->start) || !bsReadRate(c, v, em) ||
		!bsReadEmitterMotion(c, v, &em->motion))
	{
		return false;
	}
	if (!bsEmitsOverTime(em) && em->emitter.type != bs_emitterTrail)  // a splash's window may end
	{
		if (bsMember(v, "stop") != NULL)
		{
			bsPushKey(c, "stop");
			return bsFail(c, "a stop needs a rate (without one every particle is emitted at start)");
		}
		return true;
	}
	char start[32], what[64];
	bsFormatNumber(em->start, start);
	snprintf(what, sizeof what, "a number > start (%s)", start);
	bsRange afterStart = {em->start, DBL_MAX, true, what};
	return bsReadNumber(c, v, "stop", em->emitter.type != bs_emitterTrail, &afterStart, INFINITY, &em->stop);
}

// The particles of a rate emitter: floor(rate (stop - start)), as the engine counts them
// (bsEmitterDef_Count), within the limit.
static bool bsCountRate(bsCtx* c, bsEmitterConfig* em, int64_t* total)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.start = em->start;
	def.stop = em->stop;
	def.rate = em->rate;
	def.rateKeys = em->rateKeys;
	uint64_t n = 0;
	bool over = bsEmitterDef_Count(&def, BS_CONFIG_MAX_PARTICLES, &n) != bs_ok;
	return bsCountParticles(c, "rate", em->rateKeys.count > 0 ? "the rate's integral from start to stop = "
		: "rate x (stop - start) = ", floor(bsEmitterDef_Integral(&def, em->stop)), over, n, em, total);
}

// A speed (both ends of the range) or [min, max] with 0 <= min <= max.
bool bsReadSpeed(bsCtx* c, const cJSON* v, double* speedMin, double* speedMax)
{
	const cJSON* speed = bsMember(v, "speed");
	if (speed == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "speed");
	const char* what = "a number >= 0 or [min, max] with 0 <= min <= max";
	if (cJSON_IsNumber(speed) && bsInRange(speed->valuedouble, &bsNonNegative))
	{
		*speedMin = *speedMax = speed->valuedouble;
	}
	else if (cJSON_GetArraySize(speed) == 2 && cJSON_IsArray(speed) && cJSON_IsNumber(speed->child) &&
		cJSON_IsNumber(speed->child->next) && bsInRange(speed->child->valuedouble, &bsNonNegative) &&
		bsInRange(speed->child->next->valuedouble, &bsNonNegative) &&
		speed->child->valuedouble <= speed->child->next->valuedouble)
	{
		*speedMin = speed->child->valuedouble;
		*speedMax = speed->child->next->valuedouble;
	}
	else
	{
		return bsFailExpected(c, what, speed);
	}
	bsPop(c, mark);
	return true;
}

// A nozzle's disk, direction (normalised), cone and speeds.
static bool bsReadNozzle(bsCtx* c, const cJSON* v, bsNozzle* n)
{
	static const bsRange halfAngle = {0.0, 180.0, false, "a number from 0 to 180 (degrees)"};
	double degrees = 0.0;
	if (!bsReadVec3(c, v, "center", false, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &n->center) ||
		!bsReadVec3(c, v, "direction", false, &bsAnyNumber, BS_NORMAL_WHAT, bsV3(0.0, -1.0, 0.0), &n->direction) ||
		!bsReadNumber(c, v, "disk_radius", false, &bsNonNegative, 0.0, &n->diskRadius) ||
		!bsReadNumber(c, v, "cone_angle", false, &halfAngle, 0.0, &degrees) ||
		!bsReadSpeed(c, v, &n->speedMin, &n->speedMax))
	{
		return false;
	}
	n->coneAngle = degrees * (BS_PI / 180.0);
	double m = bsMaxAbs(n->direction);
	if (m == 0.0)
	{
		bsPushKey(c, "direction");
		return bsFailExpected(c, BS_NORMAL_WHAT, bsMember(v, "direction"));
	}
	n->direction = bsNormalize(bsV3(n->direction.x / m, n->direction.y / m, n->direction.z / m));
	return true;
}

// A surface on a body (its `body` key) takes no mesh, group or motion: the body's whole surface moves it.
static bool bsCheckOnBody(bsCtx* c, const cJSON* v)
{
	static const char* const notWith[] = {"mesh", "group", "motion"};
	for (int k = 0; k < 3; ++k)
	{
		if (bsMember(v, notWith[k]) != NULL)
		{
			bsPushKey(c, notWith[k]);
			return bsFail(c, "not used with a body (the emitter is the body's whole surface, moving with it)");
		}
	}
	return true;
}

// A surface's mesh (an index into environment.meshes, checked against it when the meshes are
// loaded), its group (a name as for materials, or every triangle of the mesh), gap, side, cone and
// speeds. The gap's default, a millionth of the radius, keeps a sphere from starting on its face:
// the sweeps count a face the sphere touches at the start as a contact, even moving away.
static bool bsReadSurface(bsCtx* c, const cJSON* v, double radius, bsEmitterConfig* em)
{
	static const bsRange halfAngle = {0.0, 90.0, false, "a number from 0 to 90 (degrees: off the face)"};
	static const char* const sides[] = {"front", "back"};
	bsSurface* s = &em->emitter.surface;
	double mesh = 0.0, body = -1.0, degrees = 0.0;
	int side = 0;
	if (!bsReadInteger(c, v, "mesh", 0.0, (double)INT_MAX, 0.0, &mesh) ||
		!bsReadInteger(c, v, "body", 0.0, (double)INT_MAX, -1.0, &body) ||
		!bsReadChoice(c, v, "side", false, sides, 2, 0, &side) ||
		!bsReadNumber(c, v, "gap", false, &bsNonNegative, 1e-6 * radius, &s->gap) ||
		!bsReadNumber(c, v, "cone_angle", false, &halfAngle, 0.0, &degrees) ||
		!bsReadSpeed(c, v, &s->speedMin, &s->speedMax))
	{
		return false;
	}
	em->mesh = (int)mesh;
	em->body = (int)body;
	if (em->body >= 0 && !bsCheckOnBody(c, v))
	{
		return false;
	}
	s->back = side == 1;
	s->coneAngle = degrees * (BS_PI / 180.0);
	const cJSON* group = bsMember(v, "group");
	if (group == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "group");
	if (!cJSON_IsString(group) || group->valuestring[0] == '\0')
	{
		return bsFailExpected(c, "a non-empty string (an OBJ group of the mesh)", group);
	}
	em->group = bsStrDup(group->valuestring);
	if (em->group == NULL)
	{
		return bsOutOfMemory(c);
	}
	bsPop(c, mark);
	return true;
}

// Random, nozzle and surface emitters take a count or a rate, not both (a grid always has its
// lattice's count).
static bool bsCheckCountOrRate(bsCtx* c, const cJSON* v, const bsEmitterConfig* em)
{
	if (!bsEmitsOverTime(em) || bsMember(v, "count") == NULL)
	{
		return true;
	}
	bsPushKey(c, "count");
	return bsFail(c, "not used with a rate (the emitter makes rate x (stop - start) particles)");
}

// The particles of a shape emitter (not a file): its count as read (asRead) when counted, or a rate's.
static bool bsCountShape(bsCtx* c, bsEmitterConfig* em, bool counted, double asRead, bsParticlesConfig* pc)
{
	uint64_t n = 0;
	bool over = counted && bsEmitter_Count(&em->emitter, BS_CONFIG_MAX_PARTICLES, &n) != bs_ok;
	if (bsEmitsOverTime(em) && !over)
	{
		return bsCountRate(c, em, &pc->particleCount);
	}
	return bsCountParticles(c, "count", "", asRead, over, n, em, &pc->particleCount);
}

// After the shape of a random, nozzle or surface emitter: its count unless a rate gives it, then its
// particles.
static bool bsReadCountOrRate(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	bool counted = !bsEmitsOverTime(em);
	double asRead = 0.0;
	return (!counted || bsReadEmitterCount(c, v, &em->emitter, &asRead)) && bsCountShape(c, em, counted, asRead, pc);
}

// The box [min, max] of a grid or random emitter.
static bool bsReadEmitterBox(bsCtx* c, const cJSON* v, bsEmitter* e)
{
	return bsReadVec3(c, v, "min", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &e->min) &&
		bsReadVec3(c, v, "max", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &e->max) &&
		bsCheckMinMax(c, v, e->min, e->max);
}

// --- the readers of the emitter types: each the keys of its type after the timing ---

// A grid's box, lattice (always counted, with a rate too) and jitter.
static bool bsReadGridEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	bsEmitter* e = &em->emitter;
	double asRead = 0.0;
	return bsReadEmitterBox(c, v, e) && bsReadEmitterCount(c, v, e, &asRead) &&
		bsReadNumber(c, v, "jitter", false, &bsUnit, 0.0, &e->jitter) && bsCountShape(c, em, true, asRead, pc);
}

static bool bsReadRandomEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	return bsCheckCountOrRate(c, v, em) && bsReadEmitterBox(c, v, &em->emitter) && bsReadCountOrRate(c, v, em, pc);
}

// A file's particles are known when it is read, unless a rate says how many.
static bool bsReadFileEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	return bsReadFile(c, v, "file", true, NULL, &em->file) &&
		(!bsEmitsOverTime(em) || bsCountRate(c, em, &pc->particleCount));
}

static bool bsReadNozzleEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	return bsCheckCountOrRate(c, v, em) && bsReadNozzle(c, v, &em->emitter.nozzle) && bsReadCountOrRate(c, v, em, pc);
}

static bool bsReadSurfaceEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	return bsCheckCountOrRate(c, v, em) && bsReadSurface(c, v, pc->radius, em) && bsReadCountOrRate(c, v, em, pc);
}

// An emitter type of the config, at its bsEmitterType: its `type` name (the list is a `file`), the
// keys it allows (an error lists them) and its reader. A new type is one line here and its reader.
typedef struct bsEmitterReader
{
	const char* name;
	const bsSchemaKey* keys;
	int keyCount;
	bool (*read)(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc);
} bsEmitterReader;

static const bsEmitterReader bsEmitterReaders[] = {
	[bs_emitterGrid] = {"grid", bsGridKeys, BS_COUNT(bsGridKeys), bsReadGridEmitter},
	[bs_emitterRandom] = {"random", bsRandomKeys, BS_COUNT(bsRandomKeys), bsReadRandomEmitter},
	[bs_emitterList] = {"file", bsFileKeys, BS_COUNT(bsFileKeys), bsReadFileEmitter},
	[bs_emitterNozzle] = {"nozzle", bsNozzleKeys, BS_COUNT(bsNozzleKeys), bsReadNozzleEmitter},
	[bs_emitterSurface] = {"surface", bsSurfaceKeys, BS_COUNT(bsSurfaceKeys), bsReadSurfaceEmitter},
	[bs_emitterTrail] = {"trail", bsTrailKeys, BS_COUNT(bsTrailKeys), bsReadTrailEmitter},
};
_Static_assert(BS_COUNT(bsEmitterReaders) == bs_emitterTypeCount, "a config reader for every emitter type");

// user: the particles section read so far (its radius, and the running total of particles).
static bool bsReadEmitter(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsEmitterConfig* em = element;
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, bsEmitterSchema.what, v);
	}
	const char* names[bs_emitterTypeCount];
	for (int k = 0; k < bs_emitterTypeCount; ++k)
	{
		names[k] = bsEmitterReaders[k].name;
	}
	int type = 0;
	if (!bsCheckKeys(c, v, bsEmitterKeys, BS_COUNT(bsEmitterKeys)) ||
		!bsReadChoice(c, v, "type", true, names, bs_emitterTypeCount, 0, &type))
	{
		return false;
	}
	const bsEmitterReader* r = bsEmitterReaders + type;
	em->emitter.type = (bsEmitterType)type;
	return bsCheckKeysOf(c, v, r->keys, r->keyCount, "emitter", r->name) && bsReadEmitterTiming(c, v, em) &&
		r->read(c, v, em, user);
}

// particles.over_life, when given: its ramps, the radius's > 0, the colour's >= 0, the opacity's in 0..1;
// a colour without an opacity is opaque, an opacity without a colour white.
static bool bsReadOverLife(bsCtx* c, const cJSON* particles, bsOverLifeConfig* out)
{
	const cJSON* o;
	if (!bsReadObject(c, particles, "over_life", &bsOverLifeSchema, &o))
	{
		return false;
	}
	out->radiusScale = bsConstantTrack(bsV3(1.0, 0.0, 0.0));
	out->color = bsConstantTrack(bsV3(1.0, 1.0, 1.0));
	out->opacity = bsConstantTrack(bsV3(1.0, 0.0, 0.0));
	if (o == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "over_life");
	if (!bsReadRamp(c, o, "radius", true, &bsPositive, &out->radiusScale, &out->hasRadius) ||
		!bsReadRamp(c, o, "color", false, &bsNonNegative, &out->color, &out->hasColor) ||
		!bsReadRamp(c, o, "opacity", true, &bsUnit, &out->opacity, &out->hasOpacity))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// The keys only particles[0] of a list may give: every species shares them.
static const char* const bsSharedParticleKeys[] = {"accumulate", "interaction", "material"};

// particles[k]'s name: required in a list (and unique there), "particles" for a single object.
static bool bsReadSpeciesName(bsCtx* c, const cJSON* o, bool list, const bsParticlesConfig* p, bsSpeciesConfig* sp)
{
	const cJSON* v = bsMember(o, "name");
	if (v == NULL && list)
	{
		return bsMissing(c, "name");
	}
	if (v != NULL && (!cJSON_IsString(v) || v->valuestring[0] == '\0'))
	{
		bsPushKey(c, "name");
		return bsFailExpected(c, "a non-empty string", v);
	}
	const char* name = v != NULL ? v->valuestring : "particles";
	for (int k = 0; k < p->speciesCount - 1; ++k)
	{
		if (strcmp(p->species[k].name, name) == 0)
		{
			bsPushKey(c, "name");
			return bsFail(c, "\"%s\" is particles[%d]'s name already: each species needs its own", name, k);
		}
	}
	sp->name = bsStrDup(name);
	return sp->name != NULL || bsOutOfMemory(c);
}

// One species, o, at particles[index] (a list) or particles: its fields into p->species[index] and its
// emitters appended to p->emitters (which has room). The path is at the species.
static bool bsReadSpecies(bsCtx* c, const cJSON* o, int index, bool list, bsParticlesConfig* p)
{
	bsSpeciesConfig* sp = p->species + index;
	p->speciesCount = index + 1;
	if (!cJSON_IsObject(o))
	{
		return bsFailExpected(c, "an object (a species)", o);
	}
	for (int k = 0; index > 0 && k < BS_COUNT(bsSharedParticleKeys); ++k)
	{
		if (bsMember(o, bsSharedParticleKeys[k]) != NULL)
		{
			bsPushKey(c, bsSharedParticleKeys[k]);
			return bsFail(c, "every species shares it: give it in particles[0]");
		}
	}
	bsParticlesConfig one;
	memset(&one, 0, sizeof(one));
	one.particleCount = p->particleCount;
	const cJSON* emitters;
	int count = 0;
	if (!bsCheckKeys(c, o, bsParticlesKeys, BS_COUNT(bsParticlesKeys)) || !bsReadSpeciesName(c, o, list, p, sp) ||
		!bsReadFields(c, o, &bsParticlesSchema, &one) || !bsReadOverLife(c, o, &sp->overLife) ||
		(bsMember(o, "look") != NULL && !bsReadMaterial(c, o, "look", "snow", &sp->look)) ||
		(bsMember(o, "buoyancy") != NULL && !bsReadSection(c, o, "buoyancy", &bsBuoyancySchema, &sp->buoyancy)) ||
		!bsReadArray(c, o, "emitters", "an array of emitters", &emitters, &count))
	{
		return false;
	}
	sp->hasLook = bsMember(o, "look") != NULL;
	sp->hasBuoyancy = bsMember(o, "buoyancy") != NULL;
	sp->radius = one.radius;
	sp->radiusSpread = one.radiusSpread;
	sp->velocity = one.velocity;
	sp->lifetime = one.lifetime;
	if (emitters == NULL)
	{
		return bsMissing(c, "emitters");
	}
	// An empty array is allowed: no particles, the environment alone (the paper's Fig. 8a).
	bsEmitterConfig* mine = p->emitters + p->emitterCount;
	int read = 0;
	bool ok = bsReadElements(c, "emitters", emitters, bsReadEmitter, mine, sizeof *mine, &read, &one);
	for (int k = 0; k < read; ++k)
	{
		mine[k].species = index;
	}
	p->emitterCount += read;  // what a failure leaves is freed with the config
	p->particleCount = one.particleCount;
	return ok;
}

// The emitters of every species (an array's elements' emitters, or the object's); 0 when not arrays.
static int bsCountEmitters(const cJSON* v)
{
	int n = 0;
	for (const cJSON* e = cJSON_IsArray(v) ? v->child : v; e != NULL; e = cJSON_IsArray(v) ? e->next : NULL)
	{
		const cJSON* emitters = bsMember(e, "emitters");
		n += cJSON_IsArray(emitters) ? cJSON_GetArraySize(emitters) : 0;
	}
	return n;
}

// particles: one species (an object) or a list of 1 .. BS_MAX_SPECIES; the first species' fields are
// also p's own (radius, ...), and particles[0]'s accumulate is every species'.
static bool bsReadParticles(bsCtx* c, const cJSON* root, bsParticlesConfig* p)
{
	const cJSON* v = bsMember(root, "particles");
	if (v == NULL)
	{
		return bsMissing(c, "particles");
	}
	size_t mark = bsPushKey(c, "particles");
	bool list = cJSON_IsArray(v);
	int n = list ? cJSON_GetArraySize(v) : 1;
	p->speciesList = list;
	if (!list && !cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object (one species) or an array of species", v);
	}
	if (n < 1 || n > BS_MAX_SPECIES)
	{
		return bsFail(c, "expected 1 to %d species, got %d", BS_MAX_SPECIES, n);
	}
	p->species = calloc((size_t)n, sizeof *p->species);
	p->emitters = calloc((size_t)bsCountEmitters(v) + 1, sizeof *p->emitters);
	if (p->species == NULL || p->emitters == NULL)
	{
		return bsOutOfMemory(c);
	}
	int k = 0;
	for (const cJSON* e = list ? v->child : v; e != NULL; e = list ? e->next : NULL, ++k)
	{
		size_t imark = list ? bsPushIndex(c, k) : 0;
		if (!bsReadSpecies(c, e, k, list, p))
		{
			return false;
		}
		if (list)
		{
			bsPop(c, imark);
		}
	}
	const cJSON* first = list ? v->child : v;
	const bsSpeciesConfig* s0 = p->species;
	p->radius = s0->radius;
	p->radiusSpread = s0->radiusSpread;
	p->velocity = s0->velocity;
	p->lifetime = s0->lifetime;
	p->overLife = s0->overLife;
	if (list)
	{
		bsPushIndex(c, 0);
	}
	if (!bsReadBool(c, first, "accumulate", false, &p->accumulate))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// --- Interaction ---

// The engine's interaction names, at their types.
static void bsInteractionNames(const char* names[bs_interactionCount])
{
	for (int i = 0; i < bs_interactionCount; ++i)
	{
		names[i] = bsInteractionName((bsInteractionType)i);
	}
}

// particles.interaction is neither a name nor an object: the error lists the names.
static bool bsFailInteraction(bsCtx* c, const cJSON* v)
{
	const char* names[bs_interactionCount];
	bsInteractionNames(names);
	char list[256], what[300];
	bsJoinNames(list, sizeof list, names, bs_interactionCount, true);
	snprintf(what, sizeof what, "a type name (%s) or an object", list);
	bsPushKey(c, "interaction");
	return bsFailExpected(c, what, v);
}

// The interaction's type, from a name or an object's "type" (required there).
static bool bsReadInteractionType(bsCtx* c, const cJSON* v, const cJSON* parent, bsInteractionType* type)
{
	const char* names[bs_interactionCount];
	bsInteractionNames(names);
	int chosen = 0;
	if (cJSON_IsString(v))
	{
		if (!bsReadChoice(c, parent, "interaction", true, names, bs_interactionCount, 0, &chosen))
		{
			return false;
		}
	}
	else
	{
		size_t mark = bsPushKey(c, "interaction");
		if (!bsReadChoice(c, v, "type", true, names, bs_interactionCount, 0, &chosen))
		{
			return false;
		}
		bsPop(c, mark);
	}
	return bsParseInteraction(names[chosen], type);
}

// The type of particles.interaction v: as it says, or with a material (which has set d's type) the
// material's when it says none (an object without "type"), and an error when it says another.
static bool bsReadInteractionTypeWith(bsCtx* c, const cJSON* v, const cJSON* particles, const char* material,
	bsInteractionDef* d)
{
	if (material != NULL && cJSON_IsObject(v) && bsMember(v, "type") == NULL)
	{
		return true;
	}
	bsInteractionType type;
	if (!bsReadInteractionType(c, v, particles, &type))
	{
		return false;
	}
	if (material != NULL && type != d->type)
	{
		bsPushKey(c, "interaction");
		if (cJSON_IsObject(v))
		{
			bsPushKey(c, "type");
		}
		return bsFail(c, "\"%s\" does not go with particles.material \"%s\", a \"%s\" material (give \"%s\" or "
			"leave the type out)", bsInteractionName(type), material, bsInteractionName(d->type),
			bsInteractionName(d->type));
	}
	d->type = type;
	return true;
}

// A key of v that its setting does not use: an error at it saying what it needs.
static bool bsFailUnused(bsCtx* c, const cJSON* v, const char* key, const char* needs)
{
	if (bsMember(v, key) == NULL)
	{
		return true;
	}
	bsPushKey(c, key);
	return bsFail(c, "%s is used only with %s", key, needs);
}

// The granular keys the table does not read: contact_model, rotation and rolling_model; each law's
// keys only with it, a rolling friction only with rotation.
static bool bsReadGranularKeys(bsCtx* c, const cJSON* v, bsInteractionDef* d)
{
	const char* laws[bs_contactModelCount];
	for (int k = 0; k < bs_contactModelCount; ++k)
	{
		laws[k] = bsContactModelName((bsContactModel)k);
	}
	const char* rolling[bs_rollingModelCount];
	for (int k = 0; k < bs_rollingModelCount; ++k)
	{
		rolling[k] = bsRollingModelName((bsRollingModel)k);
	}
	int law = (int)d->contactModel, roll = (int)d->rollingModel;
	if (!bsReadChoice(c, v, "contact_model", false, laws, bs_contactModelCount, law, &law) ||
		!bsReadBool(c, v, "rotation", d->rotation, &d->rotation) ||
		!bsReadChoice(c, v, "rolling_model", false, rolling, bs_rollingModelCount, roll, &roll))
	{
		return false;
	}
	d->contactModel = (bsContactModel)law;
	d->rollingModel = (bsRollingModel)roll;
	static const char* const hooke[] = {"contact_time", "stiffness", "tangential_damping", "tangential_stiffness"};
	static const char* const hertz[] = {"youngs_modulus", "poisson_ratio"};
	bool isHertz = d->contactModel == bs_contactHertz;
	for (int k = 0; k < BS_COUNT(hooke); ++k)
	{
		if (isHertz && !bsFailUnused(c, v, hooke[k], "contact_model \"hooke\""))
		{
			return false;
		}
	}
	for (int k = 0; k < BS_COUNT(hertz); ++k)
	{
		if (!isHertz && !bsFailUnused(c, v, hertz[k], "contact_model \"hertz\""))
		{
			return false;
		}
	}
	if (d->rollingModel == bs_rollingEpsd2 && !isHertz && !(d->tangentialStiffness > 0.0))
	{
		bsPushKey(c, "rolling_model");
		return bsFail(c, "\"epsd2\" needs the tangential spring: tangential_stiffness > 0 (or contact_model \"hertz\")");
	}
	if (d->bondStrength > 0.0 && !isHertz && !(d->tangentialStiffness > 0.0))
	{
		bsPushKey(c, "bond_strength");
		return bsFail(c, "sintered bonds need the tangential spring: tangential_stiffness > 0 (or contact_model \"hertz\")");
	}
	if (d->rollingFresh >= 0.0 && !(d->rotation && d->rollingModel == bs_rollingEpsd2 && d->bondStrength > 0.0))
	{
		bsPushKey(c, "rolling_friction_fresh");
		return bsFail(c, "a fresh contact's rolling friction ages with its bond: it needs rotation: true, "
			"rolling_model \"epsd2\" and bond_strength > 0");
	}
	// A rolling friction without spin would do nothing: say so (0, as --set may give it, is fine).
	return d->rotation || d->rollingFriction == 0.0 || bsFailUnused(c, v, "rolling_friction", "rotation: true");
}

// The keys of an interaction object v of d's type into d; contact_time and stiffness exclude each
// other (a stiffness replaces the default contact time).
static bool bsReadInteractionKeys(bsCtx* c, const cJSON* v, bsInteractionDef* d)
{
	size_t inner = bsPushKey(c, "interaction");
	const bsSchemaKey* keys = bsInteractionKeysOf[d->type].keys;
	int count = bsInteractionKeysOf[d->type].count;
	bsSchema schema = {bs_kindObject, keys, count, NULL, NULL};
	if (!bsCheckKeys(c, v, bsInteractionKeys, BS_COUNT(bsInteractionKeys)) ||
		!bsCheckKeysOf(c, v, keys, count, "interaction", bsInteractionName(d->type)) ||
		!bsReadFields(c, v, &schema, d))
	{
		return false;
	}
	if (bsMember(v, "stiffness") != NULL)
	{
		if (bsMember(v, "contact_time") != NULL)
		{
			bsPushKey(c, "stiffness");
			return bsFail(c, "give contact_time or stiffness, not both");
		}
		d->contactTime = 0.0;
	}
	if (d->type == bs_interactionGranular && !bsReadGranularKeys(c, v, d))
	{
		return false;
	}
	bsPop(c, inner);
	return true;
}

// particles.material (a fluid's preset, config_fluid.h) and particles.interaction into
// config->step.interaction: a name (its defaults) or an object whose keys override them. With a
// material the interaction's type is the material's: an object may leave it out, another is an error.
static bool bsReadInteraction(bsCtx* c, const cJSON* root, bsConfig* config)
{
	const cJSON* all = bsMember(root, "particles");
	const cJSON* particles = cJSON_IsArray(all) ? all->child : all;  // a list's particles[0]
	const cJSON* v = bsMember(particles, "interaction");
	bsInteractionDef* d = &config->step.interaction;
	const char** material = &config->particles.material;
	size_t mark = bsPushKey(c, "particles");
	if (cJSON_IsArray(all))
	{
		bsPushIndex(c, 0);
	}
	if (!bsReadFluidMaterial(c, particles, d, material))
	{
		return false;
	}
	if (v != NULL && !cJSON_IsString(v) && !cJSON_IsObject(v))
	{
		return bsFailInteraction(c, v);
	}
	if (v != NULL && (!bsReadInteractionTypeWith(c, v, particles, *material, d) ||
			(cJSON_IsObject(v) && !bsReadInteractionKeys(c, v, d))))
	{
		return false;
	}
	if (d->type == bs_interactionFluid && !bsCheckFluid(c, v, d))
	{
		return false;
	}
	bsPop(c, mark);
	// With an interaction the substeps are planned unless motion.substeps gives them.
	config->step.substeps = d->type == bs_interactionNone ? 1 : 0;
	return true;
}

// --- Motion and collision ---

// A radial force's center (3 numbers or keys of them) and strength (a number or keys of numbers); keyed,
// the plain value is the first key's (the keys replace it in the step).
static bool bsReadRadialKeyed(bsCtx* c, const cJSON* o, bsRadialDef* radial)
{
	if (!cJSON_IsObject(o))
	{
		return true;  // bsReadElementFields names the element
	}
	const cJSON* center = bsMember(o, "center");
	const cJSON* strength = bsMember(o, "strength");
	size_t mark = bsPushKey(c, "center");
	if (bsIsKeys(center) && !bsReadKeys(c, center, false, &radial->centerKeys))
	{
		return false;
	}
	bsPop(c, mark);
	mark = bsPushKey(c, "strength");
	if (bsIsKeys(strength) && !bsReadKeys(c, strength, true, &radial->strengthKeys))
	{
		return false;
	}
	bsPop(c, mark);
	radial->center = radial->centerKeys.count > 0 ? radial->centerKeys.value[0] : radial->center;
	radial->strength = radial->strengthKeys.count > 0 ? radial->strengthKeys.value[0].x : radial->strength;
	// Following a body, the centre is an offset in its frame, the body's origin when not given.
	bool required = bsMember(o, "body") == NULL;
	return (bsIsKeys(center) ||
			bsReadVec3(c, o, "center", required, &bsAnyNumber, "3 numbers", radial->center, &radial->center)) &&
		(bsIsKeys(strength) || bsReadNumber(c, o, "strength", true, &bsAnyNumber, 0.0, &radial->strength));
}

// A radial force's body (an index of environment.bodies, *bodyCount of them): the centre then follows
// it, and may not be keyed.
static bool bsReadRadialBody(bsCtx* c, const cJSON* o, int bodyCount, bsRadialDef* radial)
{
	if (bsMember(o, "body") == NULL)
	{
		return true;
	}
	if (!bsReadInt(c, o, "body", 0, INT_MAX, 0, &radial->body))
	{
		return false;
	}
	radial->follow = true;
	if (radial->body >= bodyCount)
	{
		bsPushKey(c, "body");
		return bsFail(c, "body %d is out of range: environment.bodies has %d (indices from 0)", radial->body, bodyCount);
	}
	if (radial->centerKeys.count > 0)
	{
		bsPushKey(c, "center");
		return bsFail(c, "a centre that follows a body (body) is an offset in its frame, not keys");
	}
	return true;
}

// One radial force (an element of motion.radial, or motion.radial itself) into *radial, which holds
// the defaults; user points to the number of environment.bodies.
static bool bsReadRadial(bsCtx* c, const cJSON* o, void* element, void* user)
{
	bsRadialDef* radial = element;
	const char* falloffs[bs_falloffCount];
	for (int i = 0; i < bs_falloffCount; ++i)
	{
		falloffs[i] = bsFalloffName((bsFalloff)i);
	}
	int falloff = 0;
	if (!bsReadRadialKeyed(c, o, radial) || !bsReadElementFields(c, o, &bsRadialSchema, radial) ||
		!bsReadRadialBody(c, o, *(const int*)user, radial) ||
		!bsReadChoice(c, o, "falloff", false, falloffs, bs_falloffCount, (int)radial->falloff, &falloff))
	{
		return false;
	}
	radial->falloff = (bsFalloff)falloff;
	if (radial->falloff == bs_falloffLinear && bsMember(o, "radius") == NULL)
	{
		bsPushKey(c, "falloff");
		return bsFail(c, "\"linear\" needs a radius (where the push falls to 0)");
	}
	if (radial->falloff != bs_falloffInverseSquare && bsMember(o, "softening") != NULL)
	{
		bsPushKey(c, "softening");
		return bsFail(c, "applies only to falloff \"inverse_square\"");
	}
	return true;
}

// motion.radial, when given: one force (an object) or several (an array of them, added in order),
// into the step's radial forces (none when absent); bodyCount bodies they may follow.
static bool bsReadRadials(bsCtx* c, const cJSON* motion, int bodyCount, bsStepDef* step)
{
	const cJSON* v = bsMember(motion, "radial");
	if (v == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "radial");
	if (cJSON_IsObject(v))
	{
		step->radialCount = 1;
		if (!bsReadRadial(c, v, step->radial, &bodyCount))
		{
			return false;
		}
		bsPop(c, mark);
		return true;
	}
	if (!cJSON_IsArray(v))
	{
		return bsFailExpected(c, "an object or an array of objects", v);
	}
	int n = cJSON_GetArraySize(v);
	if (n > BS_MAX_RADIALS)
	{
		return bsFail(c, "at most %d radial forces, got %d", BS_MAX_RADIALS, n);
	}
	bsPop(c, mark);
	return bsReadElements(c, "radial", v, bsReadRadial, step->radial, sizeof(bsRadialDef), &step->radialCount,
		&bodyCount);
}

// motion.wind, when given: the wind's rate, velocity and gusts, seeded by the config's seed.
static bool bsReadWind(bsCtx* c, const cJSON* motion, bsConfig* config)
{
	if (bsMember(motion, "wind") == NULL)
	{
		return true;
	}
	bsWindDef* wind = &config->step.wind;
	if (!bsReadSection(c, motion, "wind", &bsWindSchema, wind))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "wind");
	const cJSON* o = bsMember(motion, "wind");
	if (!bsReadTrack(c, o, "velocity", true, &wind->velocity) ||
		(bsMember(o, "gusts") != NULL && !bsReadSection(c, o, "gusts", &bsGustSchema, wind)))
	{
		return false;
	}
	wind->seed = config->seed;
	bsPop(c, mark);
	return true;
}

// motion.turbulence, when given, seeded by the config's seed.
static bool bsReadTurbulence(bsCtx* c, const cJSON* motion, bsConfig* config)
{
	if (bsMember(motion, "turbulence") == NULL)
	{
		return true;
	}
	config->step.turbulence.seed = config->seed;
	return bsReadSection(c, motion, "turbulence", &bsTurbulenceSchema, &config->step.turbulence);
}

// motion.vortex, when given.
static bool bsReadVortex(bsCtx* c, const cJSON* motion, bsStepDef* step)
{
	const cJSON* o = bsMember(motion, "vortex");
	if (o == NULL)
	{
		return true;
	}
	bsVortexDef* vortex = &step->vortex;
	if (!bsReadSection(c, motion, "vortex", &bsVortexSchema, vortex))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "vortex");
	const char* profiles[bs_vortexProfileCount];
	for (int i = 0; i < bs_vortexProfileCount; ++i)
	{
		profiles[i] = bsVortexProfileName((bsVortexProfile)i);
	}
	int profile = 0;
	if (!bsReadChoice(c, o, "profile", false, profiles, bs_vortexProfileCount, (int)vortex->profile, &profile))
	{
		return false;
	}
	vortex->profile = (bsVortexProfile)profile;
	if (bsMaxAbs(vortex->axis) == 0.0)
	{
		bsPushKey(c, "axis");
		return bsFailExpected(c, BS_NORMAL_WHAT, bsMember(o, "axis"));
	}
	bsPop(c, mark);
	return true;
}

// particles[k].buoyancy, when a species gives one: the table of every species' lift (step.h:
// bsStepDef.speciesBuoyancy), motion.buoyancy's for those that give none.
static bool bsSpeciesBuoyancy(bsCtx* c, bsConfig* config)
{
	const bsParticlesConfig* p = &config->particles;
	bool any = false;
	for (int k = 0; k < p->speciesCount; ++k)
	{
		any = any || p->species[k].hasBuoyancy;
	}
	if (!any)
	{
		return true;
	}
	config->speciesBuoyancy = calloc((size_t)p->speciesCount, sizeof *config->speciesBuoyancy);
	if (config->speciesBuoyancy == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (int k = 0; k < p->speciesCount; ++k)
	{
		config->speciesBuoyancy[k] = p->species[k].hasBuoyancy ? p->species[k].buoyancy : config->step.buoyancy;
	}
	config->step.speciesBuoyancy = config->speciesBuoyancy;
	config->step.speciesBuoyancyCount = p->speciesCount;
	return true;
}

static bool bsReadMotion(bsCtx* c, const cJSON* root, bsConfig* config)
{
	if (!bsReadSection(c, root, "motion", &bsMotionSchema, config))
	{
		return false;
	}
	const cJSON* motion = bsMember(root, "motion");
	size_t mark = bsPushKey(c, "motion");
	if (!bsReadRadials(c, motion, config->environment.bodyCount, &config->step) || !bsReadWind(c, motion, config) ||
		!bsReadTurbulence(c, motion, config) || !bsReadVortex(c, motion, &config->step) ||
		(bsMember(motion, "buoyancy") != NULL &&
			!bsReadSection(c, motion, "buoyancy", &bsBuoyancySchema, &config->step.buoyancy)))
	{
		return false;
	}
	// motion.sleep absent: no rest, sleepSteps stays 0.
	if (bsMember(motion, "sleep") != NULL && !bsReadSection(c, motion, "sleep", &bsSleepSchema, &config->step))
	{
		return false;
	}
	bsPop(c, mark);
	return bsSpeciesBuoyancy(c, config);
}

// The names come from collide.h and step.h; their parsers turn the chosen one into the enum.
static bool bsReadMethodResponse(bsCtx* c, const cJSON* collision, bsStepDef* col)
{
	const char* methods[bs_methodCount];
	for (int i = 0; i < bs_methodCount; ++i)
	{
		methods[i] = bsMethodName((bsMethod)i);
	}
	const char* responses[bs_responseCount];
	for (int i = 0; i < bs_responseCount; ++i)
	{
		responses[i] = bsResponseName((bsResponse)i);
	}
	int method = 0;
	int response = 0;
	if (!bsReadChoice(c, collision, "method", false, methods, bs_methodCount, (int)col->method, &method) ||
		!bsReadChoice(c, collision, "response", false, responses, bs_responseCount, (int)col->response,
			&response))
	{
		return false;
	}
	if (!bsParseMethod(methods[method], &col->method) ||
		!bsParseResponse(responses[response], &col->response))
	{
		return bsFail(c, "internal error: a method or response name does not parse");
	}
	return true;
}

static bool bsReadBounds(bsCtx* c, const cJSON* collision, bsStepDef* col)
{
	const cJSON* bounds;
	if (!bsReadObject(c, collision, "bounds", &bsBoundsSchema, &bounds))
	{
		return false;
	}
	if (bounds == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "bounds");
	if (!bsReadFields(c, bounds, &bsBoundsSchema, col) ||
		!bsCheckMinMax(c, bounds, col->boundsMin, col->boundsMax))
	{
		return false;
	}
	col->bounded = true;
	bsPop(c, mark);
	return true;
}

static bool bsReadCollision(bsCtx* c, const cJSON* root, bsStepDef* col)
{
	const cJSON* o;
	if (!bsReadObject(c, root, "collision", &bsCollisionSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "collision");
	if (!bsReadMethodResponse(c, o, col) || !bsReadFields(c, o, &bsCollisionSchema, col) ||
		!bsReadBounds(c, o, col))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// --- Render and output ---

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
static bool bsReadRender(bsCtx* c, const cJSON* root, bsRenderConfig* r, const char* look)
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

// --- Interactions between species ---

// between[i] (the path at it): the index of a species named so, else an error naming the species.
bool bsReadSpeciesRef(bsCtx* c, const cJSON* v, const bsParticlesConfig* pc, int* out)
{
	if (!cJSON_IsString(v))
	{
		return bsFailExpected(c, "a species' name (particles[k].name)", v);
	}
	const char* names[BS_MAX_SPECIES];
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		names[k] = pc->species[k].name;
		if (strcmp(v->valuestring, names[k]) == 0)
		{
			*out = k;
			return true;
		}
	}
	const char* near = bsClosest(v->valuestring, names, pc->speciesCount);
	char list[512];
	bsJoinNames(list, sizeof list, names, pc->speciesCount, true);
	if (near != NULL)
	{
		return bsFail(c, "no species \"%.64s\" (did you mean \"%s\"?)", v->valuestring, near);
	}
	return bsFail(c, "no species \"%.64s\" (species: %s)", v->valuestring, list);
}

// One rule, interactions[i]: its pair, then its settings over the pair's (the interaction's so far).
static bool bsReadSpeciesPair(bsCtx* c, const cJSON* v, void* element, void* user)
{
	(void)element;
	bsConfig* config = user;
	const bsParticlesConfig* pc = &config->particles;
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, bsSpeciesPairSchema.what, v);
	}
	const cJSON* between = bsMember(v, "between");
	if (!bsCheckKeys(c, v, bsSpeciesPairKeys, BS_COUNT(bsSpeciesPairKeys)))
	{
		return false;
	}
	if (between == NULL)
	{
		return bsMissing(c, "between");
	}
	size_t mark = bsPushKey(c, "between");
	if (!cJSON_IsArray(between) || cJSON_GetArraySize(between) != 2)
	{
		return bsFailExpected(c, "2 species' names", between);
	}
	int ab[2];
	for (int k = 0; k < 2; ++k)
	{
		size_t imark = bsPushIndex(c, k);
		if (!bsReadSpeciesRef(c, cJSON_GetArrayItem(between, k), pc, ab + k))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, mark);
	int n = pc->speciesCount;
	bsSpeciesPair rule = config->speciesPairs[ab[0] * n + ab[1]];
	if (!bsReadBool(c, v, "interact", rule.interact, &rule.interact) ||
		!bsReadNumber(c, v, "restitution", false, &(bsRange){0.0, 1.0, true, "a number > 0 and <= 1"}, rule.restitution,
			&rule.restitution) ||
		!bsReadNumber(c, v, "friction", false, &bsNonNegative, rule.friction, &rule.friction))
	{
		return false;
	}
	config->speciesPairs[ab[0] * n + ab[1]] = rule;
	config->speciesPairs[ab[1] * n + ab[0]] = rule;
	return true;
}

// interactions, when given: the table of rules between species (step.h: bsSpeciesPair), every pair
// interacting with the interaction's restitution and friction unless a rule says otherwise; for the pair
// interactions (repulsion, granular) only.
static bool bsReadInteractions(bsCtx* c, const cJSON* root, bsConfig* config)
{
	const cJSON* v;
	int count;
	if (!bsReadArray(c, root, "interactions", "an array of rules between species", &v, &count))
	{
		return false;
	}
	if (v == NULL)
	{
		return true;
	}
	int type = config->step.interaction.type;
	if (type != bs_interactionRepulsion && type != bs_interactionGranular)
	{
		bsPushKey(c, "interactions");
		return bsFail(c, "rules between species need particles.interaction \"repulsion\" or \"granular\", not \"%s\"",
			bsInteractionName((bsInteractionType)type));
	}
	int n = config->particles.speciesCount;
	config->speciesPairs = calloc((size_t)(n * n), sizeof(bsSpeciesPair));
	if (config->speciesPairs == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (int k = 0; k < n * n; ++k)
	{
		bsSpeciesPair all = {true, config->step.interaction.restitution, config->step.interaction.friction};
		config->speciesPairs[k] = all;
	}
	int read = 0;
	if (!bsReadElements(c, "interactions", v, bsReadSpeciesPair, config->speciesPairs, 0, &read, config))
	{
		return false;
	}
	config->step.speciesPairs = config->speciesPairs;
	config->step.speciesCount = n;
	return true;
}

// render.gas's puffs (which grow and fade by their own settings) are one set of particles in one
// material: several species or over-life ramps would be lost in them. (render.motion_blur's samples
// draw each species with its looks at the sample's time: motion_blur.h.)
static bool bsCheckGasLooks(bsCtx* c, const bsConfig* config)
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
static bool bsCheckSpeciesLooks(bsCtx* c, const bsConfig* config)
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
static bool bsCheckInstanceRotation(bsCtx* c, const bsConfig* config)
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

// --- The whole config ---

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
