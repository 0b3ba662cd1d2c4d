// bench.c — `blobsim bench`.
//
// Part 1 reproduces Table 1 of the paper (section 5): 10,000,000 tests per row between a triangle and
// a sphere, a cylinder or a capsule, all randomly placed. The random triangles and sweeps are
// generated up front into small pools that stay in cache, and each test reads a (triangle, sweep)
// pair from a table of scrambled pairs, so the loop measures the tests, not the generator, and the
// branch predictor cannot learn the sequence. Only the test loop is timed; the best of K runs counts.
//
// Part 2 builds the BVH of a procedural heightfield scene and times short swept-sphere queries
// starting just above the surface (bsBvh_SweepBatch), with one thread and with all threads.
#include "bench.h"

#include "bench_embree.h"
#include "bench_field.h"
#include "bench_fluid.h"
#include "bench_particles.h"
#include "bench_sensors.h"
#include "boxf.h"
#include "collide_internal.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "procedural.h"
#include "blobsim/rng.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include "blobsim/version.h"
#include "core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Table 1 pools: powers of two so an index is a mask. By default 4096 triangles (104 B) and 4096
// sweeps (184 B), 1.2 MB, plus their float bounds (32 B each, 256 KiB); the pair table (256 KiB) is
// read sequentially. --pool and --pairs change the counts (an index is 16 bits).
#define BS_BENCH_POOL 4096LL
#define BS_BENCH_PAIRS 65536LL

#define BS_BENCH_DEFAULT_TESTS 10000000LL
#define BS_BENCH_DEFAULT_QUERIES 1000000LL
// 2 * 354^2 = 250,632 heightfield triangles, plus the boxes': at least 250,000 triangles.
#define BS_BENCH_DEFAULT_RESOLUTION 354
#define BS_BENCH_BOXES 200
#define BS_BENCH_DEFAULT_RUNS 3

static const char* const bs_benchCommand = "bench";

// --- Option values ---

// An integer option that must be a power of two in [lo, hi] (Table 1's pool sizes are masks).
static bool bsParsePowerOfTwoOption(const char* cmd, const char* option, const char* text, long long lo,
	long long hi, long long* out)
{
	long long v = 0;
	if (!bsParseIntOption(cmd, option, text, lo, hi, &v))
	{
		return false;
	}
	if ((v & (v - 1)) != 0)
	{
		char message[64];
		snprintf(message, sizeof message, "%s: expected a power of two, got", option);
		bsUsageError(cmd, message, text);
		return false;
	}
	*out = v;
	return true;
}

// --- Options of `blobsim bench` ---

typedef struct bsBenchOptions
{
	long long tests;
	long long pool;   // Table 1: triangles and sweeps
	long long pairs;  // Table 1: scrambled pairs
	long long queries;
	int resolution;
	double size;  // BVH query size in heightfield cells
	int threads;  // thread count of the parallel runs; 0: all cores
	uint64_t seed;
	int runs;
	const char* csvPath;
	bool table1;
	bool bvh;
	long long particles;  // the particle-system and field parts' count; 0: both skipped
	bool runParticles;    // the particle-system part (not with --only field)
	bool field;           // the field part (bench_field.c)
	int gridResolution;   // its lookup-rate grid's cells along each axis
	bool sensors;         // the sensor-particle part (bench_sensors.c), only with --only sensors
	bool fluid;           // the fluid part (bench_fluid.c), only with --only fluid
	int fluidFrames;      // its frames of 1/24 s
	unsigned fluidMaterials;  // its materials (bs_benchFluid* bits)
	int sensorFrames;     // its queries per letter pair
	bool vsEmbree;     // --vs embree: the side-by-side comparison (bench_embree.c)
	bsVsEmbreeDef vs;  // its sizes; seed and threads come from --seed and --threads
} bsBenchOptions;

static void bsBenchUsage(FILE* f)
{
	bsVsEmbreeDef vs = bsDefaultVsEmbreeDef();
	fprintf(f,
		"usage: blobsim bench [options]\n"
		"\n"
		"Times the collision core.\n"
		"  table1  the paper's Table 1 (Karabassi et al. 1999, section 5): N tests per row between a\n"
		"          random triangle and a random sphere, cylinder or capsule (sphere/triangle,\n"
		"          cylinder/triangle, combined), plus the exact and ray methods; ns per test against\n"
		"          the paper's Pentium II 400 figures. Best of K runs. The combined and exact rows ask\n"
		"          each pair's float bounds (bsBoxf) first; their last two rows time them without.\n"
		"  bvh     builds the BVH of a procedural heightfield scene (>= 250,000 triangles by default)\n"
		"          and times short swept-sphere queries just above its surface for each method, with\n"
		"          1 thread and with all threads: queries/s, hit fraction, nodes and triangles per query;\n"
		"          then closest-point queries from the same start centres (1 thread, unsorted).\n"
		"  particles  N particles packed in a box with granular interaction (particles.interaction):\n"
		"          ms per step, neighbour-grid build, contact pairs per second, the ratio to the same\n"
		"          step without interaction, bytes per particle, with 1 and 2 threads.\n"
		"  field   the distance/normal field's impact rule over --particles N particles around a\n"
		"          sphere (64^3 grid, or --grid-resolution), dense and compressed, nearest and\n"
		"          trilinear lookup: M particle-steps/s per core, the rule alone and through the step\n"
		"          (one thread, CPU time); then the paper's Table 1 at 800 and N particles: ms per\n"
		"          step with no collisions, the compressed grid, the dense grid and the swept-sphere\n"
		"          BVH, memory.\n"
		"  sensors only with --only sensors: Senin et al.'s sensor particles on two \"T\" (3 each) and\n"
		"          two \"W\" (5 each) over a scripted approach, --sensor-frames queries each: ms per\n"
		"          query against the paper and the exact BVH-BVH distance, and the sensors' error.\n"
		"  fluid   only with --only fluid: a dam-break column of --particles N particles (n x 2n x n/2,\n"
		"          r 5 mm) in a box of planes, the water and slime presets (particles.material), stepped\n"
		"          --fluid-frames frames of 1/24 s from rest with 1 and 2 threads: seconds a frame\n"
		"          (median), substeps a frame, the solves' iterations a substep, bytes a particle.\n"
		"  embree  with --vs embree, after the parts above: the same scenes and identical queries\n"
		"          through Embree 3 and blobsim, rounds alternated, medians: rays (rtcIntersect1 vs\n"
		"          bsRayBvh_Ray on the BVH's 8-wide ray copy), sweeps (Embree user geometry calling\n"
		"          blobsim's exact test vs blobsim's exact and karabassi) and builds, with their\n"
		"          agreement. Needs a build with Embree\n"
		"          (libembree-dev, meson option embree); without it the part says it was skipped.%s\n"
		"\n"
		"options:\n"
		"  --tests N        tests per Table 1 row (default %lld)\n"
		"  --pool N         Table 1's triangles and sweeps, a power of two 16..65536 (default %lld)\n"
		"  --pairs N        Table 1's scrambled pairs, a power of two 256..2^24 (default %lld)\n"
		"  --queries N      BVH queries per method (default %lld)\n"
		"  --resolution N   heightfield cells per side, 2 N^2 triangles (default %d)\n"
		"  --size F         BVH query size in heightfield cells: radius U(F/4, F), length U(F, 10F),\n"
		"                   start R + U(0, 2F) above the surface (default 1: particles as large as\n"
		"                   the triangles)\n"
		"  --particles N    particles of the particle-system part, 0 skips it (default %lld)\n"
		"  --grid-resolution N  cells along each axis of the field part's lookup-rate grid, 8..512\n"
		"                   (default 64: 4.2 MB dense; 256: 268 MB, beyond the caches)\n"
		"  --threads N      threads of the parallel BVH runs; 0: all cores (default 0, here %d)\n"
		"  --seed S         random seed, an unsigned 64-bit integer (default 1)\n"
		"  --runs K         time K runs and report the best (default %d)\n"
		"  --sensor-frames N  queries per letter pair of the sensors part (default 2000)\n"
		"  --fluid-frames N frames of 1/24 s of the fluid part, 1..64 (default 3)\n"
		"  --fluid-material LIST  the fluid part's presets, comma-separated: water, slime (default both)\n"
		"  --csv FILE       also write the results to FILE as CSV\n"
		"  --only PART      run one part only: table1, bvh, particles, field, sensors, fluid or embree\n"
		"                   (embree implies --vs embree)\n"
		"  --vs embree      also compare with Embree (the embree part)\n"
		"  --vs-queries N   queries per heightfield set of the embree part (default %lld); also\n"
		"                   caps the figure sets (snow, slime: all their particles by default)\n"
		"  --vs-resolution N  heightfield cells per side of the embree part (default %d: %d triangles)\n"
		"  --vs-rounds K    alternated rounds of the embree part, the median counts (default %d)\n"
		"  --vs-configs DIR where the embree part finds snow.json and slime.json (default %s)\n"
		"  --vs-only build  the embree part's builds alone, without its query sets (implies --vs embree)\n"
		"  --vs-sets LIST   only these query sets of the embree part, comma-separated: mixed, near,\n"
		"                   radius3x, snow, slime (implies --vs embree; no builds; a line per method\n"
		"                   with its process CPU time)\n"
		"  --vs-methods LIST  only these methods, comma-separated: embree-sweep, exact, karabassi,\n"
		"                   embree-ray, ray (as --vs-sets; x needs Embree's side of the same kind).\n"
		"                   Each round's queries run in bsVsTimedPass: with --threads 1 --vs-rounds 1,\n"
		"                   valgrind --tool=callgrind --toggle-collect=bsVsTimedPass counts one\n"
		"                   method on one set\n"
		"  --vs-counts      also a line per set of the work a query: Embree's callbacks (blobsim's\n"
		"                   exact test), blobsim's triangles tested and nodes visited (implies --vs\n"
		"                   embree)\n"
		"  -h, --help       show this help and exit\n"
		"\n"
		"Options take their value as the next argument or after '=' (--tests=1000).\n"
		"Exit status: 0 ok, 1 runtime failure, 2 usage error.\n",
		bsVsEmbree_Available() ? "" : "\n          (This blobsim was built without Embree.)",
		BS_BENCH_DEFAULT_TESTS, BS_BENCH_POOL, BS_BENCH_PAIRS, BS_BENCH_DEFAULT_QUERIES,
		BS_BENCH_DEFAULT_RESOLUTION,
		BS_BENCH_DEFAULT_PARTICLES, bsCoreCount(),
		BS_BENCH_DEFAULT_RUNS, vs.queries, vs.resolution,
		2 * vs.resolution * vs.resolution + 12 * vs.boxes, vs.rounds, vs.configDir);
}

