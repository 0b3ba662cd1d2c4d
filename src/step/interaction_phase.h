// interaction_phase.h — the step's interaction phase (step.h), for step.c.
#pragma once

#include "world_internal.h"

// Rebuilds the world's neighbour grid from the particles and sets every free particle's velocity to
// v + h a + its viscosity change, from the state before the call (the grid's copy). Stuck particles
// (with the stuck collider, world.h) and sleeping ones (with rest on) are fixed neighbours: they push
// and pull free particles but are not integrated. A free particle touching a sleeper and approaching
// it faster than wakeSpeed and than g x the shortest contact period (a particle settling on it under
// gravity stays below that) puts it on its worker's wake list (sleep.h: bsSleep_Wake wakes it; an out
// of memory is the worker's error). Adds the pairs to the workers' statistics. bs_errOutOfMemory or
// bs_errTooLarge from the grid.
bsResult bsInteraction_Run(bsWorld* world, const bsStepDef* def, double h, double wakeSpeed, bsParticles* particles);
