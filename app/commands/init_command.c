// init_command.c — `blobsim init MODEL.obj [--material M] [-o CONFIG]`: a config that renders a material
// on a model at once. It reads the model's bounding box (io/obj.h), guesses its up axis (Y or Z, from the
// base it rests on), turns a Z-up model Y-up with the mesh's `rotate`, and places from the box an emitter
// above the model, gravity along the up axis, a ground plane under it, collision bounds, lights and a
// camera framing it; the material is a preset of docs/config.md (snow, sand, or a fluid material). The
// config is checked by the config reader before it is written, and the message says what was guessed
// and which keys to change.
#define _XOPEN_SOURCE 700  // realpath (the build asks for POSIX 2008 alone)

#include "init_command.h"

#include "cli.h"
#include "config.h"
#include "core.h"
#include "files.h"
#include "obj.h"

#include "blobsim/base.h"
#include "blobsim/quat.h"
#include "blobsim/vec3.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define BS_INIT_PATH_MAX 4096
#define BS_INIT_ERR_MAX (2 * BS_INIT_PATH_MAX + 1024)  // a message naming two paths

typedef enum bsInitKind
{
	bs_initSnow,   // falls, sticks and builds up (accumulate)
	bs_initSand,   // granular contacts with friction, poured from a nozzle, piles that sleep
	bs_initFluid,  // particles.material: a block of the fluid dropped on the model
} bsInitKind;

typedef struct bsInitMaterial
{
	const char* name;  // the --material name; for a fluid, its particles.material preset
	bsInitKind kind;
	const char* what;  // for the message
	double settle;     // a fluid: seconds simulated after it lands (runny ones splash, then run off)
} bsInitMaterial;

static const bsInitMaterial bs_initMaterials[] = {
	{"snow", bs_initSnow, "snow falling on the model and building up", 0},
	{"sand", bs_initSand, "sand poured on the model from a nozzle, piling up", 0},
	{"water", bs_initFluid, "a block of water dropped on the model", 0.1},
	{"oil", bs_initFluid, "a block of oil dropped on the model", 0.1},
	{"honey", bs_initFluid, "a block of honey dropped on the model", 1.0},
	{"slime", bs_initFluid, "a block of slime dropped on the model", 1.0},
	{"mud", bs_initFluid, "a block of mud dropped on the model", 1.0},
};

enum
{
	bs_initMaterialCount = BS_COUNT(bs_initMaterials)
};

typedef struct bsInitArgs
{
	const char* model;
	const char* output;  // NULL: STEM.json in the current folder
	const bsInitMaterial* material;
	int up;              // 0: guess; 1: y; 2: z
	double scale;
	bool force;
} bsInitArgs;

static void bsInitUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim init MODEL.obj [--material NAME] [-o CONFIG] [--up y|z] [--scale S] [--force]\n"
		"\n"
		"Writes a config that renders a material on an OBJ model at once: the model's bounding box is read,\n"
		"its up axis guessed (Y, unless the model stands on a wide base along z only; a Z-up model is\n"
		"turned Y-up by the mesh's rotate; one far from the origin is brought near it by a translate),\n"
		"and from the box come an emitter above the model, gravity along the up axis, a ground plane under\n"
		"it, collision bounds, lights and a camera framing it. Lengths are the model's units, taken as\n"
		"metres. The message says what was guessed and which keys to change; then: blobsim run CONFIG\n"
		"--render (docs/config.md, \"A first config\").\n"
		"\n"
		"options:\n"
		"  --material NAME   snow (the default), sand, or a fluid: water, oil, honey, slime, mud\n"
		"  -o, --output FILE the config to write (default: the model's name with .json, in the current\n"
		"                    folder; a missing folder is made); its runs write to the folder named like\n"
		"                    it, beside it (teapot.json: teapot/)\n"
		"  --up y|z          the model's up axis instead of the guess\n"
		"  --scale S         scale the model by S first (e.g. 0.01 for a model in centimetres; default 1)\n"
		"  --force           replace an existing config\n"
		"  -h, --help        show this help and exit\n"
		"\n"
		"Exit status: 0 success, 1 failure (the model cannot be read, the config exists or cannot be\n"
		"written), 2 usage error.\n");
}

static const bsInitMaterial* bsInitFindMaterial(const char* name)
{
	for (int i = 0; i < bs_initMaterialCount; ++i)
	{
		if (strcmp(bs_initMaterials[i].name, name) == 0)
		{
			return bs_initMaterials + i;
		}
	}
	return NULL;
}

