// config_trail.h — the trail emitter of a config (emitter.h: bsTrail): particles[s].emitters[j] of
// "type": "trail", whose `source` names another species, resolved once every species is read.
#pragma once

#include "config_value.h"

// The keys after the timing (read by the caller: start, a rate, an optional stop): source (a species'
// name, kept to be resolved), inherit [0.5], offset [0], on ("always": the rate is required;
// "contact": a splash, no rate, count >= 1 required, count_per_speed [0], cone_angle (degrees) [0]
// and speed [0] as a nozzle's).
bool bsReadTrailEmitter(bsCtx* c, const cJSON* v, bsEmitterConfig* em, bsParticlesConfig* pc);

// Every trail's source name into the index of its species (em->emitter.trail.source): an unknown name
// or the trail's own species is an error at particles[s].emitters[j].source. root: the config's tree.
bool bsResolveTrails(bsCtx* c, const cJSON* root, bsParticlesConfig* pc);

// A speed (both ends of the range) or [min, max] with 0 <= min <= max (config_emitters.c: the nozzle's and
// the surface's too).
bool bsReadSpeed(bsCtx* c, const cJSON* v, double* speedMin, double* speedMax);

// A species' name v (the path at it) into its index in pc, else an error naming it, with the nearest
// name when one is near (config_species.c: the names of interactions[].between too).
bool bsReadSpeciesRef(bsCtx* c, const cJSON* v, const bsParticlesConfig* pc, int* out);
