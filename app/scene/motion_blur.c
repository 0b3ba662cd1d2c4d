// motion_blur.c — render.motion_blur's sub-frame samples (motion_blur.h).
#include "motion_blur.h"

#include "array.h"

#include <stdlib.h>
#include <string.h>

int bsMotionBlur_Samples(const bsRenderConfig* render)
{
	const bsMotionBlurConfig* mb = &render->motionBlur;
	return mb->enabled && mb->shutterAngle > 0.0 ? mb->samples : 0;
}

void bsMotionBlur_Init(bsMotionBlur* b, int samples, double shutterAngle, int frameEvery)
{
	memset(b, 0, sizeof(*b));
	if (samples < 2 || samples > bs_motionBlurMaxSamples)
	{
		return;
	}
	b->samples = samples;
	b->shutterSteps = shutterAngle / 360.0 * (double)(frameEvery > 0 ? frameEvery : 1);
}

void bsMotionBlur_Free(bsMotionBlur* b)
{
	for (int j = 0; j < bs_motionBlurMaxSamples - 1; ++j)
	{
		free(b->earlier[j].centers);
		free(b->earlier[j].radii);
		free(b->earlier[j].velocities);
		free(b->earlier[j].poses);
	}
	free(b->prev);
	free(b->povBodies);
	memset(b, 0, sizeof(*b));
}

void bsMotionBlur_Attach(bsMotionBlur* b, bsEnvBodies* bodies, const bsWorld* world, double dt)
{
	b->world = world;
	b->dt = dt;
	b->bodies = bodies;
	size_t n = (size_t)bsEnvBodies_Count(bodies);
	if (b->samples < 2 || n == 0 || b->povBodies != NULL)
	{
		return;
	}
	b->povBodies = malloc(n * sizeof(bsPovBody));
	for (int j = 0; j < b->samples - 1; ++j)
	{
		b->earlier[j].poses = malloc(n * sizeof(bsEnvBodyPose));
		b->outOfMemory = b->outOfMemory || b->earlier[j].poses == NULL;
	}
	b->outOfMemory = b->outOfMemory || b->povBodies == NULL;
}

// The particles at fraction f of the way from the last observation (prev) to p; f 1 takes p's own
// positions, so a sample at a substep's end is that substep's, bit for bit. The bodies at `seconds`.
static void bsBlurSample_Take(bsMotionBlur* b, bsBlurSample* s, const bsParticles* p, double f, double seconds)
{
	s->taken = true;
	s->count = 0;
	s->seconds = seconds;
	if (s->poses != NULL)
	{
		bsEnvBodies_Record(b->bodies, seconds, s->poses);
	}
	if (!BS_ARRAY_RESERVE(s->centers, s->capacity, p->count + 1))
	{
		b->outOfMemory = true;
		return;
	}
	size_t room = s->capacity;
	double* radii = realloc(s->radii, room * sizeof(double));
	bsVec3* velocities = radii != NULL ? realloc(s->velocities, room * sizeof(bsVec3)) : NULL;
	s->radii = radii != NULL ? radii : s->radii;
	s->velocities = velocities != NULL ? velocities : s->velocities;
	if (radii == NULL || velocities == NULL)
	{
		b->outOfMemory = true;
		return;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] == bs_particleEscaped)
		{
			continue;
		}
		bsVec3 x = p->position[i];
		if (f < 1.0 && i < b->prevCount)
		{
			bsVec3 a = b->prev[i];
			x = bsV3(a.x + (x.x - a.x) * f, a.y + (x.y - a.y) * f, a.z + (x.z - a.z) * f);
		}
		s->centers[s->count] = x;
		s->radii[s->count] = p->radius[i];
		s->velocities[s->count] = p->velocity[i];
		++s->count;
	}
}

// The observation becomes the last one.
static void bsMotionBlur_Keep(bsMotionBlur* b, double time, const bsParticles* p)
{
	b->prevTime = time;
	if (!BS_ARRAY_RESERVE(b->prev, b->prevCapacity, p->count + 1))
	{
		b->outOfMemory = true;
		b->prevCount = 0;
		return;
	}
	memcpy(b->prev, p->position, p->count * sizeof(bsVec3));
	b->prevCount = p->count;
}

// The earliest sample not yet taken, or NULL.
static const bsBlurSample* bsMotionBlur_Next(const bsMotionBlur* b)
{
	for (int j = 0; j < b->samples - 1; ++j)
	{
		if (!b->earlier[j].taken)
		{
			return b->earlier + j;
		}
	}
	return NULL;
}

void bsMotionBlur_Begin(bsMotionBlur* b, int start, int end, const bsParticles* p)
{
	if (b->samples < 2)
	{
		return;
	}
	int n = b->samples - 1;
	for (int j = 0; j < n; ++j)
	{
		double t = (double)end - b->shutterSteps * (double)(n - j) / (double)n;
		bsBlurSample* s = b->earlier + j;
		s->time = t > (double)start ? t : (double)start;
		s->taken = false;
		if (s->time <= (double)start)
		{
			bsBlurSample_Take(b, s, p, 1.0, b->world != NULL ? bsWorld_Time(b->world) : 0.0);
		}
	}
	if (bsMotionBlur_Next(b) != NULL)
	{
		bsMotionBlur_Keep(b, (double)start, p);
	}
}

void bsMotionBlur_Observe(void* context, int done, int substeps, const bsParticles* p)
{
	bsMotionBlur* b = context;
	const bsBlurSample* next = bsMotionBlur_Next(b);
	if (next == NULL || next->time > (double)b->step + 1.0)
	{
		return;  // nothing to take before the next step ends: no copy kept
	}
	double time = done == substeps ? (double)b->step : (double)(b->step - 1) + (double)done / (double)substeps;
	// In seconds: the step's start is the world's time while it steps; the observation's time is the
	// substep's end as the step computes it (step.c), so a body's chord ends there exactly.
	double start = b->world != NULL ? bsWorld_Time(b->world) : 0.0;
	double h = b->dt / substeps;
	double seconds = done == substeps ? start + b->dt : start + done * h;
	for (int j = 0; j < b->samples - 1 && time > b->prevTime; ++j)
	{
		bsBlurSample* s = b->earlier + j;
		if (!s->taken && s->time <= time)
		{
			double f = s->time >= time ? 1.0 : (s->time - b->prevTime) / (time - b->prevTime);
			double at = f == 1.0 ? seconds : start + (s->time - (double)(b->step - 1)) * b->dt;
			bsBlurSample_Take(b, s, p, f, at);
		}
	}
	bsMotionBlur_Keep(b, time, p);
}

bool bsMotionBlur_Ready(const bsMotionBlur* b)
{
	return !b->outOfMemory && bsMotionBlur_Next(b) == NULL;
}