// One option at argv[*i]: 1 matched, 0 not an option of init, -1 usage error.
static int bsInitOption(int argc, char** argv, int* i, bsInitArgs* a)
{
	const char* v = NULL;
	int m;
	if ((m = bsMatchOption("init", "--output", argc, argv, i, &v)) != 0 ||
		(m = bsMatchOption("init", "-o", argc, argv, i, &v)) != 0)
	{
		a->output = v;
		return m;
	}
	if ((m = bsMatchOption("init", "--scale", argc, argv, i, &v)) != 0)
	{
		return m < 0 ? -1 : (bsParseDoubleOption("init", "--scale", v, 1e-12, 1e12, &a->scale) ? 1 : -1);
	}
	if ((m = bsMatchOption("init", "--material", argc, argv, i, &v)) != 0)
	{
		a->material = m < 0 ? NULL : bsInitFindMaterial(v);
		if (m > 0 && a->material == NULL)
		{
			bsUsageError("init", "--material: expected snow, sand, water, oil, honey, slime or mud, got", v);
		}
		return a->material == NULL ? -1 : 1;
	}
	if ((m = bsMatchOption("init", "--up", argc, argv, i, &v)) != 0)
	{
		a->up = m < 0 ? 0 : strcasecmp(v, "y") == 0 ? 1 : strcasecmp(v, "z") == 0 ? 2 : 0;
		if (m > 0 && a->up == 0)
		{
			bsUsageError("init", "--up: expected y or z, got", v);
		}
		return a->up == 0 ? -1 : 1;
	}
	if (strcmp(argv[*i], "--force") == 0)
	{
		a->force = true;
		*i += 1;
		return 1;
	}
	return 0;
}

// Returns -1 to go on, else the exit status.
static int bsInitParse(int argc, char** argv, bsInitArgs* a)
{
	memset(a, 0, sizeof *a);
	a->material = bs_initMaterials;
	a->scale = 1.0;
	for (int i = 1; i < argc;)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
		{
			bsInitUsage(stdout);
			return bs_exitOk;
		}
		int m = bsInitOption(argc, argv, &i, a);
		if (m < 0)
		{
			return bs_exitUsage;
		}
		if (m > 0)
		{
			continue;
		}
		if ((arg[0] == '-' && arg[1] != '\0') || a->model != NULL)
		{
			bsUsageError("init", arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
			return bs_exitUsage;
		}
		a->model = arg;
		i += 1;
	}
	if (a->model == NULL)
	{
		bsUsageError("init", "missing the model (an OBJ file)", NULL);
		return bs_exitUsage;
	}
	return -1;
}

// --- The model ---

