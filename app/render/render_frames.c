// render_frames.c — the render list, the up-to-date test and the job scheduler (render_frames.h).
// sched_getaffinity and CPU_COUNT (glibc, musl): the cores this process may use.
#define _GNU_SOURCE
#include "render_frames.h"

#include "array.h"
#include "atomic_file.h"
#include "files.h"
#include "inputs.h"
#include "output_writers.h"
#include "png_text.h"
#include "pov_writer.h"
#include "scene_surface.h"
#include "render_progress.h"
#include "render_claim.h"
#include "output_set.h"
#include "blobsim/base.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS_FRAMES_PATH_MAX 4096

void bsRenderPlan_Init(bsRenderPlan* plan, const char* dir, const bsRenderSettings* settings, bool commitNow)
{
	memset(plan, 0, sizeof(*plan));
	plan->directory = dir;
	plan->settings = *settings;
	plan->commitNow = commitNow;
}

void bsRenderPlan_Free(bsRenderPlan* plan)
{
	for (int i = 0; i < plan->count; ++i)
	{
		free(plan->items[i].readPath);
		free(plan->items[i].surfacePath);
		for (int j = 0; j < plan->items[i].sampleCount; ++j)
		{
			free(plan->items[i].samplePaths[j]);
			free(plan->items[i].sampleSurfaces != NULL ? plan->items[i].sampleSurfaces[j] : NULL);
		}
		free(plan->items[i].samplePaths);
		free(plan->items[i].sampleSurfaces);
		free(plan->items[i].sampleSurfacePending);
	}
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}

// The log of item frame's render: "logs/frame_0003.log", or the scene's "render.log".
static void bsRenderItem_LogName(char* out, size_t size, int frame)
{
	char pov[32];
	bsOutput_SceneName(pov, sizeof(pov), frame);
	if (frame < 0)
	{
		snprintf(out, size, "render.log");
		return;
	}
	snprintf(out, size, "%s/%.*s.log", BS_OUTPUT_LOGS_NAME, (int)(strlen(pov) - 4), pov);
}

// "frame_0003" or "scene": the name of item frame's files without the extension.
static void bsRenderItem_Stem(char* out, size_t size, int frame)
{
	char pov[32];
	bsOutput_SceneName(pov, sizeof(pov), frame);
	snprintf(out, size, "%.*s", (int)(strlen(pov) - 4), pov);
}

// Mesh mode: the include of the scene DIR/NAME (NAME.pov), pending or in place, into *path (NULL: none).
// onlyIfThere (auto mode): a scene has a surface when this run wrote one (its pending file: a run's
// own render, commitNow false, never takes an earlier run's include) or, rendering a folder, when the
// include is there.
static bool bsRenderItem_Surface(const char* dir, const char* name, bool onlyIfThere, bool commitNow, char** path,
	bool* pending)
{
	char scene[BS_FRAMES_PATH_MAX], include[BS_FRAMES_PATH_MAX];
	*path = NULL;
	*pending = false;
	int n = snprintf(scene, sizeof(scene), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(scene) || !bsSceneSurface_IncludePath(scene, include, sizeof(include)))
	{
		return false;
	}
	const char* deferred = bsAtomicFile_DeferredPath(include);
	if (onlyIfThere && deferred == NULL && (!commitNow || !bsIsRegularFile(include)))
	{
		return true;  // auto mode: this scene's particles are blobs
	}
	*path = strdup(deferred != NULL ? deferred : include);
	*pending = deferred != NULL;
	return *path != NULL;
}

static bool bsRenderItem_SetSurface(bsRenderItem* item, const char* dir, const char* stem, bool onlyIfThere,
	bool commitNow)
{
	char name[64];
	snprintf(name, sizeof(name), "%.40s.pov", stem);
	return bsRenderItem_Surface(dir, name, onlyIfThere, commitNow, &item->surfacePath, &item->surfacePending);
}

