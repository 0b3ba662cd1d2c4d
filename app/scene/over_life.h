// over_life.h — particles.over_life at write time: a particle's drawn radius and colour from the ramps
// (config.h: bsOverLifeConfig) at its age. Nothing is kept per particle: ages come from the world's
// birth records (bsWorld_BirthTime) and the looks are made for each write and dropped.
#pragma once

#include "config.h"

// The drawn radius over the collision radius at age (1 without a radius ramp).
double bsOverLife_RadiusScale(const bsOverLifeConfig* o, double age);

// rgba at age: the colour ramp's red, green, blue (white without one) and the opacity ramp's alpha
// (1 without one), as floats.
void bsOverLife_Color(const bsOverLifeConfig* o, double age, float rgba[4]);
