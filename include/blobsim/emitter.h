// emitter.h — where particles come from. An emitter is a shape that places positions (a lattice
// filling a box, optionally jittered; uniform random points in a box; a nozzle's disk, which also
// gives each particle its velocity) or a list of particles given as they are (read from a file by the
// caller), or a surface of triangles (a mesh or some of its groups; particles born on it, moving off
// it), with the radius and velocity its particles get.
// A world (world.h) emits its emitters' particles in the step's emit phase: all at once at `start`
// (the default, at t = 0), or over time at `rate` particles a second from `start` to `stop`, or at a
// rate that follows keys (a rate curve). An emitter may move: its shape is in its own frame, which
// keyed translation, rotation and scale place in the world at each particle's birth time.
#pragma once

#include "blobsim/base.h"
#include "blobsim/particles.h"
#include "blobsim/rng.h"
#include "blobsim/track.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum bsEmitterType
{
	bs_emitterGrid = 0,  // count[0] x count[1] x count[2] cell centres of [min, max], x fastest, then y, z
	bs_emitterRandom,    // count[0] uniform points in [min, max]
	bs_emitterList,      // the particles of bsEmitterDef.list, as given
	bs_emitterNozzle,    // count[0] particles on a disk, directions uniform in a cone, speeds in a range
	bs_emitterSurface,   // count[0] particles on triangles by area, off the face, moving along its normal
	bs_emitterTrail,     // from every free particle of another species, at a rate (bsTrail)
	bs_emitterTypeCount
} bsEmitterType;

// A nozzle: particles born uniformly (by area) on the disk of diskRadius about center, normal to
// direction (a point when diskRadius is 0), moving along directions uniform over the solid angle of
// the cone of half-angle coneAngle about direction, at speeds uniform in [speedMin, speedMax].
typedef struct bsNozzle
{
	bsVec3 center;
	bsVec3 direction;   // unit length
	double diskRadius;  // >= 0
	double coneAngle;   // half-angle, radians, 0..pi
	double speedMin, speedMax;  // 0 <= speedMin <= speedMax
} bsNozzle;

// A surface: particles born uniformly by area on triangles. A triangle is chosen with probability
// proportional to its weight (its area, or 0 to leave it out: bsSurface_Accumulate) by a binary search
// of the cumulative weights, and a point uniform in it; the particle starts radius + gap off the face
// along the face normal n (the side from which p1, p2, p3 turn counter-clockwise: triangle.h), moving
// along a direction uniform over the solid angle of the cone of half-angle coneAngle about n, at a
// speed uniform in [speedMin, speedMax].
typedef struct bsSurface
{
	const bsTriangle* triangles;  // borrowed, count of them
	const double* cumulative;     // borrowed: cumulative[i] = the weights of triangles 0..i, the last > 0
	size_t count;                 // >= 1
	double gap;                   // scene units beyond the radius, >= 0
	double coneAngle;             // half-angle, radians, 0..pi/2 (a direction off the face)
	double speedMin, speedMax;    // 0 <= speedMin <= speedMax
	bool back;                    // off the back of the faces: n is replaced by -n (for a mesh wound
	                              // the other way)
	const uint8_t* turn;          // borrowed, NULL or count flags: 1 turns that face's n round too
	                              // (a face wound against its mesh: bsOrientation_Outside)
} bsSurface;

// A trail: every free particle of species `source` (a source) emits the emitter's rate (or rate
// curve) of particles a second, each born at the source's position at its birth time, plus a point
// uniform in the ball of radius `offset` about it, moving at inherit x the source's velocity plus the
// emitter's velocity. The world counts each source's particles (bsWorld_Step's emit phase: a trail
// emits after the other emitters, the births of the step's window [t, t + dt), the source on its
// path in free flight under the step's gravity as the move phase integrates it, each particle then
// started at t where that integrator brings it to its birth point at its birth time):
// a source's births by a time are the floor of the rate's integral over the steps it was free at
// their start, from the step it joined the set.
// A splash (onContact) has no rate: each source's first impact of a step on a mesh, a plane or a
// body gives floor(count + countPerSpeed x the contact's normal speed) particles at the source's
// centre then, moving at inherit x the source's velocity reflected about the contact's normal plus
// the emitter's velocity plus a speed in [speedMin, speedMax] along a direction uniform in the cone of
// half-angle coneAngle about the normal; born after the step's move phase (bsWorld_Step), each
// placed where the move phase would have brought it by the step's end from its contact (free flight
// under gravity: collisions between its birth and the step's end are not swept).
typedef struct bsTrail
{
	uint8_t source;  // the sources' species, not the emitter's own
	double inherit;  // the part of the source's velocity its particles take, finite [0.5]
	double offset;   // radius of the ball about the source they are born in, >= 0 [0]
	bool onContact;  // a splash: at contacts, not at a rate [false]
	double count;    // onContact: particles a contact, >= 1 (finite)
	double countPerSpeed;        // onContact: more a contact per m/s of normal speed, >= 0 [0]
	double coneAngle;            // onContact: half-angle about the normal, radians, 0..pi [0]
	double speedMin, speedMax;   // onContact: 0 <= speedMin <= speedMax, finite [0, 0]
} bsTrail;