// Mesh or auto mode with motion blur: each earlier sample's include (motion_blur.h: a sample's scene has
// its own surface files), like the image's.
static bool bsRenderItem_SetSampleSurfaces(bsRenderItem* item, const char* dir, bool onlyIfThere, bool commitNow)
{
	item->sampleSurfaces = calloc((size_t)item->sampleCount + 1, sizeof(char*));
	item->sampleSurfacePending = calloc((size_t)item->sampleCount + 1, sizeof(char*));
	if (item->sampleSurfaces == NULL || item->sampleSurfacePending == NULL)
	{
		return false;
	}
	for (int j = 0; j < item->sampleCount; ++j)
	{
		char name[48];
		bool pending;
		bsOutput_BlurSceneName(name, sizeof(name), item->frame, j);
		if (!bsRenderItem_Surface(dir, name, onlyIfThere, commitNow, item->sampleSurfaces + j, &pending))
		{
			return false;
		}
		item->sampleSurfacePending[j] = pending ? item->sampleSurfaces[j] : NULL;
	}
	return true;
}

// Motion blur: the item's earlier samples' scenes, each its pending file when this run wrote one.
static bool bsRenderItem_SetSamples(bsRenderItem* item, const char* dir, int samples)
{
	if (samples < 2)
	{
		return true;
	}
	item->samplePaths = calloc((size_t)samples - 1, sizeof(char*));
	if (item->samplePaths == NULL)
	{
		return false;
	}
	for (int j = 0; j < samples - 1; ++j)
	{
		char name[48], path[BS_FRAMES_PATH_MAX];
		bsOutput_BlurSceneName(name, sizeof(name), item->frame, j);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		const char* pending = bsAtomicFile_DeferredPath(path);
		item->samplePaths[j] = strdup(pending != NULL ? pending : path);
		if (item->samplePaths[j] == NULL)
		{
			return false;
		}
		item->sampleCount = j + 1;
	}
	return true;
}

bool bsRenderPlan_Add(bsRenderPlan* plan, int frame, const char* readPath)
{
	if (!BS_ARRAY_RESERVE(plan->items, plan->capacity, (size_t)plan->count + 1))
	{
		return false;
	}
	bsRenderItem* item = plan->items + plan->count;
	memset(item, 0, sizeof(*item));
	item->frame = frame;
	item->copyOf = -1;
	char stem[24], path[BS_FRAMES_PATH_MAX];
	bsRenderItem_Stem(stem, sizeof(stem), frame);
	snprintf(item->image, sizeof(item->image), "%s.png", stem);
	if (readPath == NULL)
	{
		snprintf(path, sizeof(path), "%s/%s.pov", plan->directory, stem);
		readPath = path;
	}
	item->readPath = strdup(readPath);
	if (item->readPath == NULL)
	{
		return false;
	}
	++plan->count;
	bool mesh = plan->settings.surfaceMesh, any = plan->settings.surfaceAuto;
	return bsRenderItem_SetSamples(item, plan->directory, plan->settings.blurSamples) &&
		(!(mesh || any) || bsRenderItem_SetSurface(item, plan->directory, stem, !mesh, plan->commitNow)) &&
		(!(mesh || any) || item->sampleCount == 0 ||
			bsRenderItem_SetSampleSurfaces(item, plan->directory, !mesh, plan->commitNow));
}

