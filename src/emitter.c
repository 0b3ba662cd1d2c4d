#include "blobsim/emitter.h"

#include <math.h>

bsEmitterDef bsDefaultEmitterDef(void)
{
	bsEmitterDef def = {0};
	def.shape.type = bs_emitterGrid;
	def.shape.max = bsV3(1.0, 1.0, 1.0);
	def.shape.count[0] = def.shape.count[1] = def.shape.count[2] = 1;
	def.shape.nozzle.direction = bsV3(0.0, 1.0, 0.0);
	def.radius = 1.0;
	def.stop = INFINITY;
	def.lifetime = INFINITY;
	return def;
}

bsResult bsEmitter_Count(const bsEmitter* e, uint64_t limit, uint64_t* count)
{
	uint64_t n;
	if (e->type == bs_emitterRandom || e->type == bs_emitterNozzle)
	{
		n = e->count[0];
	}
	else
	{
		n = 1;
		for (int a = 0; a < 3; ++a)
		{
			if (e->count[a] != 0 && n > UINT64_MAX / e->count[a])
			{
				return bs_errTooLarge;
			}
			n *= e->count[a];
		}
	}
	if (n > limit)
	{
		return bs_errTooLarge;
	}
	*count = n;
	return bs_ok;
}

// The centre of lattice cell (x, y, z), jittered by three draws when the grid has a jitter.
static bsVec3 bsLatticePoint(const bsEmitter* e, bsVec3 cell, uint64_t x, uint64_t y, uint64_t z, bsRng* rng)
{
	bsVec3 p = bsV3(e->min.x + ((double)x + 0.5) * cell.x, e->min.y + ((double)y + 0.5) * cell.y,
		e->min.z + ((double)z + 0.5) * cell.z);
	if (e->jitter > 0.0)
	{
		p.x += e->jitter * cell.x * (bsRng_Uniform(rng) - 0.5);
		p.y += e->jitter * cell.y * (bsRng_Uniform(rng) - 0.5);
		p.z += e->jitter * cell.z * (bsRng_Uniform(rng) - 0.5);
	}
	return p;
}

void bsEmitter_Emit(const bsEmitter* e, bsRng* rng, bsVec3* out)
{
	bsVec3 size = bsSub(e->max, e->min);
	if (e->type == bs_emitterRandom)
	{
		for (uint64_t i = 0; i < e->count[0]; ++i)
		{
			double x = bsRng_Uniform(rng);
			double y = bsRng_Uniform(rng);
			double z = bsRng_Uniform(rng);
			out[i] = bsV3(e->min.x + x * size.x, e->min.y + y * size.y, e->min.z + z * size.z);
		}
		return;
	}
	bsVec3 cell = bsV3(size.x / (double)e->count[0], size.y / (double)e->count[1],
		size.z / (double)e->count[2]);
	uint64_t i = 0;
	for (uint64_t z = 0; z < e->count[2]; ++z)
	{
		for (uint64_t y = 0; y < e->count[1]; ++y)
		{
			for (uint64_t x = 0; x < e->count[0]; ++x)
			{
				out[i++] = bsLatticePoint(e, cell, x, y, z, rng);
			}
		}
	}
}

// Particles born by t of a rate emitter: floor(rate (t - start)), t clamped to [start, stop].
static double bsRateBorn(const bsEmitterDef* def, double t)
{
	double span = fmin(t, def->stop) - def->start;
	return span > 0.0 ? floor(def->rate * span + 1e-9) : 0.0;
}

bsResult bsEmitterDef_Count(const bsEmitterDef* def, uint64_t limit, uint64_t* count)
{
	if (def->rate > 0.0)
	{
		double n = isfinite(def->stop) ? bsRateBorn(def, def->stop) : (double)INFINITY;
		if (!(n <= (double)limit))
		{
			return bs_errTooLarge;
		}
		*count = (uint64_t)n;
		return bs_ok;
	}
	if (def->shape.type != bs_emitterList)
	{
		return bsEmitter_Count(&def->shape, limit, count);
	}
	if (def->listCount > limit)
	{
		return bs_errTooLarge;
	}
	*count = def->listCount;
	return bs_ok;
}

uint64_t bsEmitterDef_Born(const bsEmitterDef* def, double t)
{
	uint64_t total = 0;
	if (bsEmitterDef_Count(def, UINT64_MAX, &total) != bs_ok)
	{
		total = UINT64_MAX;
	}
	if (def->rate > 0.0)
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
		bsParticleDef d = {p->position[i], p->velocity[i], p->radius[i], p->state[i]};
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

// A grid or random shape: positions straight into the arrays, then the radii (one draw each when
// spread), velocities and states, then the check.
static bsResult bsEmitShape(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	uint64_t n;
	if (bsEmitter_Count(&def->shape, SIZE_MAX - p->count, &n) != bs_ok)
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
		double radius = def->radius;
		if (def->radiusSpread > 0.0)
		{
			radius *= 1.0 + def->radiusSpread * (2.0 * bsRng_Uniform(rng) - 1.0);
		}
		p->radius[i] = radius;
		p->velocity[i] = def->velocity;
		p->state[i] = bs_particleFree;
		p->id[i] = (uint32_t)i;
	}
	p->count = first + (size_t)n;
	return bsCheckAppended(p, first, failed);
}

