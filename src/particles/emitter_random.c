// emitter_random.c — the random emitter (bs_emitterRandom): count[0] points uniform in the box
// [min, max].
#include "emitter_class.h"

// A point uniform in the box of the given size from min: three draws, x, y, z.
static bsVec3 bsRandomEmitter_Point(const bsEmitter* e, bsVec3 size, bsRng* rng)
{
	double x = bsRng_Uniform(rng);
	double y = bsRng_Uniform(rng);
	double z = bsRng_Uniform(rng);
	return bsV3(e->min.x + x * size.x, e->min.y + y * size.y, e->min.z + z * size.z);
}

static void bsRandomEmitter_Place(const bsEmitter* e, bsRng* rng, bsVec3* out)
{
	bsVec3 size = bsSub(e->max, e->min);
	for (uint64_t i = 0; i < e->count[0]; ++i)
	{
		out[i] = bsRandomEmitter_Point(e, size, rng);
	}
}

static void bsRandomEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle)
{
	(void)k;
	bsVec3 position = bsRandomEmitter_Point(&def->shape, bsSub(def->shape.max, def->shape.min), rng);
	*particle = bsEmitterDef_Particle(def, rng, position, def->velocity);
}

const bsEmitterClass bs_randomEmitter = {
	.name = "random",
	.count = bsEmitterDef_CountGiven,
	.place = bsRandomEmitter_Place,
	.emitOne = bsRandomEmitter_EmitOne,
	.emit = bsEmitterDef_EmitPlaced,
};
