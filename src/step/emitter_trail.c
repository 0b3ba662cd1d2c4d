// emitter_trail.c — a trail emitter in the world (emitter.h: bsTrail): each source's count of
// particles, kept from step to step (and in checkpoints: 'TRAL'), and the particles of a step's window.
#include "array.h"
#include "emitter_class.h"
#include "world_internal.h"

#include <math.h>
#include <string.h>

// Every particle of the set has an accumulator, a new one 0 (slots are never reused: a particle never
// leaves the set).
static bool bsWorldEmitter_GrowSources(bsWorldEmitter* em, size_t count)
{
	if (!BS_ARRAY_RESERVE(em->sources, em->sourceCapacity, count))
	{
		return false;
	}
	if (count > em->sourceCount)
	{
		memset(em->sources + em->sourceCount, 0, (count - em->sourceCount) * sizeof(double));
		em->sourceCount = count;
	}
	return true;
}

// Particle i is a source of the trail: free, of the source species.
static bool bsTrail_IsSource(const bsTrail* trail, const bsParticles* p, size_t i)
{
	uint8_t species = p->species != NULL ? p->species[i] : 0;
	return p->state[i] == bs_particleFree && species == trail->source;
}

// Source i's births in the window [now, until] of integral add, from integral i0 at now: each at its
// birth time tau on the line x + v (tau - now), then back-dated to now.
static bsResult bsTrail_EmitSource(const bsWorldEmitter* em, size_t i, double i0, double add, double now,
	double until, bsRng* rng, bsParticles* p)
{
	const bsEmitterDef* def = &em->def;
	double before = em->sources[i], after = before + add;
	double first = floor(before + 1e-9) + 1.0, last = floor(after + 1e-9);
	bsVec3 x = p->position[i], v = p->velocity[i];
	for (double k = first; k <= last; k += 1.0)
	{
		double tau = fmin(fmax(bsEmitterDef_TimeOfIntegral(def, i0 + (k - before)), now), until);
		bsParticleDef d = bsTrail_Particle(def, bsMulAdd(x, tau - now, v), v, rng);
		d.position = bsMulAdd(d.position, now - tau, d.velocity);
		bsResult r = bsParticles_Append(p, &d);
		if (r != bs_ok)
		{
			return r;
		}
	}
	return bs_ok;
}

bsResult bsWorldEmitter_EmitTrail(bsWorldEmitter* em, double now, double until, bsRng* rng, bsParticles* p,
	size_t* failed)
{
	*failed = 0;
	size_t sources = p->count;  // the particles there before the trail's own
	if (!bsWorldEmitter_GrowSources(em, sources))
	{
		return bs_errOutOfMemory;
	}
	double i0 = bsEmitterDef_Integral(&em->def, now);
	double add = bsEmitterDef_Integral(&em->def, until) - i0;
	if (!(add > 0.0))
	{
		return bs_ok;
	}
	for (size_t i = 0; i < sources; ++i)
	{
		if (!bsTrail_IsSource(&em->def.shape.trail, p, i))
		{
			continue;
		}
		bsResult r = bsTrail_EmitSource(em, i, i0, add, now, until, rng, p);
		em->sources[i] += add;
		if (r != bs_ok)
		{
			*failed = p->count - sources;
			return r;
		}
	}
	return bs_ok;
}