// The record an image rendered now from the item's scene carries: the scene's hash and the settings.
static bool bsRenderItem_MakeRecord(bsRenderItem* item, const bsRenderSettings* s, char* err, size_t errlen)
{
	uint64_t size, hash, incHash = 0;
	if (!bsHashFile(item->readPath, &size, &hash))
	{
		snprintf(err, errlen, "%s: cannot read the scene", item->readPath);
		return false;
	}
	if (item->surfacePath != NULL && !bsHashFile(item->surfacePath, &size, &incHash))
	{
		snprintf(err, errlen, "%s: cannot read the scene's surface", item->surfacePath);
		return false;
	}
	// Blob mode's record is the one it always was; mesh mode adds the include's hash, motion blur the
	// sample count and the FNV-1a 64 of the samples' hashes in order.
	char inc[64] = "";
	if (item->surfacePath != NULL)
	{
		snprintf(inc, sizeof(inc), " inc=%016" PRIx64, incHash);
	}
	uint64_t blurHash = BS_FNV1A_BASIS;
	for (int j = 0; j < item->sampleCount; ++j)
	{
		uint64_t sampleHash;
		if (!bsHashFile(item->samplePaths[j], &size, &sampleHash))
		{
			snprintf(err, errlen, "%s: cannot read the motion-blur sample's scene", item->samplePaths[j]);
			return false;
		}
		blurHash = bsFnv1a_U64(blurHash, sampleHash);
		// A sample's surface (mesh or auto mode) joins its scene's hash; a blob sample's record is as before.
		const char* surface = item->sampleSurfaces != NULL ? item->sampleSurfaces[j] : NULL;
		if (surface != NULL && !bsHashFile(surface, &size, &sampleHash))
		{
			snprintf(err, errlen, "%s: cannot read the motion-blur sample's surface", surface);
			return false;
		}
		blurHash = surface != NULL ? bsFnv1a_U64(blurHash, sampleHash) : blurHash;
	}
	if (item->sampleCount > 0)
	{
		snprintf(inc + strlen(inc), sizeof(inc) - strlen(inc), " blur=%d:%016" PRIx64, item->sampleCount + 1, blurHash);
	}
	snprintf(item->record, sizeof(item->record), "pov=%016" PRIx64 "%s size=%dx%d antialias=%.17g jitter=%.17g", hash,
		inc, s->width, s->height, s->antialias > 0.0 ? s->antialias : 0.0, s->jitter > 0.0 ? s->jitter : 0.0);
	return true;
}

static bool bsNewer(const struct stat* a, const struct stat* b)
{
	return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
		(a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec > b->st_mtim.tv_nsec);
}

// See render_frames.h: the record decides; without one, the file times and the image's size.
static bool bsRenderItem_UpToDate(const bsRenderItem* item, const bsRenderPlan* plan)
{
	char image[BS_FRAMES_PATH_MAX], record[sizeof(item->record)];
	snprintf(image, sizeof(image), "%s/%s", plan->directory, item->image);
	if (bsPng_ReadText(image, BS_RENDER_RECORD_KEY, record, sizeof(record)))
	{
		return strcmp(record, item->record) == 0;
	}
	struct stat si, sp, ss;
	int width, height;
	return stat(image, &si) == 0 && S_ISREG(si.st_mode) && stat(item->readPath, &sp) == 0 && bsNewer(&si, &sp) &&
		(item->surfacePath == NULL || (stat(item->surfacePath, &ss) == 0 && bsNewer(&si, &ss))) &&
		bsPng_ReadSize(image, &width, &height) && width == plan->settings.width && height == plan->settings.height;
}

bool bsRenderPlan_Decide(bsRenderPlan* plan, bool force, char* err, size_t errlen)
{
	plan->force = force;
	for (int i = 0; i < plan->count; ++i)
	{
		bsRenderItem* item = plan->items + i;
		if (!bsRenderItem_MakeRecord(item, &plan->settings, err, errlen))
		{
			return false;
		}
		item->render = force || !bsRenderItem_UpToDate(item, plan);
		item->copyOf = -1;
	}
	// The scene is the last frame's state: render it once.
	for (int s = 0; s < plan->count; ++s)
	{
		for (int i = 0; plan->items[s].frame < 0 && plan->items[s].render && i < plan->count; ++i)
		{
			bsRenderItem* item = plan->items + i;
			if (i != s && item->render && strcmp(item->record, plan->items[s].record) == 0)
			{
				item->copyOf = s;
			}
		}
	}
	return true;
}

// The images that are copies of another, once that one is made: from its pending temporary file (run)
// or its final name (render DIR), to a file of the deferred group.
static bool bsRenderPlan_Copy(bsRenderPlan* plan, char* err, size_t errlen)
{
	for (int i = 0; i < plan->count; ++i)
	{
		const bsRenderItem* item = plan->items + i;
		const bsRenderItem* source = item->copyOf >= 0 ? plan->items + item->copyOf : NULL;
		if (!item->render || source == NULL || !source->render || source->failed || source->skipped)
		{
			continue;
		}
		char from[BS_FRAMES_PATH_MAX], to[BS_FRAMES_PATH_MAX];
		snprintf(from, sizeof(from), "%s/%s", plan->directory, plan->items[item->copyOf].image);
		snprintf(to, sizeof(to), "%s/%s", plan->directory, item->image);
		const char* pending = bsAtomicFile_DeferredPath(from);
		char ignored[512];
		if (!bsCopyFile(pending != NULL ? pending : from, to, err != NULL ? err : ignored, err != NULL ? errlen : sizeof(ignored)))
		{
			return false;
		}
		++plan->rendered;
	}
	return true;
}

