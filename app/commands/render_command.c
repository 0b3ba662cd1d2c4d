// render_command.c — `blobsim render DIR` (render_command.h).
#include "render_command.h"

#include "atomic_file.h"
#include "cli.h"
#include "files.h"
#include "json.h"
#include "output_set.h"
#include "pov_writer.h"
#include "render_frames.h"
#include "render_movie.h"
#include "render_progress.h"
#include "run.h"
#include "blobsim/base.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BS_RENDER_CMD_PATH_MAX 4096
#define BS_RENDER_CMD_ERR_MAX (4 * BS_RENDER_CMD_PATH_MAX)

typedef struct bsRenderOptions
{
	const char* dir;
	int first, last;  // --frames A-B; first -1: every frame
	int shard, shardCount;  // --shard K/N; shardCount 0: none
	bool scene;       // render scene.png (not with --frames, unless --scene too)
	bool frames;      // render frames
	int jobs;         // --jobs; 0: the default
	int threads;      // --threads: cores in all; 0: every core
	bool force;
	bool movie;
	bool quiet;
} bsRenderOptions;

static void bsRenderUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim render DIR [options]\n"
		"\n"
		"Renders the output folder DIR of an earlier `blobsim run` with POV-Ray, without simulating:\n"
		"scene.pov to scene.png and every frame_NNNN.pov to frame_NNNN.png, at the size and antialias\n"
		"the run recorded in DIR/summary.json. Images still up to date (the same scene and settings,\n"
		"recorded in each PNG) are kept. Each image is renamed into place as soon as it is complete,\n"
		"so an interrupted render keeps the images it finished and the next one goes on from there.\n"
		"\n"
		"options:\n"
		"  --frames A-B   only frames A to B (or A alone), e.g. one range per task of a render farm;\n"
		"                 not scene.png\n"
		"  --shard K/N    only the K-th of N equal frame ranges (K counts from 0), e.g. one per task of\n"
		"                 a job array: --shard $((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))/$SLURM_ARRAY_TASK_COUNT\n"
		"  --scene        only scene.png (with --frames: scene.png too)\n"
		"  --jobs N       POV-Ray processes at once (default: one per core)\n"
		"  --threads N    cores to use in all, split between the processes (default 0: every core)\n"
		"  --force        render every image again, up to date or not\n"
		"  --movie        also encode the frames into animation.mp4 and preview.gif with ffmpeg\n"
		"                 (every frame must be rendered; render.movie in the run's config does the same)\n"
		"  --quiet        print nothing but errors\n"
		"  -h, --help     show this help and exit\n"
		"\n"
		"Each image is claimed while it renders (DIR/<image>.claim), so renderers on several nodes\n"
		"share one folder: an image another renderer holds is skipped. A failed frame does not stop\n"
		"the others; each frame's log is DIR/logs/frame_NNNN.log.\n"
		"\n"
		"Exit status: 0 success, 1 failure (DIR is not a blobsim output folder, POV-Ray or ffmpeg\n"
		"missing, a frame failed: every failed frame is named), 2 usage error, 130/143 interrupted.\n");
}

