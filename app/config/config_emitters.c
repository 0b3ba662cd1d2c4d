// config_emitters.c — particles[k].emitters: every emitter type's key table and reader, and the timing,
// motion and rate they share. A new emitter type is its keys, its reader and one row of bsEmitterReaders.
#include "config_read.h"

#include "config_track.h"
#include "config_trail.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

static const bsSchemaKey bsEmitterMotionKeys[] = {BS_KEY("translate", &bsTrackArraySchema),
	BS_KEY("rotate", &bsTrackArraySchema), BS_KEY("scale", &bsTrackArraySchema)};

static const bsSchema bsEmitterMotionSchema = BS_OBJECT(bsEmitterMotionKeys);

#define BS_TIMING_KEYS BS_KEY("start", BS_VALUE), BS_KEY("stop", BS_VALUE), BS_KEY("rate", &bsTrackArraySchema), \
	BS_KEY("motion", &bsEmitterMotionSchema)

static const bsSchemaKey bsEmitterKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("jitter", BS_VALUE),
	BS_KEY("file", BS_VALUE), BS_KEY("center", BS_VALUE), BS_KEY("direction", BS_VALUE),
	BS_KEY("disk_radius", BS_VALUE), BS_KEY("cone_angle", BS_VALUE), BS_KEY("speed", BS_VALUE),
	BS_KEY("mesh", BS_VALUE), BS_KEY("body", BS_VALUE), BS_KEY("group", BS_VALUE), BS_KEY("gap", BS_VALUE),
	BS_KEY("side", BS_VALUE), BS_KEY("source", BS_VALUE), BS_KEY("inherit", BS_VALUE), BS_KEY("offset", BS_VALUE),
	BS_KEY("on", BS_VALUE), BS_KEY("count_per_speed", BS_VALUE), BS_TIMING_KEYS};

static const bsSchema bsEmitterSchema = BS_ELEMENT(bsEmitterKeys, "an object (an emitter)");

const bsSchema bsEmitterArraySchema = BS_ARRAY(&bsEmitterSchema);

static const bsSchemaKey bsGridKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("jitter", BS_VALUE), BS_TIMING_KEYS};

static const bsSchemaKey bsRandomKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("min", BS_VALUE),
	BS_KEY("max", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};

static const bsSchemaKey bsFileKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("file", BS_VALUE), BS_TIMING_KEYS};

static const bsSchemaKey bsNozzleKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("center", BS_VALUE),
	BS_KEY("direction", BS_VALUE), BS_KEY("disk_radius", BS_VALUE), BS_KEY("cone_angle", BS_VALUE),
	BS_KEY("speed", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};

static const bsSchemaKey bsTrailKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("source", BS_VALUE), BS_KEY("inherit", BS_VALUE),
	BS_KEY("offset", BS_VALUE), BS_KEY("start", BS_VALUE), BS_KEY("stop", BS_VALUE), BS_KEY("rate", &bsTrackArraySchema),
	BS_KEY("on", BS_VALUE), BS_KEY("count", BS_VALUE), BS_KEY("count_per_speed", BS_VALUE),
	BS_KEY("cone_angle", BS_VALUE), BS_KEY("speed", BS_VALUE)};

static const bsSchemaKey bsSurfaceKeys[] = {BS_KEY("type", BS_VALUE), BS_KEY("mesh", BS_VALUE), BS_KEY("body", BS_VALUE),
	BS_KEY("group", BS_VALUE), BS_KEY("gap", BS_VALUE), BS_KEY("side", BS_VALUE), BS_KEY("cone_angle", BS_VALUE),
	BS_KEY("speed", BS_VALUE), BS_KEY("count", BS_VALUE), BS_TIMING_KEYS};

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
bool bsReadEmitter(bsCtx* c, const cJSON* v, void* element, void* user)
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
