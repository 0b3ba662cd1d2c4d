// interaction_phase.h — the step's interaction phase (interaction.h), for step.c.
#pragma once

#include "world_internal.h"

// Rebuilds the world's neighbour grid from the particles and sets every free particle's velocity to
// v + h a + its viscosity change, from the state before the call (the grid's copy). Adds the pairs to
// the workers' statistics. bs_errOutOfMemory or bs_errTooLarge from the grid.
bsResult bsInteraction_Run(bsWorld* world, const bsStepDef* def, double h, bsParticles* particles);
