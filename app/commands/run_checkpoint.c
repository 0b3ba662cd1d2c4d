// run_checkpoint.c — the run's checkpoint file (run_checkpoint.h).
#define _XOPEN_SOURCE 700  // realpath (the build asks for POSIX 2008 alone)
#include "run_checkpoint.h"

#include "atomic_file.h"
#include "config_bodies.h"
#include "open_file.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum
{
	bs_checkpointTextMax = 1 << 16,  // a path or an override read back
	bs_checkpointOverridesMax = 4096,
};

uint64_t bsRunCheckpoint_Hash(const bsConfig* config, const bsInputList* inputs)
{
	uint64_t h = bsFnv1a_U64(BS_FNV1A_BASIS, config->hash);
	for (int i = 0; i < inputs->count; ++i)
	{
		const bsInputFile* f = inputs->files + i;
		h = bsFnv1a_U64(h, f->hashed ? 1 : 0);
		h = bsFnv1a_U64(h, f->size);
		h = bsFnv1a_U64(h, f->hash);
	}
	// The bodies' OBJ files, which the input list does not name.
	for (int b = 0; b < config->environment.bodyCount; ++b)
	{
		uint64_t size = 0, hash = 0;
		bool hashed = bsHashFile(config->environment.bodies[b].file, &size, &hash);
		h = bsFnv1a_U64(bsFnv1a_U64(bsFnv1a_U64(h, hashed ? 1 : 0), size), hash);
	}
	return h;
}

static bool bsRunCheckpoint_Sink(void* context, const void* data, size_t n)
{
	return bsAtomicFile_Write(context, data, n);
}

static void bsPutText(bsBytes* b, const char* text)
{
	size_t n = strlen(text);
	bsBytes_PutU32(b, (uint32_t)n);
	bsBytes_Put(b, text, n);
}

bool bsRunCheckpoint_Write(const char* dir, uint64_t hash, const char* configPath, const char* const* overrides,
	int overrideCount, const bsRunProgress* progress, const bsWorld* world, const bsParticles* particles, char* err,
	size_t errlen)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, BS_CHECKPOINT_NAME);
	char config[PATH_MAX];
	if (realpath(configPath, config) == NULL)
	{
		snprintf(config, sizeof(config), "%s", configPath);
	}
	// Streamed into the file as it is made: the state is never held twice in memory.
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, err, errlen))
	{
		return false;
	}
	bsBytes b = {.sink = bsRunCheckpoint_Sink, .context = &f};
	bsCheckpoint_Begin(&b, hash);
	size_t mark = bsBytes_BeginSection(&b, "RUN ");
	bsBytes_PutU32(&b, (uint32_t)progress->step);
	bsBytes_PutU32(&b, (uint32_t)progress->frames);
	bsBytes_PutU32(&b, (uint32_t)sizeof(bsStepStats));
	bsBytes_Put(&b, &progress->stats, sizeof(bsStepStats));
	bsPutText(&b, configPath);
	bsPutText(&b, config);
	bsBytes_PutU32(&b, (uint32_t)overrideCount);
	for (int i = 0; i < overrideCount; ++i)
	{
		bsPutText(&b, overrides[i]);
	}
	bsBytes_EndSection(&b, mark);
	bsResult r = bsWorld_SaveState(world, particles, &b);
	bsCheckpoint_End(&b);
	bool failed = b.failed;
	bsBytes_Free(&b);
	if (r != bs_ok || (failed && !f.failed))
	{
		snprintf(err, errlen, "%s: %s", path, r == bs_errInvalidArgument
			? "a checkpoint cannot hold this run's state yet" : "out of memory for the checkpoint");
		bsAtomicFile_Abort(&f);
		return false;
	}
	// A failed write has its message (naming the file) from the atomic file already.
	return bsAtomicFile_Commit(&f, 0);
}

// A text of the run's section, owned; NULL when it does not fit.
static char* bsGetText(bsByteReader* r)
{
	uint32_t n = bsByteReader_U32(r);
	if (r->failed || n > bs_checkpointTextMax || n > r->count - r->at)
	{
		r->failed = true;
		return NULL;
	}
	char* text = malloc((size_t)n + 1);
	if (text == NULL)
	{
		r->failed = true;
		return NULL;
	}
	bsByteReader_Get(r, text, n);
	text[n] = '\0';
	if (strlen(text) != n)
	{
		free(text);
		r->failed = true;
		return NULL;
	}
	return text;
}