// The shape of a grid, random, nozzle or surface emitter (or a trail's settings).
typedef struct bsEmitter
{
	bsEmitterType type;
	bsVec3 min, max;
	uint64_t count[3];  // grid: per axis; random, nozzle, surface: count[0]
	double jitter;      // grid: each point moves up to +-jitter/2 cells on each axis, 0..1
	bsNozzle nozzle;    // nozzle
	bsSurface surface;  // surface
	bsTrail trail;      // trail
} bsEmitter;

// Fills cumulative[0 .. count) with the running sum of the triangles' weights, summed in order (so the
// same triangles give the same table): the area of triangle k, or 0 when selected is given and
// selected[k] is 0. Returns the total.
double bsSurface_Accumulate(const bsTriangle* triangles, size_t count, const uint8_t* selected,
	double* cumulative);

// The triangle a draw u in [0, 1) chooses: the first i with cumulative[i] > u x the total, so a
// triangle of weight 0 is never chosen.
size_t bsSurface_Pick(const bsSurface* surface, double u);

// The tables are there, the total weight is finite and > 0, and gap, cone and speeds are in range.
bool bsSurface_IsValid(const bsSurface* surface);

// A moving emitter's frame: tracks (track.h) of its translation, its rotation (Euler angles about the
// fixed x, then y, then z axis, radians: bsRotation_EulerXYZ, each angle linear between keys) and its
// scale (per axis, > 0); a track of count 0 is absent (no translation, no rotation, scale 1). A
// particle the shape places at p with velocity v in the emitter's frame is born at time t at
//   x = T(t) + R(t) (S(t) p)
// with velocity R(t) v + dx/dt: the frame's own velocity at that point, T' + w x (R (S p)) + R (S' p),
// where w = a' Rz Ry e_x + b' Rz e_y + c' e_z is the angular velocity of the Euler angles (a, b, c)
// and every ' the track's slope from the right (bsTrack_Slope). So a nozzle swept along a path throws
// its particles with the path's speed added, and a spinning one with its rim's.
typedef struct bsEmitterMotion
{
	bsTrack translate;  // scene units
	bsTrack rotate;     // radians
	bsTrack scale;      // every component > 0
} bsEmitterMotion;

// Some track of the motion is there (count > 0).
bool bsEmitterMotion_IsMoving(const bsEmitterMotion* motion);

// Each present track is valid (bsTrack_IsValid) and the scale's values are > 0.
bool bsEmitterMotion_IsValid(const bsEmitterMotion* motion);

// A particle of the emitter's frame at *position with *velocity, born at time t, into the world's
// (above). Nothing changes when no track is there.
void bsEmitterMotion_Apply(const bsEmitterMotion* motion, double t, bsVec3* position, bsVec3* velocity);

// An emitter of a world: a shape and what its particles are like, or a list.
typedef struct bsEmitterDef
{
	bsEmitter shape;            // shape.type says which kind; min, max, count, jitter for grid/random
	double radius;              // grid/random: the particles' radius, > 0
	double radiusSpread;        // radii uniform in radius * [1 - s, 1 + s], s in [0, 1]
	bsVec3 velocity;            // grid/random: every particle's initial velocity
	const bsParticleDef* list;  // list: the particles (borrowed until emitted), each checked
	size_t listCount;
	// When. rate 0: every particle at once, in the step whose window [t, t + dt) holds start. rate > 0:
	// over time, floor(rate (t - start)) particles born by t (t clamped to stop), so a step emits
	// floor(rate (t + dt - start)) - floor(rate (t - start)) of them: the count of a window is
	// rate x window within 1, whatever dt. The shape then gives no count of its own: a grid emits its
	// lattice cell by cell in order (x fastest), starting again at the first cell when every cell has
	// had a particle; a list its particles in order, likewise; random and nozzle fresh draws.
	double start;     // seconds, >= 0 [0]
	double stop;      // seconds, > start and finite over time (a rate or rate curve) [infinity]
	double rate;      // particles a second, >= 0 [0: all at once]
	double lifetime;  // seconds a particle lives after the start of the step it is emitted in, then
	                  // it leaves the simulation (state escaped), > 0 [infinity]
	// A rate curve instead of a constant rate (rate then 0): the particles a second r(t) as keys
	// (values in x, >= 0, linear between keys, the first before them and the last after), the
	// particles born by t floor(I(t)) with I(t) the integral of r from start to t (t clamped to stop,
	// which must be finite), summed span by span in order, exactly as a piecewise quadratic: the
	// count of a window is its integral within 1, whatever dt. count 0: no curve [0].
	bsTrack rateKeys;
	// The emitter's motion (bsEmitterMotion): every particle placed by the shape is moved into the
	// world at its birth time (bsEmitterDef_BirthTime) [no tracks: the shape as it is].
	bsEmitterMotion motion;
	uint8_t species;  // the species its particles get (particles.h), set by the world's emit phase [0]
} bsEmitterDef;

