// output_cache.c — output.cache: every frame's particles, with every attribute, as
// cache/frame_NNNN.ply (particle_cache.h). The folder is made by the run before the first frame
// (bsOutputCache_Prepare).
#include "output_writers.h"

#include "array.h"
#include "particle_cache.h"

#include "blobsim/world.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool bsOutputCache_Prepare(const bsConfig* c, const char* dir, bsCreatedFolders* created, char* err, size_t errlen)
{
	if (!c->output.cache)
	{
		return true;
	}
	char path[bs_outputPathMax];
	bsOutput_Path(path, dir, BS_OUTPUT_CACHE_NAME);
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
	{
		snprintf(err, errlen, "%s: cannot use as the cache folder (output.cache): it is a symbolic link; blobsim "
			"writes its cache only into a folder of its own", path);
		return false;
	}
	if (!bsMakeFolders(path, "the cache folder (output.cache)", created, err, errlen))
	{
		return false;
	}
	if (access(path, W_OK | X_OK) != 0)
	{
		snprintf(err, errlen, "%s: cannot write in the cache folder (output.cache): %s", path, strerror(errno));
		return false;
	}
	return true;
}

static bool bsCacheOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	if (!o->config->output.cache)
	{
		return true;
	}
	const bsParticles* p = o->particles;
	if (!BS_ARRAY_RESERVE(o->ages, o->ageCapacity, p->count > 0 ? p->count : 1))
	{
		snprintf(err, errlen, "%s/%s: out of memory for %zu ages", o->dir, BS_OUTPUT_CACHE_NAME, p->count);
		return false;
	}
	double now = bsWorld_Time(o->world);
	for (size_t i = 0; i < p->count; ++i)
	{
		o->ages[i] = now - bsWorld_BirthTime(o->world, i);
	}
	char name[64], path[bs_outputPathMax];
	snprintf(name, sizeof(name), "%s/frame_%04d.ply", BS_OUTPUT_CACHE_NAME, frame);
	bsOutput_Path(path, o->dir, name);
	bsParticleCache cache = {p, o->ages, NULL, frame, now, o->config->step.interaction.rotation};
	return bsParticleCache_Write(path, &cache, err, errlen);
}

const bsOutputWriter bs_cacheOutput = {"cache", bs_outputFrame, bsCacheOutput_Write};