int bsRenderPlan_Pending(const bsRenderPlan* plan)
{
	int n = 0;
	for (int i = 0; i < plan->count; ++i)
	{
		n += plan->items[i].render;
	}
	return n;
}

void bsRender_SplitCores(int pending, int jobs, int cores, int* processes, int* threads)
{
	cores = cores > 0 ? cores : 1;
	int p = jobs > 0 ? jobs : cores;
	p = p < pending ? p : pending;
	p = p > 0 ? p : 1;
	*processes = p;
	*threads = cores / p > 0 ? cores / p : 1;
}

bool bsRender_ParseFrameRange(const char* text, int* first, int* last)
{
	char* end;
	if (text[0] < '0' || text[0] > '9')
	{
		return false;
	}
	long a = strtol(text, &end, 10), b = a;
	if (*end == '-')
	{
		const char* second = end + 1;
		if (second[0] < '0' || second[0] > '9')
		{
			return false;
		}
		b = strtol(second, &end, 10);
	}
	if (*end != '\0' || a < 0 || b < a || b > 9999999)
	{
		return false;
	}
	*first = (int)a;
	*last = (int)b;
	return true;
}

bool bsRender_ParseShard(const char* text, int* shard, int* count)
{
	char* end;
	if (text[0] < '0' || text[0] > '9')
	{
		return false;
	}
	long k = strtol(text, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
	{
		return false;
	}
	long n = strtol(end + 1, &end, 10);
	if (*end != '\0' || n < 1 || n > 9999999 || k >= n)
	{
		return false;
	}
	*shard = (int)k;
	*count = (int)n;
	return true;
}

// --- The scheduler: `processes` threads, each taking the next item to render and waiting for its
// POV-Ray (process.h allows several threads to start and wait for children at once).

typedef struct bsRenderQueue
{
	bsRenderPlan* plan;
	int threads;             // POV-Ray's +WT
	pthread_mutex_t lock;
	int next;                // the next item to look at
	bool failed;             // a render failed: without keepGoing, no new render starts
	bool keepGoing;          // render the rest after a failure (each image into place on its own)
	int failedIndex;         // the failed item reported first: the lowest index that failed
	bsRenderFailure failure; // without keepGoing, which failure keeps render.log: the same lowest index
	int rendered;
	char* err;
	size_t errlen;
} bsRenderQueue;

// The next item to render, or NULL when none is left (or a render failed, without keepGoing).
static bsRenderItem* bsRenderQueue_Take(bsRenderQueue* q)
{
	bsRenderItem* item = NULL;
	pthread_mutex_lock(&q->lock);
	while ((!q->failed || q->keepGoing) && item == NULL && q->next < q->plan->count)
	{
		bsRenderItem* candidate = q->plan->items + q->next++;
		item = candidate->render && candidate->copyOf < 0 ? candidate : NULL;
	}
	pthread_mutex_unlock(&q->lock);
	return item;
}

// The error reported first is the failure of the lowest index, so that it does not depend on which of
// the renders running at once failed first.
static void bsRenderQueue_Done(bsRenderQueue* q, bsRenderItem* item, bool ok, const char* message)
{
	int index = (int)(item - q->plan->items);
	pthread_mutex_lock(&q->lock);
	item->failed = !ok;
	if (ok)
	{
		++q->rendered;
	}
	else if (!q->failed || index < q->failedIndex)
	{
		q->failed = true;
		q->failedIndex = index;
		snprintf(q->err, q->errlen, "%s", message);
	}
	pthread_mutex_unlock(&q->lock);
}

// One scheduler thread: its queue and its slot in the progress meter.
typedef struct bsRenderWorker
{
	bsRenderQueue* queue;
	int slot;
} bsRenderWorker;

// With commitNow (`blobsim render DIR`, perhaps one of many renderers on the folder): the item's claim
// (render_claim.h), and the item still to render once claimed (another renderer may have made it
// since Decide). False when it is not to render now: held by another renderer (noted on stderr), made
// meanwhile, or the claim failed (a failure of the item, with its message).
static bool bsRenderItem_Claim(bsRenderItem* item, const bsRenderPlan* plan, bsRenderClaim* claim, bool* failed,
	char* message, size_t size)
{
	*failed = false;
	claim->fd = -1;
	if (!plan->commitNow)
	{
		return true;
	}
	char why[BS_FRAMES_PATH_MAX + 256];
	bsClaimResult r = bsRenderClaim_Take(claim, plan->directory, item->image, why, sizeof(why));
	if (r == bs_claimHeld)
	{
		fprintf(stderr, "blobsim: %s/%s: skipped, %s\n", plan->directory, item->image, why);
		item->skipped = true;
		return false;
	}
	if (r == bs_claimFailed)
	{
		snprintf(message, size, "--render: %s", why);
		*failed = true;
		return false;
	}
	if (!plan->force && bsRenderItem_UpToDate(item, plan))
	{
		bsRenderClaim_Release(claim, plan->directory);
		item->render = false;  // rendered by another renderer meanwhile
		return false;
	}
	if (!bsOutputSet_Replaceable(plan->directory, item->image, why, sizeof(why)))
	{
		bsRenderClaim_Release(claim, plan->directory);
		snprintf(message, size, "--render: %s", why);
		*failed = true;
		return false;
	}
	return true;
}

static void* bsRenderQueue_Work(void* arg)
{
	const bsRenderWorker* worker = arg;
	bsRenderQueue* q = worker->queue;
	const bsRenderPlan* plan = q->plan;
	bsRenderItem* item;
	while ((item = bsRenderQueue_Take(q)) != NULL)
	{
		char message[2 * BS_FRAMES_PATH_MAX], log[64];
		bsRenderClaim claim;
		bool failed;
		if (!bsRenderItem_Claim(item, plan, &claim, &failed, message, sizeof(message)))
		{
			if (failed)
			{
				bsRenderQueue_Done(q, item, false, message);
			}
			continue;
		}
		// Per-frame logs under `blobsim render DIR`; under `run` the scene's log, and a failure's.
		bsRenderItem_LogName(log, sizeof(log), item->frame);
		bool keepLog = plan->commitNow || item->frame < 0;
		bsRenderInput in = {.scenePath = item->readPath, .directory = plan->directory, .imageName = item->image,
			.logName = keepLog ? log : NULL, .width = plan->settings.width, .height = plan->settings.height,
			.antialias = plan->settings.antialias, .jitter = plan->settings.jitter, .meter = plan->meter,
			.meterSlot = worker->slot, .threads = q->threads, .record = item->record,
			.surfacePath = item->surfacePending ? item->surfacePath : NULL, .commitNow = plan->commitNow,
			.claim = claim.fd >= 0 ? &claim : NULL, .failure = &q->failure, .rank = (int)(item - plan->items),
			.samplePaths = (const char* const*)item->samplePaths, .sampleCount = item->sampleCount,
			.sampleSurfacePaths = (const char* const*)item->sampleSurfacePending};
		bool ok = bsRender_Image(&in, message, sizeof(message));
		bsRenderClaim_Release(&claim, plan->directory);
		if (plan->meter != NULL)
		{
			bsRenderMeter_FrameDone(plan->meter, worker->slot);
		}
		bsRenderQueue_Done(q, item, ok, message);
	}
	return NULL;
}

// After failures with keepGoing: every failed image named, then the first failure's message.
static void bsRenderQueue_NameFailures(const bsRenderQueue* q)
{
	const bsRenderPlan* plan = q->plan;
	char first[2 * BS_FRAMES_PATH_MAX];
	snprintf(first, sizeof(first), "%s", q->err);
	int failed = 0;
	for (int i = 0; i < plan->count; ++i)
	{
		failed += plan->items[i].failed;
	}
	size_t n = (size_t)snprintf(q->err, q->errlen, "--render: %d image%s of %d failed (", failed, failed == 1 ? "" : "s",
		failed + q->rendered);
	for (int i = 0, k = 0; i < plan->count && n < q->errlen; ++i)
	{
		if (plan->items[i].failed)
		{
			n += (size_t)snprintf(q->err + n, q->errlen - n, "%s%s", k++ > 0 ? ", " : "", plan->items[i].image);
		}
	}
	if (n < q->errlen)
	{
		snprintf(q->err + n, q->errlen - n, "); each has its log in %s/%s; the first: %s", plan->directory,
			BS_OUTPUT_LOGS_NAME, strncmp(first, "--render: ", 10) == 0 ? first + 10 : first);
	}
}

// The cores this process may run on: its affinity mask (what a batch scheduler such as Slurm gives a
// task), else every online core.
static int bsRender_Cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
	{
		return CPU_COUNT(&set);
	}
	return bsCoreCount();
}

