// emitter.c — what every emitter class shares (emitter_class.h): the table of classes by type, the
// counts, emission all at once and one particle after another, the check of the particles appended.
#include "emitter_class.h"
#include "core.h"

#include <math.h>

#define BS_EMITTER_ENTRY(type, name) [type] = &name,
static const bsEmitterClass* const bs_emitterClasses[bs_emitterTypeCount] = {BS_EMITTER_LIST(BS_EMITTER_ENTRY)};
#undef BS_EMITTER_ENTRY

#define BS_EMITTER_ONE(type, name) +1
_Static_assert(0 BS_EMITTER_LIST(BS_EMITTER_ONE) == bs_emitterTypeCount, "a class for every emitter type");
#undef BS_EMITTER_ONE

// The class of a type, NULL for a type out of range.
static const bsEmitterClass* bsEmitterClass_Of(bsEmitterType type)
{
	return (unsigned)type < (unsigned)bs_emitterTypeCount ? bs_emitterClasses[type] : NULL;
}

bsEmitterDef bsDefaultEmitterDef(void)
{
	bsEmitterDef def = {0};
	def.shape.type = bs_emitterGrid;
	def.shape.max = bsV3(1.0, 1.0, 1.0);
	def.shape.count[0] = def.shape.count[1] = def.shape.count[2] = 1;
	def.shape.nozzle.direction = bsV3(0.0, 1.0, 0.0);
	def.radius = 1.0;
	def.shape.trail.inherit = 0.5;
	def.stop = INFINITY;
	def.lifetime = INFINITY;
	return def;
}

bool bsEmitterDef_IsValid(const bsEmitterDef* def)
{
	const bsEmitterClass* c = bsEmitterClass_Of(def->shape.type);
	bool timing = def->start >= 0.0 && isfinite(def->start) && def->rate >= 0.0 && isfinite(def->rate) &&
		def->lifetime > 0.0 && (!bsEmitterDef_OverTime(def) ||
			((isfinite(def->stop) || def->shape.type == bs_emitterTrail) && def->stop > def->start));
	return timing && bsEmitterDef_RateKeysValid(def) && bsEmitterMotion_IsValid(&def->motion) && c != NULL &&
		(c->isValid == NULL || c->isValid(def));
}

bsResult bsEmitterDef_CountGiven(const bsEmitterDef* def, uint64_t* count)
{
	*count = def->shape.count[0];
	return bs_ok;
}

// The particles def's shape makes at once (its rate aside), at most limit.
static bsResult bsEmitterDef_CountShape(const bsEmitterDef* def, uint64_t limit, uint64_t* count)
{
	const bsEmitterClass* c = bsEmitterClass_Of(def->shape.type);
	if (c == NULL)
	{
		return bs_errInvalidArgument;
	}
	uint64_t n;
	bsResult r = c->count(def, &n);
	if (r != bs_ok)
	{
		return r;
	}
	if (n > limit)
	{
		return bs_errTooLarge;
	}
	*count = n;
	return bs_ok;
}

bsResult bsEmitter_Count(const bsEmitter* e, uint64_t limit, uint64_t* count)
{
	const bsEmitterDef def = {.shape = *e};  // a shape alone: a list's particles are the def's
	return bsEmitterDef_CountShape(&def, limit, count);
}

void bsEmitter_Emit(const bsEmitter* e, bsRng* rng, bsVec3* out)
{
	const bsEmitterClass* c = bsEmitterClass_Of(e->type);
	if (c != NULL && c->place != NULL)
	{
		c->place(e, rng, out);
	}
}

// Particles born by t of an emitter over time: floor(I(t)) (bsEmitterDef_Integral; for a constant
// rate floor(rate (t - start)), t clamped to [start, stop]).
static double bsRateBorn(const bsEmitterDef* def, double t)
{
	if (def->rateKeys.count > 0)
	{
		return floor(bsEmitterDef_Integral(def, t) + 1e-9);
	}
	double span = fmin(t, def->stop) - def->start;
	return span > 0.0 ? floor(def->rate * span + 1e-9) : 0.0;
}