static double bsAxis(bsVec3 v, int axis)
{
	return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

// The model as the config places it.
typedef struct bsInitModel
{
	uint32_t triangles;
	bsVec3 fileLo, fileHi;  // the used vertices' box in the OBJ's own coordinates
	double support[3];      // per axis: the base's spread (bsInitSupport)
	int up;                 // 1: y, 2: z
	bool guessed;
	bsVec3 translate;       // far from the origin: the shift that brings it near (else zero)
	bsVec3 lo, hi;          // the box as placed: Y up, scaled, translated
} bsInitModel;

// A model far from the origin (survey coordinates: its centre beyond 100 times its size) is brought near
// it by a round translation: the simulation's doubles would keep it exact, but the float outputs and
// the fluid's sums lose digits there. Each axis by itself, to a multiple of the power of ten below the
// model's size, so the config's numbers stay readable.
static bsVec3 bsInitTranslate(bsVec3 lo, bsVec3 hi)
{
	double size = bsLength(bsSub(hi, lo)), step = pow(10.0, floor(log10(size)));
	bsVec3 c = bsScale(0.5, bsAdd(lo, hi));
	double t[3] = {c.x, c.y, c.z};
	for (int a = 0; a < 3; ++a)
	{
		t[a] = fabs(t[a]) > 100.0 * size ? -round(t[a] / step) * step + 0.0 : 0.0;
	}
	return bsV3(t[0], t[1], t[2]);
}

// Per axis a, how widely the model rests on its lowest side along a: the box of the vertices within 2%
// of the extent of the lowest one, in the other two axes, over the whole box's (0 .. 1). A model that
// stands on that side (feet, a flat bottom, a ground) spreads its base; a side it does not stand on
// touches the box in a point or a patch.
static void bsInitSupport(const bsObjMesh* m, const uint8_t* used, bsVec3 lo, bsVec3 hi, double support[3])
{
	for (int a = 0; a < 3; ++a)
	{
		int b = (a + 1) % 3, c = (a + 2) % 3;
		double band = bsAxis(lo, a) + 0.02 * (bsAxis(hi, a) - bsAxis(lo, a));
		double blo = INFINITY, bhi = -INFINITY, clo = INFINITY, chi = -INFINITY;
		for (uint32_t i = 0; i < m->vertexCount; ++i)
		{
			bsVec3 v = m->vertices[i];
			if (used[i] && bsAxis(v, a) <= band)
			{
				blo = fmin(blo, bsAxis(v, b)), bhi = fmax(bhi, bsAxis(v, b));
				clo = fmin(clo, bsAxis(v, c)), chi = fmax(chi, bsAxis(v, c));
			}
		}
		double whole = (bsAxis(hi, b) - bsAxis(lo, b)) * (bsAxis(hi, c) - bsAxis(lo, c));
		support[a] = whole > 0.0 && bhi >= blo ? (bhi - blo) * (chi - clo) / whole : 0.0;
	}
}

// Z is up when the model rests on a clearly wider base along z than along y, and has no wide base
// along y (a room or a tank has one along both: a floor and a wall); Y, OBJ's convention, otherwise.
static int bsInitGuessUp(const double support[3])
{
	return support[2] >= 0.05 && support[2] > 1.5 * support[1] && support[1] < 0.25 ? 2 : 1;
}

// The placement of the config: scale, then (Z up) rotate [-90, 0, 0], which takes +z to +y.
static bsVec3 bsInitPlace(bsVec3 p, int up, double scale)
{
	double r[3][3];
	bsRotation_EulerXYZ(bsV3(up == 2 ? -BS_PI / 2.0 : 0.0, 0.0, 0.0), r);
	p = bsScale(scale, p);
	return bsV3(r[0][0] * p.x + r[0][1] * p.y + r[0][2] * p.z, r[1][0] * p.x + r[1][1] * p.y + r[1][2] * p.z,
		r[2][0] * p.x + r[2][1] * p.y + r[2][2] * p.z);
}

static bool bsInitReadModel(const bsInitArgs* a, bsInitModel* out, char* err, size_t errlen)
{
	bsObjMesh m;
	bsObjError oerr;
	if (bsObj_Load(a->model, &m, &oerr) != bs_ok)
	{
		snprintf(err, errlen, "%s", oerr.message);
		return false;
	}
	uint8_t* used = calloc(m.vertexCount, 1);
	if (used == NULL)
	{
		bsObj_Free(&m);
		snprintf(err, errlen, "%s: out of memory", a->model);
		return false;
	}
	memset(out, 0, sizeof *out);
	out->triangles = m.triangleCount;
	out->fileLo = bsV3(INFINITY, INFINITY, INFINITY), out->fileHi = bsNeg(out->fileLo);
	for (uint32_t t = 0; t < m.triangleCount; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			uint32_t v = m.triangles[t][k];
			used[v] = 1;
			out->fileLo = bsMin(out->fileLo, m.vertices[v]), out->fileHi = bsMax(out->fileHi, m.vertices[v]);
		}
	}
	bsInitSupport(&m, used, out->fileLo, out->fileHi, out->support);
	out->guessed = a->up == 0;
	out->up = a->up != 0 ? a->up : bsInitGuessUp(out->support);
	out->lo = bsV3(INFINITY, INFINITY, INFINITY), out->hi = bsNeg(out->lo);
	for (uint32_t i = 0; i < m.vertexCount; ++i)
	{
		bsVec3 p = bsInitPlace(m.vertices[i], out->up, a->scale);
		out->lo = used[i] ? bsMin(out->lo, p) : out->lo, out->hi = used[i] ? bsMax(out->hi, p) : out->hi;
	}
	free(used);
	bsObj_Free(&m);
	if (!bsIsValidVec3(out->lo) || !bsIsValidVec3(out->hi))
	{
		snprintf(err, errlen, "%s: the model scaled by %g is out of range", a->model, a->scale);
		return false;
	}
	out->translate = bsInitTranslate(out->lo, out->hi);
	out->lo = bsAdd(out->lo, out->translate), out->hi = bsAdd(out->hi, out->translate);
	return true;
}

// --- The plan: every number of the config, from the placed box ---

static const double bs_initGravity = 9.81;

typedef struct bsInitPlan
{
	bsVec3 lo, hi, center;
	double wide, tall, diagonal;  // horizontal and vertical extent (each at least a quarter of the diagonal)
	double quantum;               // positions are rounded to this
	double radius;
	double top;                   // the emitter's height
	double fallTime, emitTime, totalTime, dt;
	int steps;
	int count;                    // particles (snow: over the emission)
} bsInitPlan;

// x rounded to a multiple of the power of ten q, as the decimal the config prints.
static double bsRoundTo(double x, double q)
{
	char text[64];
	int decimals = q < 1.0 ? (int)ceil(-log10(q) - 1e-9) : 0;
	snprintf(text, sizeof text, "%.*f", decimals, q >= 1.0 ? round(x / q) * q : x);
	return strtod(text, NULL) + 0.0;  // + 0.0: never "-0"
}

