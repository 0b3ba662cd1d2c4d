// sleep.h — rest (step.h: sleepSteps): the sleep check at the end of a step and the waking of the
// sleeping particles moving ones touched. Each particle's calm count and its velocity at the start of
// the step are the world's, kept only while sleep is on.
#pragma once

#include "world_internal.h"

// Before the substeps: sizes the world's arrays for the particles and records their velocities.
// bs_errOutOfMemory.
bsResult bsSleep_Begin(bsWorld* world, const bsParticles* particles);

// After the substeps, particles [begin, end): counts calm steps and puts to sleep the particles calm
// for def->sleepSteps steps; a particle in any other state starts again from 0. Counts into stats.
void bsSleep_Check(bsWorld* world, const bsStepDef* def, bsParticles* particles, size_t begin, size_t end,
	bsStepStats* stats);

// Records, from a worker's move, that a moving particle touched sleeping particle `sleeper`. False
// when out of memory.
bool bsWakeList_Push(bsWakeList* list, uint32_t sleeper);

// After a move phase: wakes every sleeper the workers recorded (free again, at rest, calm count 0)
// and empties the lists. Waking is setting a state, so the order of the lists changes nothing.
void bsSleep_Wake(bsWorld* world, bsParticles* particles, bsStepStats* stats);
