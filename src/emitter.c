#include "blobsim/emitter.h"

bsEmitterDef bsDefaultEmitterDef(void)
{
	bsEmitterDef def = {0};
	def.shape.type = bs_emitterGrid;
	def.shape.max = bsV3(1.0, 1.0, 1.0);
	def.shape.count[0] = def.shape.count[1] = def.shape.count[2] = 1;
	def.radius = 1.0;
	return def;
}

bsResult bsEmitter_Count(const bsEmitter* e, uint64_t limit, uint64_t* count)
{
	uint64_t n;
	if (e->type == bs_emitterRandom)
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
				bsVec3 p = bsV3(e->min.x + ((double)x + 0.5) * cell.x, e->min.y + ((double)y + 0.5) * cell.y,
					e->min.z + ((double)z + 0.5) * cell.z);
				if (e->jitter > 0.0)
				{
					p.x += e->jitter * cell.x * (bsRng_Uniform(rng) - 0.5);
					p.y += e->jitter * cell.y * (bsRng_Uniform(rng) - 0.5);
					p.z += e->jitter * cell.z * (bsRng_Uniform(rng) - 0.5);
				}
				out[i++] = p;
			}
		}
	}
}

bsResult bsEmitterDef_Count(const bsEmitterDef* def, uint64_t limit, uint64_t* count)
{
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
	}
	p->count = first + (size_t)n;
	return bsCheckAppended(p, first, failed);
}

bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	*failed = 0;
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