// x with three significant digits.
static double bsRound3(double x)
{
	char text[64];
	snprintf(text, sizeof text, "%.3g", x);
	return strtod(text, NULL) + 0.0;
}

static void bsInitTimes(bsInitPlan* p, double emitTime, double totalTime, int steps)
{
	p->emitTime = bsRound3(emitTime);
	p->steps = steps;
	p->dt = bsRound3(totalTime / steps);
	p->totalTime = p->dt * steps;
}

static bsInitPlan bsInitMakePlan(const bsInitModel* m, const bsInitMaterial* mat)
{
	bsInitKind kind = mat->kind;
	bsInitPlan p;
	memset(&p, 0, sizeof p);
	bsVec3 size = bsSub(m->hi, m->lo);
	p.diagonal = bsLength(size);
	p.quantum = pow(10.0, floor(log10(p.diagonal)) - 3.0);
	p.lo = m->lo, p.hi = m->hi, p.center = bsScale(0.5, bsAdd(m->lo, m->hi));
	p.wide = fmax(fmax(size.x, size.z), 0.25 * p.diagonal);
	p.tall = fmax(size.y, 0.25 * p.diagonal);
	double footprint = (size.x + 0.6 * p.wide) * (size.z + 0.6 * p.wide);
	if (kind == bs_initSnow)
	{
		p.radius = bsRound3(p.wide / 160.0);
		p.top = bsRoundTo(m->hi.y + 0.25 * p.tall, p.quantum);
		p.fallTime = sqrt(2.0 * (p.top - m->lo.y) / bs_initGravity);
		// About one and a half layers over the emitter's footprint.
		p.count = (int)fmin(fmax(ceil(1.5 * footprint / (4.0 * p.radius * p.radius)), 1000.0), 200000.0);
		bsInitTimes(&p, fmax(0.5, p.fallTime), fmax(0.5, p.fallTime) + 1.3 * p.fallTime, 120);
	}
	else if (kind == bs_initSand)
	{
		p.radius = bsRound3(p.wide / 100.0);
		p.top = bsRoundTo(m->hi.y + 0.2 * p.tall, p.quantum);
		p.fallTime = sqrt(2.0 * (p.top - m->lo.y) / bs_initGravity);
		p.count = 3000;
		bsInitTimes(&p, fmax(1.0, 2.0 * p.fallTime), fmax(1.0, 2.0 * p.fallTime) + 3.0 * p.fallTime, 150);
	}
	else
	{
		p.radius = bsRound3(p.wide / 100.0);
		p.top = bsRoundTo(m->hi.y + 0.15 * p.tall + 16.0 * p.radius, p.quantum);
		p.fallTime = sqrt(2.0 * (p.top - m->lo.y) / bs_initGravity);
		p.count = 16 * 8 * 16;
		bsInitTimes(&p, 0.0, 1.2 * p.fallTime + mat->settle, 100);
	}
	return p;
}

// --- The config as JSON ---

static cJSON* bsVecJson(bsVec3 v, double quantum)
{
	double d[3] = {bsRoundTo(v.x, quantum), bsRoundTo(v.y, quantum), bsRoundTo(v.z, quantum)};
	return cJSON_CreateDoubleArray(d, 3);
}

static cJSON* bsVec3Json(double x, double y, double z)
{
	double d[3] = {x, y, z};
	return cJSON_CreateDoubleArray(d, 3);
}

static void bsInitEnvironment(cJSON* root, const char* modelPath, const bsInitArgs* a, const bsInitModel* m,
	const bsInitPlan* p)
{
	cJSON* env = cJSON_AddObjectToObject(root, "environment");
	cJSON* mesh = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(env, "meshes"), mesh);
	cJSON_AddStringToObject(mesh, "file", modelPath);
	if (m->up == 2)
	{
		cJSON_AddItemToObject(mesh, "rotate", bsVec3Json(-90, 0, 0));
	}
	if (a->scale != 1.0)
	{
		cJSON_AddNumberToObject(mesh, "scale", a->scale);
	}
	if (bsLengthSquared(m->translate) > 0.0)
	{
		cJSON_AddItemToObject(mesh, "translate", bsVec3Json(m->translate.x, m->translate.y, m->translate.z));
	}
	cJSON_AddStringToObject(mesh, "material", "plaster");
	cJSON* plane = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(env, "planes"), plane);
	cJSON_AddItemToObject(plane, "point", bsVecJson(bsV3(p->center.x, p->lo.y, p->center.z), p->quantum));
	cJSON_AddItemToObject(plane, "normal", bsVec3Json(0, 1, 0));
	cJSON_AddStringToObject(plane, "material", "stone");
}

