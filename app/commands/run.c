// run.c — `blobsim run` and `blobsim check`.
#include "run.h"

#include "atomic_file.h"
#include "cli.h"
#include "config.h"
#include "emission.h"
#include "environment.h"
#include "files.h"
#include "inputs.h"
#include "instances.h"
#include "blobsim/base.h"
#include "output_set.h"
#include "output_writers.h"
#include "over_life.h"
#include "pov_writer.h"
#include "bodies.h"
#include "process.h"
#include "render.h"
#include "render_frames.h"
#include "render_movie.h"
#include "render_progress.h"
#include "run_checkpoint.h"
#include "scene_surface.h"
#include "blobsim/step.h"
#include "field_grid.h"
#include "blobsim/triangle.h"

#include "blobsim/version.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS_MAX_OVERRIDES 256
#define BS_PATH_MAX 4096
#define BS_ERR_MAX (4 * BS_PATH_MAX)  // room for a message naming a few paths

typedef struct bsRunOptions
{
	const char* config;
	const char* output;  // -o, overrides output.directory
	const char* overrides[BS_MAX_OVERRIDES];
	int overrideCount;
	int threads;
	uint64_t maxMemory;     // --max-memory; 0: no cap
	bool maxMemoryGiven;
	bool render;
	bool movie;  // --movie (implies --render)
	int jobs;    // --jobs: POV-Ray processes at once; 0: the default (render_frames.h)
	bool quiet;
	bool progressLines;     // --progress-lines
	const char* resume;     // --resume DIR: go on from DIR's checkpoint
	int stopAfterFrame;     // --stop-after-frame N (tests): stop as if killed after frame N; -1: never
} bsRunOptions;

static void bsRunUsage(FILE* f, bool check)
{
	if (check)
	{
		fprintf(f,
			"usage: blobsim check CONFIG [--set key.path=value ...]\n"
			"\n"
			"Validates CONFIG and everything it names (OBJ files and their groups, particle files)\n"
			"without simulating, and prints what a run would do.\n"
			"\n"
			"options:\n"
			"  --set KEY=VALUE  override a config value (repeatable), e.g. --set particles.radius=0.02\n"
			"  -h, --help       show this help and exit\n"
			"\n"
			"Exit status: 0 valid, 1 invalid (the message names the file and line:column or JSON path),\n"
			"2 usage error.\n");
		return;
	}
	fprintf(f,
		"usage: blobsim run CONFIG [options]\n"
		"       blobsim run [CONFIG] --resume DIR [options]\n"
		"\n"
		"Runs the simulation CONFIG describes (docs/config.md) and writes, in the output directory:\n"
		"  scene.pov       the POV-Ray 3.7 scene, every particle a blob component\n"
		"  particles.ply   every particle: x y z radius vx vy vz, its state (free, stuck, escaped, sleeping) and id\n"
		"  summary.json    counts, contacts by sub-test, BVH statistics, time per phase\n"
		"  frame_NNNN.pov and animation.ini   with output.frame_every > 0 (frame_0000: the initial state)\n"
		"  scene.png       with --render, and frame_NNNN.png for every frame\n"
		"  animation.mp4 and preview.gif      with --movie (or render.movie) and ffmpeg\n"
		"  outputs.txt     the list of the files above that the run wrote (render.log: POV-Ray's messages)\n"
		"  cache/frame_NNNN.ply   with output.cache: every frame's particles, every attribute\n"
		"  checkpoint.blobsim     with output.checkpoint N: the whole state every N frames (--resume)\n"
		"Each file is written to a temporary file and renamed into place: a failed or interrupted run\n"
		"leaves none half-written. A run replaces the folder's whole set of outputs: the files listed\n"
		"in an earlier run's outputs.txt that this run does not write (frames beyond its count, a\n"
		"scene.png when it does not render) are removed with the same commit; other files are kept.\n"
		"\n"
		"options:\n"
		"  -o, --output DIR  output directory (default: the config's output.directory)\n"
		"  --threads N       worker threads, 0 = all cores (default 0); results do not depend on it\n"
		"  --set KEY=VALUE   override a config value (repeatable), e.g. --set collision.method=exact\n"
		"  --render          render scene.pov to scene.png with POV-Ray (image size and antialias\n"
		"                    from the config), and every frame to frame_NNNN.png; images still up to\n"
		"                    date (the same scene and settings) are kept, not rendered again\n"
		"  --jobs N          POV-Ray processes at once for --render (default: one per core, the\n"
		"                    cores split between them with POV-Ray's +WT)\n"
		"  --movie           with frames: also encode them into animation.mp4 and preview.gif with\n"
		"                    ffmpeg (implies --render; fails when ffmpeg is missing)\n"
		"  --quiet           print nothing but errors\n"
		"  --progress-lines  print the render's progress as lines 'blobsim-progress render F' on\n"
		"                    stderr (F the fraction done, 0..1; for a parent such as 'blobsim batch');\n"
		"                    otherwise a progress line is shown only when stderr is a terminal\n"
		"  --max-memory BYTES\n"
		"                    refuse the run (exit 1, before allocating the particles) when its\n"
		"                    estimated memory exceeds BYTES; suffixes K, M, G (powers of 1024), 0 = no\n"
		"                    cap (default: the machine's physical memory). The estimate is particles x\n"
		"                    61 bytes (+ 72 with particles.interaction, + 676 instead with the fluid,\n"
		"                    + 64 with particles.accumulate, + 28 with motion.sleep, + 1 with an\n"
		"                    interaction and either, + 8 with output.cache) + triangles x 304 bytes\n"
		"                    (mesh and BVH; the moving bodies' too) + the field's grid and\n"
		"                    compressed tree (as built; the grid is checked from its size before it\n"
		"                    is built or read) + 9 bytes a triangle of a surface emitter + 16 MiB\n"
		"  --resume DIR      go on from DIR's checkpoint.blobsim (a run with output.checkpoint that\n"
		"                    was stopped or killed): its outputs up to the checkpoint stay, the rest\n"
		"                    are written as the uninterrupted run writes them, byte for byte, at any\n"
		"                    --threads. CONFIG and --set may be left out (the checkpoint names them);\n"
		"                    a config, override or input file changed since is refused\n"
		"  --stop-after-frame N\n"
		"                    (for tests) stop as a killed run would, right after frame N is written\n"
		"                    (and its checkpoint committed, when it has one); exit status 1\n"
		"  -h, --help        show this help and exit\n"
		"\n"
		"With output.checkpoint, a run commits its outputs at every checkpoint (the earlier run's others\n"
		"removed at the first), so those up to the last checkpoint are in place even when it is killed.\n"
		"All outputs are written to temporary files and renamed into place only after every one of them\n"
		"(and the render) succeeded: a failed run leaves an existing output directory as it was.\n"
		"SIGINT and SIGTERM stop POV-Ray, remove the temporary files and exit 130 and 143.\n"
		"\n"
		"Exit status: 0 success, 1 failure (bad config or input file, I/O error, POV-Ray failed,\n"
		"over --max-memory), 2 usage error, 130/143 interrupted.\n");
}

// BYTES with an optional K, M or G suffix (powers of 1024). Prints the usage error.
static bool bsParseByteSize(const char* cmd, const char* option, const char* text, uint64_t* out)
{
	const char* expected = "a byte count with an optional K, M or G suffix, e.g. 512M,";
	char buf[64];
	size_t n = strlen(text);
	uint64_t unit = 1;
	if (n > 0 && n < sizeof(buf))
	{
		char last = text[n - 1];
		unit = (last == 'K' || last == 'k') ? (1ull << 10)
			: (last == 'M' || last == 'm') ? (1ull << 20)
			: (last == 'G' || last == 'g') ? (1ull << 30) : 1;
	}
	if (n == 0 || n >= sizeof(buf))
	{
		char message[160];
		snprintf(message, sizeof(message), "%s: expected %s got", option, expected);
		bsUsageError(cmd, message, text);
		return false;
	}
	memcpy(buf, text, n + 1);
	if (unit != 1)
	{
		buf[n - 1] = '\0';
	}
	bool digits = buf[0] != '\0';
	for (const char* c = buf; *c != '\0'; ++c)
	{
		digits = digits && *c >= '0' && *c <= '9';
	}
	errno = 0;
	unsigned long long v = digits ? strtoull(buf, NULL, 10) : 0;
	if (!digits || errno != 0 || v > UINT64_MAX / unit)
	{
		char message[160];
		snprintf(message, sizeof(message), "%s: expected %s got", option, expected);
		bsUsageError(cmd, message, text);
		return false;
	}
	*out = (uint64_t)v * unit;
	return true;
}

