#include "blobsim/emitter.h"
#include "core.h"

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
	if (e->type == bs_emitterRandom || e->type == bs_emitterNozzle || e->type == bs_emitterSurface)
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

// A direction uniform over the solid angle of the cone of half-angle `angle` about the unit axis a
// (u, w completing the basis): cos theta uniform in [cos angle, 1], as the area of a spherical cap is
// linear in cos theta, then the azimuth; two draws.
static bsVec3 bsConeDirection(bsVec3 a, bsVec3 u, bsVec3 w, double angle, bsRng* rng)
{
	const double twoPi = 2.0 * BS_PI;
	double c = 1.0 - bsRng_Uniform(rng) * (1.0 - cos(angle));
	double s = sqrt(fmax(0.0, 1.0 - c * c));
	double psi = twoPi * bsRng_Uniform(rng);
	return bsMulAdd(bsMulAdd(bsScale(c, a), s * cos(psi), u), s * sin(psi), w);
}

// One nozzle particle: a point uniform by area on the disk (radius sqrt(U) R), a direction uniform
// over the cone's solid angle, a speed uniform in the range; five draws in that order.
static void bsNozzle_Emit(const bsNozzle* n, bsRng* rng, bsVec3* position, bsVec3* velocity)
{
	bsVec3 u, w;
	bsBasis(n->direction, &u, &w);
	const double twoPi = 2.0 * BS_PI;
	double r = n->diskRadius * sqrt(bsRng_Uniform(rng));
	double phi = twoPi * bsRng_Uniform(rng);
	*position = bsMulAdd(bsMulAdd(n->center, r * cos(phi), u), r * sin(phi), w);
	bsVec3 dir = bsConeDirection(n->direction, u, w, n->coneAngle, rng);
	double speed = n->speedMin + bsRng_Uniform(rng) * (n->speedMax - n->speedMin);
	*velocity = bsScale(speed, dir);
}

// --- surface ---

double bsSurface_Accumulate(const bsTriangle* t, size_t count, const uint8_t* selected, double* cumulative)
{
	double total = 0.0;
	for (size_t k = 0; k < count; ++k)
	{
		if (selected == NULL || selected[k] != 0)
		{
			total += 0.5 * bsLength(bsCross(bsSub(t[k].p2, t[k].p1), bsSub(t[k].p3, t[k].p1)));
		}
		cumulative[k] = total;
	}
	return total;
}

size_t bsSurface_Pick(const bsSurface* s, double u)
{
	double x = u * s->cumulative[s->count - 1];
	size_t lo = 0, hi = s->count - 1;  // the answer is in [lo, hi]: cumulative[last] > x
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (s->cumulative[mid] > x)
		{
			hi = mid;
		}
		else
		{
			lo = mid + 1;
		}
	}
	return lo;
}

bool bsSurface_IsValid(const bsSurface* s)
{
	double total = s->count > 0 && s->cumulative != NULL ? s->cumulative[s->count - 1] : 0.0;
	return s->triangles != NULL && total > 0.0 && isfinite(total) && s->gap >= 0.0 && isfinite(s->gap) &&
		s->coneAngle >= 0.0 && s->coneAngle <= 0.5 * BS_PI && s->speedMin >= 0.0 &&
		s->speedMax >= s->speedMin && isfinite(s->speedMax);
}

// One surface particle on its face: the triangle (one draw), a point uniform in it (two draws: a
// point of the parallelogram, folded back into the triangle when it falls in the other half), a
// direction in the cone about the normal and a speed (three draws). *normal is the face's, for the
// offset that needs the particle's radius.
static void bsSurface_Emit(const bsSurface* s, bsRng* rng, bsVec3* position, bsVec3* velocity, bsVec3* normal)
{
	const bsTriangle* t = s->triangles + bsSurface_Pick(s, bsRng_Uniform(rng));
	double a = bsRng_Uniform(rng);
	double b = bsRng_Uniform(rng);
	if (a + b > 1.0)
	{
		a = 1.0 - a;
		b = 1.0 - b;
	}
	*position = bsMulAdd(bsMulAdd(t->p1, a, bsSub(t->p2, t->p1)), b, bsSub(t->p3, t->p1));
	*normal = s->back ? bsScale(-1.0, t->n) : t->n;
	bsVec3 u, w;
	bsBasis(*normal, &u, &w);
	bsVec3 dir = bsConeDirection(*normal, u, w, s->coneAngle, rng);
	double speed = s->speedMin + bsRng_Uniform(rng) * (s->speedMax - s->speedMin);
	*velocity = bsScale(speed, dir);
}

// Particle k of a shape emitted one at a time: its position (and a nozzle's or surface's velocity;
// a surface's face normal).
static void bsEmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsVec3* position, bsVec3* velocity,
	bsVec3* normal)
{
	const bsEmitter* e = &def->shape;
	*velocity = def->velocity;
	if (e->type == bs_emitterSurface)
	{
		bsSurface_Emit(&e->surface, rng, position, velocity, normal);
		return;
	}
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
		bsVec3 normal = {0.0, 0.0, 0.0};
		bsEmitOne(def, k, rng, p->position + i, p->velocity + i, &normal);
		double radius = def->radius;
		if (def->radiusSpread > 0.0)
		{
			radius *= 1.0 + def->radiusSpread * (2.0 * bsRng_Uniform(rng) - 1.0);
		}
		if (def->shape.type == bs_emitterSurface)
		{
			p->position[i] = bsMulAdd(p->position[i], radius + def->shape.surface.gap, normal);
		}
		p->radius[i] = radius;
		p->state[i] = bs_particleFree;
	}
	return bsCheckAppended(p, start, failed);
}

bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
	if (def->shape.type == bs_emitterNozzle || def->shape.type == bs_emitterSurface)
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