// Returns -1 to go on, else an exit status.
static int bsParseRenderOptions(int argc, char** argv, bsRenderOptions* o)
{
	const char* cmd = "render";
	memset(o, 0, sizeof(*o));
	o->first = -1;
	bool sceneOnly = false;
	int i = 1;
	while (i < argc)
	{
		const char* a = argv[i];
		const char* value = NULL;
		int m;
		long long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		{
			bsRenderUsage(stdout);
			return bs_exitOk;
		}
		else if ((m = bsMatchOption(cmd, "--frames", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsRender_ParseFrameRange(value, &o->first, &o->last))
			{
				if (m > 0)
				{
					bsUsageError(cmd, "--frames: expected A-B or A (frame numbers, A <= B), got", value);
				}
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--shard", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsRender_ParseShard(value, &o->shard, &o->shardCount))
			{
				if (m > 0)
				{
					bsUsageError(cmd, "--shard: expected K/N with 0 <= K < N (K counts from 0; in a job array "
						"K is $((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))), got", value);
				}
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--jobs", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--jobs", value, 1, 256, &v))
			{
				return bs_exitUsage;
			}
			o->jobs = (int)v;
		}
		else if ((m = bsMatchOption(cmd, "--threads", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--threads", value, 0, 1024, &v))
			{
				return bs_exitUsage;
			}
			o->threads = (int)v;
		}
		else if (strcmp(a, "--scene") == 0 || strcmp(a, "--force") == 0 || strcmp(a, "--movie") == 0 ||
			strcmp(a, "--quiet") == 0)
		{
			sceneOnly = sceneOnly || a[2] == 's';
			o->force = o->force || a[2] == 'f';
			o->movie = o->movie || a[2] == 'm';
			o->quiet = o->quiet || a[2] == 'q';
			++i;
		}
		else if (a[0] == '-' && a[1] != '\0')
		{
			bsUsageError(cmd, "unknown option", a);
			return bs_exitUsage;
		}
		else if (o->dir != NULL)
		{
			bsUsageError(cmd, "one folder only; extra argument", a);
			return bs_exitUsage;
		}
		else
		{
			o->dir = a;
			++i;
		}
	}
	if (o->dir == NULL)
	{
		bsUsageError(cmd, "missing DIR", NULL);
		return bs_exitUsage;
	}
	if (o->shardCount > 0 && o->first >= 0)
	{
		bsUsageError(cmd, "--shard and --frames choose the frames both; give one", NULL);
		return bs_exitUsage;
	}
	bool ranged = o->first >= 0 || o->shardCount > 0;
	o->frames = !sceneOnly || ranged;
	o->scene = sceneOnly || !ranged;
	return -1;
}

// What the run recorded: its frame count and render settings.
typedef struct bsRecordedRun
{
	int frames;
	bsRenderSettings settings;
	bool movie;
	int fps;
} bsRecordedRun;

static bool bsNumberIn(const cJSON* object, const char* key, double lo, double hi, double* out)
{
	const cJSON* v = cJSON_GetObjectItemCaseSensitive(object, key);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
	{
		return false;
	}
	*out = v->valuedouble;
	return true;
}

// DIR must be a folder holding a summary.json written by `blobsim run` with its render settings.
static bool bsReadRecordedRun(const char* dir, bsRecordedRun* run, char* err, size_t errlen)
{
	char path[BS_RENDER_CMD_PATH_MAX];
	if (!bsIsFolder(dir))
	{
		snprintf(err, errlen, "%s: no such folder (give the output folder of a `blobsim run`)", dir);
		return false;
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (!bsIsRegularFile(path))
	{
		snprintf(err, errlen, "%s is not a blobsim output folder: it has no summary.json (give the output folder "
			"of a `blobsim run`)", dir);
		return false;
	}
	cJSON* root = NULL;
	bsJsonError jerr;
	if (bsJson_Load(path, &root, &jerr) != bs_ok)
	{
		snprintf(err, errlen, "%s is not a blobsim output folder: %s", dir, jerr.message);
		return false;
	}
	const cJSON* render = cJSON_GetObjectItemCaseSensitive(root, "render");
	double frames = 0, width = 0, height = 0, antialias = 0, jitter = 0, fps = 25;
	bool ok = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "blobsim")) &&
		bsNumberIn(root, "frames", 0, 9999999, &frames);
	if (!ok)
	{
		snprintf(err, errlen, "%s is not a blobsim output folder: %s is not a run's summary", dir, path);
	}
	else if (!cJSON_IsObject(render) || !bsNumberIn(render, "width", 16, 16384, &width) ||
		!bsNumberIn(render, "height", 16, 16384, &height) || !bsNumberIn(render, "antialias", 0, 1e9, &antialias) ||
		!bsNumberIn(render, "jitter", 0, 1e9, &jitter))
	{
		ok = false;
		snprintf(err, errlen, "%s: no render settings (render.width, height, antialias, jitter): written by an "
			"older blobsim; run the config again", path);
	}
	if (ok)
	{
		bsNumberIn(render, "fps", 1, 240, &fps);
		run->frames = (int)frames;
		// A run in mesh mode (render.surface) records its surface statistics: its scenes include files;
		// one in auto mode records its choices: a scene includes one when it has one.
		bool any = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "surface_auto"));
		bool mesh = !any && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "surface"));
		// A run with render.motion_blur records its sample count: each image averages that many scenes.
		const cJSON* blur = cJSON_GetObjectItemCaseSensitive(render, "motion_blur");
		double samples = 0;
		if (blur != NULL && !bsNumberIn(blur, "samples", 2, 64, &samples))
		{
			snprintf(err, errlen, "%s: render.motion_blur.samples: expected an integer from 2 to 64", path);
			cJSON_Delete(root);
			return false;
		}
		run->settings = (bsRenderSettings){(int)width, (int)height, antialias, jitter, mesh, any, (int)samples};
		run->movie = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(render, "movie"));
		run->fps = (int)fps;
	}
	cJSON_Delete(root);
	return ok;
}

