// over_life.c — a particle's look from its age (over_life.h).
#include "over_life.h"

double bsOverLife_RadiusScale(const bsOverLifeConfig* o, double age)
{
	return o->hasRadius ? bsTrack_At(&o->radiusScale, age).x : 1.0;
}

void bsOverLife_Color(const bsOverLifeConfig* o, double age, float rgba[4])
{
	bsVec3 c = o->hasColor ? bsTrack_At(&o->color, age) : bsV3(1.0, 1.0, 1.0);
	double a = o->hasOpacity ? bsTrack_At(&o->opacity, age).x : 1.0;
	rgba[0] = (float)c.x;
	rgba[1] = (float)c.y;
	rgba[2] = (float)c.z;
	rgba[3] = (float)a;
}

int bsSpecies_Of(const bsParticlesConfig* pc, const bsParticles* p, size_t i)
{
	int s = p->species != NULL ? p->species[i] : 0;
	return s < pc->speciesCount || s == 0 ? s : pc->speciesCount - 1;
}

bool bsOverLife_AnySpecies(const bsParticlesConfig* pc)
{
	if (pc->speciesCount == 0)
	{
		return bsOverLife_Any(&pc->overLife);
	}
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		if (bsOverLife_Any(&pc->species[k].overLife))
		{
			return true;
		}
	}
	return false;
}

bool bsOverLife_AnyColor(const bsParticlesConfig* pc)
{
	if (pc->speciesCount == 0)
	{
		return pc->overLife.hasColor || pc->overLife.hasOpacity;
	}
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		if (pc->species[k].overLife.hasColor || pc->species[k].overLife.hasOpacity)
		{
			return true;
		}
	}
	return false;
}

const bsOverLifeConfig* bsOverLife_Of(const bsParticlesConfig* pc, const bsParticles* p, size_t i)
{
	return pc->speciesCount > 0 ? &pc->species[bsSpecies_Of(pc, p, i)].overLife : &pc->overLife;
}
