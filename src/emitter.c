#include "blobsim/emitter.h"

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