// Snow: a thin random box above the model, wider than it by 0.3 of its width each way, at a steady
// rate.
static cJSON* bsInitSnowEmitter(const bsInitPlan* p)
{
	cJSON* e = cJSON_CreateObject();
	double margin = 0.3 * p->wide;
	cJSON_AddStringToObject(e, "type", "random");
	cJSON_AddItemToObject(e, "min", bsVecJson(bsV3(p->lo.x - margin, p->top, p->lo.z - margin), p->quantum));
	cJSON_AddItemToObject(e, "max",
		bsVecJson(bsV3(p->hi.x + margin, p->top + fmax(p->radius, p->quantum), p->hi.z + margin), p->quantum));
	cJSON_AddNumberToObject(e, "rate", round(p->count / p->emitTime));
	cJSON_AddNumberToObject(e, "start", 0);
	cJSON_AddNumberToObject(e, "stop", p->emitTime);
	return e;
}

// Sand: a nozzle over the model's centre, as configs/sand-pile.json, its grains' contact time scaled
// with the radius (sqrt(r / g): the same pile at any size).
static cJSON* bsInitSandEmitter(cJSON* particles, const bsInitPlan* p)
{
	cJSON* in = cJSON_AddObjectToObject(particles, "interaction");
	cJSON_AddStringToObject(in, "type", "granular");
	cJSON_AddNumberToObject(in, "restitution", 0.2);
	cJSON_AddNumberToObject(in, "contact_time", bsRound3(sqrt(p->radius / bs_initGravity)));
	cJSON_AddNumberToObject(in, "friction", 0.5);
	cJSON_AddNumberToObject(in, "tangential_stiffness", 0.2857);
	cJSON* e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "type", "nozzle");
	cJSON_AddItemToObject(e, "center", bsVecJson(bsV3(p->center.x, p->top, p->center.z), p->quantum));
	cJSON_AddItemToObject(e, "direction", bsVec3Json(0, -1, 0));
	cJSON_AddNumberToObject(e, "disk_radius", bsRound3(0.1 * p->wide));
	cJSON_AddNumberToObject(e, "cone_angle", 3);
	cJSON_AddNumberToObject(e, "rate", round(p->count / p->emitTime));
	cJSON_AddNumberToObject(e, "start", 0);
	cJSON_AddNumberToObject(e, "stop", p->emitTime);
	return e;
}

// A fluid: a block of 16 x 8 x 16 particles two radii apart over the model's centre.
static cJSON* bsInitFluidEmitter(const bsInitPlan* p)
{
	cJSON* e = cJSON_CreateObject();
	double half = 16.0 * p->radius;
	bsVec3 lo = bsV3(p->center.x - half, p->top - half, p->center.z - half);
	cJSON_AddStringToObject(e, "type", "grid");
	cJSON_AddItemToObject(e, "min", bsVecJson(lo, p->quantum));
	cJSON_AddItemToObject(e, "max", bsVecJson(bsAdd(lo, bsV3(2.0 * half, half, 2.0 * half)), p->quantum));
	cJSON_AddItemToObject(e, "count", bsVec3Json(16, 8, 16));
	return e;
}

static void bsInitParticles(cJSON* root, const bsInitMaterial* mat, const bsInitPlan* p)
{
	cJSON* particles = cJSON_AddObjectToObject(root, "particles");
	cJSON_AddNumberToObject(particles, "radius", p->radius);
	cJSON* e = NULL;
	if (mat->kind == bs_initSnow)
	{
		cJSON_AddBoolToObject(particles, "accumulate", true);
		e = bsInitSnowEmitter(p);
	}
	else if (mat->kind == bs_initSand)
	{
		e = bsInitSandEmitter(particles, p);
	}
	else
	{
		cJSON_AddStringToObject(particles, "material", mat->name);
		e = bsInitFluidEmitter(p);
	}
	cJSON_AddItemToArray(cJSON_AddArrayToObject(particles, "emitters"), e);
}

