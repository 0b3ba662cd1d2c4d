// emitter_grid.c — the grid emitter (bs_emitterGrid): the cell centres of a lattice filling the box
// [min, max], count[0] x count[1] x count[2] cells, x fastest, then y, z, each moved by up to
// +-jitter/2 cells on each axis.
#include "emitter_class.h"

// The lattice's cell count: the product of the three, bs_errTooLarge when it overflows.
static bsResult bsGridEmitter_Count(const bsEmitterDef* def, uint64_t* count)
{
	const bsEmitter* e = &def->shape;
	uint64_t n = 1;
	for (int a = 0; a < 3; ++a)
	{
		if (e->count[a] != 0 && n > UINT64_MAX / e->count[a])
		{
			return bs_errTooLarge;
		}
		n *= e->count[a];
	}
	*count = n;
	return bs_ok;
}

// The size of one cell.
static bsVec3 bsGridEmitter_Cell(const bsEmitter* e)
{
	bsVec3 size = bsSub(e->max, e->min);
	return bsV3(size.x / (double)e->count[0], size.y / (double)e->count[1], size.z / (double)e->count[2]);
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

static void bsGridEmitter_Place(const bsEmitter* e, bsRng* rng, bsVec3* out)
{
	bsVec3 cell = bsGridEmitter_Cell(e);
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

// The lattice cell by cell, as bsGridEmitter_Place orders it, starting again after the last cell.
static void bsGridEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle)
{
	const bsEmitter* e = &def->shape;
	uint64_t cells = e->count[0] * e->count[1] * e->count[2];
	uint64_t c = k % cells;
	uint64_t x = c % e->count[0], y = c / e->count[0] % e->count[1], z = c / e->count[0] / e->count[1];
	bsVec3 position = bsLatticePoint(e, bsGridEmitter_Cell(e), x, y, z, rng);
	*particle = bsEmitterDef_Particle(def, rng, position, def->velocity);
}

// A grid by rate cycles through its lattice: it needs one of at least one cell.
static bool bsGridEmitter_IsValid(const bsEmitterDef* def)
{
	uint64_t cells = 0;
	return !bsEmitterDef_OverTime(def) || (bsGridEmitter_Count(def, &cells) == bs_ok && cells > 0);
}

const bsEmitterClass bs_gridEmitter = {
	.name = "grid",
	.count = bsGridEmitter_Count,
	.place = bsGridEmitter_Place,
	.emitOne = bsGridEmitter_EmitOne,
	.emit = bsEmitterDef_EmitPlaced,
	.isValid = bsGridEmitter_IsValid,
};
