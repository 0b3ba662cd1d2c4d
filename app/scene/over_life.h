// over_life.h — particles.over_life at write time: a particle's drawn radius and colour from the ramps
// (config.h: bsOverLifeConfig) at its age. Nothing is kept per particle: ages come from the world's
// birth records (bsWorld_BirthTime) and the looks are made for each write and dropped.
#pragma once

#include "config.h"

#include "blobsim/particles.h"

// The drawn radius over the collision radius at age (1 without a radius ramp).
double bsOverLife_RadiusScale(const bsOverLifeConfig* o, double age);

// rgba at age: the colour ramp's red, green, blue (white without one) and the opacity ramp's alpha
// (1 without one), as floats.
void bsOverLife_Color(const bsOverLifeConfig* o, double age, float rgba[4]);

// Particle i's species: its species byte (0 without a species array), the config's last beyond them.
int bsSpecies_Of(const bsParticlesConfig* pc, const bsParticles* p, size_t i);

// Some species has a ramp; some species has a colour or opacity ramp.
bool bsOverLife_AnySpecies(const bsParticlesConfig* pc);
bool bsOverLife_AnyColor(const bsParticlesConfig* pc);

// Particle i's ramps: its species' (pc->overLife for a config without species, as a test builds one).
const bsOverLifeConfig* bsOverLife_Of(const bsParticlesConfig* pc, const bsParticles* p, size_t i);
