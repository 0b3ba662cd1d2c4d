#include "emission.h"

#include "ply.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bsEmission_Free(bsEmission* e)
{
	for (int k = 0; k < e->count && e->lists != NULL; ++k)
	{
		free(e->lists[k]);
	}
	free(e->lists);
	free(e->listCounts);
	memset(e, 0, sizeof(*e));
}

// A file's particles as the engine takes them, each checked; false with `file: vertex K: ...`.
static bool bsListFromPly(const bsPlyData* d, const bsParticlesConfig* pc, const char* file,
	bsParticleDef** out, char* err, size_t errlen)
{
	*out = malloc((d->count + 1) * sizeof(bsParticleDef));
	if (*out == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	for (size_t k = 0; k < d->count; ++k)
	{
		const bsPlyParticle* q = d->particles + k;
		bsParticleDef* p = *out + k;
		p->position = q->position;
		p->radius = (d->fields & bs_plyHasRadius) ? q->radius : pc->radius;
		p->velocity = (d->fields & bs_plyHasVelocity) ? q->velocity : pc->velocity;
		p->state = (d->fields & bs_plyHasState) ? q->state : (uint8_t)bs_particleFree;
		bsParticleFault fault = bsParticleDef_Check(p);
		if (fault != bs_particleOk)
		{
			char what[160];
			bsParticleFault_Describe(fault, p, what, sizeof(what));
			snprintf(err, errlen, "%s: vertex %zu: %s", file, k, what);
			return false;
		}
	}
	return true;
}

bool bsEmission_Load(bsEmission* e, const bsConfig* c, char* err, size_t errlen)
{
	const bsParticlesConfig* pc = &c->particles;
	memset(e, 0, sizeof(*e));
	e->count = pc->emitterCount;
	e->lists = calloc((size_t)pc->emitterCount + 1, sizeof(bsParticleDef*));
	e->listCounts = calloc((size_t)pc->emitterCount + 1, sizeof(size_t));
	if (e->lists == NULL || e->listCounts == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", c->path);
		bsEmission_Free(e);
		return false;
	}
	uint64_t n = (uint64_t)pc->particleCount;
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		const char* file = pc->emitters[k].file;
		if (file == NULL)
		{
			continue;
		}
		bsPlyData d;
		bool ok = bsPly_Read(file, &d, err, errlen) && bsListFromPly(&d, pc, file, e->lists + k, err, errlen);
		e->listCounts[k] = d.count;
		n += pc->emitters[k].rate > 0.0 ? 0 : d.count;  // a rate's count is in particleCount
		free(d.particles);
		if (!ok)
		{
			bsEmission_Free(e);
			return false;
		}
	}
	if (n > BS_CONFIG_MAX_PARTICLES)
	{
		snprintf(err, errlen, "%s: %" PRIu64 " particles, more than %d", c->path, n, BS_CONFIG_MAX_PARTICLES);
		bsEmission_Free(e);
		return false;
	}
	e->total = n;
	return true;
}

bsResult bsEmission_AddToWorld(const bsEmission* e, const bsConfig* c, bsWorld* world)
{
	const bsParticlesConfig* pc = &c->particles;
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		bsEmitterDef def = bsDefaultEmitterDef();
		def.start = pc->emitters[k].start;
		def.stop = pc->emitters[k].stop;
		def.rate = pc->emitters[k].rate;
		def.lifetime = pc->lifetime;
		if (pc->emitters[k].file != NULL)
		{
			def.shape.type = bs_emitterList;
			def.list = e->lists[k];
			def.listCount = e->listCounts[k];
		}
		else
		{
			def.shape = pc->emitters[k].emitter;  // a nozzle gives its particles their velocity
			def.radius = pc->radius;
			def.radiusSpread = pc->radiusSpread;
			def.velocity = pc->velocity;
		}
		bsResult r = bsWorld_AddEmitter(world, &def);
		if (r != bs_ok)
		{
			return r;
		}
	}
	// Cells of twice the largest diameter: a particle's query visits a few cells.
	return pc->accumulate ? bsWorld_AddStuckParticles(world, 4.0 * pc->radius * (1.0 + pc->radiusSpread)) : bs_ok;
}
