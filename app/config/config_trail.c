// config_trail.c — the trail emitter of a config (config_trail.h).
#include "config_trail.h"

#include <string.h>

bool bsReadTrailEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	(void)pc;  // a trail's particles are counted as its sources live: none known beforehand
	if (!(em->rate > 0.0 || em->rateKeys.count > 0))
	{
		return bsMissing(c, "rate");
	}
	const cJSON* source = bsMember(v, "source");
	if (source == NULL)
	{
		return bsMissing(c, "source");
	}
	if (!cJSON_IsString(source) || source->valuestring[0] == '\0')
	{
		bsPushKey(c, "source");
		return bsFailExpected(c, "a species' name (particles[k].name)", source);
	}
	em->trailSource = bsStrDup(source->valuestring);
	bsTrail* t = &em->emitter.trail;
	return (em->trailSource != NULL || bsOutOfMemory(c)) &&
		bsReadNumber(c, v, "inherit", false, &bsAnyNumber, 0.5, &t->inherit) &&
		bsReadNumber(c, v, "offset", false, &bsNonNegative, 0.0, &t->offset);
}

// The trail emitter k's source, at particles[s].emitters[j] of root.
static bool bsResolveTrail(bsCtx* c, const cJSON* root, bsParticlesConfig* pc, int k)
{
	bsEmitterConfig* em = pc->emitters + k;
	int s = em->species, j = 0;
	for (int e = 0; e < k; ++e)
	{
		j += pc->emitters[e].species == s;
	}
	const cJSON* particles = bsMember(root, "particles");
	const cJSON* species = pc->speciesList ? cJSON_GetArrayItem(particles, s) : particles;
	const cJSON* emitter = cJSON_GetArrayItem(bsMember(species, "emitters"), j);
	size_t mark = bsPushKey(c, "particles");
	if (pc->speciesList)
	{
		bsPushIndex(c, s);
	}
	bsPushKey(c, "emitters");
	bsPushIndex(c, j);
	bsPushKey(c, "source");
	int source = 0;
	if (!bsReadSpeciesRef(c, bsMember(emitter, "source"), pc, &source))
	{
		return false;
	}
	if (source == s)
	{
		return bsFail(c, "\"%s\" is the trail's own species: a trail's source is another species (its "
			"particles would give birth to more of themselves)", pc->species[s].name);
	}
	em->emitter.trail.source = (uint8_t)source;
	bsPop(c, mark);
	return true;
}

bool bsResolveTrails(bsCtx* c, const cJSON* root, bsParticlesConfig* pc)
{
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		if (pc->emitters[k].emitter.type == bs_emitterTrail && !bsResolveTrail(c, root, pc, k))
		{
			return false;
		}
	}
	return true;
}