// --vs-sets and --vs-methods: a comma-separated list of the names, into a bit mask.
static bool bsParseVsList(const char* cmd, const char* option, const char* value,
	const char* const* names, int count, unsigned* mask)
{
	char bad[256];
	if (bsVsParseNames(value, names, count, mask, bad, sizeof bad))
	{
		return true;
	}
	char message[256];
	if (bad[0] == '\0' && value[0] != '\0')
	{
		snprintf(message, sizeof message, "%s: an empty name in the list", option);
		bsUsageError(cmd, message, value);
		return false;
	}
	int length = snprintf(message, sizeof message, "%s: expected a comma-separated list of", option);
	for (int i = 0; i < count && length > 0 && (size_t)length < sizeof message; ++i)
	{
		length += snprintf(message + length, sizeof message - (size_t)length, "%s%s",
			i == 0 ? " " : i + 1 == count ? " or " : ", ", names[i]);
	}
	snprintf(message + strlen(message), sizeof message - strlen(message), ", got");
	bsUsageError(cmd, message, bad);
	return false;
}

static bsBenchOptions bsDefaultBenchOptions(void)
{
	bsBenchOptions o;
	memset(&o, 0, sizeof(o));
	o.tests = BS_BENCH_DEFAULT_TESTS;
	o.pool = BS_BENCH_POOL;
	o.pairs = BS_BENCH_PAIRS;
	o.queries = BS_BENCH_DEFAULT_QUERIES;
	o.resolution = BS_BENCH_DEFAULT_RESOLUTION;
	o.size = 1.0;
	o.seed = 1;
	o.runs = BS_BENCH_DEFAULT_RUNS;
	o.table1 = true;
	o.bvh = true;
	o.particles = BS_BENCH_DEFAULT_PARTICLES;
	o.field = true;
	o.gridResolution = 64;
	o.sensorFrames = 2000;
	o.fluidFrames = 3;
	o.fluidMaterials = bs_benchFluidWater | bs_benchFluidSlime;
	o.vs = bsDefaultVsEmbreeDef();
	return o;
}

// A whole-number option: its range and the fields it sets (a long long and a second one, or an int).
typedef struct bsBenchIntOption
{
	const char* name;
	long long lo, hi;
	long long* wide;
	long long* also;
	int* narrow;
} bsBenchIntOption;

// The option matching results of bsMatchOption: 1 matched (and stored), 0 another option, -1 a usage
// error already printed.
static int bsMatchIntOptions(const char* cmd, int argc, char** argv, int* i, const bsBenchIntOption* table,
	int count)
{
	for (int k = 0; k < count; ++k)
	{
		const char* value = NULL;
		long long v = 0;
		int m = bsMatchOption(cmd, table[k].name, argc, argv, i, &value);
		if (m == 0)
		{
			continue;
		}
		if (m < 0 || !bsParseIntOption(cmd, table[k].name, value, table[k].lo, table[k].hi, &v))
		{
			return -1;
		}
		if (table[k].wide != NULL)
		{
			*table[k].wide = v;
		}
		if (table[k].also != NULL)
		{
			*table[k].also = v;
		}
		if (table[k].narrow != NULL)
		{
			*table[k].narrow = (int)v;
		}
		return 1;
	}
	return 0;
}

// --only PART: that part alone.
static bool bsBenchOptions_Only(bsBenchOptions* o, const char* value)
{
	if (strcmp(value, "table1") != 0 && strcmp(value, "bvh") != 0 && strcmp(value, "particles") != 0 &&
		strcmp(value, "embree") != 0 && strcmp(value, "field") != 0 && strcmp(value, "sensors") != 0 &&
		strcmp(value, "fluid") != 0)
	{
		bsUsageError(bs_benchCommand, "--only: expected table1, bvh, particles, field, sensors, fluid or embree, got",
			value);
		return false;
	}
	o->table1 = strcmp(value, "table1") == 0;
	o->bvh = strcmp(value, "bvh") == 0;
	o->vsEmbree = strcmp(value, "embree") == 0;
	o->field = strcmp(value, "field") == 0;
	o->sensors = strcmp(value, "sensors") == 0;
	o->fluid = strcmp(value, "fluid") == 0;
	return true;
}

// A value that must be `expected`, or one that must not be empty: false after the usage error.
static bool bsExpectValue(const char* message, const char* value, const char* expected)
{
	if (strcmp(value, expected) != 0)
	{
		bsUsageError(bs_benchCommand, message, value);
		return false;
	}
	return true;
}

