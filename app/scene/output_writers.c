// output_writers.c — the table of output writers (output_writers.h) and its walk.
#include "output_writers.h"
#include "array.h"
#include "core.h"

#include "blobsim/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The writers in the order they write: a new format is a module and one line here.
static const bsOutputWriter* const bs_outputWriters[] = {
	&bs_sceneOutput,
	&bs_particlesOutput,
	&bs_animationOutput,
	&bs_cacheOutput,
};

bool bsOutputWriters_Write(bsOutputContext* context, int frame, char* err, size_t errlen)
{
	int snapshot = frame < 0 ? bs_outputScene : bs_outputFrame;
	for (int k = 0; k < BS_COUNT(bs_outputWriters); ++k)
	{
		const bsOutputWriter* w = bs_outputWriters[k];
		if ((w->snapshots & snapshot) != 0 && !w->write(context, frame, err, errlen))
		{
			return false;
		}
	}
	return true;
}

void bsOutputContext_Free(bsOutputContext* context)
{
	// The drawn (compacted) arrays, grown together to drawnCapacity.
	free(context->centers);
	free(context->radii);
	free(context->velocities);
	free(context->orientations);
	free(context->colors);
	free(context->densities);
	context->centers = NULL;
	context->radii = NULL;
	context->velocities = NULL;
	context->orientations = NULL;
	context->colors = NULL;
	context->densities = NULL;
	context->drawnCapacity = 0;
	// The particles' ages, and render.gas's puffs, by particle.
	free(context->ages);
	free(context->gasRadii);
	free(context->gasDensities);
	context->ages = NULL;
	context->gasRadii = NULL;
	context->gasDensities = NULL;
	context->ageCapacity = 0;
	context->gasCount = 0;
	context->gasCapacity = 0;
}

void bsOutput_SceneName(char* out, size_t size, int frame)
{
	if (frame < 0)
	{
		snprintf(out, size, "scene.pov");
		return;
	}
	bsPov_FrameFileName(out, size, frame);
}

void bsOutput_Path(char* out, const char* dir, const char* name)
{
	snprintf(out, bs_outputPathMax, "%s/%s", dir, name);
}

void bsOutput_BlurSceneName(char* out, size_t size, int frame, int sample)
{
	char scene[32];
	bsOutput_SceneName(scene, sizeof(scene), frame);
	snprintf(out, size, "%.*s_blur%d.pov", (int)(strlen(scene) - 4), scene, sample);
}

bool bsOutput_Ages(bsOutputContext* o, char* err, size_t errlen)
{
	if (o->world == NULL)
	{
		return true;
	}
	const bsParticles* p = o->particles;
	if (!BS_ARRAY_RESERVE(o->ages, o->ageCapacity, p->count > 0 ? p->count : 1))
	{
		snprintf(err, errlen, "%s: out of memory for %zu ages", o->dir, p->count);
		return false;
	}
	double now = bsWorld_Time(o->world);
	for (size_t i = 0; i < p->count; ++i)
	{
		o->ages[i] = now - bsWorld_BirthTime(o->world, i);
	}
	return true;
}
