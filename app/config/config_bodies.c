// config_bodies.c — reads `environment.bodies` (config_bodies.h, docs/config.md): each body's file,
// material, keys and deformation, checked so that bsBody_Create accepts them, every error at its JSON
// path.
#include "config_bodies.h"

#include "config_material.h"
#include "config_read.h"
#include "blobsim/body.h"
#include "blobsim/quat.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double bsDegrees = BS_PI / 180.0;
static const bsRange bsMaxAngleRange = {0.0, 180.0, true, "a number > 0 and <= 180 (degrees)"};

static const bsSchemaKey bsRotateKeys[] = {
	BS_REQUIRED_VEC3("axis", bsBodyKeyConfig, axis, &bsAnyNumber, "3 numbers, not all zero"),
	BS_REQUIRED_NUMBER("angle", bsBodyKeyConfig, angle, &bsAnyNumber)};
static const bsSchema bsRotateSchema = BS_OBJECT(bsRotateKeys);
static const bsSchemaKey bsKeyKeys[] = {
	BS_REQUIRED_NUMBER("time", bsBodyKeyConfig, time, &bsAnyNumber),
	BS_KEY("translate", BS_VALUE), BS_KEY("rotate", &bsRotateSchema), BS_KEY("scale", BS_VALUE)};
static const bsSchema bsKeySchema = BS_ELEMENT(bsKeyKeys, "an object (a key)");
static const bsSchema bsKeyArraySchema = BS_ARRAY(&bsKeySchema);

static const bsSchemaKey bsControlKeys[] = {BS_KEY("point", BS_VALUE), BS_KEY("displacements", BS_VALUE)};
static const bsSchema bsControlSchema = BS_ELEMENT(bsControlKeys, "an object (a control point)");
static const bsSchema bsControlArraySchema = BS_ARRAY(&bsControlSchema);
static const bsSchemaKey bsDeformKeys[] = {
	BS_REQUIRED_NUMBER("support", bsBodyConfig, support, &bsPositive),
	BS_KEY("times", BS_VALUE), BS_KEY("controls", &bsControlArraySchema)};
static const bsSchema bsDeformSchema = BS_OBJECT(bsDeformKeys);

static const bsSchemaKey bsDynamicKeys[] = {
	BS_NUMBER("density", bsBodyConfig, density, &bsPositive, 1000.0),
	BS_VEC3("velocity", bsBodyConfig, velocity, &bsAnyNumber, "3 numbers (m/s)", 0, 0, 0),
	BS_VEC3("angular_velocity", bsBodyConfig, angularVelocity, &bsAnyNumber, "3 numbers (degrees per second)", 0, 0, 0),
	BS_INT("sensor_particles", bsBodyConfig, sensorParticles, 0, 64, 0),
	BS_KEY("coupling", BS_VALUE)};
static const bsSchema bsDynamicSchema = BS_OBJECT(bsDynamicKeys);

static const bsSchemaKey bsSequenceKeys[] = {
	BS_KEY("files", BS_VALUE), BS_KEY("pattern", BS_VALUE), BS_KEY("first", BS_VALUE), BS_KEY("last", BS_VALUE),
	BS_NUMBER("fps", bsBodyConfig, fps, &bsPositive, 24.0),
	BS_NUMBER("start", bsBodyConfig, start, &bsAnyNumber, 0.0)};
static const bsSchema bsSequenceSchema = BS_OBJECT(bsSequenceKeys);

static const bsSchemaKey bsBodyKeys[] = {
	BS_KEY("file", BS_VALUE),
	BS_KEY("material", &bsMaterialSchema),
	BS_KEY("loop", BS_VALUE),
	BS_NUMBER("max_angle", bsBodyConfig, maxAngle, &bsMaxAngleRange, 0.1 * 180.0 / BS_PI),
	BS_KEY("keys", &bsKeyArraySchema),
	BS_KEY("deform", &bsDeformSchema),
	BS_KEY("sequence", BS_VALUE),
	BS_KEY("dynamic", &bsDynamicSchema),
	BS_KEY("field", &bsBodyFieldSchema)};
static const bsSchema bsBodySchema = BS_ELEMENT(bsBodyKeys, "an object (a body)");
const bsSchema bsBodyArraySchema = BS_ARRAY(&bsBodySchema);

