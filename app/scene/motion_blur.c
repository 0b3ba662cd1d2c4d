// motion_blur.c — render.motion_blur's sub-frame samples (motion_blur.h).
#include "motion_blur.h"

#include "array.h"
#include "over_life.h"

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
		free(b->earlier[j].ages);
		free(b->earlier[j].species);
		free(b->earlier[j].orientations);
	}
	free(b->prev);
	free(b->povBodies);
	free(b->prevTurn);
	memset(b, 0, sizeof(*b));
}

void bsMotionBlur_Attach(bsMotionBlur* b, bsEnvBodies* bodies, const bsWorld* world, const bsConfig* config)
{
	b->world = world;
	b->dt = config->step.dt;
	b->bodies = bodies;
	const bsParticlesConfig* pc = &config->particles;
	bool looks = pc->speciesCount > 1 || bsOverLife_AnySpecies(pc) || config->render.gas.enabled;
	b->looks = looks ? pc : NULL;
	b->turns = config->render.instances.enabled && config->render.instances.rotation;
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

// Room in the sample for n particles (their ages and species too with looks). False when out of memory.
static bool bsBlurSample_Room(const bsMotionBlur* b, bsBlurSample* s, size_t n)
{
	if (!BS_ARRAY_RESERVE(s->centers, s->capacity, n))
	{
		return false;
	}
	size_t room = s->capacity;
	double* radii = realloc(s->radii, room * sizeof(double));
	s->radii = radii != NULL ? radii : s->radii;
	bsVec3* velocities = radii != NULL ? realloc(s->velocities, room * sizeof(bsVec3)) : NULL;
	s->velocities = velocities != NULL ? velocities : s->velocities;
	if (velocities == NULL)
	{
		return false;
	}
	if (b->turns)
	{
		bsQuat* turns = realloc(s->orientations, room * sizeof(bsQuat));
		s->orientations = turns != NULL ? turns : s->orientations;
		if (turns == NULL)
		{
			return false;
		}
	}
	if (b->looks == NULL)
	{
		return true;
	}
	double* ages = realloc(s->ages, room * sizeof(double));
	s->ages = ages != NULL ? ages : s->ages;
	uint8_t* species = ages != NULL ? realloc(s->species, room) : NULL;
	s->species = species != NULL ? species : s->species;
	return species != NULL;
}

// Particle i's orientation at fraction f from the last observation to p (identity when the particles
// keep none).
static bsQuat bsMotionBlur_Turn(const bsMotionBlur* b, const bsParticles* p, size_t i, double f)
{
	if (p->orientation == NULL)
	{
		return bsQuat_Identity();
	}
	bsQuat q = p->orientation[i];
	return f < 1.0 && i < b->prevCount && b->prevTurn != NULL ? bsQuat_Slerp(b->prevTurn[i], q, f) : q;
}

// The particles at fraction f of the way from the last observation (prev) to p; f 1 takes p's own
// positions, so a sample at a substep's end is that substep's, bit for bit. The bodies, and with looks
// the particles' ages, at `seconds`.
static void bsBlurSample_Take(bsMotionBlur* b, bsBlurSample* s, const bsParticles* p, double f, double seconds)
{
	s->taken = true;
	s->count = 0;
	s->seconds = seconds;
	if (s->poses != NULL)
	{
		bsEnvBodies_Record(b->bodies, seconds, s->poses);
	}
	if (!bsBlurSample_Room(b, s, p->count + 1))
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
		if (b->turns)
		{
			s->orientations[s->count] = bsMotionBlur_Turn(b, p, i, f);
		}
		if (b->looks != NULL)
		{
			s->ages[s->count] = b->world != NULL ? seconds - bsWorld_BirthTime(b->world, i) : 0.0;
			s->species[s->count] = (uint8_t)bsSpecies_Of(b->looks, p, i);
		}
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
	if (b->turns && p->orientation != NULL)
	{
		if (!BS_ARRAY_RESERVE(b->prevTurn, b->prevTurnCapacity, p->count + 1))
		{
			b->outOfMemory = true;
			b->prevCount = 0;
			return;
		}
		memcpy(b->prevTurn, p->orientation, p->count * sizeof(bsQuat));
	}
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