static bool bsExpectNonEmpty(const char* message, const char* value)
{
	if (value[0] == '\0')
	{
		bsUsageError(bs_benchCommand, message, value);
		return false;
	}
	return true;
}

// The options with a value of their own kind: --pool, --pairs, --size, --seed, --csv, --only.
static int bsMatchBenchOption(int argc, char** argv, int* i, bsBenchOptions* o, const char** only)
{
	const char* cmd = bs_benchCommand;
	const char* value = NULL;
	int m;
	if ((m = bsMatchOption(cmd, "--pool", argc, argv, i, &value)) != 0)
	{
		return m < 0 || !bsParsePowerOfTwoOption(cmd, "--pool", value, 16, 65536, &o->pool) ? -1 : 1;
	}
	if ((m = bsMatchOption(cmd, "--pairs", argc, argv, i, &value)) != 0)
	{
		return m < 0 || !bsParsePowerOfTwoOption(cmd, "--pairs", value, 256, 1 << 24, &o->pairs) ? -1 : 1;
	}
	if ((m = bsMatchOption(cmd, "--size", argc, argv, i, &value)) != 0)
	{
		return m < 0 || !bsParseDoubleOption(cmd, "--size", value, 0.01, 100.0, &o->size) ? -1 : 1;
	}
	if ((m = bsMatchOption(cmd, "--seed", argc, argv, i, &value)) != 0)
	{
		return m < 0 || !bsParseU64Option(cmd, "--seed", value, &o->seed) ? -1 : 1;
	}
	if ((m = bsMatchOption(cmd, "--csv", argc, argv, i, &value)) != 0)
	{
		if (m < 0 || !bsExpectNonEmpty("--csv: expected a file name, got", value))
		{
			return -1;
		}
		o->csvPath = value;
		return 1;
	}
	if ((m = bsMatchOption(cmd, "--fluid-material", argc, argv, i, &value)) != 0)
	{
		static const char* const materials[] = {"water", "slime"};
		return m < 0 || !bsParseVsList(cmd, "--fluid-material", value, materials, 2, &o->fluidMaterials) ? -1 : 1;
	}
	if ((m = bsMatchOption(cmd, "--only", argc, argv, i, &value)) != 0)
	{
		if (m < 0 || !bsBenchOptions_Only(o, value))
		{
			return -1;
		}
		*only = value;
		return 1;
	}
	return 0;
}

// --vs-sets or --vs-methods NAME,...: the subset of the comparison that runs.
static int bsMatchVsList(int argc, char** argv, int* i, const char* option, const char* const* names, int count,
	unsigned* mask, bsBenchOptions* o)
{
	const char* value = NULL;
	int m = bsMatchOption(bs_benchCommand, option, argc, argv, i, &value);
	if (m <= 0)
	{
		return m;
	}
	if (!bsParseVsList(bs_benchCommand, option, value, names, count, mask))
	{
		return -1;
	}
	o->vsEmbree = true;
	o->vs.selected = true;
	return 1;
}

// The comparison with Embree's options: --vs, --vs-only, --vs-sets, --vs-methods, --vs-counts,
// --vs-configs (its sizes are whole-number options).
static int bsMatchVsOption(int argc, char** argv, int* i, bsBenchOptions* o)
{
	const char* cmd = bs_benchCommand;
	const char* value = NULL;
	int m;
	if ((m = bsMatchOption(cmd, "--vs", argc, argv, i, &value)) != 0)
	{
		if (m < 0 || !bsExpectValue("--vs: expected embree, got", value, "embree"))
		{
			return -1;
		}
		o->vsEmbree = true;
		return 1;
	}
	if ((m = bsMatchOption(cmd, "--vs-only", argc, argv, i, &value)) != 0)
	{
		if (m < 0 || !bsExpectValue("--vs-only: expected build, got", value, "build"))
		{
			return -1;
		}
		o->vsEmbree = true;
		o->vs.buildOnly = true;
		return 1;
	}
	if ((m = bsMatchVsList(argc, argv, i, "--vs-sets", bs_vsSetNames, BS_VS_SET_COUNT, &o->vs.sets, o)) != 0 ||
		(m = bsMatchVsList(argc, argv, i, "--vs-methods", bs_vsMethodNames, BS_VS_METHOD_COUNT, &o->vs.methods,
			 o)) != 0)
	{
		return m;
	}
	if (strcmp(argv[*i], "--vs-counts") == 0)
	{
		o->vsEmbree = true;
		o->vs.counts = true;
		*i += 1;
		return 1;
	}
	if ((m = bsMatchOption(cmd, "--vs-configs", argc, argv, i, &value)) != 0)
	{
		if (m < 0 || !bsExpectNonEmpty("--vs-configs: expected a directory, got", value))
		{
			return -1;
		}
		o->vs.configDir = value;
		return 1;
	}
	return 0;
}

// Returns -1 when the options are fine, else the exit status (0 after --help).
static int bsParseBenchOptions(int argc, char** argv, bsBenchOptions* o)
{
	const char* cmd = bs_benchCommand;
	*o = bsDefaultBenchOptions();
	const bsBenchIntOption ints[] = {
		{"--tests", 1, 100000000000LL, &o->tests, NULL, NULL},
		{"--queries", 1, 100000000LL, &o->queries, NULL, NULL},
		{"--resolution", 2, 4096, NULL, NULL, &o->resolution},
		{"--particles", 0, 100000000LL, &o->particles, NULL, NULL},
		{"--grid-resolution", 8, 512, NULL, NULL, &o->gridResolution},
		{"--threads", 0, 1024, NULL, NULL, &o->threads},
		{"--runs", 1, 1000, NULL, NULL, &o->runs},
		{"--sensor-frames", 2, 1000000, NULL, NULL, &o->sensorFrames},
		{"--fluid-frames", 1, 64, NULL, NULL, &o->fluidFrames},
		{"--vs-queries", 1, 100000000LL, &o->vs.queries, &o->vs.figureQueries, NULL},
		{"--vs-resolution", 2, 4096, NULL, NULL, &o->vs.resolution},
		{"--vs-rounds", 1, 1000, NULL, NULL, &o->vs.rounds},
	};
	const char* only = NULL;
	for (int i = 1; i < argc;)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
		{
			bsBenchUsage(stdout);
			return bs_exitOk;
		}
		int m = bsMatchIntOptions(cmd, argc, argv, &i, ints, BS_COUNT(ints));
		m = m != 0 ? m : bsMatchBenchOption(argc, argv, &i, o, &only);
		m = m != 0 ? m : bsMatchVsOption(argc, argv, &i, o);
		if (m < 0)
		{
			return bs_exitUsage;
		}
		if (m == 0)
		{
			bsUsageError(cmd, arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
			return bs_exitUsage;
		}
	}
	if (o->vs.buildOnly && o->vs.selected)
	{
		bsUsageError(cmd, "--vs-only build times the builds alone: it takes no --vs-sets or "
			"--vs-methods", NULL);
		return bs_exitUsage;
	}
	// --only names one part; the particle part runs unless another is named (or --particles 0), and
	// the field part with it (the same count), or alone with --only field.
	if (only != NULL && strcmp(only, "particles") != 0 && strcmp(only, "field") != 0 && strcmp(only, "fluid") != 0)
	{
		o->particles = 0;
	}
	o->runParticles = only == NULL || strcmp(only, "particles") == 0;
	return -1;
}

// --- Report helpers ---

typedef struct bsReport
{
	FILE* csv;  // NULL without --csv
} bsReport;

