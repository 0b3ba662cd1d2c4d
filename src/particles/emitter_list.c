// emitter_list.c — the list emitter (bs_emitterList): the particles of bsEmitterDef.list, as given
// (read from a file by the caller), each checked on the way in.
#include "emitter_class.h"

static bsResult bsListEmitter_Count(const bsEmitterDef* def, uint64_t* count)
{
	*count = def->listCount;
	return bs_ok;
}

// The list in order, starting again after its last particle.
static void bsListEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle)
{
	(void)rng;
	*particle = def->list[k % def->listCount];
}

// Each particle through bsParticles_Append, which checks it: *failed is the index of the last tried.
static bsResult bsListEmitter_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* p, size_t* failed)
{
	(void)rng;
	bsResult r = bsParticles_Reserve(p, p->count + def->listCount);
	for (size_t k = 0; r == bs_ok && k < def->listCount; ++k)
	{
		r = bsParticles_Append(p, def->list + k);
		*failed = k;
	}
	return r;
}

static bool bsListEmitter_IsValid(const bsEmitterDef* def)
{
	return !(def->list == NULL && def->listCount > 0);
}

static bool bsListEmitter_IsEmpty(const bsEmitterDef* def)
{
	return def->listCount == 0;
}

const bsEmitterClass bs_listEmitter = {
	.name = "list",
	.count = bsListEmitter_Count,
	.emitOne = bsListEmitter_EmitOne,
	.emit = bsListEmitter_Emit,
	.isValid = bsListEmitter_IsValid,
	.isEmpty = bsListEmitter_IsEmpty,
};