// The plan: scene.pov (unless only frames) and the frames asked for, each scene present.
static bool bsPlanRender(bsRenderOptions* o, const bsRecordedRun* run, bsRenderPlan* plan, char* err,
	size_t errlen)
{
	int first = 0, last = run->frames - 1;
	if (o->shardCount > 0)
	{
		// N ranges of ceil(frames / N): the last shards may get fewer frames, or none.
		int per = (run->frames + o->shardCount - 1) / o->shardCount;
		o->first = o->shard * per;
		o->last = o->first + per - 1 < last ? o->first + per - 1 : last;
		if (o->first > o->last)
		{
			return true;  // more shards than frames: nothing for this one
		}
	}
	if (o->frames && o->first >= 0)
	{
		if (o->last > last)
		{
			snprintf(err, errlen, "--frames %d-%d: %s has %s", o->first, o->last, o->dir,
				run->frames == 0 ? "no frames (output.frame_every was 0)" : "");
			if (run->frames > 0)
			{
				size_t n = strlen(err);
				snprintf(err + n, errlen - n, "frames 0-%d", last);
			}
			return false;
		}
		first = o->first;
		last = o->last;
	}
	for (int k = o->scene ? -1 : first; k <= (o->frames ? last : -1); ++k)
	{
		k = k >= 0 && k < first ? first : k;
		if (!bsRenderPlan_Add(plan, k, NULL))
		{
			snprintf(err, errlen, "%s: out of memory", o->dir);
			return false;
		}
		const bsRenderItem* item = plan->items + plan->count - 1;
		const char* missing = !bsIsRegularFile(item->readPath) ? item->readPath
			: item->surfacePath != NULL && !bsIsRegularFile(item->surfacePath) ? item->surfacePath : NULL;
		for (int j = 0; missing == NULL && j < item->sampleCount; ++j)
		{
			missing = !bsIsRegularFile(item->samplePaths[j]) ? item->samplePaths[j] : NULL;
		}
		if (missing != NULL)
		{
			snprintf(err, errlen, "%s is missing: %s is not a complete blobsim output folder", missing, o->dir);
			return false;
		}
	}
	return true;
}

// Renders the plan's images. Every file POV-Ray makes is listed in the group, so a signal removes the
// unfinished ones; a finished image is renamed into place at once (commitNow), and joins the folder's
// outputs (output_set.h) with the group's commit, also when a later image fails.
static bool bsRenderImages(const bsRenderOptions* o, bsRenderPlan* plan, char* err, size_t errlen)
{
	if (!bsOutputSet_Begin(o->dir, err, errlen))
	{
		return false;
	}
	bsRenderMeter meter;
	bsRenderMeter_Begin(&meter, !o->quiet && isatty(2) ? bs_renderMeterTerminal : bs_renderMeterNone,
		bsRenderPlan_Pending(plan));
	plan->meter = &meter;
	bool ok = bsRenderPlan_Run(plan, o->jobs, o->threads, err, errlen);
	bsRenderMeter_End(&meter);
	plan->meter = NULL;
	char listErr[512];
	bool listed = bsRenderPlan_ListImages(plan, listErr, sizeof(listErr));
	if (!listed)
	{
		bsAtomicFile_AbortDeferred();
	}
	// Commit ends the group also when it fails.
	listed = listed && bsOutputSet_Commit(o->dir, bs_outputSetAdd, listErr, sizeof(listErr));
	if (ok && !listed)
	{
		snprintf(err, errlen, "%s", listErr);
	}
	return ok && listed;
}