bsResult bsEmitterDef_Count(const bsEmitterDef* def, uint64_t limit, uint64_t* count)
{
	// A trail's rate is each source's: the world counts its particles (its class counts none).
	if (bsEmitterDef_OverTime(def) && def->shape.type != bs_emitterTrail)
	{
		double n = isfinite(def->stop) ? bsRateBorn(def, def->stop) : (double)INFINITY;
		if (!(n <= (double)limit))
		{
			return bs_errTooLarge;
		}
		*count = (uint64_t)n;
		return bs_ok;
	}
	return bsEmitterDef_CountShape(def, limit, count);
}

uint64_t bsEmitterDef_Born(const bsEmitterDef* def, double t)
{
	uint64_t total = 0;
	if (bsEmitterDef_Count(def, UINT64_MAX, &total) != bs_ok)
	{
		total = UINT64_MAX;
	}
	if (bsEmitterDef_OverTime(def))
	{
		double n = bsRateBorn(def, t);
		return n < (double)total ? (uint64_t)n : total;
	}
	return def->start < t ? total : 0;
}

// Checks the particles appended from first on, in order; drops them all from the first bad one.
static bsResult bsCheckAppended(bsParticles* p, size_t first, size_t* failed)
{
	for (size_t i = first; i < p->count; ++i)
	{
		bsParticleDef d = {p->position[i], p->velocity[i], p->radius[i], p->state[i],
			p->spin != NULL ? p->spin[i] : bsV3(0.0, 0.0, 0.0)};
		bsParticleFault fault = bsParticleDef_Check(&d);
		if (fault != bs_particleOk)
		{
			*failed = i - first;
			p->count = i;
			return fault == bs_particleBadRadius || fault == bs_particleBadState ? bs_errInvalidArgument
				: bs_errNonFinite;
		}
	}
	return bs_ok;
}

double bsEmitterDef_DrawRadius(const bsEmitterDef* def, bsRng* rng)
{
	double radius = def->radius;
	if (def->radiusSpread > 0.0)
	{
		radius *= 1.0 + def->radiusSpread * (2.0 * bsRng_Uniform(rng) - 1.0);
	}
	return radius;
}

bsParticleDef bsEmitterDef_Particle(const bsEmitterDef* def, bsRng* rng, bsVec3 position, bsVec3 velocity)
{
	bsParticleDef particle = {position, velocity, bsEmitterDef_DrawRadius(def, rng), bs_particleFree, {0.0, 0.0, 0.0}};
	return particle;
}

// Positions straight into the arrays, then the radii (one draw each when spread), velocities and
// states, then the check.
bsResult bsEmitterDef_EmitPlaced(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	uint64_t n;
	if (bsEmitterDef_CountShape(def, SIZE_MAX - p->count, &n) != bs_ok)
	{
		return bs_errTooLarge;
	}
	bsResult r = bsParticles_Reserve(p, p->count + (size_t)n);
	if (r != bs_ok)
	{
		return r;
	}
	size_t first = p->count;
	bsEmitter_Emit(&def->shape, rng, p->position + first);
	for (size_t i = first; i < first + n; ++i)
	{
		p->radius[i] = bsEmitterDef_DrawRadius(def, rng);
		p->velocity[i] = def->velocity;
		p->state[i] = bs_particleFree;
		p->id[i] = (uint32_t)i;
	}
	p->count = first + (size_t)n;
	return bsCheckAppended(p, first, failed);
}

bsResult bsEmitterDef_EmitEach(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	uint64_t n;
	bsResult r = bsEmitterDef_CountShape(def, UINT64_MAX, &n);
	return r == bs_ok ? bsEmitterDef_EmitRange(def, 0, n, rng, p, failed) : r;
}

