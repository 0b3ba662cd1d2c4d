// emitter_class.h — the emitter classes: one per bsEmitterType, each in its own file
// src/particles/emitter_NAME.c defining one `const bsEmitterClass bs_NAMEEmitter`, put in the table
// by one line of BS_EMITTER_LIST below. emitter.c holds the loops every class shares (the count
// against a limit, emission all at once or one particle after another, the check of what was
// appended); a class says only what is its own. A class draws only from the stream it is given, in a
// fixed order, so the same seed gives the same particles.
#pragma once

#include "blobsim/emitter.h"

typedef struct bsEmitterClass
{
	const char* name;
	// The particles def makes at once (its rate aside) into *count; bs_errTooLarge when that count
	// overflows.
	bsResult (*count)(const bsEmitterDef* def, uint64_t* count);
	// Writes the positions of every particle at once (bsEmitter_Emit: grid, random), the draws of all
	// of them before any radius draw; NULL: the class has no such positions.
	void (*place)(const bsEmitter* shape, bsRng* rng, bsVec3* positions);
	// Particle k of def (in birth order), its position's and velocity's draws first, then its radius
	// (bsEmitterDef_Particle), for emission over time (bsEmitterDef_EmitRange).
	void (*emitOne)(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle);
	// Appends every particle of def at once (bsEmitterDef_Emit; *failed is 0 on entry): one of the
	// shared bsEmitterDef_EmitPlaced and bsEmitterDef_EmitEach, or the class's own.
	bsResult (*emit)(const bsEmitterDef* def, bsRng* rng, bsParticles* particles, size_t* failed);
	// The class's settings in def are in range (NULL: any are); the world refuses an emitter whose
	// are not.
	bool (*isValid)(const bsEmitterDef* def);
	// def has no particle to give, however many are asked for (NULL: never).
	bool (*isEmpty)(const bsEmitterDef* def);
} bsEmitterClass;

// The class of each bsEmitterType (its value first): a new emitter is its type, its file and one line
// here. Each line declares the class and puts it in emitter.c's table at its type.
#define BS_EMITTER_LIST(X)               \
	X(bs_emitterGrid, bs_gridEmitter)     \
	X(bs_emitterRandom, bs_randomEmitter) \
	X(bs_emitterList, bs_listEmitter)     \
	X(bs_emitterNozzle, bs_nozzleEmitter) \
	X(bs_emitterSurface, bs_surfaceEmitter) \
	X(bs_emitterTrail, bs_trailEmitter)

#define BS_EMITTER_DECLARE(type, name) extern const bsEmitterClass name;
BS_EMITTER_LIST(BS_EMITTER_DECLARE)
#undef BS_EMITTER_DECLARE

// The timing of an emitter and its class's settings are in range (its particles are checked as they
// are emitted).
bool bsEmitterDef_IsValid(const bsEmitterDef* def);

// A rate curve, when def has one, is a valid track of values >= 0 with no constant rate beside it
// (emitter_motion.c).
bool bsEmitterDef_RateKeysValid(const bsEmitterDef* def);

// Particle k of def into *particle, as a class's emitOne, with the caller's data (user).
typedef void bsEmitOneFn(const bsEmitterDef* def, uint64_t k, void* user, bsRng* rng, bsParticleDef* particle);

// bsEmitterDef_EmitRange with emitOne in place of the class's: the same loop, ids, motion and check
// (the world's surface emitters on a moving body, src/step/emitter_body.c).
bsResult bsEmitterDef_EmitRangeWith(const bsEmitterDef* def, uint64_t first, uint64_t count, bsEmitOneFn* emitOne,
	void* user, bsRng* rng, bsParticles* particles, size_t* failed);

// A surface's point: its triangle (one draw, bsSurface_Pick) and barycentric coordinates a, b (two
// draws, folded into the triangle: the point p1 + a (p2 - p1) + b (p3 - p1)). Returns the triangle.
size_t bsSurface_DrawPoint(const bsSurface* surface, bsRng* rng, double* a, double* b);

// The velocity off triangle i of a surface whose face normal is faceNormal (the surface's side and
// the face's turn applied, into *normal): a direction in the cone about it and a speed (three draws).
bsVec3 bsSurface_DrawVelocity(const bsSurface* surface, size_t i, bsVec3 faceNormal, bsRng* rng, bsVec3* normal);

// --- for the classes ---

// count[0] as given: the count of an emitter that is not a lattice (random, nozzle, surface).
bsResult bsEmitterDef_CountGiven(const bsEmitterDef* def, uint64_t* count);

// Emits the positions of class->place, then each particle's radius draw (bsEmitter_Emit's order).
bsResult bsEmitterDef_EmitPlaced(const bsEmitterDef* def, bsRng* rng, bsParticles* particles, size_t* failed);

// Emits one particle after another: bsEmitterDef_EmitRange(def, 0, its count).
bsResult bsEmitterDef_EmitEach(const bsEmitterDef* def, bsRng* rng, bsParticles* particles, size_t* failed);

// def's radius: one draw when spread, else none.
double bsEmitterDef_DrawRadius(const bsEmitterDef* def, bsRng* rng);

// A free particle of def at position moving at velocity, with its radius (bsEmitterDef_DrawRadius):
// the end of a shape's emitOne.
bsParticleDef bsEmitterDef_Particle(const bsEmitterDef* def, bsRng* rng, bsVec3 position, bsVec3 velocity);

// Two unit vectors that make an orthonormal basis with the unit vector d.
void bsEmitter_Basis(bsVec3 d, bsVec3* u, bsVec3* w);

// A direction uniform over the solid angle of the cone of half-angle `angle` about the unit axis a
// (u, w completing the basis); two draws.
bsVec3 bsEmitter_ConeDirection(bsVec3 a, bsVec3 u, bsVec3 w, double angle, bsRng* rng);