static int bsRenderFail(const char* message)
{
	fprintf(stderr, "blobsim: %s\n", message);
	return bs_exitFailure;
}

int bsRenderMain(int argc, char** argv)
{
	bsRun_InstallSignalHandlers();
	bsRenderOptions o;
	int status = bsParseRenderOptions(argc, argv, &o);
	if (status >= 0)
	{
		return status;
	}
	double start = bsNow();
	char err[BS_RENDER_CMD_ERR_MAX], povray[BS_RENDER_CMD_PATH_MAX], ffmpeg[BS_RENDER_CMD_PATH_MAX];
	bsRecordedRun run;
	if (!bsReadRecordedRun(o.dir, &run, err, sizeof(err)))
	{
		return bsRenderFail(err);
	}
	bool movie = (o.movie || run.movie) && run.frames > 0 && !((o.first >= 0 || o.shardCount > 0) && !o.movie);
	if (o.movie && run.frames == 0)
	{
		snprintf(err, sizeof(err), "--movie: %s has no frames (output.frame_every was 0)", o.dir);
		return bsRenderFail(err);
	}
	if (!bsRender_FindPovray("render", o.dir, povray, sizeof(povray), err, sizeof(err)))
	{
		return bsRenderFail(err);
	}
	if (movie && !bsMovie_FindFfmpeg(o.movie ? "--movie" : "render.movie", ffmpeg, sizeof(ffmpeg), err, sizeof(err)))
	{
		if (o.movie)
		{
			return bsRenderFail(err);
		}
		fprintf(stderr, "blobsim: warning: %s\n", err);
		movie = false;
	}
	bsRenderPlan plan;
	bsRenderPlan_Init(&plan, o.dir, &run.settings, true);
	bool ok = bsPlanRender(&o, &run, &plan, err, sizeof(err)) && bsRenderPlan_Decide(&plan, o.force, err, sizeof(err));
	bool encoded = false;
	if (ok)
	{
		ok = bsRenderImages(&o, &plan, err, sizeof(err));
	}
	// The movie reads the images under their final names: a group of its own, after theirs.
	if (ok && movie && (plan.rendered > 0 || !bsMovie_UpToDate(o.dir, run.frames - 1)))
	{
		ok = bsOutputSet_Begin(o.dir, err, sizeof(err)) && bsMovie_Encode(o.dir, run.frames - 1, run.fps, err, sizeof(err));
		ok = ok ? bsOutputSet_Commit(o.dir, bs_outputSetAdd, err, sizeof(err)) : (bsAtomicFile_AbortDeferred(), false);
		encoded = ok;
	}
	if (ok && !o.quiet)
	{
		int skipped = 0;
		for (int i = 0; i < plan.count; ++i)
		{
			skipped += plan.items[i].skipped;
		}
		char others[64] = "";
		if (skipped > 0)
		{
			snprintf(others, sizeof(others), ", %d another renderer's", skipped);
		}
		printf("blobsim: %d image%s rendered, %d up to date%s%s, %.1f s -> %s\n", plan.rendered,
			plan.rendered == 1 ? "" : "s", plan.count - bsRenderPlan_Pending(&plan), others,
			encoded ? "; animation.mp4 and preview.gif" : "", bsNow() - start, o.dir);
	}
	bsRenderPlan_Free(&plan);
	return ok ? bs_exitOk : bsRenderFail(err);
}