static const bsSchemaKey bsSensorKeys[] = {
	BS_INT_IN("min_moved", bsBodyDynamicsDef, sensors.minMoved, 0, 1000000),
	BS_INT_IN("max_steps", bsBodyDynamicsDef, sensors.maxSteps, 0, 1000000),
	BS_NUMBER_IN("tolerance", bsBodyDynamicsDef, sensors.tolerance, &bsAnyNumber),
	BS_NUMBER_IN("effective_radius", bsBodyDynamicsDef, sensors.effectiveRadius, &bsNonNegative),
	BS_INT_IN("exact_rings", bsBodyDynamicsDef, sensors.exactRings, 0, 8)};
static const bsSchema bsSensorSchema = BS_OBJECT(bsSensorKeys);
static const bsSchemaKey bsDynamicsKeys[] = {
	BS_KEY("method", BS_VALUE),
	BS_NUMBER_IN("restitution", bsBodyDynamicsDef, step.restitution, &bsUnit),
	BS_NUMBER_IN("friction", bsBodyDynamicsDef, step.friction, &bsNonNegative),
	BS_NUMBER_IN("rest_speed", bsBodyDynamicsDef, step.restThreshold, &bsNonNegative),
	BS_NUMBER_IN("sleep_speed", bsBodyDynamicsDef, step.sleepSpeed, &bsNonNegative),
	BS_NUMBER_IN("sleep_delay", bsBodyDynamicsDef, step.sleepDelay, &bsNonNegative),
	BS_INT_IN("iterations", bsBodyDynamicsDef, step.iterations, 1, 1000),
	BS_KEY("sensors", &bsSensorSchema)};
const bsSchema bsDynamicsSchema = BS_OBJECT(bsDynamicsKeys);

// --- keys ---

static bool bsReadKeyScale(bsCtx* c, const cJSON* v, bsBodyKeyConfig* key)
{
	const cJSON* scale = bsMember(v, "scale");
	key->hasScale = scale != NULL;
	if (scale == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "scale");
	const char* what = "a number > 0 or 3 numbers > 0";
	if (cJSON_IsNumber(scale))
	{
		key->scale = bsV3(scale->valuedouble, scale->valuedouble, scale->valuedouble);
		if (!bsInRange(scale->valuedouble, &bsPositive))
		{
			return bsFailExpected(c, what, scale);
		}
	}
	else if (!bsVec3FromValue(c, scale, &bsPositive, what, &key->scale))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadKey(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsBodyKeyConfig* key = element;
	const bsBodyKeyConfig* previous = user != NULL && *(int*)user > 0 ? key - 1 : NULL;
	key->hasTranslate = bsMember(v, "translate") != NULL;
	key->hasRotate = bsMember(v, "rotate") != NULL;
	if (!bsReadElementFields(c, v, &bsKeySchema, key) ||
		!bsReadVec3(c, v, "translate", false, &bsAnyNumber, "3 numbers", bsV3(0, 0, 0), &key->translate) ||
		(key->hasRotate && !bsReadSection(c, v, "rotate", &bsRotateSchema, key)) || !bsReadKeyScale(c, v, key))
	{
		return false;
	}
	*(int*)user += 1;
	if (previous != NULL && !(key->time > previous->time))
	{
		bsPushKey(c, "time");
		return bsFail(c, "%g is not after the previous key's time %g", key->time, previous->time);
	}
	if (key->hasRotate && bsMaxAbs(key->axis) == 0.0)
	{
		bsPushKey(c, "rotate");
		bsPushKey(c, "axis");
		return bsFail(c, "expected 3 numbers, not all zero");
	}
	key->angle *= bsDegrees;
	return true;
}

// Slerp takes the shorter way between two orientations: consecutive rotation keys must be less than
// half a turn apart (a roll of many turns is keyed every quarter turn or so).
static bool bsCheckRotations(bsCtx* c, const bsBodyConfig* body)
{
	const bsBodyKeyConfig* last = NULL;
	for (int k = 0; k < body->keyCount; ++k)
	{
		const bsBodyKeyConfig* key = body->keys + k;
		if (!key->hasRotate)
		{
			continue;
		}
		if (last != NULL)
		{
			// About one axis the keys say how far they mean to turn; otherwise the orientations' arc.
			bsVec3 u = bsNormalize(last->axis), w = bsNormalize(key->axis);
			bsQuat a = bsQuat_FromAxisAngle(last->axis, last->angle);
			bsQuat b = bsQuat_FromAxisAngle(key->axis, key->angle);
			double turn = bsDot(u, w) > 1.0 - 1e-12 ? fabs(key->angle - last->angle)
				: bsDot(u, w) < -1.0 + 1e-12 ? fabs(key->angle + last->angle)
				: 2.0 * acos(fmin(fabs(bsQuat_Dot(a, b)), 1.0));
			turn /= bsDegrees;
			if (turn > 179.0)
			{
				bsPushKey(c, "keys");
				bsPushIndex(c, k);
				bsPushKey(c, "rotate");
				return bsFail(c, "turns %.6g degrees from the previous rotation key: keep consecutive keys "
					"under 179 degrees apart (rotation is interpolated the shorter way)", turn);
			}
		}
		last = key;
	}
	return true;
}

// --- deformation ---

static bool bsReadTimes(bsCtx* c, const cJSON* deform, bsBodyConfig* body)
{
	const cJSON* times = bsMember(deform, "times");
	size_t mark = bsPushKey(c, "times");
	if (times == NULL)
	{
		bsPop(c, mark);
		return bsMissing(c, "times");
	}
	int n = cJSON_IsArray(times) ? cJSON_GetArraySize(times) : 0;
	if (n < 1)
	{
		return bsFailExpected(c, "an array of at least one time, increasing", times);
	}
	body->times = calloc((size_t)n, sizeof(double));
	if (body->times == NULL)
	{
		return bsOutOfMemory(c);
	}
	int k = 0;
	for (const cJSON* t = times->child; t != NULL; t = t->next, ++k)
	{
		size_t imark = bsPushIndex(c, k);
		if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || (k > 0 && !(t->valuedouble > body->times[k - 1])))
		{
			return bsFailExpected(c, k > 0 ? "a number after the previous time" : "a number", t);
		}
		body->times[k] = t->valuedouble;
		bsPop(c, imark);
	}
	body->timeCount = n;
	bsPop(c, mark);
	return true;
}