// Returns -1 to go on, else an exit status.
static int bsParseRunOptions(int argc, char** argv, bool check, bsRunOptions* o)
{
	const char* cmd = check ? "check" : "run";
	memset(o, 0, sizeof(*o));
	o->stopAfterFrame = -1;
	int i = 1;
	while (i < argc)
	{
		const char* a = argv[i];
		const char* value = NULL;
		int m;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		{
			bsRunUsage(stdout, check);
			return bs_exitOk;
		}
		else if ((m = bsMatchSetOption(cmd, argc, argv, &i, o->overrides, &o->overrideCount, BS_MAX_OVERRIDES)) !=
			0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
		}
		else if (!check && ((m = bsMatchOption(cmd, "--output", argc, argv, &i, &value)) != 0 ||
							 (m = bsMatchOption(cmd, "-o", argc, argv, &i, &value)) != 0))
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			o->output = value;
		}
		else if (!check && (m = bsMatchOption(cmd, "--threads", argc, argv, &i, &value)) != 0)
		{
			long long v;
			if (m < 0 || !bsParseIntOption(cmd, "--threads", value, 0, 1024, &v))
			{
				return bs_exitUsage;
			}
			o->threads = (int)v;
		}
		else if (!check && (m = bsMatchOption(cmd, "--max-memory", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseByteSize(cmd, "--max-memory", value, &o->maxMemory))
			{
				return bs_exitUsage;
			}
			o->maxMemoryGiven = true;
		}
		else if (!check && strcmp(a, "--render") == 0)
		{
			o->render = true;
			++i;
		}
		else if (!check && strcmp(a, "--movie") == 0)
		{
			o->movie = true;
			o->render = true;
			++i;
		}
		else if (!check && (m = bsMatchOption(cmd, "--jobs", argc, argv, &i, &value)) != 0)
		{
			long long v;
			if (m < 0 || !bsParseIntOption(cmd, "--jobs", value, 1, 256, &v))
			{
				return bs_exitUsage;
			}
			o->jobs = (int)v;
		}
		else if (!check && (m = bsMatchOption(cmd, "--resume", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			o->resume = value;
		}
		else if (!check && (m = bsMatchOption(cmd, "--stop-after-frame", argc, argv, &i, &value)) != 0)
		{
			long long v;
			if (m < 0 || !bsParseIntOption(cmd, "--stop-after-frame", value, 1, INT_MAX, &v))
			{
				return bs_exitUsage;
			}
			o->stopAfterFrame = (int)v;
		}
		else if (!check && strcmp(a, "--quiet") == 0)
		{
			o->quiet = true;
			++i;
		}
		else if (!check && strcmp(a, "--progress-lines") == 0)
		{
			o->progressLines = true;
			++i;
		}
		else if (a[0] == '-' && a[1] != '\0')
		{
			bsUsageError(cmd, "unknown option", a);
			return bs_exitUsage;
		}
		else if (o->config != NULL)
		{
			bsUsageError(cmd, "one config only; extra argument", a);
			return bs_exitUsage;
		}
		else
		{
			o->config = a;
			++i;
		}
	}
	if (o->resume != NULL && o->output != NULL)
	{
		bsUsageError(cmd, "--resume DIR writes into DIR; -o/--output cannot be given with it", o->output);
		return bs_exitUsage;
	}
	if (o->resume != NULL && o->config == NULL && o->overrideCount > 0)
	{
		bsUsageError(cmd, "--resume without CONFIG takes the checkpoint's config and overrides; --set needs CONFIG",
			o->overrides[0]);
		return bs_exitUsage;
	}
	if (o->config == NULL && o->resume == NULL)
	{
		bsUsageError(cmd, "missing CONFIG", NULL);
		return bs_exitUsage;
	}
	return -1;
}

static void bsJoin(char* out, size_t size, const char* dir, const char* name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

// --- Scene ---

typedef struct bsSceneBuffers
{
	bsPovMesh* meshes;
	bsPovPlane* planes;
	bsPovLight* lights;
	bsSceneSurface surface;  // render.surface: blobs, or a mesh written beside each scene
} bsSceneBuffers;

static void bsSceneBuffers_Free(bsSceneBuffers* b)
{
	free(b->meshes);
	free(b->planes);
	free(b->lights);
	memset(b, 0, sizeof(*b));
}

// The static part of the scene (camera, lights, environment); particles are set per write.
static bool bsMakeScene(const bsConfig* c, const bsEnvironment* env, bsSceneBuffers* b,
	bsPovScene* scene)
{
	const bsRenderConfig* rc = &c->render;
	memset(b, 0, sizeof(*b));
	*scene = bsPovScene_Default();
	b->meshes = calloc(env->groupCount + 1, sizeof(bsPovMesh));
	b->planes = calloc(env->planeCount + 1, sizeof(bsPovPlane));
	b->lights = calloc((size_t)rc->lightCount + 1, sizeof(bsPovLight));
	if (b->meshes == NULL || b->planes == NULL || b->lights == NULL)
	{
		bsSceneBuffers_Free(b);
		return false;
	}
	for (uint32_t g = 0; g < env->groupCount; ++g)
	{
		b->meshes[g].name = env->groups[g].name;
		b->meshes[g].triangles = env->triangles + env->groups[g].first;
		b->meshes[g].triangleCount = env->groups[g].count;
		b->meshes[g].material = env->groups[g].look != NULL ? env->groups[g].look : env->groups[g].material;
		b->meshes[g].cornerColors = env->groups[g].look != NULL ? env->cornerColors + 3 * (size_t)env->groups[g].first : NULL;
	}
	for (uint32_t k = 0; k < env->planeCount; ++k)
	{
		b->planes[k].point = bsScale(-env->planes[k].d, env->planes[k].n);
		b->planes[k].normal = env->planes[k].n;
		b->planes[k].material = env->planeMaterials[k];
	}
	for (int k = 0; k < rc->lightCount; ++k)
	{
		b->lights[k].location = rc->lights[k].location;
		b->lights[k].color = rc->lights[k].color;
	}
	scene->camera.location = rc->camera.location;
	scene->camera.lookAt = rc->camera.lookAt;
	scene->camera.angle = rc->camera.angle;
	scene->camera.width = rc->width;
	scene->camera.height = rc->height;
	scene->lights = b->lights;
	scene->lightCount = (size_t)rc->lightCount;
	scene->background = rc->background;
	scene->meshes = b->meshes;
	scene->meshCount = env->groupCount;
	scene->planes = b->planes;
	scene->planeCount = env->planeCount;
	scene->bodies = bsEnvBodies_Scene(env->bodies, &scene->bodyCount);  // posed with each step
	scene->particles.threshold = rc->blob.threshold;
	scene->particles.strength = rc->blob.strength;
	scene->particles.radiusScale = rc->blob.radiusScale;
	scene->particles.maxComponents = (size_t)rc->blob.maxComponents;
	scene->particles.material = rc->particleMaterial.texture;
	return true;
}

// --- summary.json ---

typedef struct bsRunTimes
{
	double load, build, simulate, write, render, total;
	bsStepProfile step;  // the step's phases (bsWorld_GetProfile), summed over the steps: within simulate
} bsRunTimes;

// The names and values of the run's phases and of the step's phases, in the order summary.json and
// the printed table give them.
enum
{
	bs_runPhaseCount = 6,
	bs_stepPhaseCount = 8,
};

static void bsRunTimes_Phases(const bsRunTimes* t, const char** names, double* values)
{
	const char* n[bs_runPhaseCount] = {"load", "build", "simulate", "write", "render", "total"};
	double v[bs_runPhaseCount] = {t->load, t->build, t->simulate, t->write, t->render, t->total};
	memcpy(names, n, sizeof(n));
	memcpy(values, v, sizeof(v));
}

static void bsStepProfile_Phases(const bsStepProfile* p, const char** names, double* values)
{
	const char* n[bs_stepPhaseCount] = {"emit", "plan", "interaction", "forces", "colliders", "move", "sleep",
		"expire"};
	double v[bs_stepPhaseCount] = {p->emit, p->plan, p->interaction, p->forces, p->colliders, p->move, p->sleep,
		p->expire};
	memcpy(names, n, sizeof(n));
	memcpy(values, v, sizeof(v));
}

// Two lines of a table: the phases' names over their seconds.
static void bsPrintPhases(const char* title, int count, const char** names, const double* values)
{
	printf("blobsim: %-8s", title);
	for (int i = 0; i < count; ++i)
	{
		printf(" %11s", names[i]);
	}
	printf("\n         %-8s", "seconds");
	for (int i = 0; i < count; ++i)
	{
		printf(" %11.3f", values[i]);
	}
	printf("\n");
}

// The run's inputs, for `blobsim batch` to tell whether the outputs are up to date (inputs.h): the
// overrides as given and each input file's size and FNV-1a 64 hash (null when it could not be read).
static void bsAddInputs(cJSON* root, const bsRunOptions* o, const bsInputList* inputs)
{
	cJSON* overrides = cJSON_AddArrayToObject(root, "overrides");
	for (int i = 0; i < o->overrideCount; ++i)
	{
		cJSON_AddItemToArray(overrides, cJSON_CreateString(o->overrides[i]));
	}
	cJSON* files = cJSON_AddArrayToObject(root, "inputs");
	for (int i = 0; i < inputs->count; ++i)
	{
		const bsInputFile* f = inputs->files + i;
		cJSON* item = cJSON_CreateObject();
		cJSON_AddItemToArray(files, item);
		cJSON_AddStringToObject(item, "path", f->path);
		if (f->hashed)
		{
			char hash[32];
			snprintf(hash, sizeof(hash), "%016" PRIx64, f->hash);
			cJSON_AddNumberToObject(item, "size", (double)f->size);
			cJSON_AddStringToObject(item, "fnv1a64", hash);
		}
		else
		{
			cJSON_AddNullToObject(item, "size");
			cJSON_AddNullToObject(item, "fnv1a64");
		}
	}
}

// The fluid's solver statistics (step.h: bsStepStats) in the interaction object: its substeps, each
// solve's iterations in total and per substep, the solves stopped at their limit, the largest errors
// after a solve; and particles.material when the config names one. `last_step`: the same errors and
// iterations over the last step alone (a settled fluid's state, not its way there).
static void bsAddFluidSummary(cJSON* in, const bsConfig* c, const bsStepStats* stats, const bsStepStats* last)
{
	if (c->particles.material != NULL)
	{
		cJSON_AddStringToObject(in, "material", c->particles.material);
	}
	double substeps = (double)stats->fluidSubsteps;
	cJSON_AddNumberToObject(in, "fluid_substeps", substeps);
	const char* names[3] = {"divergence", "density", "viscosity"};
	uint64_t totals[3] = {stats->divergenceIterations, stats->densityIterations, stats->viscosityIterations};
	for (int i = 0; i < 3; ++i)
	{
		char key[64];
		snprintf(key, sizeof(key), "%s_iterations", names[i]);
		cJSON_AddNumberToObject(in, key, (double)totals[i]);
		snprintf(key, sizeof(key), "%s_iterations_per_substep", names[i]);
		cJSON_AddNumberToObject(in, key, substeps > 0.0 ? (double)totals[i] / substeps : 0.0);
	}
	cJSON_AddNumberToObject(in, "unconverged", (double)stats->unconverged);
	cJSON_AddNumberToObject(in, "density_error_mean", stats->densityErrorMean);
	cJSON_AddNumberToObject(in, "density_error_max", stats->densityErrorMax);
	cJSON* l = cJSON_AddObjectToObject(in, "last_step");
	cJSON_AddNumberToObject(l, "fluid_substeps", (double)last->fluidSubsteps);
	cJSON_AddNumberToObject(l, "density_iterations", (double)last->densityIterations);
	cJSON_AddNumberToObject(l, "unconverged", (double)last->unconverged);
	cJSON_AddNumberToObject(l, "density_error_mean", last->densityErrorMean);
	cJSON_AddNumberToObject(l, "density_error_max", last->densityErrorMax);
}

static char* bsSummaryJson(const bsConfig* c, const bsRunOptions* o, const bsInputList* inputs,
	const bsEnvironment* env, const bsParticles* p, const bsStepStats* stats, const bsStepStats* last, int threads,
	const bsRunTimes* times, int frames, bool rendered, const bsSceneSurface* surface,
	const bsFieldGridReport* field)
{
	cJSON* root = cJSON_CreateObject();
	char hash[32];
	snprintf(hash, sizeof(hash), "%016" PRIx64, c->hash);
	cJSON_AddStringToObject(root, "blobsim", BLOBSIM_VERSION);
	cJSON_AddStringToObject(root, "config", c->path);
	cJSON_AddStringToObject(root, "config_hash", hash);
	bsAddInputs(root, o, inputs);
	cJSON_AddNumberToObject(root, "seed", (double)c->seed);
	cJSON_AddStringToObject(root, "method", bsMethodName(c->step.method));
	cJSON_AddStringToObject(root, "response", bsResponseName(c->step.response));
	cJSON_AddNumberToObject(root, "steps", c->motion.steps);
	cJSON_AddNumberToObject(root, "dt", c->step.dt);

	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(p, counts);
	cJSON* particles = cJSON_AddObjectToObject(root, "particles");
	cJSON_AddNumberToObject(particles, "total", (double)p->count);
	for (int s = 0; s < bs_particleStateCount; ++s)
	{
		// Sleeping particles only with rest on: a summary without it stays as it was.
		if (s != bs_particleSleeping || c->step.sleepSteps > 0)
		{
			cJSON_AddNumberToObject(particles, bsParticleStateName((bsParticleState)s), (double)counts[s]);
		}
	}
	if (c->step.sleepSteps > 0)
	{
		cJSON_AddNumberToObject(particles, "fell_asleep", (double)stats->fellAsleep);
		cJSON_AddNumberToObject(particles, "woken", (double)stats->woken);
	}
	// Of the escaped, those whose lifetime ended (particles.lifetime), and every particle born.
	cJSON_AddNumberToObject(particles, "expired", (double)stats->expired);
	cJSON_AddNumberToObject(particles, "emitted", (double)stats->emitted);

	cJSON* contacts = cJSON_AddObjectToObject(root, "contacts");
	uint64_t total = 0;
	for (int t = 0; t < bs_testCount; ++t)
	{
		for (int b = 0; b < bs_branchCount; ++b)
		{
			if (stats->contacts[t][b] > 0)
			{
				char key[64];
				snprintf(key, sizeof(key), "%s/%s", bsTestName((bsTest)t), bsBranchName((bsBranch)b));
				cJSON_AddNumberToObject(contacts, key, (double)stats->contacts[t][b]);
				total += stats->contacts[t][b];
			}
		}
	}
	cJSON_AddNumberToObject(contacts, "total", (double)total);
	cJSON_AddNumberToObject(root, "contact_limit_reached", (double)stats->contactLimit);
	if (c->step.interaction.type != bs_interactionNone)
	{
		// Only with an interaction, so that every other run's summary keeps its keys.
		cJSON* in = cJSON_AddObjectToObject(root, "interaction");
		cJSON_AddStringToObject(in, "type", bsInteractionName(c->step.interaction.type));
		cJSON_AddNumberToObject(in, "substeps", (double)stats->substeps);
		cJSON_AddNumberToObject(in, "neighbour_pairs", 0.5 * (double)stats->pairs);
		cJSON_AddNumberToObject(in, "contact_pairs", 0.5 * (double)stats->contactPairs);
		if (c->step.interaction.type == bs_interactionFluid)
		{
			bsAddFluidSummary(in, c, stats, last);  // only for the fluid: the others' summaries keep their bytes
		}
	}

	cJSON* e = cJSON_AddObjectToObject(root, "environment");
	cJSON_AddNumberToObject(e, "triangles", env->triangleCount);
	cJSON_AddNumberToObject(e, "groups", env->groupCount);
	cJSON_AddNumberToObject(e, "planes", env->planeCount);
	cJSON_AddNumberToObject(e, "dropped_degenerate", (double)env->droppedDegenerate);
	cJSON* bvh = cJSON_AddObjectToObject(root, "bvh");
	cJSON_AddNumberToObject(bvh, "nodes", env->bvh.stats.nodes);
	cJSON_AddNumberToObject(bvh, "leaves", env->bvh.stats.leaves);
	cJSON_AddNumberToObject(bvh, "depth", env->bvh.stats.depth);
	cJSON_AddNumberToObject(bvh, "sah_cost", env->bvh.stats.sahCost);
	cJSON* q = cJSON_AddObjectToObject(root, "queries");
	cJSON_AddNumberToObject(q, "count", (double)stats->queries);
	cJSON_AddNumberToObject(q, "nodes_visited", (double)stats->nodesVisited);
	cJSON_AddNumberToObject(q, "triangles_tested", (double)stats->trianglesTested);

	if (c->field.enabled)
	{
		bsFieldGrid_AddSummary(root, c, c->step.fieldGrid, field);  // only with a field, as above
	}
	cJSON_AddNumberToObject(root, "frames", frames);
	cJSON_AddBoolToObject(root, "rendered", rendered);
	// What `blobsim render DIR` renders with (render_command.c).
	cJSON* render = cJSON_AddObjectToObject(root, "render");
	cJSON_AddNumberToObject(render, "width", c->render.width);
	cJSON_AddNumberToObject(render, "height", c->render.height);
	cJSON_AddNumberToObject(render, "antialias", c->render.antialias);
	cJSON_AddNumberToObject(render, "jitter", c->render.jitter);
	cJSON_AddBoolToObject(render, "movie", c->render.movie);
	cJSON_AddNumberToObject(render, "fps", c->render.fps);
	if (bsMotionBlur_Samples(&c->render) > 0)
	{
		cJSON* blur = cJSON_AddObjectToObject(render, "motion_blur");
		cJSON_AddNumberToObject(blur, "shutter_angle", c->render.motionBlur.shutterAngle);
		cJSON_AddNumberToObject(blur, "samples", c->render.motionBlur.samples);
	}
	cJSON_AddNumberToObject(root, "threads", threads);
	cJSON* t = cJSON_AddObjectToObject(root, "seconds");
	const char* names[bs_stepPhaseCount];
	double values[bs_stepPhaseCount];
	bsRunTimes_Phases(times, names, values);
	for (int i = 0; i < bs_runPhaseCount; ++i)
	{
		cJSON_AddNumberToObject(t, names[i], values[i]);
	}
	cJSON* step = cJSON_AddObjectToObject(t, "step");
	bsStepProfile_Phases(&times->step, names, values);
	for (int i = 0; i < bs_stepPhaseCount; ++i)
	{
		cJSON_AddNumberToObject(step, names[i], values[i]);
	}
	bsSceneSurface_AddSummary(surface, root);
	char* text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

// --- Progress ---

typedef struct bsProgress
{
	bool bar;  // a terminal on stderr and not --quiet
	double start;
	double last;
} bsProgress;

static void bsProgress_Update(bsProgress* pr, int step, int steps, size_t particles, bool final)
{
	if (!pr->bar)
	{
		return;
	}
	double now = bsNow();
	if (!final && now - pr->last < 0.1)
	{
		return;
	}
	pr->last = now;
	double elapsed = now - pr->start;
	double fraction = (double)step / (double)steps;
	double rate = elapsed > 0.0 ? (double)step * (double)particles / elapsed : 0.0;
	double eta = fraction > 0.0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
	char bar[31];
	int filled = (int)(fraction * 30.0);
	for (int k = 0; k < 30; ++k)
	{
		bar[k] = k < filled ? '#' : '.';
	}
	bar[30] = '\0';
	fprintf(stderr, "\rstep %d/%d [%s] %3.0f%%  %.2f M particle-steps/s  ETA %.0f s ", step, steps, bar,
		100.0 * fraction, rate / 1e6, eta);
	if (final)
	{
		fputc('\n', stderr);
	}
	fflush(stderr);
}

// The render's progress: machine-readable lines for a parent, a line on a terminal, or nothing (a
// log or a pipe gets no carriage-return updates).
static bsRenderMeterMode bsRunMeterMode(const bsRunOptions* o)
{
	if (o->progressLines)
	{
		return bs_renderMeterLines;
	}
	return !o->quiet && isatty(2) ? bs_renderMeterTerminal : bs_renderMeterNone;
}

// --- Signals ---

// SIGINT / SIGTERM during a run: kill and reap POV-Ray (so it writes nothing after), remove every
// temporary file (both async-signal-safe), say so with one write(2), and exit 128 + the signal number.
// Nothing else: no stdio, no free.
static void bsOnSignal(int sig)
{
	bsProcess_StopAllOnSignal();
	bsAtomicFile_CleanupOnSignal();
	static const char interrupted[] = "blobsim: interrupted (SIGINT); temporary files removed\n";
	static const char terminated[] = "blobsim: terminated (SIGTERM); temporary files removed\n";
	if (sig == SIGINT)
	{
		ssize_t ignored = write(2, interrupted, sizeof(interrupted) - 1);
		(void)ignored;
		_exit(130);
	}
	ssize_t ignored = write(2, terminated, sizeof(terminated) - 1);
	(void)ignored;
	_exit(143);
}

void bsRun_InstallSignalHandlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bsOnSignal;
	sigemptyset(&sa.sa_mask);
	// Block the other one while handling, so a SIGTERM right after a SIGINT does not re-enter.
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

// --- Memory estimate (--max-memory) ---

enum
{
	bs_memoryPerParticle = 61,                              // particles.h
	// The neighbour grid (neighbour_grid.h, 72) and the pair kinds' neighbour lists (neighbour_list.h:
	// 4 a slot, 25 a particle, 4 an entry at 8 entries a particle, a dense random packing's neighbours
	// within the default skin; 5.9 on the bench's lattice, 52.6 bytes a particle measured).
	bs_memoryInteraction = 72 + 61,
	bs_memoryMeshCandidates = 36,                           // mesh_candidates.h, with an interaction and a mesh
	// The fluid interaction's bytes a particle, in place of bs_memoryInteraction: the neighbour grid
	// (65) and the solver's arrays (611: neighbour lists and pair factors 243 at 27 neighbours, 8
	// bytes each and an eighth of room, the by-slot arrays 116, a wall record 240 and its index 4,
	// warm starts 8), as `blobsim bench --only fluid` measured them on 100,000 particles of water in
	// a box of planes (docs/performance.md). The wall records are kept only for the slots near a
	// wall: an upper bound, for a scene all near its walls.
	bs_memoryFluid = 676,
	bs_memoryFixedNeighbour = 1,                            // its fixed flag, with stuck or sleeping neighbours
	bs_memoryAccumulation = 64,                             // the stuck grid (stuck_grid.c): a slot's 52 bytes,
	                                                        // slotOf's 4, at most 2 buckets of 4
	bs_memorySleep = 28,                                    // sleep.h: the velocity at the start of a step, the calm count
	bs_memoryCache = 8,                                     // output.cache: the frame's ages (output_cache.c)
	bs_memoryOverLife = 8 + 24 + 8 + 16,                    // particles.over_life or several species: the ages, the
	                                                        // drawn centres, radii and colours made at write time
	                                                        // (output_scene.c)
	bs_memorySpecies = 1,                                   // several species: each particle's (particles.h)
	bs_memoryPerTriangle = 2 * sizeof(bsTriangle) + 96,     // the mesh; the BVH's copy, index, binary and
	                                                        // 4-wide nodes (bsBvh_Bytes: ~173 per triangle)
	bs_memoryOverhead = 16 << 20,                           // buffers, config, scene, stacks
};

static uint64_t bsPhysicalMemory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

// Formats n bytes as "1.5 GiB" (or "512 bytes").
static void bsFormatBytes(char* out, size_t size, uint64_t n)
{
	static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (n < 1024)
	{
		snprintf(out, size, "%" PRIu64 " bytes", n);
		return;
	}
	double v = (double)n / 1024.0;
	int u = 0;
	while (v >= 1024.0 && u < 5)
	{
		v /= 1024.0;
		++u;
	}
	snprintf(out, size, "%.1f %s", v, units[u]);
}

// The estimate's bytes a particle for the config's features.
static int bsMemoryPerParticle(const bsConfig* c)
{
	bool interaction = c->step.interaction.type != bs_interactionNone;
	bool fixed = c->particles.accumulate || c->step.sleepSteps > 0;
	int own = c->step.interaction.type == bs_interactionFluid ? bs_memoryFluid : bs_memoryInteraction;
	return bs_memoryPerParticle + (interaction ? own : 0) +
		(interaction && fixed ? bs_memoryFixedNeighbour : 0) + (c->particles.accumulate ? bs_memoryAccumulation : 0) +
		(c->step.sleepSteps > 0 ? bs_memorySleep : 0) + (c->output.cache ? bs_memoryCache : 0) +
		(bsOverLife_AnySpecies(&c->particles) || c->particles.speciesCount > 1 ? bs_memoryOverLife : 0) +
		(c->particles.speciesCount > 1 ? bs_memorySpecies : 0) +
		(interaction && c->environment.meshCount > 0 ? bs_memoryMeshCandidates : 0);
}

// What the estimate counts besides the particles and the environment's triangles: the tables built
// before the check, counted as they are (not by a formula).
typedef struct bsMemoryExtras
{
	uint64_t fieldBytes;    // the field's grid cells and its compressed tree
	uint64_t surfaceBytes;  // the surface emitters' tables: 9 bytes a triangle
	uint64_t bodyBytes;     // the moving bodies' meshes and BVHs: bs_memoryPerTriangle a triangle
} bsMemoryExtras;

enum
{
	bs_memorySurfaceTriangle = sizeof(double) + 1,  // emission.c: the cumulative area, the turn flag
};

static uint64_t bsSurfaceTableBytes(const bsEmission* emission)
{
	uint64_t bytes = 0;
	for (int k = 0; k < emission->count; ++k)
	{
		if (emission->cumulative[k] != NULL)
		{
			bytes += ((uint64_t)emission->surfaces[k].count + 1) * bs_memorySurfaceTriangle;
		}
	}
	return bytes;
}

static uint64_t bsFieldBytes(const bsConfig* c, const bsDistanceGrid* grid, const bsGridTree* tree)
{
	if (!c->field.enabled)
	{
		return 0;
	}
	return bsDistanceGrid_CellCount(grid) * sizeof(bsGridCell) + (c->field.compress ? bsGridTree_Bytes(tree) : 0);
}

// " + field grid N + surface emitters N + bodies N", each only when not 0.
static void bsFormatExtras(char* out, size_t size, const bsMemoryExtras* x)
{
	const uint64_t values[] = {x->fieldBytes, x->surfaceBytes, x->bodyBytes};
	const char* names[] = {"field grid", "surface emitters", "bodies"};
	size_t at = 0;
	out[0] = '\0';
	for (int i = 0; i < 3; ++i)
	{
		if (values[i] != 0 && at < size)
		{
			int n = snprintf(out + at, size - at, " + %s %" PRIu64, names[i], values[i]);
			at += n > 0 ? (size_t)n : 0;
		}
	}
}

// The estimate's bytes. particles <= 2^31 - 1 per emitter kind and triangles < 2^32: no overflow in
// 64 bits; the extras are bytes held in memory already.
static uint64_t bsMemoryNeed(uint64_t particles, int perParticle, uint64_t triangles, const bsMemoryExtras* extras)
{
	return particles * (uint64_t)perParticle + triangles * bs_memoryPerTriangle + extras->fieldBytes +
		extras->surfaceBytes + extras->bodyBytes + bs_memoryOverhead;
}

// False, with a message giving the estimate and the cap, when the run would need more than cap.
static bool bsCheckMemory(const char* config, uint64_t particles, int perParticle, uint64_t triangles,
	const bsMemoryExtras* extras, uint64_t cap, bool given, char* err, size_t errlen)
{
	if (cap == 0)
	{
		return true;
	}
	uint64_t need = bsMemoryNeed(particles, perParticle, triangles, extras);
	if (need <= cap)
	{
		return true;
	}
	char needText[32], capText[32], extraText[160];
	bsFormatBytes(needText, sizeof(needText), need);
	bsFormatBytes(capText, sizeof(capText), cap);
	bsFormatExtras(extraText, sizeof(extraText), extras);
	snprintf(err, errlen,
		"%s: the run needs about %s (%" PRIu64 " bytes: %" PRIu64 " particles x %d + %" PRIu64
		" triangles x %d%s + %d), more than %s %s (%" PRIu64 " bytes)%s",
		config, needText, need, particles, perParticle, triangles, (int)bs_memoryPerTriangle, extraText,
		bs_memoryOverhead, given ? "the --max-memory cap of" : "the physical memory,", capText, cap,
		given ? "" : "; lower the particle count or raise the cap with --max-memory");
	return false;
}

// --- The simulation: the engine's steps, with a frame written every output.frame_every ---

typedef struct bsRunFrames
{
	const bsConfig* config;
	bool progress;        // a progress bar on stderr
	bsOutputContext* output;  // the writers' (output_writers.h): each frame walks them
	bsMotionBlur* blur;       // render.motion_blur's samples, recorded by the world's substep observer
	int frames;           // written so far (frame 0 is the initial state)
	bsRunTimes* times;
	bsStepStats* lastStep;    // the statistics of the last step taken alone
	// Checkpoints (output.checkpoint, run_checkpoint.h) and resuming from one.
	uint64_t settingsHash;
	const bsRunOptions* options;    // the config's path and overrides as loaded (the checkpoint's when
	                                // --resume has no CONFIG), --stop-after-frame
	const bsRunCheckpoint* resume;  // the checkpoint to go on from, or NULL
	bool committed;                 // outputs committed at a checkpoint: the rest join them
	bsCreatedFolders* created;      // no longer removed on failure once committed
} bsRunFrames;

// A step that would need more substeps than motion.max_substeps: why, from the same plan the step
// made (step.h), and what to change.
static void bsUnstableError(const bsConfig* c, const bsParticles* p, int step, char* err, size_t errlen)
{
	bsSubstepPlan plan;
	bsStep_PlanSubsteps(&c->step, p, &plan);
	if (c->step.interaction.type == bs_interactionFluid)
	{
		// The fluid's own rules (docs/fluids.md, Substeps): its CFL number, the last step's fastest
		// particle, its surface tension, and a factor while its solves stop at their limit.
		snprintf(err, errlen, "%s: step %d: the fluid needs more than motion.max_substeps (%d) substeps: "
			"a particle of radius %g moves at %g m/s and may move %g of its spacing (particles.interaction.cfl) "
			"in a substep; the previous step's fastest particle, the surface tension and solves that stopped "
			"at particles.interaction.max_iterations ask for more; lower motion.dt or raise "
			"motion.max_substeps", c->path, step, c->step.maxSubsteps, plan.radius, plan.speed,
			c->step.interaction.fluid.cfl);
		return;
	}
	snprintf(err, errlen, "%s: step %d: the interaction needs %.0f substeps, more than motion.max_substeps "
		"(%d): a particle of radius %g at %g m/s may move a tenth of its radius in %.3g s and the "
		"shortest contact lasts %.3g s (a substep is at most 1/%g of it); lower motion.dt, soften the "
		"contact (particles.interaction.contact_time) or raise motion.max_substeps", c->path, step,
		plan.substeps, c->step.maxSubsteps, plan.radius, plan.speed,
		BS_SUBSTEP_TRAVEL * plan.radius / plan.speed, plan.period, BS_SUBSTEPS_PER_PERIOD);
}

// A failed step's message: the emitter and particle that failed their check, or the result.
static void bsStepError(const bsConfig* c, const bsWorld* world, const bsParticles* p, int step, bsResult r,
	char* err, size_t errlen)
{
	if (r == bs_errUnstable)
	{
		bsUnstableError(c, p, step, err, errlen);
		return;
	}
	int emitter;
	size_t index;
	if (bsWorld_EmitFailure(world, &emitter, &index))
	{
		char at[64];
		bsEmitterConfig_Path(&c->particles, emitter, at, sizeof(at));
		snprintf(err, errlen, "%s: %s: particle %zu: %s", c->path, at, index,
			r == bs_errNonFinite ? "not finite" : "radius not positive");
		return;
	}
	snprintf(err, errlen, "%s: step %d: %s", c->path, step, bsResultString(r));
}

// The frame writer: every output writer of a frame, for the particles as they are now.
static bool bsWriteFrame(bsRunFrames* run, char* err, size_t errlen)
{
	double t0 = bsNow();
	bool ok = bsOutputWriters_Write(run->output, run->frames++, err, errlen);
	run->times->write += bsNow() - t0;
	return ok;
}

// After a frame: the checkpoint, when the frame is one (output.checkpoint) and steps remain, committed
// with the outputs so far (the first commit replaces the folder's earlier set, the later ones add), and
// a new deferred group opened for the rest.
static bool bsCheckpointFrame(bsRunFrames* run, const bsWorld* world, const bsParticles* p, int step,
	const bsStepStats* stats, char* err, size_t errlen)
{
	const bsConfig* c = run->config;
	int frame = run->frames - 1;
	if (c->output.checkpointEvery <= 0 || frame % c->output.checkpointEvery != 0 || frame == 0 ||
		step >= c->motion.steps)
	{
		return true;
	}
	double t0 = bsNow();
	bsRunProgress progress = {step, run->frames, *stats};
	const char* dir = run->output->dir;
	const bsRunOptions* o = run->options;
	bool ok = bsRunCheckpoint_Write(dir, run->settingsHash, o->config, o->overrides, o->overrideCount, &progress,
		world, p, err, errlen) &&
		bsOutputSet_Commit(dir, run->committed ? bs_outputSetAdd : bs_outputSetReplace, err, errlen);
	if (ok)
	{
		run->committed = true;
		run->created->count = 0;  // the folders hold committed outputs now
	}
	ok = ok && bsOutputSet_Begin(dir, err, errlen);
	run->times->write += bsNow() - t0;
	return ok;
}

// The step of the image after the one at step `at`: the next frame, or the final state without frames.
static int bsNextImageStep(const bsConfig* c, int at)
{
	int every = c->output.frameEvery;
	if (every <= 0)
	{
		return c->motion.steps;
	}
	long next = ((long)at / every + 1) * every;
	return next < c->motion.steps ? (int)next : c->motion.steps;
}

// The world set up from the config, then either frame 0 (the state before any step) or, resuming, the
// checkpoint's state. *first: the first step to take.
static bsWorld* bsSimulate_Begin(bsRunFrames* run, const bsRunOptions* o, const bsEnvironment* env,
	const bsEmission* emission, bsParticles* p, bsStepStats* stats, int* first, char* err, size_t errlen)
{
	const bsConfig* c = run->config;
	bsWorldDef wdef = bsDefaultWorldDef();
	wdef.threads = o->threads;
	wdef.seed = c->seed;
	bsWorld* world = bsWorld_Create(&wdef);
	bsResult added = world == NULL ? bs_errOutOfMemory : bsFieldGrid_AddColliders(c, env, world);
	added = added == bs_ok ? bsEmission_AddToWorld(emission, c, world) : added;
	if (added != bs_ok)
	{
		snprintf(err, errlen, "%s: cannot set up the world: %s", c->path, bsResultString(added));
		bsWorld_Destroy(world);
		return NULL;
	}
	run->output->world = world;
	*first = 1;
	if (run->blur->samples > 0)
	{
		bsMotionBlur_Attach(run->blur, env->bodies, world, c);
		bsWorld_SetSubstepObserver(world, bsMotionBlur_Observe, run->blur);
	}
	if (run->resume == NULL)
	{
		bsEnvBodies_Pose(env->bodies, world);
		bsMotionBlur_Begin(run->blur, 0, 0, p);  // frame 0's samples: the initial state
		if (c->output.frameEvery > 0 && !bsWriteFrame(run, err, errlen))  // frame 0: before any step
		{
			bsWorld_Destroy(world);
			return NULL;
		}
		bsMotionBlur_Begin(run->blur, 0, bsNextImageStep(c, 0), p);
		return world;
	}
	char path[BS_PATH_MAX];
	bsJoin(path, sizeof(path), o->resume, BS_CHECKPOINT_NAME);
	if (!bsRunCheckpoint_Restore(run->resume, path, run->settingsHash, world, p, err, errlen))
	{
		bsWorld_Destroy(world);
		return NULL;
	}
	bsEnvBodies_Pose(env->bodies, world);
	*stats = run->resume->progress.stats;
	run->frames = run->resume->progress.frames;
	run->committed = true;
	*first = run->resume->progress.step + 1;
	bsMotionBlur_Begin(run->blur, *first - 1, bsNextImageStep(c, *first - 1), p);
	return world;
}

static bool bsSimulate(bsRunFrames* run, const bsRunOptions* o, const bsEnvironment* env,
	const bsEmission* emission, bsParticles* p, bsStepStats* stats, char* err, size_t errlen)
{
	const bsConfig* c = run->config;
	int first = 1;
	bsWorld* world = bsSimulate_Begin(run, o, env, emission, p, stats, &first, err, errlen);
	if (world == NULL)
	{
		return false;
	}
	bsProgress progress = {run->progress, bsNow(), 0.0};
	bool ok = true;
	for (int step = first; ok && step <= c->motion.steps; ++step)
	{
		double t0 = bsNow();
		run->blur->step = step;
		memset(run->lastStep, 0, sizeof(*run->lastStep));
		bsResult r = bsWorld_Step(world, &c->step, p, run->lastStep);
		bsStepStats_Add(stats, run->lastStep);
		run->times->simulate += bsNow() - t0;
		bsStepProfile profile = bsWorld_GetProfile(world);
		bsStepProfile_Add(&run->times->step, &profile);
		bsEnvBodies_Pose(env->bodies, world);
		bsEnvBodies_Sensors(env->bodies, world, c->render.sensors, run->output->scene);
		if (r != bs_ok)
		{
			bsStepError(c, world, p, step, r, err, errlen);
			ok = false;
			break;
		}
		int every = c->output.frameEvery;
		if (every > 0 && (step % every == 0 || step == c->motion.steps))
		{
			ok = bsWriteFrame(run, err, errlen) && bsCheckpointFrame(run, world, p, step, stats, err, errlen);
			if (step < c->motion.steps)
			{
				bsMotionBlur_Begin(run->blur, step, bsNextImageStep(c, step), p);
			}
			if (ok && run->frames - 1 == o->stopAfterFrame)
			{
				snprintf(err, errlen, "stopped after frame %d (--stop-after-frame)", o->stopAfterFrame);
				ok = false;
			}
		}
		bsProgress_Update(&progress, step, c->motion.steps, p->count, step == c->motion.steps);
	}
	// The final state's looks over life need the ages at the last step (the world goes now).
	ok = ok && (!bsOverLife_AnySpecies(&c->particles) || bsOutput_Ages(run->output, err, errlen));
	ok = ok && bsOutputGas_Update(run->output, err, errlen);  // render.gas: the final state's ages
	run->output->world = NULL;
	bsWorld_Destroy(world);
	return ok;
}

// --- Rendering ---

// The run's images (scene.png and every frame), read from the scenes' pending temporary files; images
// still up to date are kept (render_frames.h). Counts what it rendered and kept.
static bool bsRenderOutputs(const bsConfig* c, const bsRunOptions* o, const char* dir, int frames, int* rendered,
	int* kept, char* err, size_t errlen)
{
	bsRenderSettings settings = {c->render.width, c->render.height, c->render.antialias, c->render.jitter,
		c->render.surface == bs_surfaceMesh, c->render.surface == bs_surfaceAuto,
		bsMotionBlur_Samples(&c->render)};
	bsRenderPlan plan;
	bsRenderPlan_Init(&plan, dir, &settings, false);
	bsRenderMeter meter;
	plan.meter = &meter;
	bool ok = true;
	for (int k = -1; ok && k < frames; ++k)
	{
		char name[32], path[BS_PATH_MAX];
		bsOutput_SceneName(name, sizeof(name), k);
		bsJoin(path, sizeof(path), dir, name);
		const char* pending = bsAtomicFile_DeferredPath(path);
		ok = bsRenderPlan_Add(&plan, k, pending != NULL ? pending : path);
	}
	if (!ok)
	{
		snprintf(err, errlen, "%s: out of memory", dir);
	}
	ok = ok && bsRenderPlan_Decide(&plan, false, err, errlen);
	if (ok)
	{
		bsRenderMeter_Begin(&meter, bsRunMeterMode(o), bsRenderPlan_Pending(&plan));
		ok = bsRenderPlan_Run(&plan, o->jobs, 0, err, errlen);
		bsRenderMeter_End(&meter);
	}
	// The images kept as up to date stay among the folder's outputs (output_set.h).
	ok = ok && bsRenderPlan_ListImages(&plan, err, errlen);
	*rendered = plan.rendered;
	*kept = plan.count - bsRenderPlan_Pending(&plan);
	bsRenderPlan_Free(&plan);
	return ok;
}

// After the run's outputs are in place: animation.mp4 and preview.gif from the frames, in a deferred
// group of their own that joins the folder's outputs (output_set.h), unless they are newer than every frame already. False, with a message, when
// ffmpeg fails or is missing (the caller decides whether that fails the run).
static bool bsMakeMovie(const bsConfig* c, const char* dir, int frames, bool* made, char* err, size_t errlen)
{
	*made = false;
	char ffmpeg[BS_PATH_MAX];
	if (!bsMovie_FindFfmpeg("render.movie", ffmpeg, sizeof(ffmpeg), err, errlen))
	{
		return false;
	}
	if (bsMovie_UpToDate(dir, frames - 1))
	{
		return true;
	}
	if (!bsOutputSet_Begin(dir, err, errlen))
	{
		return false;
	}
	if (!bsMovie_Encode(dir, frames - 1, c->render.fps, err, errlen))
	{
		bsAtomicFile_AbortDeferred();
		return false;
	}
	*made = bsOutputSet_Commit(dir, bs_outputSetAdd, err, errlen);
	return *made;
}

// A run that makes a movie keeps an earlier one among its outputs (output_set.h) until bsMakeMovie
// decides whether it is up to date, so an unchanged animation is not encoded again.
static bool bsKeepMovie(const char* dir, char* err, size_t errlen)
{
	const char* names[] = {"animation.mp4", "preview.gif"};
	for (int i = 0; i < 2; ++i)
	{
		char path[BS_PATH_MAX];
		bsJoin(path, sizeof(path), dir, names[i]);
		if (access(path, F_OK) == 0 && !bsAtomicFile_DeferKeep(path, err, errlen))
		{
			return false;
		}
	}
	return true;
}

// --- Commands ---

static int bsFail(const char* message)
{
	fprintf(stderr, "blobsim: %s\n", message);
	return bs_exitFailure;
}

// "s" after a count other than 1: "1 group", "3 groups".
static const char* bsPlural(uint64_t count)
{
	return count == 1 ? "" : "s";
}

// What the meshes' edges and the surface emitters' windings say (environment.h, emission.h), a line
// each after `prefix`.
static void bsPrintWinding(const bsConfig* c, const bsEnvironment* env, const bsEmission* emission, const char* prefix)
{
	char line[BS_ERR_MAX];
	for (int m = 0; m < c->environment.meshCount; ++m)
	{
		if (bsEnvironment_DescribeEdges(env, c, m, line, sizeof(line)))
		{
			printf("%s%s\n", prefix, line);
		}
	}
	for (int k = 0; k < emission->count; ++k)
	{
		if (bsEmission_DescribeWinding(emission, c, k, line, sizeof(line)))
		{
			printf("%s%s\n", prefix, line);
		}
	}
}

// Some emitter is a trail (its particles are not in the emission's total).
static bool bsHasTrail(const bsParticlesConfig* pc)
{
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		if (pc->emitters[k].emitter.type == bs_emitterTrail)
		{
			return true;
		}
	}
	return false;
}

int bsCheckMain(int argc, char** argv)
{
	bsRunOptions o;
	int status = bsParseRunOptions(argc, argv, true, &o);
	if (status >= 0)
	{
		return status;
	}
	bsConfig c;
	bsConfigError cerr;
	if (bsConfig_LoadWithOverrides(o.config, o.overrides, o.overrideCount, &c, &cerr) != bs_ok)
	{
		return bsFail(cerr.message);
	}
	char err[BS_ERR_MAX];
	bsEnvironment env;
	bsEmission emission;
	if (bsEnvironment_Load(&env, &c, o.threads, err, sizeof(err)) != bs_ok)
	{
		bsConfig_Free(&c);
		return bsFail(err);
	}
	if (!bsEmission_Load(&emission, &c, &env, err, sizeof(err)))
	{
		bsEnvironment_Free(&env);
		bsConfig_Free(&c);
		return bsFail(err);
	}
	char fieldLine[9000] = "";
	if (c.field.enabled && !bsFieldGrid_Check(&c, &env, fieldLine, sizeof fieldLine, err, sizeof(err)))
	{
		bsEmission_Free(&emission);
		bsEnvironment_Free(&env);
		bsConfig_Free(&c);
		return bsFail(err);
	}
	uint64_t particles = emission.total;
	printf("%s: ok: %" PRIu64 " particle%s, %u triangle%s in %u group%s (%" PRIu64 " degenerate dropped), "
		"%u plane%s; %d step%s of %g s, %s, %s%s%s%s%s\n",
		c.path, particles, bsPlural(particles), env.triangleCount, bsPlural(env.triangleCount), env.groupCount,
		bsPlural(env.groupCount), env.droppedDegenerate, env.planeCount, bsPlural(env.planeCount), c.motion.steps,
		bsPlural((uint64_t)c.motion.steps), c.step.dt, bsMethodName(c.step.method), bsResponseName(c.step.response),
		c.step.interaction.type != bs_interactionNone ? ", interaction " : "",
		c.step.interaction.type != bs_interactionNone ? bsInteractionName(c.step.interaction.type) : "",
		c.particles.material != NULL ? ", material " : "", c.particles.material != NULL ? c.particles.material : "");
	if (fieldLine[0] != '\0')
	{
		printf("%s\n", fieldLine);
	}
	if (bsHasTrail(&c.particles))
	{
		printf("%s: and the trails' particles, born as their sources fly (not counted before the run)\n", c.path);
	}
	bsPrintWinding(&c, &env, &emission, "");
	bsEmission_Free(&emission);
	bsEnvironment_Free(&env);
	bsConfig_Free(&c);
	return bs_exitOk;
}

// Everything one `blobsim run` holds, from the config to the committed outputs: bsRunMain's phases
// (check the tools, load the inputs, open the outputs, simulate, write, commit, report) each take it.
typedef struct bsRunState
{
	const bsRunOptions* o;
	bsConfig c;
	const char* dir;  // the output directory (-o, or the config's)
	bsInputList inputs;
	bsEnvironment env;
	bsDistanceGrid fieldGrid;
	bsFieldGridReport fieldReport;
	bsGridTree fieldTree;
	bsEmission emission;
	bsParticles p;
	bsSceneBuffers buffers;
	bsSceneInstances instances;  // render.instances (its OBJ read with the inputs)
	bsPovScene scene;
	bsOutputContext output;
	bsMotionBlur blur;         // render.motion_blur's sub-frame samples (motion_blur.h)
	bsStepStats stats;
	bsStepStats lastStep;      // the last step's alone (summary.json: interaction.last_step)
	bsRunTimes times;
	double start;
	int frames;
	bool rendered;
	int imagesRendered, imagesKept;
	bsCreatedFolders created;  // the output folders this run made, removed again when it fails
	bsCreatedFolders createdCache;  // the same for DIR/cache (output.cache)
	bool deferred;             // the outputs are held back (output_set.h) until the commit
	bool committed;            // outputs were committed at a checkpoint (or by the run resumed)
	bsRunCheckpoint resume;    // --resume: the checkpoint read
	uint64_t settingsHash;     // the config's and its inputs' (run_checkpoint.h)
	char err[BS_ERR_MAX];
} bsRunState;

// Fails before the simulation, not after it, when the outputs asked for cannot be made.
static bool bsRun_CheckTools(bsRunState* r)
{
	if (r->o->movie && r->c.output.frameEvery <= 0)
	{
		snprintf(r->err, sizeof(r->err), "--movie: %s writes no frames; set output.frame_every (e.g. --set "
			"output.frame_every=10)", r->c.path);
		return false;
	}
	char path[BS_PATH_MAX];
	return (!r->o->render || bsRender_FindPovray("--render", r->dir, path, sizeof(path), r->err, sizeof(r->err))) &&
		(!r->o->movie || bsMovie_FindFfmpeg("--movie", path, sizeof(path), r->err, sizeof(r->err)));
}

// The environment, the emitters, the distance/normal grid, and the memory they and the particles will
// take against the limit. Inputs first: a bad config, OBJ or PLY leaves no output directory behind.
static bool bsRun_LoadInputs(bsRunState* r)
{
	bsConfig* c = &r->c;
	if (bsEnvironment_Load(&r->env, c, r->o->threads, r->err, sizeof(r->err)) != bs_ok ||
		!bsEmission_Load(&r->emission, c, &r->env, r->err, sizeof(r->err)) ||
		!bsSceneInstances_Load(&r->instances, c, r->err, sizeof(r->err)))
	{
		return false;
	}
	if (!r->o->quiet)
	{
		bsPrintWinding(c, &r->env, &r->emission, "blobsim: ");
	}
	int perParticle = bsMemoryPerParticle(c);
	// A body's mesh and its collider's BVH cost what the environment's triangles do.
	bsMemoryExtras extras = {0, bsSurfaceTableBytes(&r->emission),
		bsEnvBodies_TriangleCount(r->env.bodies) * bs_memoryPerTriangle};
	uint64_t cap = r->o->maxMemoryGiven ? r->o->maxMemory : bsPhysicalMemory();
	bool given = r->o->maxMemoryGiven;
	if (!bsCheckMemory(c->path, r->emission.total, perParticle, r->env.triangleCount, &extras, cap, given, r->err,
		sizeof(r->err)))
	{
		return false;
	}
	// The field's grid gets what the rest leaves of the cap, checked from its size before it is built
	// or inflated (at least a byte: 0 would be no cap).
	uint64_t rest = bsMemoryNeed(r->emission.total, perParticle, r->env.triangleCount, &extras);
	uint64_t gridCap = cap == 0 ? 0 : cap > rest ? cap - rest : 1;
	if (c->field.enabled && !bsFieldGrid_Use(c, &r->env, gridCap, &r->fieldGrid, &r->fieldTree, &r->fieldReport,
		r->err, sizeof(r->err)))
	{
		return false;
	}
	extras.fieldBytes = bsFieldBytes(c, &r->fieldGrid, &r->fieldTree);
	return bsCheckMemory(c->path, r->emission.total, perParticle, r->env.triangleCount, &extras, cap, given, r->err,
		sizeof(r->err));
}

// A run that writes checkpoints (or resumes from one) is refused before any output when a checkpoint
// cannot hold its whole state yet (bsWorld_CheckpointGap): asked of a world set up as the run's will be.
static bool bsRun_CheckResumable(bsRunState* r)
{
	const bsConfig* c = &r->c;
	if (c->output.checkpointEvery <= 0 && r->o->resume == NULL)
	{
		return true;
	}
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = 1;
	bsWorld* world = bsWorld_Create(&def);
	bsResult added = world == NULL ? bs_errOutOfMemory : bsFieldGrid_AddColliders(c, &r->env, world);
	const char* gap = added == bs_ok ? bsWorld_CheckpointGap(world, &c->step) : NULL;
	bsWorld_Destroy(world);
	if (added != bs_ok)
	{
		snprintf(r->err, sizeof(r->err), "%s: cannot set up the world: %s", c->path, bsResultString(added));
		return false;
	}
	if (gap != NULL)
	{
		snprintf(r->err, sizeof(r->err), "%s: output.checkpoint: a checkpoint cannot hold %s yet, so this run "
			"cannot be resumed; set output.checkpoint to 0", c->path, gap);
		return false;
	}
	return true;
}

// The output directory, the held-back output set, the particles' room, the scene and the writers'
// context. From here every output is only renamed into place once all of them (and the render)
// succeeded, and the earlier run's outputs that this one does not write go at the same time.
static bool bsRun_OpenOutputs(bsRunState* r)
{
	const bsConfig* c = &r->c;
	if (r->dir[0] == '\0')
	{
		snprintf(r->err, sizeof(r->err), "the output directory is an empty path (-o or output.directory)");
		return false;
	}
	if (!bsMakeFolders(r->dir, "the output directory", &r->created, r->err, sizeof(r->err)) ||
		!bsOutputCache_Prepare(c, r->dir, &r->createdCache, r->err, sizeof(r->err)) ||
		!bsOutputSet_Begin(r->dir, r->err, sizeof(r->err)))
	{
		return false;
	}
	r->deferred = true;
	// render.instances.orient "rotation": the set keeps orientations for the spins to turn.
	if (bsParticles_Reserve(&r->p, (size_t)r->emission.total) != bs_ok ||
		(c->render.instances.rotation && bsParticles_EnableOrientation(&r->p) != bs_ok))
	{
		snprintf(r->err, sizeof(r->err), "%s: out of memory for %" PRIu64 " particles", c->path, r->emission.total);
		return false;
	}
	r->times.load = bsNow() - r->start - r->env.buildSeconds;  // config, meshes, particle files
	r->times.build = r->env.buildSeconds;
	if (!bsMakeScene(c, &r->env, &r->buffers, &r->scene))
	{
		snprintf(r->err, sizeof(r->err), "%s: out of memory", c->path);
		return false;
	}
	r->buffers.surface = bsSceneSurface_FromConfig(&c->render, r->o->threads);
	r->scene.particles.threads = r->o->threads;  // the blobs' formatting: the same bytes at any count
	r->scene.particles.instances = bsSceneInstances_Pov(&r->instances, &c->render);
	r->scene.particles.gas = bsOutputGas_Pov(&c->render);
	r->output.config = c;
	r->output.dir = r->dir;
	r->output.particles = &r->p;
	r->output.scene = &r->scene;
	r->output.surface = &r->buffers.surface;
	bsMotionBlur_Init(&r->blur, bsMotionBlur_Samples(&c->render), c->render.motionBlur.shutterAngle,
		c->output.frameEvery);
	r->output.blur = r->blur.samples > 0 ? &r->blur : NULL;
	return bsEnvBodies_WriteIncludes(r->env.bodies, r->dir, r->err, sizeof(r->err)) &&
		bsSceneInstances_WriteInclude(&r->instances, r->dir, r->err, sizeof(r->err));
}

// The steps, and the frames written along the way (and the checkpoints with them).
static bool bsRun_Simulate(bsRunState* r)
{
	bsRunFrames run = {.config = &r->c, .progress = !r->o->quiet && isatty(2), .output = &r->output,
		.times = &r->times, .settingsHash = r->settingsHash, .options = r->o,
		.resume = r->o->resume != NULL ? &r->resume : NULL, .created = &r->created, .blur = &r->blur,
		.lastStep = &r->lastStep};
	bool ok = bsSimulate(&run, r->o, &r->env, &r->emission, &r->p, &r->stats, r->err, sizeof(r->err));
	r->frames = run.frames;
	r->committed = run.committed;
	if (run.committed)
	{
		r->createdCache.count = 0;
	}
	if (ok && run.resume != NULL && !r->o->quiet)
	{
		printf("blobsim: resumed %s from step %d (frame %d)\n", r->dir, r->resume.progress.step,
			r->resume.progress.frames - 1);
	}
	return ok;
}

// The final state's outputs (output_writers.h), the render and the movie's frames when asked, then
// summary.json with the times of it all: held back until the commit.
static bool bsRun_WriteOutputs(bsRunState* r)
{
	const bsConfig* c = &r->c;
	double t0 = bsNow();
	r->output.frames = r->frames;
	if (!bsOutputWriters_Write(&r->output, -1, r->err, sizeof(r->err)))
	{
		return false;
	}
	r->times.write += bsNow() - t0;
	if (r->o->render)
	{
		t0 = bsNow();
		if (!bsRenderOutputs(c, r->o, r->dir, r->frames, &r->imagesRendered, &r->imagesKept, r->err, sizeof(r->err)) ||
			((r->o->movie || c->render.movie) && r->frames > 0 && !bsKeepMovie(r->dir, r->err, sizeof(r->err))))
		{
			return false;
		}
		r->rendered = true;
		r->times.render = bsNow() - t0;
	}
	r->times.total = bsNow() - r->start;
	char* summary = bsSummaryJson(c, r->o, &r->inputs, &r->env, &r->p, &r->stats, &r->lastStep,
		bsResolveThreads(r->o->threads, r->p.count), &r->times, r->frames, r->rendered, &r->buffers.surface,
		&r->fieldReport);
	char path[BS_PATH_MAX];
	bsJoin(path, sizeof(path), r->dir, "summary.json");
	bool ok = summary != NULL && bsWriteTextFile(path, summary, r->err, sizeof(r->err));
	if (summary == NULL)
	{
		snprintf(r->err, sizeof(r->err), "%s: out of memory", path);
	}
	cJSON_free(summary);
	return ok;
}

// What the run did, on stdout (without --quiet): the phases' times, the particles' states, the images.
static void bsRun_Report(const bsRunState* r, bool movie)
{
	const bsConfig* c = &r->c;
	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(&r->p, counts);
	char sleeping[48] = "";
	if (c->step.sleepSteps > 0)
	{
		snprintf(sleeping, sizeof(sleeping), ", %" PRIu64 " sleeping", counts[bs_particleSleeping]);
	}
	const char* names[bs_stepPhaseCount];
	double values[bs_stepPhaseCount];
	bsRunTimes_Phases(&r->times, names, values);
	bsPrintPhases("run", bs_runPhaseCount, names, values);
	bsStepProfile_Phases(&r->times.step, names, values);
	bsPrintPhases("step", bs_stepPhaseCount, names, values);
	printf("blobsim: %zu particle%s (%" PRIu64 " stuck, %" PRIu64 " free, %" PRIu64 " escaped%s), %d step%s, "
		"%s/%s, %.3f s -> %s/scene.pov%s\n",
		r->p.count, bsPlural(r->p.count), counts[bs_particleStuck], counts[bs_particleFree], counts[bs_particleEscaped],
		sleeping,
		c->motion.steps, bsPlural((uint64_t)c->motion.steps), bsMethodName(c->step.method),
		bsResponseName(c->step.response), bsNow() - r->start, r->dir, r->rendered ? " (+ scene.png)" : "");
	if (r->rendered && r->frames > 0)
	{
		printf("blobsim: %d image%s rendered, %d up to date%s\n", r->imagesRendered,
			bsPlural((uint64_t)r->imagesRendered), r->imagesKept, movie ? "; animation.mp4 and preview.gif" : "");
	}
}

// After the commit: the movie (only an explicit --movie fails the run when it cannot be made; the
// run's outputs are in place either way) and the report. The exit status.
static int bsRun_Finish(bsRunState* r)
{
	const bsConfig* c = &r->c;
	bool movie = false;
	if (r->rendered && r->frames > 0 && (r->o->movie || c->render.movie) &&
		!bsMakeMovie(c, r->dir, r->frames, &movie, r->err, sizeof(r->err)))
	{
		// render.movie in a config (which may travel to a machine without ffmpeg) only warns.
		if (r->o->movie)
		{
			fprintf(stderr, "blobsim: %s (the run's other outputs are written)\n", r->err);
			return bs_exitFailure;
		}
		fprintf(stderr, "blobsim: warning: %s\n", r->err);
	}
	if (!r->o->quiet)
	{
		bsRun_Report(r, movie);
	}
	return bs_exitOk;
}

static void bsRunState_Free(bsRunState* r)
{
	bsOutputContext_Free(&r->output);
	bsMotionBlur_Free(&r->blur);
	bsSceneBuffers_Free(&r->buffers);
	bsSceneInstances_Free(&r->instances);
	bsParticles_Free(&r->p);
	bsEmission_Free(&r->emission);
	bsGridTree_Free(&r->fieldTree);
	bsDistanceGrid_Free(&r->fieldGrid);
	bsEnvironment_Free(&r->env);
	bsInputList_Free(&r->inputs);
	bsConfig_Free(&r->c);
	bsRunCheckpoint_Free(&r->resume);
}

// `blobsim run`: the data path, phase by phase. A failure before the commit leaves no output of this
// run and the previous complete outputs as they were (the held-back set is aborted, the folders this
// run made are removed).
int bsRunMain(int argc, char** argv)
{
	bsRun_InstallSignalHandlers();
	bsRunOptions o;
	int status = bsParseRunOptions(argc, argv, false, &o);
	if (status >= 0)
	{
		return status;
	}
	bsRunState run;
	bsRunState* r = &run;
	memset(r, 0, sizeof(*r));
	r->o = &o;
	r->start = bsNow();
	// --resume: the checkpoint first; without CONFIG it names the config and the overrides.
	if (o.resume != NULL && !bsRunCheckpoint_Read(o.resume, &r->resume, r->err, sizeof(r->err)))
	{
		return bsFail(r->err);
	}
	if (o.resume != NULL && o.config == NULL)
	{
		if (r->resume.overrideCount > BS_MAX_OVERRIDES)
		{
			bsRunCheckpoint_Free(&r->resume);
			return bsFail("the checkpoint holds more --set overrides than a run takes");
		}
		o.config = r->resume.config;
		o.overrideCount = r->resume.overrideCount;
		for (int i = 0; i < o.overrideCount; ++i)
		{
			o.overrides[i] = r->resume.overrides[i];
		}
	}
	bsConfigError cerr;
	if (bsConfig_LoadWithOverrides(o.config, o.overrides, o.overrideCount, &r->c, &cerr) != bs_ok)
	{
		bsRunCheckpoint_Free(&r->resume);
		return bsFail(cerr.message);
	}
	r->dir = o.resume != NULL ? o.resume : o.output != NULL ? o.output : r->c.output.directory;
	// Hashed before the loaders read them: a file changed in between is then recorded with its old
	// hash, which makes the run stale for `blobsim batch`, never wrongly up to date.
	if (!bsInputList_Make(&r->c, true, &r->inputs))
	{
		bsConfig_Free(&r->c);
		bsRunCheckpoint_Free(&r->resume);
		return bsFail("out of memory");
	}
	r->settingsHash = bsRunCheckpoint_Hash(&r->c, &r->inputs);
	bool ok = bsRun_CheckTools(r) && bsRun_LoadInputs(r) && bsRun_CheckResumable(r) && bsRun_OpenOutputs(r) &&
		bsRun_Simulate(r) &&
		bsRun_WriteOutputs(r);
	if (ok)
	{
		r->deferred = false;
		// After a checkpoint's commit (or resuming) the earlier set is this run's already: the rest joins it.
		bsOutputSetMode mode = r->committed ? bs_outputSetAdd : bs_outputSetReplace;
		ok = bsOutputSet_Commit(r->dir, mode, r->err, sizeof(r->err));
	}
	if (ok)
	{
		status = bsRun_Finish(r);
	}
	else
	{
		if (r->deferred)
		{
			bsAtomicFile_AbortDeferred();
		}
		char cache[BS_PATH_MAX];
		bsJoin(cache, sizeof(cache), r->dir, BS_OUTPUT_CACHE_NAME);
		bsRemoveCreatedFolders(cache, &r->createdCache);
		bsRemoveCreatedFolders(r->dir, &r->created);
		fprintf(stderr, "blobsim: %s\n", r->err);
		status = bs_exitFailure;
	}
	bsRunState_Free(r);
	return status;
}
