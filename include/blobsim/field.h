// field.h — the rules of Ilmonen, Takala & Laitinen (WSCG 2006, sections 3.3-3.6) that turn a
// distance/normal grid (distance_grid.h) into a change of a particle's velocity: spring, impact, drag
// and surface flow. Each reads only the grid's cell at the particle (or the trilinear blend of the 8
// around it) and the particle's own velocity, so a step can apply them to every particle in parallel.
//
// The step applies them in its forces phase (src/step/forces.c, bs_field) through bsField_ApplyRange.
// What the field does not guarantee: it is a lookup at the particle's position, not a sweep, so a
// particle fast enough to cross the field's thickness (the impact's reach below) in one step passes
// through; and a particle is a point to it (its radius is not taken into account beyond what the
// thresholds add). The exact swept-sphere collisions guarantee no penetration; the field shapes the
// flow.
#pragma once

#include "blobsim/distance_grid.h"
#include "blobsim/grid_tree.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsFieldDef
{
	// Spring (3.3): within springDistance of the surface, an acceleration spring (springDistance - d)
	// along the normal: the deeper, the stronger. 0 turns it off.
	double spring;           // 1/s^2
	double springDistance;   // scene units

	// Impact (3.4): a particle moving towards the surface (v . N < 0) whose next position would be
	// within `threshold` of it (d + (v . N) dt <= threshold) has its normal velocity reflected with
	// restitution beta: v - (1 + beta)(v . N) N. The reach grows with the approach speed, so a fast
	// particle bounces as it enters the field and a slow one close to the surface (the paper's
	// Figure 4). A threshold < 0 turns it off.
	double threshold;        // L, scene units
	double restitution;      // beta, 0..1

	// Drag (3.5): within contactDistance of the surface, the velocity decays at rate `drag`
	// (v <- v exp(-drag dt)). 0 turns it off.
	double drag;             // delta, 1/s
	double contactDistance;  // theta, scene units

	// Surface flow (3.6), the paper's pseudocode: within flowDistance, gamma = N . V,
	// E = (V x N) x V, F = rho_in E/|E| when gamma < 0 (incoming) else rho_out E/|E|. F is
	// perpendicular to V: it turns the velocity by F dt and keeps its speed (an explicit step would add
	// |F dt|^2 / 2|V| each time). 0 and 0 turn it off.
	double flowIn;           // rho_in, scene units/s^2
	double flowOut;          // rho_out
	double flowDistance;

	bool trilinear;          // blend the 8 cells around the particle (else the paper's nearest cell)
} bsFieldDef;

// All rules off, nearest-cell lookup.
bsFieldDef bsDefaultFieldDef(void);

// False for a setting out of range: any value not finite, spring, drag or a distance below 0,
// restitution outside 0..1, or a rule on (spring or drag above 0, rho_in or rho_out not 0) with its
// distance 0. bsWorld_Step refuses such a bsStepDef.field (bs_errInvalidArgument).
bool bsFieldDef_IsValid(const bsFieldDef* def);

// The particle's velocity after one step of dt at position x under the grid's field: spring, surface
// flow and drag first (accelerations and damping over dt), then impact on the result. Outside the
// grid, v is returned as it is. Returns true when the particle was in the grid.
bool bsField_Apply(const bsDistanceGrid* grid, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v);

// The same over the compressed grid (grid_tree.h): the tree's cell (or trilinear blend) instead of the
// dense grid's, the rules the same.
bool bsField_ApplyTree(const bsGridTree* tree, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v);

// bsField_Apply (tree NULL) or bsField_ApplyTree (tree not NULL; grid is then not read) for
// particles begin..end-1, v[i] at x[i], those whose state[i] is 0 (bs_particleFree) only when state
// is not NULL. Each particle's result is bit for bit the single call's; the grid's scale and the
// rules' constants are worked out once for the range.
void bsField_ApplyRange(const bsDistanceGrid* grid, const bsGridTree* tree, const bsFieldDef* def, double dt,
	const bsVec3* x, bsVec3* v, const uint8_t* state, size_t begin, size_t end);