// Fills a def with the defaults: a grid of one particle in the unit cube, radius 1, at rest, emitted
// at once at t = 0, living for ever, not moving.
bsEmitterDef bsDefaultEmitterDef(void);

// def emits over time (a rate > 0 or a rate curve) rather than all at once at start.
bool bsEmitterDef_OverTime(const bsEmitterDef* def);

// The particles def has emitted over time by t, not rounded: rate (t - start) or the rate curve's
// integral I(t), t clamped to [start, stop]; 0 for an emitter of all at once.
double bsEmitterDef_Integral(const bsEmitterDef* def, double t);

// The first t at which the integral (bsEmitterDef_Integral) reaches target, or stop when it never
// does (an emitter over time).
double bsEmitterDef_TimeOfIntegral(const bsEmitterDef* def, double target);

// When particle k (in birth order, from 0) is born: start for an emitter of all at once; over time
// the first t at which the integral reaches k + 1 (start + (k + 1) / rate for a constant rate), or
// stop when it never does.
double bsEmitterDef_BirthTime(const bsEmitterDef* def, uint64_t k);

// Particle of a trail emitter (bsTrail) born at the source's position x, moving at inherit x the
// source's velocity v plus def's velocity: the offset's draws (three when offset > 0: a direction
// and a radius) and then its radius draw (bsEmitterDef_DrawRadius).
bsParticleDef bsTrail_Particle(const bsEmitterDef* def, bsVec3 x, bsVec3 v, bsRng* rng);

// Number of particles the emitter makes (a grid's lattice, else count[0]; a list's particles are its
// def's: 0 here); bs_errTooLarge when the product overflows or exceeds `limit`,
// bs_errInvalidArgument for an unknown type.
bsResult bsEmitter_Count(const bsEmitter* emitter, uint64_t limit, uint64_t* count);

// Writes bsEmitter_Count positions (grid or random). The random stream is consumed in emission
// order, so the same seed and emitters give the same particles.
void bsEmitter_Emit(const bsEmitter* emitter, bsRng* rng, bsVec3* positions);

// How many particles def makes (over time: floor(I(stop)), floor(rate (stop - start)) for a rate; else a list's count or
// bsEmitter_Count); bs_errTooLarge over limit, or for a rate with no finite stop.
bsResult bsEmitterDef_Count(const bsEmitterDef* def, uint64_t limit, uint64_t* count);

// How many of def's particles are born before time t (0 .. bsEmitterDef_Count). A tolerance of 1e-9
// particles keeps the rounding of a sum of steps from moving a birth across a step boundary.
uint64_t bsEmitterDef_Born(const bsEmitterDef* def, double t);

// Particles [first, first + count) of def (in birth order) appended to particles, as for
// bsEmitterDef_Emit but one particle after another: its position draws (surface: the triangle, then
// the point), then (nozzle, surface) its direction and speed draws, then (radiusSpread > 0) its
// radius draw; a surface particle then moves off the face by its radius + gap. *failed is relative
// to first.
bsResult bsEmitterDef_EmitRange(const bsEmitterDef* def, uint64_t first, uint64_t count, bsRng* rng,
	bsParticles* particles, size_t* failed);

// Appends every particle of def to particles: positions from the shape, then (when radiusSpread > 0)
// one draw per particle for its radius, all from rng; a list as given; a nozzle or a surface as
// bsEmitterDef_EmitRange(def, 0, count). Every particle passes
// bsParticleDef_Check; on the first that fails, *failed is its index within the emitter, the
// particles appended so far stay and the result is bs_errInvalidArgument or bs_errNonFinite.
bsResult bsEmitterDef_Emit(const bsEmitterDef* def, bsRng* rng, bsParticles* particles,
	size_t* failed);
