// test_config.c — the config reader: exact error messages for malformed configs, every default,
// relative paths, --set overrides and the hash.
#include "config.h"
#include "files.h"
#include "test.h"
#include "core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// A minimal valid config body (without the braces) that the cases below extend.
#define BASE_ENV "\"environment\": {\"planes\": [{}]}"
#define BASE_EMITTER "{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": [4, 4, 4]}"
#define BASE_PARTICLES "\"particles\": {\"radius\": 0.1, \"emitters\": [" BASE_EMITTER "]}"
#define BASE BASE_ENV ", " BASE_PARTICLES
#define WITH(X) "{" BASE ", " X "}"
#define PARTICLES(X) "{" BASE_ENV ", \"particles\": {\"radius\": 1, \"emitters\": [" X "]}}"

typedef struct BadCase
{
	const char* text;
	size_t length;          // 0: strlen(text)
	const char* overrides[2];
	bsResult result;
	const char* message;
} BadCase;

static const BadCase badCases[] = {
	// Syntax, with line:column.
	{"{\n  \"seed\": 1,\n  \"motion\": {\"dt\": \"fast}\n}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:3:20: unterminated string (no closing '\"' on its line)"},
	{"{\"seed\": \"abc", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:10: unterminated string (no closing '\"' before the end of file)"},
	{"{\"seed\": 1,\n}", 0, {NULL}, bs_errInvalidArgument, "dir/c.json:1:11: trailing comma before '}'"},
	{"{\"motion\": {\"gravity\": [0, -9.81, 0,]}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:36: trailing comma before ']'"},
	{"{\"seed\": 1,\n \"motion\": {\"steps\": 3}\n", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:3:1: unexpected end of file (the '{' at line 1, column 1 is not closed)"},
	{"{\"seed\": 1} {\"seed\": 2}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:13: expected end of file after the JSON value, found '{'"},
	{"{\"seed\": 1}\nnull", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:2:1: expected end of file after the JSON value, found 'null'"},
	{"{\"seed\": 1 \"motion\": {}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:12: expected ',' or '}', found '\"motion\"'"},
	{"{seed: 1}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:2: expected a key in double quotes or '}', found 'seed'"},
	{"{\"seed\": True}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:10: expected a value, found 'True'"},
	{"{\"seed\": 01}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:10: invalid number: leading zeros are not allowed"},
	{"{\"seed\": 1.}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:12: invalid number: expected a digit after '.'"},
	{"{\"output\": {\"directory\": \"a\\qb\"}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:28: invalid escape '\\q' in a string"},
	{"{\"output\": {\"directory\": \"a\\u0000b\"}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:28: \\u0000 is not allowed in a string"},
	{"{\"seed\":\n 1\0}", 13, {NULL}, bs_errInvalidArgument,
		"dir/c.json:2:3: NUL byte (is this a binary or UTF-16 file?)"},
	{"{\"output\": {\"directory\":\n \"caf\xc3\xa9 \xe9t\xe9\"}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:2:8: invalid UTF-8 (byte 0xe9): save the file as UTF-8"},
	{"\xff\xfe{\0", 4, {NULL}, bs_errInvalidArgument, "dir/c.json:1:1: UTF-16 text: save the file as UTF-8"},
	{"", 0, {NULL}, bs_errInvalidArgument, "dir/c.json:1:1: empty file (expected a JSON object)"},
	{" \n\t\n", 0, {NULL}, bs_errInvalidArgument, "dir/c.json:1:1: empty file (expected a JSON object)"},
	{"\xef\xbb\xbf{\"seed\": x}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json:1:10: expected a value, found 'x'"},
	// Structure: wrong types, ranges, keys.
	{"[1, 2]", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: expected a JSON object at the top level, got [1, 2]"},
	{WITH("\"collision\": {\"mehtod\": \"exact\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: collision.mehtod: unknown key (did you mean 'method'?)"},
	{WITH("\"rendr\": {}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: rendr: unknown key (did you mean 'render'?)"},
	{WITH("\"motion\": {\"zzz\": 1}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.zzz: unknown key (allowed: steps, dt, gravity, drag, substeps, max_substeps, radial, wind, turbulence, vortex, buoyancy, sleep)"},
	{WITH("\"collision\": {\"method\": \"exakt\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: collision.method: expected one of \"karabassi\", \"exact\", \"ray\", got \"exakt\" "
		"(did you mean \"exact\"?)"},
	{WITH("\"collision\": {\"method\": \"exact\", \"method\": \"ray\"}"), 0, {NULL},
		bs_errInvalidArgument, "dir/c.json: collision.method: duplicate key"},
	{WITH("\"seed\": 1, \"seed\": 2"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: seed: duplicate key"},
	{"{" BASE_ENV ", \"environment\": {}, " BASE_PARTICLES "}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: environment: duplicate key"},
	{WITH("\"motion\": {\"dt\": \"fast\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.dt: expected a number > 0, got \"fast\""},
	{WITH("\"motion\": {\"dt\": 0}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.dt: expected a number > 0, got 0"},
	{WITH("\"motion\": {\"dt\": 1e999}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.dt: expected a number > 0, got inf"},
	{WITH("\"motion\": {\"steps\": 3.5}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.steps: expected an integer from 1 to 2147483647, got 3.5"},
	{WITH("\"motion\": {\"steps\": 1e300}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: motion.steps: expected an integer from 1 to 2147483647, got 1e+300"},
	{WITH("\"seed\": -1"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: seed: expected an integer from 0 to 9007199254740991, got -1"},
	{WITH("\"collision\": {\"restitution\": 1.5}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: collision.restitution: expected a number from 0 to 1, got 1.5"},
	{WITH("\"collision\": {\"max_contacts\": 65}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: collision.max_contacts: expected an integer from 1 to 64, got 65"},
	{WITH("\"render\": {\"width\": 8}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.width: expected an integer from 16 to 16384, got 8"},
	{WITH("\"render\": {\"background\": [1, 1]}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.background: expected 3 numbers from 0 to 1 (rgb), got [1, 1]"},
	{WITH("\"render\": {\"camera\": {\"angle\": 180}}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.camera.angle: expected a number from 1 to 179 (degrees), got 180"},
	{WITH("\"render\": {\"particle_material\": \"snwo\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.particle_material: unknown material preset \"snwo\" (did you mean \"snow\"?)"},
	{WITH("\"render\": {\"particle_material\": {}}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.particle_material: expected at least one of pigment, finish, normal (or vertex_colors)"},
	{WITH("\"render\": {\"particle_material\": {\"pigment\": \"color rgb <1, 0, 0> }\"}}"), 0, {NULL},
		bs_errInvalidArgument,
		"dir/c.json: render.particle_material.pigment: unbalanced braces or quotes in the POV-Ray text"},
	{WITH("\"render\": {\"blob\": {\"threshold\": 2}}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.blob.threshold: expected a number > 0 and below strength 1, got 2"},
	{WITH("\"render\": {\"blob\": {\"cull\": 1}}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.blob.cull: expected true or false, got 1"},
	{WITH("\"render\": {\"lights\": [{\"color\": [1, 1, 1]}]}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: render.lights[0]: missing required key 'location'"},
	{"{" BASE_PARTICLES "}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: missing required key 'environment'"},
	{"{" BASE_ENV "}", 0, {NULL}, bs_errInvalidArgument, "dir/c.json: missing required key 'particles'"},
	{"{\"environment\": {\"meshes\": [], \"planes\": []}, " BASE_PARTICLES "}", 0, {NULL},
		bs_errInvalidArgument, "dir/c.json: environment: expected at least one mesh or plane"},
	{"{\"environment\": {\"meshes\": [{\"scale\": 2}]}, " BASE_PARTICLES "}", 0, {NULL},
		bs_errInvalidArgument, "dir/c.json: environment.meshes[0]: missing required key 'file'"},
	{"{\"environment\": {\"meshes\": [{\"file\": \"a.obj\", \"scale\": [1, 0, 1]}]}, " BASE_PARTICLES
		"}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: environment.meshes[0].scale: expected a non-zero number or 3 non-zero numbers, "
		"got [1, 0, 1]"},
	{"{\"environment\": {\"meshes\": [{\"file\": \"a.obj\", \"materials\": {\"roof\": \"wood\", "
		"\"roof\": \"stone\"}}]}, " BASE_PARTICLES "}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: environment.meshes[0].materials.roof: duplicate key"},
	{"{\"environment\": {\"planes\": [{}, {\"normal\": [0, 0, 0]}]}, " BASE_PARTICLES "}", 0, {NULL},
		bs_errInvalidArgument,
		"dir/c.json: environment.planes[1].normal: expected 3 numbers, not all zero, got [0, 0, 0]"},
	{"{" BASE_ENV ", \"particles\": {\"emitters\": [" BASE_EMITTER "]}}", 0, {NULL},
		bs_errInvalidArgument, "dir/c.json: particles: missing required key 'radius'"},
	{"{" BASE_ENV ", \"particles\": {\"radius\": 1}}", 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles: missing required key 'emitters'"},
	{PARTICLES("{}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0]: missing required key 'type'"},
	{PARTICLES(BASE_EMITTER ", {\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], "
		"\"count\": [4, -1, 2]}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[1].count: expected 3 positive integers, got [4, -1, 2]"},
	{PARTICLES("{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": [4, 2.5, 2]}"),
		0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].count: expected 3 positive integers, got [4, 2.5, 2]"},
	{PARTICLES("{\"type\": \"random\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": -5}"), 0,
		{NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].count: expected a positive integer, got -5"},
	{PARTICLES("{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], "
		"\"count\": [100000, 100000, 1000]}"), 0, {NULL}, bs_errTooLarge,
		"dir/c.json: particles.emitters[0].count: 10000000000000 particles, more than the limit of "
		"2147483647"},
	{PARTICLES("{\"type\": \"random\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": 2000000000}, "
		"{\"type\": \"random\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": 200000000}"), 0,
		{NULL}, bs_errTooLarge,
		"dir/c.json: particles.emitters[1].count: the emitters make 2200000000 particles in total, more "
		"than the limit of 2147483647"},
	{PARTICLES("{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 0, 1], \"count\": [1, 1, 1]}"), 0,
		{NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].max: expected 3 numbers greater than min [0, 0, 0] component "
		"by component, got [1, 0, 1]"},
	{PARTICLES("{\"type\": \"random\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": 5, "
		"\"jitter\": 0.5}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].jitter: not used by a \"random\" emitter (its keys: type, min, "
		"max, count, start, stop, rate, motion)"},
	{PARTICLES("{\"tpye\": \"file\", \"file\": \"p.ply\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].tpye: unknown key (did you mean 'type'?)"},
	{PARTICLES("{\"type\": \"grd\"}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].type: expected one of \"grid\", \"random\", \"file\", \"nozzle\", \"surface\", \"trail\", got "
		"\"grd\" (did you mean \"grid\"?)"},
	{WITH("\"collision\": {\"bounds\": {\"min\": [0, 0, 0]}}"), 0, {NULL}, bs_errInvalidArgument,
		"dir/c.json: collision.bounds: missing required key 'max'"},
	// Overrides.
	{WITH("\"seed\": 3"), 0, {"collision.mehtod=exact"}, bs_errInvalidArgument,
		"--set collision.mehtod=exact: unknown key 'mehtod' in collision (did you mean 'method'?)"},
	{WITH("\"seed\": 3"), 0, {"sed=4"}, bs_errInvalidArgument,
		"--set sed=4: unknown key 'sed' (did you mean 'seed'?)"},
	{WITH("\"seed\": 3"), 0, {"particles.emitters.0.cuont=[1,1,1]"}, bs_errInvalidArgument,
		"--set particles.emitters.0.cuont=[1,1,1]: unknown key 'cuont' in particles.emitters[0] (did you "
		"mean 'count'?)"},
	{WITH("\"seed\": 3"), 0, {"particles.emitters.2.count=[1,1,1]"}, bs_errInvalidArgument,
		"--set particles.emitters.2.count=[1,1,1]: index 2 is out of range: particles.emitters has 1 "
		"element (index 1 appends)"},
	{WITH("\"seed\": 3"), 0, {"particles.emitters.first.count=1"}, bs_errInvalidArgument,
		"--set particles.emitters.first.count=1: particles.emitters is an array: expected an index, got "
		"'first'"},
	{WITH("\"seed\": 3"), 0, {"particles.radius.x=1"}, bs_errInvalidArgument,
		"--set particles.radius.x=1: particles.radius is 0.1 in the config, not an array"},
	{WITH("\"seed\": 3"), 0, {"seed"}, bs_errInvalidArgument, "--set seed: expected key.path=value"},
	{WITH("\"seed\": 3"), 0, {"motion..dt=1"}, bs_errInvalidArgument,
		"--set motion..dt=1: empty key in the path"},
	{WITH("\"seed\": 3"), 0, {"motion.gravity=[0, -9.81"}, bs_errInvalidArgument,
		"--set motion.gravity=[0, -9.81: the value is not valid JSON: column 10: unexpected end of file "
		"(the '[' at line 1, column 1 is not closed)"},
	{WITH("\"seed\": 3"), 0, {"particles.emitters.0.count=[4,-1,2]"}, bs_errInvalidArgument,
		"dir/c.json: particles.emitters[0].count: expected 3 positive integers, got [4, -1, 2] (set by "
		"--set)"},
	{WITH("\"seed\": 3"), 0, {"motion.steps=lots"}, bs_errInvalidArgument,
		"dir/c.json: motion.steps: expected an integer from 1 to 2147483647, got \"lots\" (set by --set)"},
};

static int CheckBad(const BadCase* bc, int index)
{
	int count = 0;
	while (count < 2 && bc->overrides[count] != NULL)
	{
		++count;
	}
	size_t length = bc->length != 0 ? bc->length : strlen(bc->text);
	bsConfig config;
	bsConfigError error;
	bsResult r = bsConfig_ParseWithOverrides(bc->text, length, "dir/c.json", bc->overrides, count,
		&config, &error);
	if (r != bc->result || strcmp(error.message, bc->message) != 0)
	{
		fprintf(stderr, "case %d: result %d (expected %d)\n  got      '%s'\n  expected '%s'\n", index,
			(int)r, (int)bc->result, error.message, bc->message);
		return 1;
	}
	// A failed parse leaves nothing to free; freeing is still harmless.
	ENSURE(config.path == NULL && config.particles.emitters == NULL);
	bsConfig_Free(&config);
	return 0;
}

static int ExpectError(const char* text, size_t length, const char* expected)
{
	bsConfig config;
	bsConfigError error;
	bsResult r = bsConfig_Parse(text, length, "dir/c.json", &config, &error);
	if (r != bs_errInvalidArgument || strcmp(error.message, expected) != 0)
	{
		fprintf(stderr, "got '%s'\nexpected '%s'\n", error.message, expected);
		return 1;
	}
	return 0;
}

static int TestMalformed(void)
{
	int failed = 0;
	int n = (int)(sizeof badCases / sizeof badCases[0]);
	ENSURE(n >= 20);
	for (int i = 0; i < n; ++i)
	{
		failed += CheckBad(badCases + i, i);
	}
	ENSURE(failed == 0);

	// Deep nesting never reaches cJSON (whose own limit, CJSON_NESTING_LIMIT 1000, fails with a bare
	// offset) nor any recursion: the syntax check stops at level 65.
	size_t deep = 100000;
	char* text = malloc(deep);
	ENSURE(text != NULL);
	memset(text, '[', deep);
	int rc = ExpectError(text, deep, "dir/c.json:1:65: nesting deeper than 64 levels");
	memset(text, '{', deep);
	rc |= ExpectError(text, deep, "dir/c.json:1:2: expected a key in double quotes or '}', found '{'");
	// 64 levels are fine for the parser (the top level must still be an object).
	for (int i = 0; i < 64; ++i)
	{
		text[i] = '[';
		text[64 + i] = ']';
	}
	rc |= ExpectError(text, 128, "dir/c.json: expected a JSON object at the top level, got "
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...");
	// Nested objects inside a valid config: the depth check runs before the schema.
	size_t at = 0;
	at += (size_t)sprintf(text, "{\"motion\": ");
	for (int i = 0; i < 70; ++i)
	{
		at += (size_t)sprintf(text + at, "{\"a\": ");
	}
	rc |= ExpectError(text, at, "dir/c.json:1:390: nesting deeper than 64 levels");
	free(text);
	ENSURE(rc == 0);

	// NULL error pointer and NULL path are fine.
	bsConfig config;
	ENSURE(bsConfig_Parse("{", 1, NULL, &config, NULL) == bs_errInvalidArgument);
	bsConfigError error;
	ENSURE(bsConfig_Parse("{", 1, NULL, &config, &error) == bs_errInvalidArgument);
	ENSURE(strcmp(error.message, "<config>:1:2: unexpected end of file (the '{' at line 1, column 1 "
		"is not closed)") == 0);
	ENSURE(bsConfig_Parse(NULL, 0, NULL, &config, &error) == bs_errInvalidArgument);
	ENSURE(strcmp(error.message, "<config>:1:1: empty file (expected a JSON object)") == 0);
	bsConfig_Free(&config);
	bsConfig_Free(NULL);
	return 0;
}

static bool SameVec(bsVec3 a, double x, double y, double z)
{
	return a.x == x && a.y == y && a.z == z;
}

static int TestDefaults(void)
{
	const char* text = "{" BASE "}";
	bsConfig c;
	bsConfigError error;
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &c, &error) == bs_ok);
	ENSURE(strcmp(c.path, "c.json") == 0);
	ENSURE(c.seed == 1);

	ENSURE(c.environment.meshCount == 0 && c.environment.meshes == NULL);
	ENSURE(c.environment.planeCount == 1);
	const bsPlaneConfig* plane = c.environment.planes;
	ENSURE(SameVec(plane->point, 0.0, 0.0, 0.0));
	ENSURE(SameVec(plane->normal, 0.0, 1.0, 0.0));
	ENSURE(strcmp(plane->material.preset, "white") == 0);
	ENSURE(strcmp(plane->material.texture, bsMaterialPreset("white")) == 0);
	ENSURE(plane->material.pigment == NULL && plane->material.finish == NULL);
	ENSURE(plane->material.normal == NULL);

	ENSURE(c.particles.radius == 0.1);
	ENSURE(c.particles.radiusSpread == 0.0);
	ENSURE(SameVec(c.particles.velocity, 0.0, 0.0, 0.0));
	ENSURE(c.particles.emitterCount == 1);
	const bsEmitterConfig* em = c.particles.emitters;
	ENSURE(em->file == NULL && em->emitter.type == bs_emitterGrid);
	ENSURE(SameVec(em->emitter.min, 0.0, 0.0, 0.0) && SameVec(em->emitter.max, 1.0, 1.0, 1.0));
	ENSURE(em->emitter.count[0] == 4 && em->emitter.count[1] == 4 && em->emitter.count[2] == 4);
	ENSURE(em->emitter.jitter == 0.0);
	uint64_t made = 0;
	ENSURE(bsEmitter_Count(&em->emitter, BS_CONFIG_MAX_PARTICLES, &made) == bs_ok && made == 64);
	ENSURE(em->particleCount == 64 && c.particles.particleCount == 64);

	ENSURE(c.motion.steps == 1);
	ENSURE(c.step.dt == 1.0);
	ENSURE(SameVec(c.step.gravity, 0.0, 0.0, 0.0));
	ENSURE(c.step.drag == 0.0);

	ENSURE(c.step.method == bs_methodKarabassi);
	ENSURE(c.step.response == bs_responseStick);
	ENSURE(c.step.restitution == 0.5);
	ENSURE(c.step.friction == 0.0);
	ENSURE(c.step.maxContacts == 4);
	ENSURE(!c.step.bounded);

	ENSURE(SameVec(c.render.camera.location, 0.0, 2.0, -5.0));
	ENSURE(SameVec(c.render.camera.lookAt, 0.0, 0.0, 0.0));
	ENSURE(c.render.camera.angle == 60.0);
	ENSURE(c.render.lightCount == 1);
	ENSURE(SameVec(c.render.lights[0].location, 5.0, 10.0, -5.0));
	ENSURE(SameVec(c.render.lights[0].color, 1.0, 1.0, 1.0));
	ENSURE(SameVec(c.render.background, 1.0, 1.0, 1.0));
	ENSURE(c.render.width == 800 && c.render.height == 600);
	ENSURE(c.render.antialias == 0.3);
	ENSURE(c.render.jitter == 1.0);
	ENSURE(c.render.blob.threshold == 0.6);
	ENSURE(c.render.blob.strength == 1.0);
	ENSURE(c.render.blob.radiusScale == 1.6);
	ENSURE(c.render.blob.maxComponents == 30000);
	ENSURE(!c.render.blob.cull);
	ENSURE(strcmp(c.render.particleMaterial.preset, "snow") == 0);
	ENSURE(strcmp(c.render.particleMaterial.texture, bsMaterialPreset("snow")) == 0);

	ENSURE(strcmp(c.output.directory, "out") == 0);
	ENSURE(c.output.frameEvery == 0);
	bsConfig_Free(&c);
	ENSURE(c.path == NULL && c.render.lights == NULL);

	// Every key spelled out: the values arrive, materials compose, the normal is normalised.
	const char* full =
		"{\"seed\": 42,"
		" \"environment\": {\"meshes\": [{\"file\": \"m.obj\", \"translate\": [1, 2, 3],"
		"   \"rotate\": [0, 90, 0], \"scale\": 2, \"material\": {\"pigment\": \"color rgb <1, 0, 0>\","
		"   \"normal\": \"bumps 0.2\"}, \"materials\": {\"roof\": \"roof\", \"Wall 2\": {\"finish\": "
		"\"phong 1\"}}}],"
		"   \"planes\": [{\"point\": [0, -1, 0], \"normal\": [0, 0, 3e-310], \"material\": \"grass\"}]},"
		" \"particles\": {\"radius\": 0.05, \"radius_spread\": 0.2, \"velocity\": [0, -1, 0],"
		"   \"emitters\": [{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 2, 3], \"count\": [2, 3, 4],"
		"   \"jitter\": 0.5}, {\"type\": \"random\", \"min\": [-1, -1, -1], \"max\": [1, 1, 1],"
		"   \"count\": 100}, {\"type\": \"file\", \"file\": \"p.ply\"}]},"
		" \"motion\": {\"steps\": 200, \"dt\": 0.01, \"gravity\": [0, -9.81, 0], \"drag\": 0.1},"
		" \"collision\": {\"method\": \"exact\", \"response\": \"bounce\", \"restitution\": 0.25,"
		"   \"friction\": 0.1, \"max_contacts\": 8, \"bounds\": {\"min\": [-5, -5, -5], \"max\": [5, 5, 5]}},"
		" \"render\": {\"camera\": {\"location\": [1, 1, 1], \"look_at\": [0, 1, 0], \"angle\": 45},"
		"   \"lights\": [{\"location\": [0, 9, 0]}, {\"location\": [3, 3, 3], \"color\": [2, 1, 0.5]}],"
		"   \"background\": [0, 0, 0.1], \"width\": 320, \"height\": 240, \"antialias\": 0,"
		"   \"blob\": {\"threshold\": 0.5, \"strength\": 2, \"radius_scale\": 1.5, \"max_components\": 100,"
		"   \"cull\": false},"
		"   \"particle_material\": \"slime\"},"
		" \"output\": {\"directory\": \"frames\", \"frame_every\": 10}}";
	ENSURE(bsConfig_Parse(full, strlen(full), "c.json", &c, &error) == bs_ok);
	ENSURE(c.seed == 42);
	const bsMeshConfig* mesh = c.environment.meshes;
	ENSURE(c.environment.meshCount == 1 && strcmp(mesh->file, "m.obj") == 0);
	ENSURE(SameVec(mesh->translate, 1.0, 2.0, 3.0) && SameVec(mesh->rotate, 0.0, 90.0, 0.0));
	ENSURE(SameVec(mesh->scale, 2.0, 2.0, 2.0));
	ENSURE(mesh->material.preset == NULL && mesh->material.finish == NULL);
	ENSURE(strcmp(mesh->material.pigment, "color rgb <1, 0, 0>") == 0);
	ENSURE(strcmp(mesh->material.texture, "pigment { color rgb <1, 0, 0> } normal { bumps 0.2 }") == 0);
	ENSURE(mesh->groupCount == 2);
	ENSURE(strcmp(mesh->groups[0].group, "roof") == 0);
	ENSURE(strcmp(mesh->groups[0].material.texture, bsMaterialPreset("roof")) == 0);
	ENSURE(strcmp(mesh->groups[1].group, "Wall 2") == 0);
	ENSURE(strcmp(mesh->groups[1].material.texture, "finish { phong 1 }") == 0);
	ENSURE(SameVec(c.environment.planes[0].normal, 0.0, 0.0, 1.0));
	ENSURE(strcmp(c.environment.planes[0].material.preset, "grass") == 0);
	ENSURE(c.particles.radiusSpread == 0.2 && SameVec(c.particles.velocity, 0.0, -1.0, 0.0));
	ENSURE(c.particles.emitterCount == 3);
	ENSURE(c.particles.emitters[0].particleCount == 24 && c.particles.emitters[0].emitter.jitter == 0.5);
	ENSURE(c.particles.emitters[1].emitter.type == bs_emitterRandom);
	ENSURE(c.particles.emitters[1].particleCount == 100);
	ENSURE(c.particles.emitters[1].emitter.count[0] == 100);
	ENSURE(bsEmitter_Count(&c.particles.emitters[1].emitter, 1000, &made) == bs_ok && made == 100);
	ENSURE(strcmp(c.particles.emitters[2].file, "p.ply") == 0);
	ENSURE(c.particles.emitters[2].particleCount == 0);
	ENSURE(c.particles.particleCount == 124);
	ENSURE(c.motion.steps == 200 && c.step.dt == 0.01 && c.step.drag == 0.1);
	ENSURE(SameVec(c.step.gravity, 0.0, -9.81, 0.0));
	ENSURE(c.step.method == bs_methodExact && c.step.response == bs_responseBounce);
	ENSURE(c.step.restitution == 0.25 && c.step.friction == 0.1);
	ENSURE(c.step.maxContacts == 8 && c.step.bounded);
	ENSURE(SameVec(c.step.boundsMin, -5.0, -5.0, -5.0));
	ENSURE(SameVec(c.step.boundsMax, 5.0, 5.0, 5.0));
	ENSURE(c.render.camera.angle == 45.0 && c.render.lightCount == 2);
	ENSURE(SameVec(c.render.lights[1].color, 2.0, 1.0, 0.5));
	ENSURE(SameVec(c.render.background, 0.0, 0.0, 0.1));
	ENSURE(c.render.width == 320 && c.render.height == 240 && c.render.antialias == 0.0);
	ENSURE(c.render.blob.threshold == 0.5 && c.render.blob.strength == 2.0);
	ENSURE(c.render.blob.radiusScale == 1.5 && c.render.blob.maxComponents == 100 && !c.render.blob.cull);
	ENSURE(strcmp(c.render.particleMaterial.preset, "slime") == 0);
	ENSURE(strcmp(c.output.directory, "frames") == 0 && c.output.frameEvery == 10);
	bsConfig_Free(&c);

	// An explicit empty light list means no light.
	const char* dark = WITH("\"render\": {\"lights\": []}");
	ENSURE(bsConfig_Parse(dark, strlen(dark), "c.json", &c, &error) == bs_ok);
	ENSURE(c.render.lightCount == 0 && c.render.lights == NULL);
	bsConfig_Free(&c);

	// The presets: a name that is none lists them all, in order, and each of those is one.
	const char* names[] = {"white", "plaster", "wood", "metal", "glass", "grass", "stone", "roof",
		"snow", "slime", "mud", "oil", "honey"};
	const char* chrome = WITH("\"render\": {\"particle_material\": \"chrome\"}");
	ENSURE(ExpectError(chrome, strlen(chrome), "dir/c.json: render.particle_material: unknown "
		"material preset \"chrome\" (presets: white, plaster, wood, metal, glass, grass, stone, roof, "
		"snow, slime, mud, oil, honey)") == 0);
	for (int i = 0; i < 13; ++i)
	{
		ENSURE(bsMaterialPreset(names[i]) != NULL);
	}
	ENSURE(bsMaterialPreset("chrome") == NULL && bsMaterialPreset(NULL) == NULL);
	return 0;
}

// field.compress.max_angle is degrees in the config, radians in the engine's def (the default too).
static int TestCompressAngle(void)
{
	const char* given = WITH("\"field\": {\"build\": {\"resolution\": 16}, \"compress\": {\"max_angle\": 20}}");
	const char* left = WITH("\"field\": {\"build\": {\"resolution\": 16}, \"compress\": {\"block\": 2}}");
	bsConfig c;
	bsConfigError error;
	ENSURE(bsConfig_Parse(given, strlen(given), "c.json", &c, &error) == bs_ok);
	ENSURE(c.field.compress && c.field.compressDef.maxAngle == 20.0 * (BS_PI / 180.0));
	bsConfig_Free(&c);
	ENSURE(bsConfig_Parse(left, strlen(left), "c.json", &c, &error) == bs_ok);
	ENSURE(c.field.compress && c.field.compressDef.maxAngle == bsDefaultGridTreeDef().maxAngle);
	bsConfig_Free(&c);
	return 0;
}

static int TestPaths(void)
{
	const char* text =
		"{\"environment\": {\"meshes\": [{\"file\": \"meshes/room.obj\"}, {\"file\": \"/abs/x.obj\"}]},"
		" \"particles\": {\"radius\": 1, \"emitters\": [{\"type\": \"file\", \"file\": \"../p.ply\"}]},"
		" \"output\": {\"directory\": \"frames\"}}";
	bsConfig c;
	bsConfigError error;
	ENSURE(bsConfig_Parse(text, strlen(text), "scenes/room/c.json", &c, &error) == bs_ok);
	ENSURE(strcmp(c.environment.meshes[0].file, "scenes/room/meshes/room.obj") == 0);
	ENSURE(strcmp(c.environment.meshes[1].file, "/abs/x.obj") == 0);
	ENSURE(strcmp(c.particles.emitters[0].file, "scenes/p.ply") == 0);  // tidied: no "room/.."
	ENSURE(strcmp(c.output.directory, "scenes/room/frames") == 0);
	bsConfig_Free(&c);

	// The default output directory is relative to the config too; no directory in the path: as given.
	const char* minimal = "{" BASE "}";
	ENSURE(bsConfig_Parse(minimal, strlen(minimal), "/etc/blobsim/c.json", &c, &error) == bs_ok);
	ENSURE(strcmp(c.output.directory, "/etc/blobsim/out") == 0);
	bsConfig_Free(&c);
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &c, &error) == bs_ok);
	ENSURE(strcmp(c.environment.meshes[0].file, "meshes/room.obj") == 0);
	ENSURE(strcmp(c.output.directory, "frames") == 0);
	bsConfig_Free(&c);
	ENSURE(bsConfig_Parse(text, strlen(text), NULL, &c, &error) == bs_ok);
	ENSURE(strcmp(c.path, "<config>") == 0 && strcmp(c.output.directory, "frames") == 0);
	bsConfig_Free(&c);

	// bsConfig_Load from a real directory.
	char dir[] = "/tmp/blobsim-config-XXXXXX";
	ENSURE(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof path, "%s/c.json", dir);
	FILE* f = fopen(path, "wb");
	ENSURE(f != NULL);
	fputs(text, f);
	fclose(f);
	int rc = 0;
	bsResult r = bsConfig_Load(path, &c, &error);
	char expected[300];
	snprintf(expected, sizeof expected, "%s/meshes/room.obj", dir);
	rc |= r != bs_ok || strcmp(c.environment.meshes[0].file, expected) != 0;
	bsConfig_Free(&c);
	const char* overrides[] = {"output.directory=/tmp/elsewhere"};
	r = bsConfig_LoadWithOverrides(path, overrides, 1, &c, &error);
	rc |= r != bs_ok || strcmp(c.output.directory, "/tmp/elsewhere") != 0;
	bsConfig_Free(&c);
	// Errors name the file.
	f = fopen(path, "wb");
	if (f != NULL)
	{
		fputs("{\n  \"seed\": 1,\n}\n", f);
		fclose(f);
	}
	r = bsConfig_Load(path, &c, &error);
	snprintf(expected, sizeof expected, "%s:2:12: trailing comma before '}'", path);
	rc |= r != bs_errInvalidArgument || strcmp(error.message, expected) != 0;
	remove(path);
	r = bsConfig_Load(path, &c, &error);
	snprintf(expected, sizeof expected, "%s: cannot open: No such file or directory", path);
	rc |= r != bs_errInvalidArgument || strcmp(error.message, expected) != 0;
	r = bsConfig_Load(dir, &c, &error);
	snprintf(expected, sizeof expected, "%s: cannot read: Is a directory", dir);
	rc |= r != bs_errInvalidArgument || strcmp(error.message, expected) != 0;
	rmdir(dir);
	if (rc != 0)
	{
		fprintf(stderr, "last error: %s\n", error.message);
	}
	ENSURE(rc == 0);
	return 0;
}

// bsTidyPath: hand-worked answers, then a symbolic link whose ".." must stay (checked against what
// the system resolves).
static int TestTidyPath(void)
{
	static const char* const cases[][2] = {
		{"configs/../out/snow", "out/snow"},
		{"a/b/../../c", "c"},
		{"a/b/../..", "."},
		{"./a//b/./c/", "a/b/c"},
		{"../a/../b", "../b"},
		{"../../x", "../../x"},
		{"/..", "/"},
		{"/a/../../b", "/b"},
		{"/", "/"},
		{".", "."},
		{"a/..", "."},
		{"docs/batch/../../out/batch/particles.radius=0.01", "out/batch/particles.radius=0.01"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		char path[128];
		snprintf(path, sizeof(path), "%s", cases[i][0]);
		bsTidyPath(path);
		if (strcmp(path, cases[i][1]) != 0)
		{
			fprintf(stderr, "bsTidyPath(\"%s\") = \"%s\", expected \"%s\"\n", cases[i][0], path, cases[i][1]);
			return 1;
		}
	}
	char dir[] = "/tmp/blobsim-tidy-XXXXXX";
	ENSURE(mkdtemp(dir) != NULL);
	char deep[256], link[256], viaLink[300], tidied[300], real2[300];
	snprintf(deep, sizeof(deep), "%s/x", dir);
	ENSURE(mkdir(deep, 0700) == 0);
	snprintf(deep, sizeof(deep), "%s/x/y", dir);
	ENSURE(mkdir(deep, 0700) == 0);
	snprintf(link, sizeof(link), "%s/link", dir);
	ENSURE(symlink(deep, link) == 0);
	// link/.. is x, not dir: the pair stays, and the path names what the system says it does.
	snprintf(viaLink, sizeof(viaLink), "%s/link/../y", dir);
	snprintf(tidied, sizeof(tidied), "%s", viaLink);
	bsTidyPath(tidied);
	int rc = strcmp(tidied, viaLink) != 0;
	struct stat a, b;
	rc |= stat(tidied, &a) != 0 || stat(viaLink, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev;
	// A real folder's pair goes, and still names the same file.
	snprintf(viaLink, sizeof(viaLink), "%s/x/y/../y", dir);
	snprintf(tidied, sizeof(tidied), "%s", viaLink);
	bsTidyPath(tidied);
	snprintf(real2, sizeof(real2), "%s/x/y", dir);
	rc |= strcmp(tidied, real2) != 0;
	unlink(link);
	rmdir(deep);
	snprintf(deep, sizeof(deep), "%s/x", dir);
	rmdir(deep);
	rmdir(dir);
	ENSURE(rc == 0);
	return 0;
}

static int TestOverrides(void)
{
	bsConfig c;
	bsConfigError error;
	// The file is invalid (dt 0, unknown method) until the overrides fix it: they apply first.
	const char* text = WITH("\"motion\": {\"dt\": 0}, \"collision\": {\"method\": \"fast\"}");
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &c, &error) == bs_errInvalidArgument);
	const char* fixes[] = {"motion.dt=0.5", "collision.method=exact"};
	ENSURE(bsConfig_ParseWithOverrides(text, strlen(text), "c.json", fixes, 2, &c, &error) == bs_ok);
	ENSURE(c.step.dt == 0.5);
	ENSURE(c.step.method == bs_methodExact);  // "exact" is not JSON: taken as a string
	bsConfig_Free(&c);

	// Array index paths, created objects, appended elements, string fallback, later wins.
	const char* base = "{" BASE "}";
	const char* sets[] = {
		"particles.emitters.0.count=[2,3,4]",
		"particles.emitters.1={\"type\": \"random\", \"min\": [0,0,0], \"max\": [1,1,1], \"count\": 6}",
		"particles.emitters.1.count=7",
		"render.blob.threshold=0.25",
		"render.lights.0={\"location\": [1, 2, 3]}",
		"render.lights.0.location.1=5",
		"render.camera.look_at=[0,1,0]",
		"output.directory=frames 2",
		"environment.planes.0.material.pigment=color rgb <0, 0, 1>",
		"seed=7",
		"seed=8",
		"render.particle_material=\"mud\"",
		"render.camera.angle= 30 ",
	};
	int setCount = (int)(sizeof sets / sizeof sets[0]);
	bsResult r = bsConfig_ParseWithOverrides(base, strlen(base), "d/c.json", sets, setCount, &c, &error);
	if (r != bs_ok)
	{
		fprintf(stderr, "%s\n", error.message);
	}
	ENSURE(r == bs_ok);
	ENSURE(c.particles.emitters[0].emitter.count[0] == 2);
	ENSURE(c.particles.emitters[0].emitter.count[2] == 4);
	ENSURE(c.particles.emitterCount == 2 && c.particles.emitters[1].particleCount == 7);
	ENSURE(c.particles.particleCount == 31);
	ENSURE(c.render.blob.threshold == 0.25);
	ENSURE(c.render.lightCount == 1 && SameVec(c.render.lights[0].location, 1.0, 5.0, 3.0));
	ENSURE(SameVec(c.render.lights[0].color, 1.0, 1.0, 1.0));
	ENSURE(SameVec(c.render.camera.lookAt, 0.0, 1.0, 0.0) && c.render.camera.angle == 30.0);
	ENSURE(strcmp(c.output.directory, "d/frames 2") == 0);
	ENSURE(strcmp(c.environment.planes[0].material.texture, "pigment { color rgb <0, 0, 1> }") == 0);
	ENSURE(c.seed == 8);
	ENSURE(strcmp(c.render.particleMaterial.preset, "mud") == 0);
	bsConfig_Free(&c);
	return 0;
}

static uint64_t HashOf(const char* text, const char* const* overrides, int count)
{
	bsConfig c;
	bsConfigError error;
	if (bsConfig_ParseWithOverrides(text, strlen(text), "c.json", overrides, count, &c, &error) != bs_ok)
	{
		fprintf(stderr, "%s\n", error.message);
		return 0;
	}
	uint64_t h = c.hash;
	bsConfig_Free(&c);
	return h;
}

static int TestHash(void)
{
	const char* a = "{" BASE ", \"motion\": {\"steps\": 10, \"dt\": 0.5}}";
	// Same tree, other whitespace, key order and number spelling.
	const char* b = "{\"motion\":{\"dt\":5e-1,\"steps\":1.0e1},\n" BASE_PARTICLES ",\n\t" BASE_ENV "}";
	const char* changed = "{" BASE ", \"motion\": {\"steps\": 11, \"dt\": 0.5}}";
	uint64_t ha = HashOf(a, NULL, 0);
	ENSURE(ha != 0);
	// Pinned: the encoding is part of the format (summary.json records it).
	if (ha != 0xaf7d909aae3a4a09ull)
	{
		fprintf(stderr, "hash %016llx\n", (unsigned long long)ha);
	}
	ENSURE(ha == 0xaf7d909aae3a4a09ull);
	ENSURE(HashOf(a, NULL, 0) == ha);
	ENSURE(HashOf(b, NULL, 0) == ha);
	uint64_t hc = HashOf(changed, NULL, 0);
	ENSURE(hc != 0 && hc != ha);
	// An override that changes a value changes the hash to that of the edited file; one that sets the
	// value already there changes nothing.
	const char* to11[] = {"motion.steps=11"};
	const char* to10[] = {"motion.steps=10"};
	ENSURE(HashOf(a, to11, 1) == hc);
	ENSURE(HashOf(a, to10, 1) == ha);
	// Every small change shows.
	const char* seeded = "{" BASE ", \"motion\": {\"steps\": 10, \"dt\": 0.5}, \"seed\": 1}";
	ENSURE(HashOf(seeded, NULL, 0) != ha);
	const char* type[] = {"motion.steps=\"10\""};
	bsConfig c;
	bsConfigError error;
	ENSURE(bsConfig_ParseWithOverrides(a, strlen(a), "c.json", type, 1, &c, &error) ==
		bs_errInvalidArgument);
	return 0;
}

// Accumulation and rest: off unless the config says so; motion.sleep turns rest on with its defaults.
static int TestAccumulateSleep(void)
{
	bsConfig c;
	bsConfigError error;
	const char* off = "{" BASE ", \"motion\": {\"steps\": 2}}";
	ENSURE(bsConfig_Parse(off, strlen(off), "c.json", &c, &error) == bs_ok);
	ENSURE(!c.particles.accumulate && c.step.sleepSteps == 0 && c.step.sleepSpeed == 0.0 &&
		c.step.sleepAcceleration == 0.0 && c.step.wakeSpeed == 0.0);
	bsConfig_Free(&c);
	const char* on = "{" BASE_ENV ", \"particles\": {\"radius\": 0.1, \"accumulate\": true, \"emitters\": ["
		BASE_EMITTER "]}, \"motion\": {\"sleep\": {}}}";
	ENSURE(bsConfig_Parse(on, strlen(on), "c.json", &c, &error) == bs_ok);
	ENSURE(c.particles.accumulate && c.step.sleepSteps == 10 && c.step.sleepSpeed == 0.0);
	bsConfig_Free(&c);
	const char* set = "{" BASE ", \"motion\": {\"sleep\": {\"steps\": 3, \"speed\": 0.01, \"acceleration\": 0.5, "
		"\"wake_speed\": 2}}}";
	ENSURE(bsConfig_Parse(set, strlen(set), "c.json", &c, &error) == bs_ok);
	ENSURE(!c.particles.accumulate && c.step.sleepSteps == 3 && c.step.sleepSpeed == 0.01 &&
		c.step.sleepAcceleration == 0.5 && c.step.wakeSpeed == 2.0);
	bsConfig_Free(&c);
	return 0;
}

// motion.radial: off when absent (the engine's default); its keys as read, the falloff's name, the
// defaults of those not given (from bsDefaultRadialDef()).
static int TestRadial(void)
{
	bsConfig c;
	bsConfigError error;
	const char* off = "{" BASE ", \"motion\": {\"steps\": 2}}";
	ENSURE(bsConfig_Parse(off, strlen(off), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radialCount == 0 && c.step.radial[0].strength == 0.0);
	bsConfig_Free(&c);
	const char* some = "{" BASE ", \"motion\": {\"radial\": {\"center\": [1, 2, 3], \"strength\": -4}}}";
	ENSURE(bsConfig_Parse(some, strlen(some), "c.json", &c, &error) == bs_ok);
	bsRadialDef d = bsDefaultRadialDef();
	ENSURE(c.step.radial[0].center.x == 1.0 && c.step.radial[0].center.y == 2.0 && c.step.radial[0].center.z == 3.0 &&
		c.step.radial[0].strength == -4.0 && c.step.radial[0].falloff == d.falloff && c.step.radial[0].radius == d.radius &&
		c.step.radial[0].softening == d.softening && c.step.radial[0].start == d.start &&
		c.step.radial[0].duration == d.duration);
	bsConfig_Free(&c);
	const char* all = "{" BASE ", \"motion\": {\"radial\": {\"center\": [0, 0.1, 0], \"strength\": 90, "
		"\"falloff\": \"inverse_square\", \"radius\": 3, \"softening\": 0.4, \"start\": 0.05, \"duration\": 0.15}}}";
	ENSURE(bsConfig_Parse(all, strlen(all), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radial[0].strength == 90.0 && c.step.radial[0].falloff == bs_falloffInverseSquare &&
		c.step.radial[0].radius == 3.0 && c.step.radial[0].softening == 0.4 && c.step.radial[0].start == 0.05 &&
		c.step.radial[0].duration == 0.15 && c.step.radial[0].center.y == 0.1 && c.step.radialCount == 1);
	bsConfig_Free(&c);
	// Keyed centre and strength: the keys as read, the plain values the first keys'.
	const char* keyed = "{" BASE ", \"motion\": {\"radial\": {\"center\": [{\"time\": 0, \"value\": [1, 2, 3]}, "
		"{\"time\": 2, \"value\": [4, 5, 6]}], \"strength\": [{\"time\": 0.5, \"value\": -3}, "
		"{\"time\": 1, \"value\": 0}, {\"time\": 1.5, \"value\": 7}]}}}";
	ENSURE(bsConfig_Parse(keyed, strlen(keyed), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radial[0].centerKeys.count == 2 && c.step.radial[0].centerKeys.time[1] == 2.0 &&
		c.step.radial[0].centerKeys.value[1].z == 6.0 && c.step.radial[0].center.x == 1.0);
	ENSURE(c.step.radial[0].strengthKeys.count == 3 && c.step.radial[0].strengthKeys.value[2].x == 7.0 &&
		c.step.radial[0].strengthKeys.time[0] == 0.5 && c.step.radial[0].strength == -3.0);
	bsConfig_Free(&c);
	ENSURE(bsConfig_Parse(all, strlen(all), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radial[0].centerKeys.count == 0 && c.step.radial[0].strengthKeys.count == 0);
	bsConfig_Free(&c);
	// An array: each force as read, in order, each with its own defaults.
	const char* two = "{" BASE ", \"motion\": {\"radial\": [{\"center\": [0, 0, 0], \"strength\": 5, "
		"\"duration\": 0.1}, {\"center\": [1, 0, 0], \"strength\": -2, \"falloff\": \"linear\", \"radius\": 2, "
		"\"start\": 0.3}]}}";
	ENSURE(bsConfig_Parse(two, strlen(two), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radialCount == 2 && c.step.radial[0].strength == 5.0 && c.step.radial[0].duration == 0.1 &&
		c.step.radial[0].start == d.start && c.step.radial[0].falloff == d.falloff);
	ENSURE(c.step.radial[1].strength == -2.0 && c.step.radial[1].falloff == bs_falloffLinear &&
		c.step.radial[1].radius == 2.0 && c.step.radial[1].start == 0.3 && c.step.radial[1].duration == d.duration &&
		c.step.radial[1].center.x == 1.0);
	bsConfig_Free(&c);
	const char* none = "{" BASE ", \"motion\": {\"radial\": []}}";
	ENSURE(bsConfig_Parse(none, strlen(none), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radialCount == 0);
	bsConfig_Free(&c);
	// Following body 0: the offset as read, the body's origin when not given; a force without body
	// follows none.
	const char* follow = "{\"environment\": {\"planes\": [{}], \"bodies\": [{\"file\": \"b.obj\"}]}, "
		BASE_PARTICLES ", \"motion\": {\"radial\": [{\"body\": 0, \"strength\": -3}, {\"body\": 0, "
		"\"center\": [1, 2, 3], \"strength\": -1}, {\"center\": [0, 0, 0], \"strength\": 1}]}}";
	ENSURE(bsConfig_Parse(follow, strlen(follow), "c.json", &c, &error) == bs_ok);
	ENSURE(c.step.radialCount == 3 && c.step.radial[0].follow && c.step.radial[0].body == 0 &&
		c.step.radial[0].center.x == 0.0 && c.step.radial[0].center.y == 0.0 && c.step.radial[0].center.z == 0.0);
	ENSURE(c.step.radial[1].follow && c.step.radial[1].center.y == 2.0 && c.step.radial[1].strength == -1.0);
	ENSURE(!c.step.radial[2].follow && !d.follow);
	bsConfig_Free(&c);
	return 0;
}

// A surface emitter: its keys as read, the defaults (mesh 0, every group, a gap of a millionth of the
// radius, the front side, no cone, at rest), the cone in radians.
static int TestSurface(void)
{
	const char* text = PARTICLES("{\"type\": \"surface\", \"count\": 5}, {\"type\": \"surface\", \"mesh\": 2, "
		"\"group\": \"roof:tiles\", \"gap\": 0.25, \"side\": \"back\", \"cone_angle\": 90, \"speed\": [1, 2], "
		"\"rate\": 10, \"stop\": 3}");
	bsConfig c;
	bsConfigError error;
	ENSURE(bsConfig_Parse(text, strlen(text), "c.json", &c, &error) == bs_ok);
	const bsEmitterConfig* a = c.particles.emitters;
	const bsEmitterConfig* b = a + 1;
	ENSURE(a->emitter.type == bs_emitterSurface && a->mesh == 0 && a->group == NULL && a->emitter.count[0] == 5);
	ENSURE(a->emitter.surface.gap == 1e-6 && !a->emitter.surface.back && a->emitter.surface.coneAngle == 0.0);
	ENSURE(a->emitter.surface.speedMin == 0.0 && a->emitter.surface.speedMax == 0.0);
	ENSURE(a->emitter.surface.triangles == NULL && a->emitter.surface.cumulative == NULL);
	ENSURE(b->mesh == 2 && strcmp(b->group, "roof:tiles") == 0 && b->emitter.surface.gap == 0.25);
	ENSURE(b->emitter.surface.back && b->emitter.surface.coneAngle == BS_PI / 2.0);
	ENSURE(b->emitter.surface.speedMin == 1.0 && b->emitter.surface.speedMax == 2.0);
	ENSURE(b->particleCount == 30 && c.particles.particleCount == 35);
	bsConfig_Free(&c);
	return 0;
}

int ConfigTest(void)
{
	RUN_SUBTEST(TestAccumulateSleep());
	RUN_SUBTEST(TestRadial());
	RUN_SUBTEST(TestMalformed());
	RUN_SUBTEST(TestDefaults());
	RUN_SUBTEST(TestSurface());
	RUN_SUBTEST(TestCompressAngle());
	RUN_SUBTEST(TestPaths());
	RUN_SUBTEST(TestTidyPath());
	RUN_SUBTEST(TestOverrides());
	RUN_SUBTEST(TestHash());
	return 0;
}
