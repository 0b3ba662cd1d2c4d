// config_trail.c — the trail emitter of a config (config_trail.h).
#include "config_trail.h"

#include <float.h>
#include <string.h>

// A splash's keys (on: "contact"): count >= 1, count_per_speed, cone_angle and speed; no rate.
static bool bsReadSplash(bsCtx* c, const cJSON* v, bsEmitterConfig* em)
{
	static const bsRange atLeastOne = {1.0, DBL_MAX, false, "a number >= 1"};
	static const bsRange halfAngle = {0.0, 180.0, false, "a number from 0 to 180 (degrees)"};
	if (em->rate > 0.0 || em->rateKeys.count > 0)
	{
		bsPushKey(c, "rate");
		return bsFail(c, "a trail on contact (a splash) takes no rate: it gives count particles at each "
			"contact of a source");
	}
	bsTrail* t = &em->emitter.trail;
	double degrees = 0.0;
	t->onContact = true;
	if (!bsReadNumber(c, v, "count", true, &atLeastOne, 1.0, &t->count) ||
		!bsReadNumber(c, v, "count_per_speed", false, &bsNonNegative, 0.0, &t->countPerSpeed) ||
		!bsReadNumber(c, v, "cone_angle", false, &halfAngle, 0.0, &degrees) ||
		!bsReadSpeed(c, v, &t->speedMin, &t->speedMax))
	{
		return false;
	}
	t->coneAngle = degrees * (BS_PI / 180.0);
	return true;
}

// The keys only a splash takes, refused without on: "contact".
static bool bsRefuseSplashKeys(bsCtx* c, const cJSON* v)
{
	static const char* const keys[] = {"count", "count_per_speed", "cone_angle", "speed"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k)
	{
		if (bsMember(v, keys[k]) != NULL)
		{
			bsPushKey(c, keys[k]);
			return bsFail(c, "only a trail on contact (\"on\": \"contact\", a splash) takes %s", keys[k]);
		}
	}
	return true;
}

bool bsReadTrailEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc)
{
	(void)pc;  // a trail's particles are counted as its sources live: none known beforehand
	static const char* const on[] = {"always", "contact"};
	int when = 0;
	if (!bsReadChoice(c, v, "on", false, on, 2, 0, &when) ||
		!(when == 1 ? bsReadSplash(c, v, em) : bsRefuseSplashKeys(c, v)))
	{
		return false;
	}
	if (when == 0 && !(em->rate > 0.0 || em->rateKeys.count > 0))
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