// Two unit vectors that make an orthonormal basis with the unit vector d.
static void bsBasis(bsVec3 d, bsVec3* u, bsVec3* w)
{
	bsVec3 axis = fabs(d.x) < 0.9 ? bsV3(1.0, 0.0, 0.0) : bsV3(0.0, 1.0, 0.0);
	*u = bsNormalize(bsCross(d, axis));
	*w = bsCross(d, *u);
}

// One nozzle particle: a point uniform by area on the disk (radius sqrt(U) R), a direction uniform
// over the cone's solid angle (cos theta uniform in [cos angle, 1]: the area of a spherical cap is
// linear in cos theta), a speed uniform in the range; five draws in that order.
static void bsNozzle_Emit(const bsNozzle* n, bsRng* rng, bsVec3* position, bsVec3* velocity)
{
	bsVec3 u, w;
	bsBasis(n->direction, &u, &w);
	const double twoPi = 6.283185307179586;
	double r = n->diskRadius * sqrt(bsRng_Uniform(rng));
	double phi = twoPi * bsRng_Uniform(rng);
	*position = bsMulAdd(bsMulAdd(n->center, r * cos(phi), u), r * sin(phi), w);
	double c = 1.0 - bsRng_Uniform(rng) * (1.0 - cos(n->coneAngle));
	double s = sqrt(fmax(0.0, 1.0 - c * c));
	double psi = twoPi * bsRng_Uniform(rng);
	double speed = n->speedMin + bsRng_Uniform(rng) * (n->speedMax - n->speedMin);
	bsVec3 dir = bsMulAdd(bsMulAdd(bsScale(c, n->direction), s * cos(psi), u), s * sin(psi), w);
	*velocity = bsScale(speed, dir);
}

// Particle k of a shape emitted one at a time: its position (and a nozzle's velocity).
static void bsEmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsVec3* position, bsVec3* velocity)
{
	const bsEmitter* e = &def->shape;
	*velocity = def->velocity;
	if (e->type == bs_emitterNozzle)
	{
		bsNozzle_Emit(&e->nozzle, rng, position, velocity);
		return;
	}
	bsVec3 size = bsSub(e->max, e->min);
	if (e->type == bs_emitterRandom)
	{
		double x = bsRng_Uniform(rng);
		double y = bsRng_Uniform(rng);
		double z = bsRng_Uniform(rng);
		*position = bsV3(e->min.x + x * size.x, e->min.y + y * size.y, e->min.z + z * size.z);
		return;
	}
	// The lattice cell by cell, as bsEmitter_Emit orders it, starting again after the last cell.
	uint64_t cells = e->count[0] * e->count[1] * e->count[2];
	uint64_t c = k % cells;
	uint64_t x = c % e->count[0], y = c / e->count[0] % e->count[1], z = c / e->count[0] / e->count[1];
	bsVec3 cell = bsV3(size.x / (double)e->count[0], size.y / (double)e->count[1], size.z / (double)e->count[2]);
	*position = bsLatticePoint(e, cell, x, y, z, rng);
}

bsResult bsEmitterDef_EmitRange(const bsEmitterDef* def, uint64_t first, uint64_t count, bsRng* rng,
	bsParticles* p, size_t* failed)
{
	*failed = 0;
	bool list = def->shape.type == bs_emitterList;
	if (count == 0 || (list && def->listCount == 0))
	{
		return bs_ok;
	}
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
	for (uint64_t k = first; k < first + count; ++k)
	{
		size_t i = p->count++;
		p->id[i] = (uint32_t)i;
		if (list)
		{
			const bsParticleDef* d = def->list + k % def->listCount;
			p->position[i] = d->position;
			p->velocity[i] = d->velocity;
			p->radius[i] = d->radius;
			p->state[i] = d->state;
			continue;
		}
		bsEmitOne(def, k, rng, p->position + i, p->velocity + i);
		double radius = def->radius;
		if (def->radiusSpread > 0.0)
		{
			radius *= 1.0 + def->radiusSpread * (2.0 * bsRng_Uniform(rng) - 1.0);
		}
		p->radius[i] = radius;
		p->state[i] = bs_particleFree;
	}
	return bsCheckAppended(p, start, failed);
}

bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
	if (def->shape.type == bs_emitterNozzle)
	{
		return bsEmitterDef_EmitRange(def, 0, def->shape.count[0], rng, p, failed);
	}
	if (def->shape.type != bs_emitterList)
	{
		return bsEmitShape(def, rng, p, failed);
	}
	bsResult r = bsParticles_Reserve(p, p->count + def->listCount);
	for (size_t k = 0; r == bs_ok && k < def->listCount; ++k)
	{
		r = bsParticles_Append(p, def->list + k);
		*failed = k;
	}
	return r;
}
