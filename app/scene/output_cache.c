// output_cache.c — output.cache: every frame's particles, with every attribute, as
// cache/frame_NNNN.ply (particle_cache.h). The folder is made by the run before the first frame
// (bsOutputCache_Prepare).
#include "output_writers.h"

#include "array.h"
#include "over_life.h"
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

// The cache's colours: particle i's species' over_life colour and opacity at its age (looks: the context).
static void bsCacheOutput_Color(const void* looks, size_t i, double age, float rgba[4])
{
	const bsOutputContext* o = looks;
	bsOverLife_Color(bsOverLife_Of(&o->config->particles, o->particles, i), age, rgba);
}

static bool bsCacheOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	if (!o->config->output.cache)
	{
		return true;
	}
	if (!bsOutput_Ages(o, err, errlen))
	{
		return false;
	}
	double now = bsWorld_Time(o->world);
	char name[64], path[bs_outputPathMax];
	snprintf(name, sizeof(name), "%s/frame_%04d.ply", BS_OUTPUT_CACHE_NAME, frame);
	bsOutput_Path(path, o->dir, name);
	bsParticleCache cache = {o->particles, o->ages, frame, now, o->config->step.interaction.rotation,
		bsOverLife_AnyColor(&o->config->particles) ? bsCacheOutput_Color : NULL, o};
	return bsParticleCache_Write(path, &cache, err, errlen);
}

const bsOutputWriter bs_cacheOutput = {"cache", bs_outputFrame, bsCacheOutput_Write};
