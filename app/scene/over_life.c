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