static void bsCpuModel(char* buffer, size_t size)
{
	snprintf(buffer, size, "unknown CPU");
	FILE* f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
	{
		return;
	}
	char line[512];
	while (fgets(line, sizeof line, f) != NULL)
	{
		if (strncmp(line, "model name", 10) == 0)
		{
			const char* colon = strchr(line, ':');
			if (colon != NULL)
			{
				colon += 1;
				while (*colon == ' ' || *colon == '\t')
				{
					colon += 1;
				}
				snprintf(buffer, size, "%s", colon);
				size_t n = strlen(buffer);
				while (n > 0 && (buffer[n - 1] == '\n' || buffer[n - 1] == '\r'))
				{
					buffer[--n] = '\0';
				}
			}
			break;
		}
	}
	fclose(f);
}

// The lines that say where the numbers come from; prefix "" on stdout, "# " in the CSV.
static void bsPrintProvenance(FILE* f, const char* prefix)
{
	char cpu[256];
	bsCpuModel(cpu, sizeof cpu);

#if defined(__clang__)
	const char* compilerName = "";
#elif defined(__GNUC__)
	const char* compilerName = "gcc ";
#else
	const char* compilerName = "";
#endif
#ifdef __VERSION__
	const char* compilerVersion = __VERSION__;
#else
	const char* compilerVersion = "unknown compiler";
#endif
#ifdef NDEBUG
	const char* asserts = "NDEBUG (asserts off)";
#else
	const char* asserts = "asserts on (no NDEBUG)";
#endif
#ifdef __OPTIMIZE__
	const char* optimized = "optimized";
#else
	const char* optimized = "NOT optimized: the numbers mean little";
#endif

	char date[64] = "unknown date";
	time_t now = time(NULL);
	struct tm utc;
	if (now != (time_t)-1 && gmtime_r(&now, &utc) != NULL)
	{
		strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &utc);
	}

	fprintf(f, "%sblobsim %s bench\n", prefix, BLOBSIM_VERSION);
	fprintf(f, "%smachine: %s, %d cores\n", prefix, cpu, bsCoreCount());
	fprintf(f, "%scompiler: %s%s\n", prefix, compilerName, compilerVersion);
	fprintf(f, "%sbuild: %s, %s\n", prefix, asserts, optimized);
	fprintf(f, "%sdate: %s\n", prefix, date);
	// Other work on the machine skews every number below: say how busy it was.
	FILE* load = fopen("/proc/loadavg", "r");
	if (load != NULL)
	{
		double l1 = 0.0, l5 = 0.0, l15 = 0.0;
		if (fscanf(load, "%lf %lf %lf", &l1, &l5, &l15) == 3)
		{
			fprintf(f, "%sload average: %.2f %.2f %.2f (1, 5, 15 min) at start\n", prefix, l1, l5,
				l15);
		}
		fclose(load);
	}
}

static void bsCsvRow(const bsReport* r, const char* name, double nsPerTest, double mqPerS,
	double hitFraction, double paperNs, double ratio, int threads, double nodesPerQuery,
	double trisPerQuery)
{
	if (r->csv == NULL)
	{
		return;
	}
	// Empty fields where a column does not apply.
	char ns[32] = "", mq[32] = "", paper[32] = "", rat[32] = "", nodes[32] = "", tris[32] = "";
	if (nsPerTest >= 0.0)
	{
		snprintf(ns, sizeof ns, "%.3f", nsPerTest);
	}
	if (mqPerS >= 0.0)
	{
		snprintf(mq, sizeof mq, "%.4f", mqPerS);
	}
	if (paperNs > 0.0)
	{
		snprintf(paper, sizeof paper, "%.0f", paperNs);
		snprintf(rat, sizeof rat, "%.2f", ratio);
	}
	if (nodesPerQuery >= 0.0)
	{
		snprintf(nodes, sizeof nodes, "%.2f", nodesPerQuery);
		snprintf(tris, sizeof tris, "%.2f", trisPerQuery);
	}
	fprintf(r->csv, "%s,%s,%s,%.6f,%s,%s,%d,%s,%s\n", name, ns, mq, hitFraction, paper, rat, threads,
		nodes, tris);
}