static void bsInitMotion(cJSON* root, bsInitKind kind, const bsInitPlan* p)
{
	cJSON* motion = cJSON_AddObjectToObject(root, "motion");
	cJSON_AddNumberToObject(motion, "steps", p->steps);
	cJSON_AddNumberToObject(motion, "dt", p->dt);
	cJSON_AddItemToObject(motion, "gravity", bsVec3Json(0, -bs_initGravity, 0));
	if (kind != bs_initSnow)
	{
		cJSON_AddNumberToObject(motion, "max_substeps", kind == bs_initSand ? 400 : 2000);
	}
	if (kind == bs_initSand)
	{
		// configs/sand-pile.json's thresholds at r = 0.02, speeds scaled by sqrt(r / 0.02).
		double k = sqrt(p->radius / 0.02);
		cJSON* sleep = cJSON_AddObjectToObject(motion, "sleep");
		cJSON_AddNumberToObject(sleep, "steps", 10);
		cJSON_AddNumberToObject(sleep, "speed", bsRound3(0.02 * k));
		cJSON_AddNumberToObject(sleep, "acceleration", 1.0);
		cJSON_AddNumberToObject(sleep, "wake_speed", bsRound3(0.3 * k));
	}
	cJSON* collision = cJSON_AddObjectToObject(root, "collision");
	cJSON_AddStringToObject(collision, "method", "exact");
	cJSON_AddStringToObject(collision, "response", kind == bs_initSnow ? "stick" : "slide");
	cJSON_AddNumberToObject(collision, "friction", kind == bs_initSand ? 1.0 : 0.0);
	cJSON* bounds = cJSON_AddObjectToObject(collision, "bounds");
	bsVec3 grow = bsV3(p->wide, 0.5 * p->tall, p->wide);
	cJSON_AddItemToObject(bounds, "min", bsVecJson(bsSub(p->lo, grow), p->quantum));
	cJSON_AddItemToObject(bounds, "max", bsVecJson(bsV3(p->hi.x + p->wide, p->top + p->tall, p->hi.z + p->wide),
		p->quantum));
}

// The camera frames the model's bounding sphere from the front left, above; 800 x 600, 50 degrees.
static void bsInitRender(cJSON* root, const bsInitMaterial* mat, const bsInitPlan* p, const char* outDir)
{
	cJSON* render = cJSON_AddObjectToObject(root, "render");
	cJSON* camera = cJSON_AddObjectToObject(render, "camera");
	double angle = 50.0, halfVertical = atan(tan(angle * BS_PI / 360.0) * 600.0 / 800.0);
	double distance = 1.1 * 0.5 * p->diagonal / sin(halfVertical);
	bsVec3 at = bsV3(p->center.x, p->lo.y + 0.45 * (p->hi.y - p->lo.y), p->center.z);
	bsVec3 from = bsMulAdd(at, distance, bsNormalize(bsV3(-0.55, 0.5, -1.0)));
	cJSON_AddItemToObject(camera, "location", bsVecJson(from, p->quantum));
	cJSON_AddItemToObject(camera, "look_at", bsVecJson(at, p->quantum));
	cJSON_AddNumberToObject(camera, "angle", angle);
	cJSON* lights = cJSON_AddArrayToObject(render, "lights");
	bsVec3 places[2] = {bsV3(-1.0, 2.0, -1.5), bsV3(1.5, 1.0, -1.0)};
	double colors[2] = {1.0, 0.35};
	for (int i = 0; i < 2; ++i)
	{
		cJSON* light = cJSON_CreateObject();
		cJSON_AddItemToObject(light, "location", bsVecJson(bsMulAdd(at, p->diagonal, places[i]), p->quantum));
		cJSON_AddItemToObject(light, "color", bsVec3Json(colors[i], colors[i], colors[i]));
		cJSON_AddItemToArray(lights, light);
	}
	cJSON_AddItemToObject(render, "background", bsVec3Json(0.8, 0.85, 0.9));
	cJSON_AddNumberToObject(render, "width", 800);
	cJSON_AddNumberToObject(render, "height", 600);
	cJSON* blob = cJSON_AddObjectToObject(render, "blob");
	cJSON_AddNumberToObject(blob, "radius_scale", mat->kind == bs_initSnow ? 2.6 : mat->kind == bs_initSand ? 2.2 : 3.2);
	if (mat->kind == bs_initSand)
	{
		cJSON* look = cJSON_AddObjectToObject(render, "particle_material");  // configs/sand-pile.json's
		cJSON_AddStringToObject(look, "pigment", "color rgb <0.85, 0.72, 0.45>");
		cJSON_AddStringToObject(look, "finish", "diffuse 0.8");
	}
	else if (mat->kind == bs_initSnow)
	{
		cJSON_AddStringToObject(render, "particle_material", "snow");
	}
	cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "output"), "directory", outDir);
}

// --- Paths ---

// The last path component without its extension ("models/spot.obj" -> "spot"), into out.
static void bsInitStem(const char* path, char* out, size_t size)
{
	const char* slash = strrchr(path, '/');
	const char* base = slash != NULL ? slash + 1 : path;
	const char* dot = strrchr(base, '.');
	size_t n = dot != NULL && dot != base ? (size_t)(dot - base) : strlen(base);
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), base);
	if (out[0] == '\0')
	{
		snprintf(out, size, "model");
	}
}

// The folder of a path ("a/b.json" -> "a", "b.json" -> ".", "/b.json" -> "/"), into out.
static void bsInitFolder(const char* path, char* out, size_t size)
{
	const char* slash = strrchr(path, '/');
	snprintf(out, size, "%.*s", slash == NULL ? 1 : (int)(slash - path + (slash == path)), slash == NULL ? "." : path);
}