static bool bsParseRun(bsRunCheckpoint* k, bsByteReader* s, const char* name, char* err, size_t errlen)
{
	uint32_t step = bsByteReader_U32(s), frames = bsByteReader_U32(s), statsSize = bsByteReader_U32(s);
	if (s->failed || step > INT_MAX || frames > INT_MAX || statsSize != sizeof(bsStepStats))
	{
		snprintf(err, errlen, "%s: section 'RUN ': not this blobsim's (the step, the frames or the counts' size "
			"%u, not %zu)", name, statsSize, sizeof(bsStepStats));
		return false;
	}
	k->progress.step = (int)step;
	k->progress.frames = (int)frames;
	bsByteReader_Get(s, &k->progress.stats, sizeof(bsStepStats));
	// The path as given when it still names the same file from here (so the scenes name their meshes
	// as the interrupted run did), else the absolute one.
	char* given = bsGetText(s);
	char* absolute = bsGetText(s);
	char here[PATH_MAX];
	bool same = given != NULL && absolute != NULL && realpath(given, here) != NULL && strcmp(here, absolute) == 0;
	k->config = same ? given : absolute;
	free(same ? absolute : given);
	uint32_t count = bsByteReader_U32(s);
	if (k->config == NULL || count > bs_checkpointOverridesMax ||
		(count > 0 && (k->overrides = calloc(count, sizeof(char*))) == NULL))
	{
		snprintf(err, errlen, "%s: section 'RUN ': the config's path or the overrides are cut short or too long",
			name);
		return false;
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		k->overrides[i] = bsGetText(s);
		k->overrideCount = (int)i + (k->overrides[i] != NULL);
		if (k->overrides[i] == NULL)
		{
			snprintf(err, errlen, "%s: section 'RUN ': override %u is cut short or too long", name, i);
			return false;
		}
	}
	if (s->at != s->count)
	{
		snprintf(err, errlen, "%s: section 'RUN ' has %zu bytes more than its content", name, s->count - s->at);
		return false;
	}
	return true;
}

bool bsRunCheckpoint_Parse(const uint8_t* data, size_t size, const char* name, bsRunCheckpoint* k, char* err,
	size_t errlen)
{
	memset(k, 0, sizeof(*k));
	bsByteReader sections, run;
	char why[512];
	if (!bsCheckpoint_Open(data, size, &sections, &k->hash, why, sizeof(why)) ||
		!bsByteReader_Section(&sections, "RUN ", &run, why, sizeof(why)))
	{
		snprintf(err, errlen, "%s: %s", name, why);
		return false;
	}
	if (!bsParseRun(k, &run, name, err, errlen))
	{
		bsRunCheckpoint_Free(k);
		return false;
	}
	k->world = sections;
	return true;
}

bool bsRunCheckpoint_Read(const char* dir, bsRunCheckpoint* k, char* err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, BS_CHECKPOINT_NAME);
	int why = 0;
	FILE* f = bsOpenRegularStream(path, &why);
	if (f == NULL)
	{
		char text[256];
		bsOpenError(why, text, sizeof(text));
		snprintf(err, errlen, "%s: %s (no checkpoint to resume from: was the run given output.checkpoint?)", path,
			text);
		return false;
	}
	struct stat st;
	uint8_t* data = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? malloc((size_t)st.st_size) : NULL;
	size_t size = data != NULL ? fread(data, 1, (size_t)st.st_size, f) : 0;
	bool read = data != NULL && size == (size_t)st.st_size && !ferror(f);
	fclose(f);
	if (!read)
	{
		free(data);
		snprintf(err, errlen, "%s: cannot read the checkpoint (empty, unreadable or out of memory)", path);
		return false;
	}
	if (!bsRunCheckpoint_Parse(data, size, path, k, err, errlen))
	{
		free(data);
		return false;
	}
	k->data = data;
	k->size = size;
	return true;
}

bool bsRunCheckpoint_Restore(const bsRunCheckpoint* k, const char* name, uint64_t hash, bsWorld* world,
	bsParticles* particles, char* err, size_t errlen)
{
	if (k->hash != hash)
	{
		snprintf(err, errlen, "%s: written by a run of other settings (its config, its --set overrides or an input "
			"file has changed since: settings hash %016" PRIx64 ", now %016" PRIx64 "); resume with the same config "
			"and files, or start the run again", name, k->hash, hash);
		return false;
	}
	bsByteReader sections = k->world;
	char why[512];
	if (!bsWorld_LoadState(world, particles, &sections, why, sizeof(why)))
	{
		snprintf(err, errlen, "%s: %s", name, why);
		return false;
	}
	if (sections.at != sections.count)
	{
		snprintf(err, errlen, "%s: %zu bytes after the last section", name, sections.count - sections.at);
		return false;
	}
	return true;
}

void bsRunCheckpoint_Free(bsRunCheckpoint* k)
{
	free(k->data);
	free(k->config);
	for (int i = 0; i < k->overrideCount; ++i)
	{
		free(k->overrides[i]);
	}
	free(k->overrides);
	memset(k, 0, sizeof(*k));
}
