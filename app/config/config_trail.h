// config_trail.h — the trail emitter of a config (emitter.h: bsTrail): particles[s].emitters[j] of
// "type": "trail", whose `source` names another species, resolved once every species is read.
#pragma once

#include "config_value.h"

// The keys after the timing (read by the caller: start, a rate that is required, an optional stop):
// source (a species' name, kept to be resolved), inherit [0.5], offset [0].
bool bsReadTrailEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc);

// Every trail's source name into the index of its species (em->emitter.trail.source): an unknown name
// or the trail's own species is an error at particles[s].emitters[j].source. root: the config's tree.
bool bsResolveTrails(bsCtx* c, const cJSON* root, bsParticlesConfig* pc);

// A species' name v (the path at it) into its index in pc, else an error naming it, with the nearest
// name when one is near (config_read.c: the names of interactions[].between too).
bool bsReadSpeciesRef(bsCtx* c, const cJSON* v, const bsParticlesConfig* pc, int* out);