// How the config names the model: relative to the config's folder when the two share more than the
// root, else absolute. False with a message when either cannot be resolved.
static bool bsInitModelPath(const char* model, const char* folder, char* out, size_t size, char* err, size_t errlen)
{
	char a[PATH_MAX], b[PATH_MAX];
	if (realpath(folder, a) == NULL)
	{
		snprintf(err, errlen, "%s: cannot resolve the path", folder);
		return false;
	}
	if (realpath(model, b) == NULL)
	{
		snprintf(err, errlen, "%s: cannot resolve the path", model);
		return false;
	}
	size_t k = 0, common = 0;
	for (; a[k] != '\0' && a[k] == b[k]; ++k)
	{
		common = a[k] == '/' ? k : common;
	}
	common = a[k] == '\0' && b[k] == '/' ? k : common;
	if (common == 0)
	{
		return (size_t)snprintf(out, size, "%s", b) < size;
	}
	size_t n = 0;
	for (const char* s = a + common; *s != '\0'; ++s)
	{
		if (*s == '/' && n + 3 < size)
		{
			memcpy(out + n, "../", 3);
			n += 3;
		}
	}
	return n < size && (size_t)snprintf(out + n, size - n, "%s", b + common + 1) < size - n;
}

// --- The message ---

static void bsInitReport(const bsInitArgs* a, const char* config, const bsInitModel* m, const bsInitPlan* p,
	const char* outDir)
{
	const char* name = a->material->name;
	printf("%s: %s on %s\n", config, name, a->model);
	printf("  model: %u triangles; box x %.10g .. %.10g, y %.10g .. %.10g, z %.10g .. %.10g in the file "
		"(%g x %g x %g units)\n",
		m->triangles, m->fileLo.x, m->fileHi.x, m->fileLo.y, m->fileHi.y, m->fileLo.z, m->fileHi.z,
		m->fileHi.x - m->fileLo.x, m->fileHi.y - m->fileLo.y, m->fileHi.z - m->fileLo.z);
	if (m->guessed)
	{
		printf("  up axis: %s, guessed (Y unless the model stands on a wide base along z only): its lowest 2%% "
			"spans %.0f%% of its footprint along y, %.0f%% along z; if wrong: blobsim init ... --up %s\n",
			m->up == 2 ? "Z" : "Y", 100.0 * m->support[1], 100.0 * m->support[2], m->up == 2 ? "y" : "z");
	}
	else
	{
		printf("  up axis: %s, as --up says\n", m->up == 2 ? "Z" : "Y");
	}
	if (m->up == 2)
	{
		printf("  the scene is Y-up: environment.meshes[0].rotate [-90, 0, 0] turns the model's +z to +y\n");
	}
	if (bsLengthSquared(m->translate) > 0.0)
	{
		printf("  far from the origin: environment.meshes[0].translate [%.10g, %.10g, %.10g] brings the model near "
			"it (the outputs and the fluid's sums keep their digits there); positions in the outputs are the "
			"scene's\n", m->translate.x, m->translate.y, m->translate.z);
	}
	printf("  units: taken as metres (gravity 9.81 units/s^2%s); the model is %g units across%s: "
		"another unit, another scale: blobsim init ... --scale S (0.01 for centimetres, 0.001 for millimetres)\n",
		a->material->kind == bs_initFluid ? ", the fluid's density and viscosity in SI" : "",
		p->diagonal, a->scale != 1.0 ? " after --scale" : "");
	printf("  particles: %s: radius %g (particles.radius), %s%d %s (particles.emitters[0])\n",
		a->material->what, p->radius, a->material->kind == bs_initFluid ? "" : "about ", p->count,
		a->material->kind == bs_initFluid ? "particles, released at once" : "particles over the emission");
	printf("  motion: %d steps of %g s (motion.steps, motion.dt), gravity 9.81 along -y%s (motion.gravity)\n",
		p->steps, p->dt, m->up == 2 ? ", the model's -z" : "");
	printf("  ground: a plane at y = %g (environment.planes[0]); camera: render.camera, from the front left\n",
		bsRoundTo(p->lo.y, p->quantum));
	printf("then: blobsim run %s --render   (writes %s/scene.png: output.directory, beside the config)\n",
		config, outDir);
}

// --- The command ---

static int bsInitFail(const char* message)
{
	fprintf(stderr, "blobsim init: %s\n", message);
	return bs_exitFailure;
}