bool bsRenderPlan_Run(bsRenderPlan* plan, int jobs, int cores, char* err, size_t errlen)
{
	int pending = bsRenderPlan_Pending(plan);
	plan->rendered = 0;
	for (int i = 0; plan->commitNow && i < plan->count; ++i)
	{
		if (!plan->items[i].render)
		{
			bsRenderClaim_Tidy(plan->directory, plan->items[i].image);
		}
	}
	if (pending == 0)
	{
		return true;
	}
	for (int i = 0; i < plan->count; ++i)
	{
		pending -= plan->items[i].render && plan->items[i].copyOf >= 0;
	}
	int processes, threads;
	bsRender_SplitCores(pending, jobs, cores > 0 ? cores : bsRender_Cores(), &processes, &threads);
	bsRenderQueue q = {.plan = plan, .threads = threads, .keepGoing = plan->commitNow, .err = err, .errlen = errlen};
	pthread_mutex_init(&q.lock, NULL);
	pthread_mutex_init(&q.failure.lock, NULL);
	q.failure.rank = INT_MAX;
	// The meter follows one render per slot.
	processes = processes < bs_renderMeterSlots ? processes : bs_renderMeterSlots;
	pthread_t* threadIds = calloc((size_t)processes, sizeof(pthread_t));
	bsRenderWorker* workers = calloc((size_t)processes, sizeof(bsRenderWorker));
	int started = 0;
	for (int k = 0; workers != NULL && k < processes; ++k)
	{
		workers[k] = (bsRenderWorker){&q, k};
	}
	// The calling thread is worker 0: with one process, no thread is started at all.
	for (int k = 1; threadIds != NULL && workers != NULL && k < processes; ++k)
	{
		if (bsThread_Create(threadIds + started, bsRenderQueue_Work, workers + k) != 0)
		{
			break;  // fewer processes at once; the others take the work
		}
		++started;
	}
	bsRenderWorker self = {&q, 0};
	bsRenderQueue_Work(&self);
	for (int k = 0; k < started; ++k)
	{
		pthread_join(threadIds[k], NULL);
	}
	free(threadIds);
	free(workers);
	pthread_mutex_destroy(&q.lock);
	pthread_mutex_destroy(&q.failure.lock);
	plan->rendered = q.rendered;
	if (q.failed && q.keepGoing)
	{
		bsRenderQueue_NameFailures(&q);
	}
	// The copies of a made image are made also when another failed (keepGoing: each image on its own).
	bool copied = (!q.failed || q.keepGoing) && bsRenderPlan_Copy(plan, q.failed ? NULL : err, errlen);
	return !q.failed && copied;
}

bool bsRenderPlan_ListImages(const bsRenderPlan* plan, char* err, size_t errlen)
{
	for (int i = 0; i < plan->count; ++i)
	{
		char path[BS_FRAMES_PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", plan->directory, plan->items[i].image);
		if (access(path, F_OK) == 0 && !bsAtomicFile_DeferKeep(path, err, errlen))
		{
			return false;
		}
	}
	return true;
}