void bsEmitter_Basis(bsVec3 d, bsVec3* u, bsVec3* w)
{
	bsVec3 axis = fabs(d.x) < 0.9 ? bsV3(1.0, 0.0, 0.0) : bsV3(0.0, 1.0, 0.0);
	*u = bsNormalize(bsCross(d, axis));
	*w = bsCross(d, *u);
}

// cos theta uniform in [cos angle, 1], as the area of a spherical cap is linear in cos theta, then
// the azimuth.
bsVec3 bsEmitter_ConeDirection(bsVec3 a, bsVec3 u, bsVec3 w, double angle, bsRng* rng)
{
	const double twoPi = 2.0 * BS_PI;
	double c = 1.0 - bsRng_Uniform(rng) * (1.0 - cos(angle));
	double s = sqrt(fmax(0.0, 1.0 - c * c));
	double psi = twoPi * bsRng_Uniform(rng);
	return bsMulAdd(bsMulAdd(bsScale(c, a), s * cos(psi), u), s * sin(psi), w);
}

// The class's emitOne (user: the class).
static void bsEmitterClass_EmitOne(const bsEmitterDef* def, uint64_t k, void* user, bsRng* rng, bsParticleDef* particle)
{
	((const bsEmitterClass*)user)->emitOne(def, k, rng, particle);
}

bsResult bsEmitterDef_EmitRange(const bsEmitterDef* def, uint64_t first, uint64_t count, bsRng* rng,
	bsParticles* p, size_t* failed)
{
	*failed = 0;
	const bsEmitterClass* c = bsEmitterClass_Of(def->shape.type);
	if (c == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (count == 0 || (c->isEmpty != NULL && c->isEmpty(def)))
	{
		return bs_ok;
	}
	return bsEmitterDef_EmitRangeWith(def, first, count, bsEmitterClass_EmitOne, (void*)c, rng, p, failed);
}

bsResult bsEmitterDef_EmitRangeWith(const bsEmitterDef* def, uint64_t first, uint64_t count, bsEmitOneFn* emitOne,
	void* user, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
	if (count > SIZE_MAX - p->count)
	{
		return bs_errTooLarge;
	}
	bsResult r = bsParticles_Reserve(p, p->count + (size_t)count);
	if (r != bs_ok)
	{
		return r;
	}
	size_t start = p->count;
	bool moving = bsEmitterMotion_IsMoving(&def->motion);
	for (uint64_t k = first; k < first + count; ++k)
	{
		bsParticleDef d;
		emitOne(def, k, user, rng, &d);
		if (moving)
		{
			bsEmitterMotion_Apply(&def->motion, bsEmitterDef_BirthTime(def, k), &d.position, &d.velocity);
		}
		size_t i = p->count++;
		p->id[i] = (uint32_t)i;
		p->position[i] = d.position;
		p->velocity[i] = d.velocity;
		p->radius[i] = d.radius;
		p->state[i] = d.state;
		if (bsParticles_SetSpin(p, i, d.spin) != bs_ok)
		{
			return bs_errOutOfMemory;
		}
	}
	return bsCheckAppended(p, start, failed);
}

// The particles appended from first on, placed by a moving emitter at its start (all at once).
static void bsEmitterDef_MoveAppended(const bsEmitterDef* def, bsParticles* p, size_t first)
{
	for (size_t i = first; i < p->count && bsEmitterMotion_IsMoving(&def->motion); ++i)
	{
		bsEmitterMotion_Apply(&def->motion, def->start, p->position + i, p->velocity + i);
	}
}

bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
	const bsEmitterClass* c = bsEmitterClass_Of(def->shape.type);
	if (c == NULL)
	{
		return bs_errInvalidArgument;
	}
	if (!bsEmitterMotion_IsMoving(&def->motion) || c->emit == bsEmitterDef_EmitEach)
	{
		return c->emit(def, rng, p, failed);  // one after another: moved by bsEmitterDef_EmitRange
	}
	size_t first = p->count;
	bsResult r = c->emit(def, rng, p, failed);
	bsEmitterDef_MoveAppended(def, p, first);
	return r;
}