// JSON as the repository's configs are written: two spaces a level, arrays of numbers on one line.
// False when out of memory.
static bool bsInitPrintJson(FILE* f, const cJSON* v, int depth)
{
	bool nested = (cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child != NULL && cJSON_IsObject(v->child);
	if (!nested && !cJSON_IsObject(v))
	{
		bool ok = true;
		fputs(cJSON_IsArray(v) ? "[" : "", f);
		for (const cJSON* e = cJSON_IsArray(v) ? v->child : v; e != NULL && ok; e = cJSON_IsArray(v) ? e->next : NULL)
		{
			char* text = cJSON_PrintUnformatted(e);
			ok = text != NULL;
			fprintf(f, "%s%s", ok ? text : "", e->next != NULL && cJSON_IsArray(v) ? ", " : "");
			free(text);
		}
		fputs(cJSON_IsArray(v) ? "]" : "", f);
		return ok;
	}
	bool ok = true;
	fputs(cJSON_IsObject(v) ? "{\n" : "[\n", f);
	for (const cJSON* e = v->child; e != NULL && ok; e = e->next)
	{
		fprintf(f, "%*s", 2 * (depth + 1), "");
		if (cJSON_IsObject(v))
		{
			fprintf(f, "\"%s\": ", e->string);
		}
		ok = bsInitPrintJson(f, e, depth + 1);
		fputs(e->next != NULL ? ",\n" : "\n", f);
	}
	fprintf(f, "%*s%s", 2 * depth, "", cJSON_IsObject(v) ? "}" : "]");
	return ok;
}

// The config's text, checked by the config reader; NULL with a message in err.
static char* bsInitConfigText(const bsInitArgs* a, const char* config, const char* modelPath, const bsInitModel* m,
	const bsInitPlan* p, const char* outDir, char* err, size_t errlen)
{
	cJSON* root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "seed", 1);
	bsInitEnvironment(root, modelPath, a, m, p);
	bsInitParticles(root, a->material, p);
	bsInitMotion(root, a->material->kind, p);
	bsInitRender(root, a->material, p, outDir);
	char* text = NULL;
	size_t length = 0;
	FILE* f = open_memstream(&text, &length);
	bool printed = f != NULL && bsInitPrintJson(f, root, 0);
	printed = f != NULL && fclose(f) == 0 && printed;
	cJSON_Delete(root);
	if (!printed)
	{
		free(text);
		text = NULL;
	}
	if (text == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", config);
		return NULL;
	}
	bsConfig c;
	bsConfigError cerr;
	if (bsConfig_Parse(text, strlen(text), config, &c, &cerr) != bs_ok)
	{
		snprintf(err, errlen, "the config made for %s does not load: %s", a->model, cerr.message);
		free(text);
		return NULL;
	}
	bsConfig_Free(&c);
	return text;
}

int bsInitMain(int argc, char** argv)
{
	bsInitArgs a;
	int status = bsInitParse(argc, argv, &a);
	if (status >= 0)
	{
		return status;
	}
	// The config: -o, or the model's name in the current folder; its outputs: the folder named like it
	// beside it (teapot.json -> teapot/).
	char err[BS_INIT_ERR_MAX], name[256], config[BS_INIT_PATH_MAX], folder[BS_INIT_PATH_MAX], stem[256];
	char outDir[2 * BS_INIT_PATH_MAX], modelPath[PATH_MAX];
	bsInitStem(a.model, name, sizeof name);
	snprintf(config, sizeof config, a.output != NULL ? "%s" : "%s.json", a.output != NULL ? a.output : name);
	bsInitFolder(config, folder, sizeof folder);
	bsInitStem(config, stem, sizeof stem);
	snprintf(outDir, sizeof outDir, "%s%s%s", strcmp(folder, ".") == 0 ? "" : folder,
		strcmp(folder, ".") == 0 || strcmp(folder, "/") == 0 ? "" : "/", stem);
	struct stat st;
	if (!a.force && stat(config, &st) == 0)
	{
		snprintf(err, sizeof err, "%s exists: --force replaces it", config);
		return bsInitFail(err);
	}
	bsInitModel m;
	bsCreatedFolders created = {0};
	if (!bsInitReadModel(&a, &m, err, sizeof err) ||
		!bsMakeFolders(folder, "the config's folder", &created, err, sizeof err))
	{
		return bsInitFail(err);
	}
	bsInitPlan p = bsInitMakePlan(&m, a.material);
	char* text = NULL;
	bool ok = bsInitModelPath(a.model, folder, modelPath, sizeof modelPath, err, sizeof err) &&
		(text = bsInitConfigText(&a, config, modelPath, &m, &p, stem, err, sizeof err)) != NULL &&
		bsWriteTextFile(config, text, err, sizeof err);
	free(text);
	if (!ok)
	{
		bsRemoveCreatedFolders(folder, &created);
		return bsInitFail(err);
	}
	bsInitReport(&a, config, &m, &p, outDir);
	return bs_exitOk;
}
