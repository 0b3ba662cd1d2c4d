// emitter_trail.c — a trail emitter in the world (emitter.h: bsTrail): each source's count of
// particles, kept from step to step (and in checkpoints: 'TRAL'), and the particles of a step's window.
#include "array.h"
#include "collider_body.h"
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

// The move phase's drift under a uniform acceleration g of a particle s seconds into a step of
// substeps of h seconds: each substep adds g h to the velocity, then moves along it (step.c: forces,
// then move), so after m whole substeps and sigma seconds of the next the position is
// x + v s + g h (m + 1) (m h / 2 + sigma), where a free fall would be x + v s + g s^2 / 2 (the two
// meet at s = 0 only: the integrator's path is the one a particle actually follows).
static bsVec3 bsTrail_Drift(bsVec3 g, double h, double s)
{
	double m = fmax(floor(s / h), 0.0);
	double sigma = s - m * h;
	return bsScale(h * (m + 1.0) * (0.5 * m * h + sigma), g);
}

// A particle born s seconds into the window at d's position and velocity, set back to the window's
// start so that the move phase brings it there then: velocity u = its velocity - g s and position its
// birth point - u s - drift.
static void bsTrail_ToStart(const bsTrailWindow* w, double s, bsParticleDef* d)
{
	d->velocity = bsMulSub(d->velocity, s, w->gravity);
	d->position = bsSub(bsMulSub(d->position, s, d->velocity), bsTrail_Drift(w->gravity, w->h, s));
}

// Source i's births in the window of integral add, from integral i0 at its start: each at its birth
// time tau where the source is then on its path in free flight under the step's gravity (the one the
// move phase gives it: x + v s + drift, s = tau - now), moving at v + g s; then set back to the step's
// start (bsTrail_ToStart).
static bsResult bsTrail_EmitSource(const bsWorldEmitter* em, size_t i, double i0, double add,
	const bsTrailWindow* w, bsRng* rng, bsParticles* p)
{
	const bsEmitterDef* def = &em->def;
	double before = em->sources[i], after = before + add;
	double first = floor(before + 1e-9) + 1.0, last = floor(after + 1e-9);
	bsVec3 x = p->position[i], v = p->velocity[i], g = w->gravity;
	for (double k = first; k <= last; k += 1.0)
	{
		double tau = fmin(fmax(bsEmitterDef_TimeOfIntegral(def, i0 + (k - before)), w->now), w->until);
		double s = tau - w->now;
		bsVec3 drift = bsTrail_Drift(g, w->h, s);
		// The source then, on its free path; a wall or body (as at the step's start, where the child is
		// placed) the source meets within the step (a bounce the path does not know) stops the point
		// just clear of it, on the way from the source's start.
		bsVec3 at = bsWorld_ClearWay(w->world, x, bsAdd(bsMulAdd(x, s, v), drift), p->radius[i], w->now);
		bsParticleDef d = bsTrail_Particle(def, at, bsMulAdd(v, s, g), rng);
		bsTrail_ToStart(w, s, &d);
		d.position = bsWorld_ClearWay(w->world, at, d.position, d.radius, w->now);
		bsResult r = bsParticles_Append(p, &d);
		if (r != bs_ok)
		{
			return r;
		}
	}
	return bs_ok;
}

bsResult bsWorldEmitter_EmitTrail(bsWorldEmitter* em, const bsTrailWindow* window, bsRng* rng, bsParticles* p,
	size_t* failed)
{
	*failed = 0;
	size_t sources = p->count;  // the particles there before the trail's own
	if (!bsWorldEmitter_GrowSources(em, sources))
	{
		return bs_errOutOfMemory;
	}
	double i0 = bsEmitterDef_Integral(&em->def, window->now);
	double add = bsEmitterDef_Integral(&em->def, window->until) - i0;
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
		bsResult r = bsTrail_EmitSource(em, i, i0, add, window, rng, p);
		em->sources[i] += add;
		if (r != bs_ok)
		{
			*failed = p->count - sources;
			return r;
		}
	}
	return bs_ok;
}

// One particle of splash def at contact s: the offset's draws, its radius draw (bsTrail_Particle,
// from inherit x the velocity reflected about the normal), then a direction in the cone about the
// normal (two draws) and a speed in the range (one), added to its velocity.
static bsParticleDef bsSplash_Particle(const bsEmitterDef* def, const bsSplash* s, bsRng* rng)
{
	const bsTrail* t = &def->shape.trail;
	bsVec3 reflected = bsMulSub(s->velocity, 2.0 * bsDot(s->velocity, s->normal), s->normal);
	bsParticleDef d = bsTrail_Particle(def, s->point, reflected, rng);
	bsVec3 u, w;
	bsEmitter_Basis(s->normal, &u, &w);
	bsVec3 dir = bsEmitter_ConeDirection(s->normal, u, w, t->coneAngle, rng);
	double speed = t->speedMin + bsRng_Uniform(rng) * (t->speedMax - t->speedMin);
	d.velocity = bsMulAdd(d.velocity, speed, dir);
	return d;
}

bsResult bsWorldEmitter_EmitSplash(const bsWorldEmitter* em, const bsTrailWindow* window, const bsSplash* splashes,
	size_t count, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
	const bsEmitterDef* def = &em->def;
	const bsTrail* t = &def->shape.trail;
	size_t before = p->count;
	double dt = window->until - window->now;
	for (size_t i = 0; i < count; ++i)
	{
		const bsSplash* s = splashes + i;
		uint8_t species = p->species != NULL ? p->species[i] : 0;
		if (species != t->source || isnan(s->time) || s->time < def->start || s->time >= def->stop)
		{
			continue;
		}
		double n = floor(t->count + t->countPerSpeed * fmax(s->speed, 0.0));
		// The source's centre at the contact, carried on to the window's end by the body it met.
		bsVec3 from = s->collider >= 0 && n > 0.0 ?
			bsWorldBodies_Follow(window->world, s->collider, s->point, s->time, window->until) : s->point;
		for (double k = 0.0; k < n; k += 1.0)
		{
			// Born at its contact, then on to the window's end as the move phase would have taken it,
			// stopped clear of a wall or body (as at the window's end) on the way from the source's
			// centre then, or where the body it met has carried that centre (bsWorld_ClearWay).
			bsParticleDef d = bsSplash_Particle(def, s, rng);
			bsTrail_ToStart(window, s->time - window->now, &d);
			d.position = bsAdd(bsMulAdd(d.position, dt, d.velocity), bsTrail_Drift(window->gravity, window->h, dt));
			d.velocity = bsMulAdd(d.velocity, dt, window->gravity);
			d.position = bsWorld_ClearWay(window->world, from, d.position, d.radius, window->until);
			bsResult r = bsParticles_Append(p, &d);
			if (r != bs_ok)
			{
				*failed = p->count - before;
				return r;
			}
		}
	}
	return bs_ok;
}