static bool bsReadControl(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsBodyConfig* body = user;
	int j = (int)((bsVec3*)element - body->controls);
	if (!bsCheckKeys(c, v, bsControlKeys, BS_COUNT(bsControlKeys)) ||
		!bsReadVec3(c, v, "point", true, &bsAnyNumber, "3 numbers", bsV3(0, 0, 0), body->controls + j))
	{
		return false;
	}
	const cJSON* d = bsMember(v, "displacements");
	size_t mark = bsPushKey(c, "displacements");
	if (d == NULL)
	{
		bsPop(c, mark);
		return bsMissing(c, "displacements");
	}
	if (!cJSON_IsArray(d) || cJSON_GetArraySize(d) != body->timeCount)
	{
		char what[96];
		snprintf(what, sizeof what, "an array of %d displacements (one per deform.times)", body->timeCount);
		return bsFailExpected(c, what, d);
	}
	int k = 0;
	for (const cJSON* e = d->child; e != NULL; e = e->next, ++k)
	{
		size_t imark = bsPushIndex(c, k);
		if (!bsVec3FromValue(c, e, &bsAnyNumber, "3 numbers", body->displacements + (size_t)k * (size_t)body->controlCount + j))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadDeform(bsCtx* c, const cJSON* v, bsBodyConfig* body)
{
	const cJSON* deform;
	if (!bsReadObject(c, v, "deform", &bsDeformSchema, &deform))
	{
		return false;
	}
	if (deform == NULL)
	{
		return true;
	}
	body->deforming = true;
	size_t mark = bsPushKey(c, "deform");
	const cJSON* controls;
	int count;
	if (!bsReadFields(c, deform, &bsDeformSchema, body) || !bsReadTimes(c, deform, body) ||
		!bsReadArray(c, deform, "controls", "an array of control points", &controls, &count))
	{
		return false;
	}
	if (count < 1)
	{
		bsPushKey(c, "controls");
		return bsFail(c, "expected at least one control point");
	}
	body->controls = calloc((size_t)count, sizeof(bsVec3));
	body->displacements = calloc((size_t)count * (size_t)body->timeCount, sizeof(bsVec3));
	if (body->controls == NULL || body->displacements == NULL)
	{
		return bsOutOfMemory(c);
	}
	body->controlCount = count;
	int read = 0;
	if (!bsReadElements(c, "controls", controls, bsReadControl, body->controls, sizeof(bsVec3), &read, body))
	{
		return false;
	}
	// The weights exist only for distinct enough control points (bsDeformDef_CheckControls).
	bsDeformDef controlsDef = {.controls = body->controls, .controlCount = count, .support = body->support};
	bsResult r = count > 4096 ? bs_errTooLarge : bsDeformDef_CheckControls(&controlsDef);
	if (r != bs_ok)
	{
		bsPushKey(c, "controls");
		return r == bs_errOutOfMemory ? bsOutOfMemory(c)
			: r == bs_errTooLarge ? bsFail(c, "%d control points, more than 4096", count)
			: bsFail(c, "two control points are too close to tell apart at this support");
	}
	bsPop(c, mark);
	return true;
}

// --- mesh sequences ---

enum
{
	bs_maxFrames = 100000,
};

// pattern with its one integer conversion (%d, %Nd or %0Nd; %% is a percent sign) replaced by
// frame. False when the pattern has no such conversion, another one, or two.
static bool bsFormatFrame(const char* pattern, int frame, char* out, size_t size)
{
	size_t n = 0;
	int conversions = 0;
	for (const char* p = pattern; *p != '\0'; ++p)
	{
		char piece[64];
		size_t len = 1;
		piece[0] = *p;
		if (*p == '%' && p[1] == '%')
		{
			++p;
		}
		else if (*p == '%')
		{
			bool zero = p[1] == '0';
			const char* q = p + 1 + zero;
			int width = 0;
			while (*q >= '0' && *q <= '9' && width < 100)
			{
				width = 10 * width + (*q++ - '0');
			}
			if (*q != 'd' || width >= 100 || ++conversions > 1)
			{
				return false;
			}
			len = (size_t)snprintf(piece, sizeof piece, zero ? "%0*d" : "%*d", width, frame);
			p = q;
		}
		if (n + len >= size)
		{
			return false;
		}
		memcpy(out + n, piece, len);
		n += len;
	}
	out[n] = '\0';
	return conversions == 1;
}

// The paths of files (at sequence.key, or at sequence itself when key is NULL).
static bool bsReadSequenceFiles(bsCtx* c, const cJSON* files, const char* key, bsBodyConfig* body)
{
	size_t mark = key != NULL ? bsPushKey(c, key) : 0;
	int n = cJSON_IsArray(files) ? cJSON_GetArraySize(files) : 0;
	if (n < 1 || n > bs_maxFrames)
	{
		return bsFailExpected(c, "an array of 1 to 100000 OBJ paths, one per frame", files);
	}
	if ((body->frames = calloc((size_t)n, sizeof(char*))) == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (const cJSON* f = files->child; f != NULL; f = f->next)
	{
		size_t imark = bsPushIndex(c, body->frameCount);
		if (!cJSON_IsString(f) || f->valuestring[0] == '\0')
		{
			return bsFailExpected(c, "a non-empty string (a file path)", f);
		}
		if (!bsFilePath(c, f->valuestring, body->frames + body->frameCount))
		{
			return false;
		}
		body->frameCount += 1;
		bsPop(c, imark);
	}
	if (key != NULL)
	{
		bsPop(c, mark);
	}
	return true;
}

static bool bsReadSequencePattern(bsCtx* c, const cJSON* seq, bsBodyConfig* body)
{
	const cJSON* pattern = bsMember(seq, "pattern");
	int first = 0, last = 0;
	if (bsMember(seq, "first") == NULL || bsMember(seq, "last") == NULL)
	{
		return bsMissing(c, bsMember(seq, "first") == NULL ? "first" : "last");
	}
	if (!bsReadInt(c, seq, "first", 0, 1000000000, 0, &first) || !bsReadInt(c, seq, "last", 0, 1000000000, 0, &last))
	{
		return false;
	}
	if (last < first || last - first >= bs_maxFrames)
	{
		bsPushKey(c, "last");
		return bsFail(c, "expected a frame number from `first` (%d) to %d (at most 100000 frames), got %d", first,
			first + bs_maxFrames - 1, last);
	}
	size_t mark = bsPushKey(c, "pattern");
	char name[4096];
	if (!cJSON_IsString(pattern) || !bsFormatFrame(pattern->valuestring, first, name, sizeof name))
	{
		return bsFailExpected(c, "a path with one frame number conversion, e.g. \"walk/frame_%04d.obj\" (%% for a "
			"percent sign)", pattern);
	}
	int n = last - first + 1;
	if ((body->frames = calloc((size_t)n, sizeof(char*))) == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (int k = 0; k < n; ++k)
	{
		if (!bsFormatFrame(pattern->valuestring, first + k, name, sizeof name))
		{
			return bsFail(c, "frame %d's path is longer than %zu bytes", first + k, sizeof name - 1);
		}
		if (!bsFilePath(c, name, body->frames + k))
		{
			return false;
		}
		body->frameCount = k + 1;
	}
	bsPop(c, mark);
	return true;
}

// `sequence`: an array of OBJ paths, or an object with `files` or `pattern` + `first` + `last`, and
// `fps` and `start`. The frames' topology is checked when they are loaded (bodies.c).
static bool bsReadSequence(bsCtx* c, const cJSON* v, bsBodyConfig* body)
{
	const cJSON* seq = bsMember(v, "sequence");
	body->fps = 24.0;
	body->start = 0.0;
	if (seq == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "sequence");
	if (body->deforming)
	{
		return bsFail(c, "a body deforms by `deform` or by `sequence`, not both");
	}
	body->deforming = true;
	if (cJSON_IsArray(seq))
	{
		bool ok = bsReadSequenceFiles(c, seq, NULL, body);
		if (ok)
		{
			bsPop(c, mark);
		}
		return ok;
	}
	if (!cJSON_IsObject(seq))
	{
		return bsFailExpected(c, "an array of OBJ paths or an object (files or pattern, first, last; fps, start)", seq);
	}
	if (!bsCheckKeys(c, seq, bsSequenceKeys, BS_COUNT(bsSequenceKeys)) || !bsReadFields(c, seq, &bsSequenceSchema, body))
	{
		return false;
	}
	const cJSON* files = bsMember(seq, "files");
	if ((files != NULL) == (bsMember(seq, "pattern") != NULL))
	{
		return bsFail(c, "expected either `files` or `pattern` (with `first` and `last`)");
	}
	if (!(files != NULL ? bsReadSequenceFiles(c, files, "files", body) : bsReadSequencePattern(c, seq, body)))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// `file`, or with a sequence its first frame (both: an error).
static bool bsReadBodyFile(bsCtx* c, const cJSON* v, bsBodyConfig* body)
{
	if (bsMember(v, "file") != NULL && body->frameCount > 0)
	{
		bsPushKey(c, "file");
		return bsFail(c, "a body with a `sequence` takes its mesh from the first frame: drop `file`");
	}
	if (body->frameCount > 0)
	{
		body->file = bsStrDup(body->frames[0]);
		return body->file != NULL || bsOutOfMemory(c);
	}
	return bsReadFile(c, v, "file", true, NULL, &body->file);
}

// --- bodies ---

static bool bsReadDynamic(bsCtx* c, const cJSON* v, bsBodyConfig* body);

static bool bsReadBody(bsCtx* c, const cJSON* v, void* element, void* user)
{
	bsBodyConfig* body = element;
	const cJSON* keys;
	int keyCount;
	if (!bsReadElementFields(c, v, &bsBodySchema, body) || !bsReadMaterial(c, v, "material", "white", &body->material) ||
		!bsReadBool(c, v, "loop", false, &body->loop) ||
		!bsReadArray(c, v, "keys", "an array of keys", &keys, &keyCount))
	{
		return false;
	}
	body->maxAngle *= bsDegrees;
	body->keys = keyCount > 0 ? calloc((size_t)keyCount, sizeof(bsBodyKeyConfig)) : NULL;
	if (keyCount > 0 && body->keys == NULL)
	{
		return bsOutOfMemory(c);
	}
	int read = 0, done = 0;
	if (!bsReadElements(c, "keys", keys, bsReadKey, body->keys, sizeof(bsBodyKeyConfig), &read, &done))
	{
		return false;
	}
	body->keyCount = keyCount;
	return bsCheckRotations(c, body) && bsReadDeform(c, v, body) && bsReadSequence(c, v, body) &&
		bsReadBodyFile(c, v, body) && bsReadDynamic(c, v, body) &&
		bsReadBodyField(c, v, &body->hasField, &body->fieldBuild);
}

// --- dynamic bodies ---

// A dynamic body's motion comes from its state: its keys give only where it starts.
static bool bsReadDynamic(bsCtx* c, const cJSON* v, bsBodyConfig* body)
{
	body->density = 1000.0;
	body->dynamic = bsMember(v, "dynamic") != NULL;
	if (!bsReadSection(c, v, "dynamic", &bsDynamicSchema, body))
	{
		return false;
	}
	body->angularVelocity = bsScale(bsDegrees, body->angularVelocity);
	if (!body->dynamic)
	{
		return true;
	}
	static const char* const couplings[] = {"one_way", "two_way"};
	int coupling = 0;
	size_t mark = bsPushKey(c, "dynamic");
	if (!bsReadChoice(c, bsMember(v, "dynamic"), "coupling", false, couplings, 2, 0, &coupling))
	{
		return false;
	}
	bsPop(c, mark);
	body->twoWay = coupling == 1;
	// A dynamic body may deform by control points (in its own frame), not follow a sequence.
	if (body->frameCount > 0)
	{
		bsPushKey(c, "sequence");
		return bsFail(c, "a dynamic body cannot follow a mesh sequence (drop `sequence` or `dynamic`)");
	}
	for (int k = 0; k < body->keyCount; ++k)
	{
		if (k > 0 || body->keys[k].hasScale)
		{
			bsPushKey(c, "keys");
			bsPushIndex(c, k);
			return bsFail(c, k > 0 ? "a dynamic body takes one key, its start pose (it moves by its own dynamics)"
				: "a dynamic body cannot be scaled (scale its OBJ)");
		}
	}
	return true;
}

static bool bsReadDynamics(bsCtx* c, const cJSON* environment, bsEnvironmentConfig* env)
{
	const cJSON* v;
	if (!bsReadObject(c, environment, "dynamics", &bsDynamicsSchema, &v))
	{
		return false;
	}
	if (v == NULL)
	{
		return true;
	}
	env->bodyDynamics = malloc(sizeof(bsBodyDynamicsDef));
	if (env->bodyDynamics == NULL)
	{
		return bsOutOfMemory(c);
	}
	*env->bodyDynamics = bsDefaultBodyDynamicsDef();
	static const char* const methods[] = {"exact", "sensors"};
	int method = 0;
	size_t mark = bsPushKey(c, "dynamics");
	if (!bsReadFields(c, v, &bsDynamicsSchema, env->bodyDynamics) ||
		!bsReadChoice(c, v, "method", false, methods, 2, 0, &method) ||
		!bsReadSection(c, v, "sensors", &bsSensorSchema, env->bodyDynamics))
	{
		return false;
	}
	env->bodyDynamics->method = (bsBodyContactMethod)method;
	bsPop(c, mark);
	return true;
}

enum
{
	bs_maxBodies = BS_WORLD_MAX_COLLIDERS - 3,
};

bool bsReadBodiesConfig(bsCtx* c, const cJSON* environment, bsEnvironmentConfig* env)
{
	const cJSON* bodies;
	int count;
	if (!bsReadArray(c, environment, "bodies", "an array of bodies", &bodies, &count))
	{
		return false;
	}
	// Each body is one of the world's colliders; the meshes, the planes and the stuck particles take
	// one each.
	if (count > bs_maxBodies)
	{
		size_t mark = bsPushKey(c, "bodies");
		bsFail(c, "%d bodies, more than the %d a world holds (each body is one of its %d colliders)", count,
			(int)bs_maxBodies, BS_WORLD_MAX_COLLIDERS);
		bsPop(c, mark);
		return false;
	}
	env->bodies = count > 0 ? calloc((size_t)count, sizeof(bsBodyConfig)) : NULL;
	if (count > 0 && env->bodies == NULL)
	{
		return bsOutOfMemory(c);
	}
	return bsReadElements(c, "bodies", bodies, bsReadBody, env->bodies, sizeof(bsBodyConfig), &env->bodyCount, NULL) &&
		bsReadDynamics(c, environment, env);
}

void bsBodiesConfig_Free(bsEnvironmentConfig* env)
{
	for (int i = 0; i < env->bodyCount; ++i)
	{
		bsBodyConfig* b = env->bodies + i;
		free(b->file);
		bsMaterial_Free(&b->material);
		free(b->keys);
		free(b->times);
		free(b->controls);
		free(b->displacements);
		for (int k = 0; k < b->frameCount; ++k)
		{
			free(b->frames[k]);
		}
		free(b->frames);
	}
	free(env->bodies);
	free(env->bodyDynamics);
	env->bodyDynamics = NULL;
	env->bodies = NULL;
	env->bodyCount = 0;
}