static uint64_t bsHashMix(uint64_t h, uint64_t v)
{
	// FNV-1a over the 8 bytes of v.
	for (int i = 0; i < 8; ++i)
	{
		h ^= (v >> (8 * i)) & 0xffu;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t bsDoubleBits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static bsVec3 bsRandomInUnitCube(bsRng* rng)
{
	double x = bsRng_Uniform(rng);
	double y = bsRng_Uniform(rng);
	double z = bsRng_Uniform(rng);
	return bsV3(x, y, z);
}

// --- Part 1: Table 1 ---

typedef enum bsTable1Row
{
	bs_rowSphere = 0,
	bs_rowCylinder,
	bs_rowCombined,
	bs_rowExact,
	bs_rowRay,
	bs_rowCombinedDouble,
	bs_rowExactDouble,
	bs_rowCount
} bsTable1Row;

typedef struct bsTable1RowInfo
{
	const char* name;   // CSV
	const char* label;  // table
	double paperSeconds;  // per 10,000,000 tests on the Pentium II 400; 0: not in the paper
} bsTable1RowInfo;

static const bsTable1RowInfo bs_table1Rows[bs_rowCount] = {
	{"sphere_triangle", "sphere/triangle", 16.0},
	{"cylinder_triangle", "cylinder/triangle", 29.0},
	{"combined_karabassi", "combined (karabassi)", 40.0},
	{"exact_triangle", "exact capsule, tmax 2", 0.0},
	{"ray_triangle", "ray segment, tmax 2", 0.0},
	{"combined_karabassi_no_boxf", "combined, no bsBoxf", 40.0},
	{"exact_triangle_no_boxf", "exact, no bsBoxf", 0.0},
};

// The rows without float bounds answer as their rows with them (bsBoxf changes no answer): the
// bench checks it and leaves them out of the checksum, which stays that of the rows before.
static const int bs_table1SameAs[bs_rowCount] = {-1, -1, -1, -1, -1, bs_rowCombined, bs_rowExact};

typedef struct bsTable1Pools
{
	bsTriangle* tris;
	bsSweep* sweeps;
	bsBoxf* triBoxes;    // bsTriangle_Boxf of each triangle
	bsBoxf* sweepBoxes;  // bsSweep_Boxf of each sweep
	uint32_t* pairs;  // triangle index | sweep index << 16
	uint32_t count;   // triangles, and sweeps
	uint32_t pairCount;
} bsTable1Pools;

typedef struct bsTable1Result
{
	uint64_t hits;
	uint64_t check;
} bsTable1Result;

// The paper's random placement: P1 uniform in the unit cube, P2 and P3 at U(0.1, 0.5) from P1 in
// random directions; radius U(0.02, 0.1); C1 uniform in the cube, C2 at U(0, 0.5) from C1.
static bsResult bsMakeTable1Pools(uint64_t seed, uint32_t count, uint32_t pairCount, bsTable1Pools* p)
{
	p->count = count;
	p->pairCount = pairCount;
	p->tris = malloc(count * sizeof *p->tris);
	p->sweeps = malloc(count * sizeof *p->sweeps);
	p->pairs = malloc(pairCount * sizeof *p->pairs);
	p->triBoxes = aligned_alloc(64, count * sizeof *p->triBoxes);
	p->sweepBoxes = aligned_alloc(64, count * sizeof *p->sweepBoxes);
	if (p->tris == NULL || p->sweeps == NULL || p->pairs == NULL || p->triBoxes == NULL ||
		p->sweepBoxes == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsRng rng = bsMakeRng(seed);
	for (uint32_t i = 0; i < count; ++i)
	{
		for (;;)
		{
			bsVec3 p1 = bsRandomInUnitCube(&rng);
			bsVec3 p2 = bsMulAdd(p1, bsRng_Range(&rng, 0.1, 0.5), bsRng_UnitVector(&rng));
			bsVec3 p3 = bsMulAdd(p1, bsRng_Range(&rng, 0.1, 0.5), bsRng_UnitVector(&rng));
			if (bsMakeTriangle(p1, p2, p3, p->tris + i) == bs_ok)
			{
				break;
			}
		}
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		// One pool serves every row: a zero-length sweep (probability ~2^-53) is redrawn because
		// bsCylinderTriangle requires len2 > 0.
		for (;;)
		{
			bsSweepInput in;
			in.radius = bsRng_Range(&rng, 0.02, 0.1);
			in.c1 = bsRandomInUnitCube(&rng);
			in.c2 = bsMulAdd(in.c1, bsRng_Range(&rng, 0.0, 0.5), bsRng_UnitVector(&rng));
			bsResult r = bsMakeSweep(&in, p->sweeps + i);
			if (r != bs_ok)
			{
				return r;
			}
			if (p->sweeps[i].len2 > 0.0)
			{
				break;
			}
		}
	}
	for (uint32_t i = 0; i < pairCount; ++i)
	{
		uint32_t t = bsRng_Below(&rng, count);
		uint32_t s = bsRng_Below(&rng, count);
		p->pairs[i] = t | (s << 16);
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		p->triBoxes[i] = bsTriangle_Boxf(p->tris + i);
		p->sweepBoxes[i] = bsSweep_Boxf(p->sweeps + i);
	}
	return bs_ok;
}

static void bsFreeTable1Pools(bsTable1Pools* p)
{
	free(p->tris);
	free(p->sweeps);
	free(p->pairs);
	free(p->triBoxes);
	free(p->sweepBoxes);
}

// The timed loop of one row: one direct call per test; the hit count and a checksum of the answers
// are accumulated so the work cannot be dropped. Each row is its own function, kept out of line so
// that callgrind gives a row's cost whole (`callgrind_annotate --inclusive=yes`: bsTable1Row_*),
// inlined prefilters included.
#if defined(__GNUC__)
#define BS_TABLE1_NOINLINE __attribute__((noinline))
#else
#define BS_TABLE1_NOINLINE
#endif

#define BS_TABLE1_ROW(NAME, CALL)                                                 \
	static BS_TABLE1_NOINLINE bsTable1Result NAME(const bsTable1Pools* p, uint64_t n) \
	{                                                                             \
		const bsTriangle* tris = p->tris;                                         \
		const bsSweep* sweeps = p->sweeps;                                        \
		const bsBoxf* triBoxes = p->triBoxes;                                     \
		const bsBoxf* sweepBoxes = p->sweepBoxes;                                 \
		const uint32_t* pairs = p->pairs;                                         \
		uint64_t pairMask = p->pairCount - 1u;                                    \
		uint64_t hits = 0;                                                        \
		uint64_t check = 0;                                                       \
		double tsum = 0.0;                                                        \
		for (uint64_t i = 0; i < n; ++i)                                          \
		{                                                                         \
			uint32_t pair = pairs[i & pairMask];                                  \
			uint32_t ti = pair & 0xffffu;                                         \
			uint32_t si = pair >> 16;                                             \
			const bsTriangle* tri = tris + ti;                                    \
			const bsSweep* s = sweeps + si;                                       \
			bsTriangleHit hit = {0.0, 0, 0, 0};                                   \
			(void)triBoxes;                                                       \
			(void)sweepBoxes;                                                     \
			if (CALL)                                                             \
			{                                                                     \
				hits += 1;                                                        \
				check += (uint64_t)hit.branch * 3u + (uint64_t)hit.feature;       \
				tsum += hit.t;                                                    \
			}                                                                     \
		}                                                                         \
		bsTable1Result r;                                                         \
		r.hits = hits;                                                            \
		r.check = bsHashMix(bsHashMix(hits, check), bsDoubleBits(tsum));          \
		return r;                                                                 \
	}

BS_TABLE1_ROW(bsTable1Row_Sphere, bsSphereTriangle(tri, s->c2, s->radius, s->radius2, &hit))
BS_TABLE1_ROW(bsTable1Row_Cylinder, bsCylinderTriangle(tri, s, &hit))
BS_TABLE1_ROW(bsTable1Row_Combined, bsBoxf_Overlaps(triBoxes + ti, sweepBoxes + si) &&
	bsKarabassiTriangle(tri, s, 2.0, &hit))
BS_TABLE1_ROW(bsTable1Row_Exact, bsBoxf_Overlaps(triBoxes + ti, sweepBoxes + si) &&
	bsExactTriangle(tri, s, 2.0, &hit))
BS_TABLE1_ROW(bsTable1Row_Ray, bsRayTriangle(tri, s, 2.0, &hit))
BS_TABLE1_ROW(bsTable1Row_CombinedDouble, bsKarabassiTriangle(tri, s, 2.0, &hit))
BS_TABLE1_ROW(bsTable1Row_ExactDouble, bsExactTriangle(tri, s, 2.0, &hit))

#undef BS_TABLE1_ROW

static bsTable1Result bsRunTable1Row(bsTable1Row row, const bsTable1Pools* p, uint64_t n)
{
	switch (row)
	{
		case bs_rowSphere:
			return bsTable1Row_Sphere(p, n);
		case bs_rowCylinder:
			return bsTable1Row_Cylinder(p, n);
		case bs_rowCombined:
			return bsTable1Row_Combined(p, n);
		case bs_rowExact:
			return bsTable1Row_Exact(p, n);
		case bs_rowRay:
			return bsTable1Row_Ray(p, n);
		case bs_rowCombinedDouble:
			return bsTable1Row_CombinedDouble(p, n);
		case bs_rowExactDouble:
			return bsTable1Row_ExactDouble(p, n);
		case bs_rowCount:
			break;
	}
	bsTable1Result none = {0, 0};
	return none;
}

static int bsBenchTable1(const bsBenchOptions* o, const bsReport* report, uint64_t* checksum)
{
	bsTable1Pools pools = {NULL, NULL, NULL, NULL, NULL, 0, 0};
	bsTable1Result answers[bs_rowCount];
	bsResult made = bsMakeTable1Pools(o->seed, (uint32_t)o->pool, (uint32_t)o->pairs, &pools);
	if (made != bs_ok)
	{
		fprintf(stderr, "blobsim bench: cannot make the Table 1 pools: %s\n", bsResultString(made));
		bsFreeTable1Pools(&pools);
		return bs_exitFailure;
	}
	uint64_t n = (uint64_t)o->tests;

	printf("\nTable 1 (paper section 5): %" PRIu64 " random tests per row, best of %d run%s\n", n,
		o->runs, o->runs == 1 ? "" : "s");
	printf("pools: %u triangles, %u sweeps, %u scrambled pairs; seed %" PRIu64 "\n",
		pools.count, pools.count, pools.pairCount, o->seed);
	printf("paper: Pentium II 400 MHz, MSVC 6, seconds per 10,000,000 tests\n\n");
	// cpu ns: the best run's process CPU time, which a loaded machine's waits for a core do not inflate.
	printf("%-22s %9s %12s %8s %14s %9s %8s\n", "test", "ns/test", "s per 10M", "hits", "paper s/10M",
		"speed-up", "cpu ns");

	int status = bs_exitOk;
	for (int row = 0; row < bs_rowCount; ++row)
	{
		const bsTable1RowInfo* info = bs_table1Rows + row;
		double best = 0.0;
		double bestCpu = 0.0;
		bsTable1Result first = {0, 0};
		// Untimed warm-up: code and pools into cache, the clock up to speed.
		uint64_t warm = n < pools.pairCount ? n : pools.pairCount;
		uint64_t warmCheck = bsRunTable1Row((bsTable1Row)row, &pools, warm).check;
		int same = bs_table1SameAs[row];
		if (same < 0)
		{
			*checksum = bsHashMix(*checksum, warmCheck);
		}
		for (int run = 0; run < o->runs; ++run)
		{
			double t0 = bsNow(), c0 = bsCpuNow();
			bsTable1Result r = bsRunTable1Row((bsTable1Row)row, &pools, n);
			double seconds = bsNow() - t0, cpu = bsCpuNow() - c0;
			if (run == 0 || seconds < best)
			{
				best = seconds;
			}
			if (run == 0 || cpu < bestCpu)
			{
				bestCpu = cpu;
			}
			if (run == 0)
			{
				first = r;
			}
			else if (r.hits != first.hits || r.check != first.check)
			{
				fprintf(stderr, "blobsim bench: %s: run %d answered differently from run 1\n",
					info->label, run + 1);
				status = bs_exitFailure;
			}
		}
		double ns = 1e9 * best / (double)n;
		double cpuNs = 1e9 * bestCpu / (double)n;
		double per10M = ns * 1e-2;  // ns per test * 1e7 tests / 1e9
		double hitFraction = (double)first.hits / (double)n;
		if (same < 0)
		{
			*checksum = bsHashMix(*checksum, first.check);
		}
		else if (first.hits != answers[same].hits || first.check != answers[same].check)
		{
			fprintf(stderr, "blobsim bench: %s %s answered differently from the row with them\n",
				bs_table1Rows[same].label, info->label);
			status = bs_exitFailure;
		}
		answers[row] = first;

		if (info->paperSeconds > 0.0)
		{
			double paperNs = info->paperSeconds * 100.0;  // s per 10M -> ns per test
			double ratio = paperNs / ns;
			printf("%-22s %9.2f %12.4f %7.2f%% %8.0f s %4.1f us %8.0fx %8.2f\n", info->label, ns, per10M,
				100.0 * hitFraction, info->paperSeconds, paperNs * 1e-3, ratio, cpuNs);
			bsCsvRow(report, info->name, ns, -1.0, hitFraction, paperNs, ratio, 1, -1.0, -1.0);
		}
		else
		{
			printf("%-22s %9.2f %12.4f %7.2f%% %14s %9s %8.2f\n", info->label, ns, per10M,
				100.0 * hitFraction, "-", "-", cpuNs);
			bsCsvRow(report, info->name, ns, -1.0, hitFraction, 0.0, 0.0, 1, -1.0, -1.0);
		}
		fflush(stdout);
	}
	printf("(ERIT [Held 97] on the same Pentium II: sphere/triangle 16 s, cylinder/triangle 38 s)\n");
	bsFreeTable1Pools(&pools);
	return status;
}

// --- Part 2: BVH on a procedural scene ---

// One short query just above the surface: a random point on a random upward or sideways facing
// triangle, lifted along the normal by R + U(0, 2 unit), moving U(unit, 10 unit) straight down,
// obliquely down or grazing along the surface; radius U(unit / 4, unit). unit = size x cell.
static void bsMakeBvhQuery(bsRng* rng, const bsTriangle* tris, uint32_t count, double unit,
	bsSweepInput* input)
{
	// Downward-facing triangles (the undersides of boxes sunk into the ground) are skipped: a start
	// below them would be inside the terrain.
	const bsTriangle* tri = tris + bsRng_Below(rng, count);
	for (int attempt = 0; attempt < 64 && tri->n.y < -0.5; ++attempt)
	{
		tri = tris + bsRng_Below(rng, count);
	}
	bsVec3 n = tri->n;

	// Uniform point on the triangle.
	double r1 = sqrt(bsRng_Uniform(rng));
	double r2 = bsRng_Uniform(rng);
	bsVec3 e1 = bsSub(tri->p2, tri->p1);
	bsVec3 e2 = bsSub(tri->p3, tri->p1);
	bsVec3 point = bsAdd(tri->p1, bsAdd(bsScale(r1 * (1.0 - r2), e1), bsScale(r1 * r2, e2)));

	double radius = bsRng_Range(rng, 0.25 * unit, unit);
	double lift = radius + bsRng_Range(rng, 0.0, 2.0 * unit);
	double length = bsRng_Range(rng, unit, 10.0 * unit);

	bsVec3 dir;
	uint32_t kind = bsRng_Below(rng, 3);
	if (kind == 0)
	{
		dir = bsV3(0.0, -1.0, 0.0);  // straight down
	}
	else if (kind == 1)
	{
		// Oblique: 10 to 60 degrees from straight down, any azimuth.
		double theta = bsRng_Range(rng, 10.0, 60.0) * (BS_PI / 180.0);
		double phi = bsRng_Range(rng, 0.0, 2.0 * BS_PI);
		dir = bsV3(sin(theta) * cos(phi), -cos(theta), sin(theta) * sin(phi));
	}
	else
	{
		// Grazing: along the triangle's plane, dipping at most ~9 degrees towards it.
		bsVec3 u = bsRng_UnitVector(rng);
		bsVec3 tangent = bsNormalize(bsMulSub(u, bsDot(u, n), n));
		if (bsLengthSquared(tangent) == 0.0)
		{
			tangent = bsV3(1.0, 0.0, 0.0);
		}
		dir = bsNormalize(bsMulSub(tangent, bsRng_Range(rng, 0.0, 0.15), n));
	}

	input->c1 = bsMulAdd(point, lift, n);
	input->c2 = bsMulAdd(input->c1, length, dir);
	input->radius = radius;
}

typedef struct bsQuerySetStats
{
	double firstDrawContact;  // fraction of first draws whose start touched the scene
	size_t stillInContact;    // starts left in contact after the last round
	int rounds;
	double seconds;
} bsQuerySetStats;

// The queries, each starting free of the scene. On a bumpy terrain many lifted starts still touch a
// neighbouring triangle (a sweep that starts in contact ends at once and measures little), so every
// start is probed with a zero-length exact sweep and redrawn while it touches. Deterministic: the
// probes answer the same for any thread count and redraws happen in index order.
static bsResult bsMakeBvhQueries(uint64_t seed, const bsBvh* bvh, const bsTriangle* tris,
	uint32_t count, double unit, bsSweepInput* inputs, bsSweepOutput* scratch, size_t queries, int threads,
	bsQuerySetStats* qs)
{
	double t0 = bsNow();
	bsRng rng = bsMakeRng(seed ^ 0x5bd1e9955bd1e995ull);
	for (size_t q = 0; q < queries; ++q)
	{
		bsMakeBvhQuery(&rng, tris, count, unit, inputs + q);
	}

	bsSweepInput* probes = malloc(queries * sizeof *probes);
	size_t* pending = malloc(queries * sizeof *pending);
	if (probes == NULL || pending == NULL)
	{
		free(probes);
		free(pending);
		return bs_errOutOfMemory;
	}
	for (size_t q = 0; q < queries; ++q)
	{
		pending[q] = q;
	}
	size_t pendingCount = queries;
	int round = 0;
	bsResult result = bs_ok;
	qs->firstDrawContact = 0.0;
	for (; round < 100 && pendingCount > 0; ++round)
	{
		for (size_t k = 0; k < pendingCount; ++k)
		{
			probes[k] = inputs[pending[k]];
			probes[k].c2 = probes[k].c1;
		}
		bsQueryStats stats;
		memset(&stats, 0, sizeof stats);
		result = bsBvh_SweepBatch(bvh, bs_methodExact, probes, scratch, pendingCount, threads,
			&stats);
		if (result != bs_ok)
		{
			break;
		}
		size_t next = 0;
		for (size_t k = 0; k < pendingCount; ++k)
		{
			if (scratch[k].hit)
			{
				bsMakeBvhQuery(&rng, tris, count, unit, inputs + pending[k]);
				pending[next++] = pending[k];
			}
		}
		if (round == 0)
		{
			qs->firstDrawContact = (double)next / (double)queries;
		}
		pendingCount = next;
	}
	// Left in contact after 100 rounds (not expected): kept, and reported.
	qs->stillInContact = pendingCount;
	qs->rounds = round;
	qs->seconds = bsNow() - t0;
	free(probes);
	free(pending);
	return result;
}

static uint64_t bsHashOutputs(const bsSweepOutput* outputs, size_t count)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < count; ++i)
	{
		h = bsHashMix(h, (uint64_t)outputs[i].hit | ((uint64_t)outputs[i].triangle << 8));
		h = bsHashMix(h, bsDoubleBits(outputs[i].t));
	}
	return h;
}

// Closest-point queries (bsBvh_ClosestPoint) at the sweeps' start centres, one thread: the mesh's
// nearest point within `maxDistance` (HUGE_VAL: anywhere). Best of the runs; one table row.
static void bsBenchClosest(const bsBenchOptions* o, const bsReport* report, const bsBvh* bvh,
	const bsSweepInput* inputs, size_t queries, double maxDistance, const char* label)
{
	double best = 0.0;
	bsQueryStats stats;
	memset(&stats, 0, sizeof stats);
	for (int run = 0; run < o->runs; ++run)
	{
		bsQueryStats runStats;
		memset(&runStats, 0, sizeof runStats);
		double t0 = bsNow();
		for (size_t q = 0; q < queries; ++q)
		{
			bsClosestPointInput in = {inputs[q].c1, maxDistance};
			bsClosestPointOutput out;
			(void)bsBvh_ClosestPoint(bvh, &in, &out, &runStats);
		}
		double seconds = bsNow() - t0;
		if (run == 0 || seconds < best)
		{
			best = seconds;
			stats = runStats;
		}
	}
	double mqps = (double)queries / best * 1e-6;
	double nq = stats.queries > 0 ? (double)stats.queries : 1.0;
	double nodes = (double)stats.nodesVisited / nq;
	double triangles = (double)stats.trianglesTested / nq;
	printf("%-10s %7d %10.3f %8s %7.2f%% %11.2f %11.2f\n", label, 1, mqps, "",
		100.0 * (double)stats.hits / nq, nodes, triangles);
	char name[64];
	snprintf(name, sizeof name, "bvh_%s", label);
	bsCsvRow(report, name, -1.0, mqps, (double)stats.hits / nq, 0.0, 0.0, 1, nodes, triangles);
	fflush(stdout);
}

static int bsBenchBvh(const bsBenchOptions* o, const bsReport* report, uint64_t* checksum)
{
	int status = bs_exitOk;
	bsTriangle* tris = NULL;
	uint32_t triCount = 0;
	bsBvh bvh;
	memset(&bvh, 0, sizeof bvh);
	size_t queries = (size_t)o->queries;
	bsSweepInput* inputs = NULL;
	bsSweepOutput* outputs = NULL;
	uint8_t* karabassiHits = NULL;

	printf("\nBVH: heightfield scene, resolution %d, %d boxes, seed %" PRIu64 "\n", o->resolution,
		BS_BENCH_BOXES, o->seed);
	double t0 = bsNow();
	bsResult r = bsMakeHeightfieldScene(o->seed, o->resolution, BS_BENCH_BOXES, &tris, &triCount);
	double sceneSeconds = bsNow() - t0;
	if (r != bs_ok || triCount == 0)
	{
		fprintf(stderr, "blobsim bench: cannot make the heightfield scene: %s\n",
			r != bs_ok ? bsResultString(r) : "no triangles");
		status = bs_exitFailure;
		goto done;
	}

	bsBvhOptions bvhOptions = bsDefaultBvhOptions();
	t0 = bsNow();
	r = bsBvh_Build(&bvh, tris, triCount, &bvhOptions);
	double buildSeconds = bsNow() - t0;
	if (r != bs_ok)
	{
		fprintf(stderr, "blobsim bench: cannot build the BVH: %s\n", bsResultString(r));
		status = bs_exitFailure;
		goto done;
	}
	const bsBvhStats* st = &bvh.stats;
	printf("triangles %u (scene made in %.3f s)\n", triCount, sceneSeconds);
	printf("build %.3f s (%.3f s by its own count), %u nodes, %u leaves, depth %u, "
		"max leaf %u triangles, SAH cost %.2f\n",
		buildSeconds, st->buildSeconds, st->nodes, st->leaves, st->depth, st->maxLeafTriangles,
		st->sahCost);
	printf("queries walk %u 4-wide nodes (depth %u); BVH memory %.1f MB, %.1f bytes per triangle "
		"(%zu of them the triangle copy and its index)\n",
		st->wideNodes, st->wideDepth, 1e-6 * (double)bsBvh_Bytes(&bvh),
		(double)bsBvh_Bytes(&bvh) / (double)triCount, sizeof(bsTriangle) + sizeof(uint32_t));
	if (report->csv != NULL)
	{
		fprintf(report->csv, "# bvh: triangles=%u build_s=%.4f nodes=%u leaves=%u depth=%u sah=%.3f "
			"wide_nodes=%u bytes=%zu\n",
			triCount, buildSeconds, st->nodes, st->leaves, st->depth, st->sahCost, st->wideNodes,
			bsBvh_Bytes(&bvh));
	}

	inputs = malloc(queries * sizeof *inputs);
	outputs = malloc(queries * sizeof *outputs);
	karabassiHits = malloc(queries);
	if (inputs == NULL || outputs == NULL || karabassiHits == NULL)
	{
		fprintf(stderr, "blobsim bench: out of memory for %zu queries\n", queries);
		status = bs_exitFailure;
		goto done;
	}
	// Touch every page before timing: first-touch faults would otherwise land in the first run.
	memset(outputs, 0, queries * sizeof *outputs);
	memset(karabassiHits, 0, queries);

	int allThreads = o->threads > 0 ? o->threads : bsCoreCount();
	int threadCounts[2] = {1, allThreads};
	int threadRuns = allThreads > 1 ? 2 : 1;

	bsQuerySetStats qs;
	double unit = o->size / (double)o->resolution;
	r = bsMakeBvhQueries(o->seed, &bvh, tris, triCount, unit, inputs, outputs, queries, allThreads, &qs);
	if (r != bs_ok)
	{
		fprintf(stderr, "blobsim bench: cannot make the queries: %s\n", bsResultString(r));
		status = bs_exitFailure;
		goto done;
	}
	printf("%zu queries per method, unit = %g cell = %.3g: radius U(unit/4, unit), length "
		"U(unit, 10 unit), start R + U(0, 2 unit) above a random point along its triangle's normal; "
		"down, oblique or grazing\n",
		queries, o->size, unit);
	printf("starts free of the scene: %.1f%% of first draws touched it and were redrawn (%d probe "
		"rounds, %.2f s)", 100.0 * qs.firstDrawContact, qs.rounds, qs.seconds);
	if (qs.stillInContact > 0)
	{
		printf("; %zu still touch it", qs.stillInContact);
	}
	printf("\nbest of %d run%s\n\n", o->runs, o->runs == 1 ? "" : "s");
	printf("%-10s %7s %10s %8s %8s %11s %11s\n", "method", "threads", "Mquery/s", "speed-up",
		"hits", "nodes/query", "tris/query");

	size_t mismatchExact = 0;
	for (int method = 0; method < bs_methodCount; ++method)
	{
		double single = 0.0;
		uint64_t reference = 0;
		for (int tc = 0; tc < threadRuns; ++tc)
		{
			int threads = threadCounts[tc];
			double best = 0.0;
			bsQueryStats stats;
			memset(&stats, 0, sizeof stats);
			// Untimed warm-up on a prefix: threads, code and tree into cache.
			size_t warm = queries < 4096 ? queries : 4096;
			bsQueryStats warmStats;
			memset(&warmStats, 0, sizeof warmStats);
			r = bsBvh_SweepBatch(&bvh, (bsMethod)method, inputs, outputs, warm, threads,
				&warmStats);
			if (r != bs_ok)
			{
				fprintf(stderr, "blobsim bench: %s batch failed: %s\n",
					bsMethodName((bsMethod)method), bsResultString(r));
				status = bs_exitFailure;
				goto done;
			}
			for (int run = 0; run < o->runs; ++run)
			{
				bsQueryStats runStats;
				memset(&runStats, 0, sizeof runStats);
				t0 = bsNow();
				r = bsBvh_SweepBatch(&bvh, (bsMethod)method, inputs, outputs, queries, threads,
					&runStats);
				double seconds = bsNow() - t0;
				if (r != bs_ok)
				{
					fprintf(stderr, "blobsim bench: %s batch failed: %s\n",
						bsMethodName((bsMethod)method), bsResultString(r));
					status = bs_exitFailure;
					goto done;
				}
				if (run == 0 || seconds < best)
				{
					best = seconds;
				}
				if (run == 0)
				{
					stats = runStats;
				}
				uint64_t h = bsHashOutputs(outputs, queries);
				if (tc == 0 && run == 0)
				{
					reference = h;
				}
				else if (h != reference)
				{
					fprintf(stderr, "blobsim bench: %s: %d thread%s, run %d: outputs differ from "
						"the first run\n", bsMethodName((bsMethod)method), threads,
						threads == 1 ? "" : "s", run + 1);
					status = bs_exitFailure;
				}
			}
			if (tc == 0 && method == bs_methodKarabassi)
			{
				for (size_t q = 0; q < queries; ++q)
				{
					karabassiHits[q] = outputs[q].hit;
				}
			}
			if (tc == 0 && method == bs_methodExact)
			{
				for (size_t q = 0; q < queries; ++q)
				{
					mismatchExact += karabassiHits[q] != outputs[q].hit;
				}
			}

			double mqps = (double)queries / best * 1e-6;
			if (tc == 0)
			{
				single = mqps;
			}
			double nq = stats.queries > 0 ? (double)stats.queries : 1.0;
			double hitFraction = (double)stats.hits / nq;
			double nodes = (double)stats.nodesVisited / nq;
			double triangles = (double)stats.trianglesTested / nq;
			printf("%-10s %7d %10.3f %7.2fx %7.2f%% %11.2f %11.2f\n", bsMethodName((bsMethod)method),
				threads, mqps, mqps / single, 100.0 * hitFraction, nodes, triangles);
			char name[64];
			snprintf(name, sizeof name, "bvh_%s", bsMethodName((bsMethod)method));
			bsCsvRow(report, name, -1.0, mqps, hitFraction, 0.0, 0.0, threads, nodes, triangles);
			fflush(stdout);
		}
		// Once per method: the checksum does not depend on the thread count.
		*checksum = bsHashMix(*checksum, reference);
	}
	printf("karabassi vs exact: %zu of %zu queries disagree on hit/miss\n", mismatchExact, queries);
	// The mesh's nearest point from the same start centres: anywhere, and within one unit.
	printf("closest: bsBvh_ClosestPoint at each start centre, 1 thread, in the queries' random order "
		"(the sweeps' batch walks them in Morton order); closest-1u: within 1 unit\n");
	bsBenchClosest(o, report, &bvh, inputs, queries, HUGE_VAL, "closest");
	bsBenchClosest(o, report, &bvh, inputs, queries, unit, "closest-1u");
	if (mismatchExact != 0)
	{
		fprintf(stderr, "blobsim bench: warning: karabassi and exact disagree on %zu queries\n",
			mismatchExact);
	}

done:
	free(karabassiHits);
	free(outputs);
	free(inputs);
	bsBvh_Destroy(&bvh);
	free(tris);
	return status;
}

int bsBenchMain(int argc, char** argv)
{
	bsBenchOptions o;
	int parsed = bsParseBenchOptions(argc, argv, &o);
	if (parsed >= 0)
	{
		return parsed;
	}

	bsReport report = {NULL};
	if (o.csvPath != NULL)
	{
		// Opened first: a bad path fails at once, not after minutes of timing.
		report.csv = fopen(o.csvPath, "w");
		if (report.csv == NULL)
		{
			fprintf(stderr, "blobsim bench: cannot write '%s': %s\n", o.csvPath, strerror(errno));
			return bs_exitFailure;
		}
		bsPrintProvenance(report.csv, "# ");
		fprintf(report.csv, "name,ns_per_test,mqueries_per_s,hit_fraction,paper_ns_per_test,"
			"speedup,threads,nodes_per_query,tris_per_query\n");
	}

	bsPrintProvenance(stdout, "");
	fflush(stdout);

	uint64_t checksum = 0xcbf29ce484222325ull;
	int status = bs_exitOk;
	if (o.table1)
	{
		int s = bsBenchTable1(&o, &report, &checksum);
		status = s != bs_exitOk ? s : status;
	}
	if (o.bvh && status == bs_exitOk)
	{
		int s = bsBenchBvh(&o, &report, &checksum);
		status = s != bs_exitOk ? s : status;
	}
	if (o.runParticles && o.particles > 0 && status == bs_exitOk)
	{
		status = bsBenchParticles(o.particles, o.seed, &checksum) != 0 ? bs_exitFailure : status;
	}
	if (o.field && o.particles > 0 && status == bs_exitOk)
	{
		status = bsBenchField(o.particles, o.seed, o.gridResolution, &checksum) != 0 ? bs_exitFailure : status;
	}
	if (o.fluid && o.particles > 0 && status == bs_exitOk)
	{
		status = bsBenchFluid(o.particles, o.fluidFrames, o.fluidMaterials, &checksum) != 0 ? bs_exitFailure : status;
	}
	if (o.sensors && status == bs_exitOk)
	{
		status = bsBenchSensors(o.sensorFrames, o.seed, &checksum) != 0 ? bs_exitFailure : status;
	}
	if (o.vsEmbree && status == bs_exitOk)
	{
		o.vs.seed = o.seed;
		o.vs.threads = o.threads;
		int s = bsBenchVsEmbree(&o.vs);
		status = s != bs_exitOk ? s : status;
	}
	printf("\nchecksum %016" PRIx64 "\n", checksum);

	if (report.csv != NULL)
	{
		fprintf(report.csv, "# checksum %016" PRIx64 "\n", checksum);
		bool failed = ferror(report.csv) != 0;
		failed = (fclose(report.csv) != 0) || failed;
		if (failed)
		{
			fprintf(stderr, "blobsim bench: error writing '%s'\n", o.csvPath);
			status = bs_exitFailure;
		}
	}
	return status;
}
