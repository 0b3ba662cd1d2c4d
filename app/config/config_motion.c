// config_motion.c — motion (gravity, drag, substeps, sleep and the forces: radial, wind, turbulence, vortex,
// buoyancy) and collision (method, response, bounds), read straight into the config's bsStepDef.
#include "config_read.h"

#include "config_track.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

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
	BS_KEY("velocity", &bsTrackArraySchema),
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

const bsSchema bsMotionSchema = BS_OBJECT(bsMotionKeys);

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

const bsSchema bsCollisionSchema = BS_OBJECT(bsCollisionKeys);

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

bool bsReadMotion(bsCtx* c, const cJSON* root, bsConfig* config)
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

bool bsReadCollision(bsCtx* c, const cJSON* root, bsStepDef* col)
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
