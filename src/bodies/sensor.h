// sensor.h — Senin, Kojekine, Savchenko & Hagiwara, "Particle-based Collision Detection", section 3:
// the separation of two polygonal bodies tracked by a few "sensor particles" living on their surfaces.
//
// Two particle types, one per body (3.2). A particle feels every other particle: the repulsion
// f_r = 1/r^2 from particles of its own type, the attraction f_a = 1/r^2 from particles of the other
// type closer than R_eff, nothing from those farther (3.3). As potentials: +1/r for its own type,
// -(1/r - 1/R_eff) within R_eff for the other (continuous at R_eff), 1/max(r, 1e-9 R_eff) near 0.
//
// Movement (3.4). A particle sits on a surface site of its body: a vertex, an edge's midpoint or a
// face's centroid (the paper's vertices, generalized to edges and faces). One interaction step moves
// every particle in turn (A's, then B's, in index order) to the neighbouring site of least potential
// if that is lower than where it is: a vertex's neighbours are the vertices of its one-ring, the
// midpoints of its edges and the centroids of its faces; an edge's are its two ends and the centroids
// of its two faces; a face's are its three vertices, its three edge midpoints and the centroids of
// the three faces across its edges (face adjacency, mesh_topology.h).
//
// Relaxation (3.5). Steps run until fewer than N_min particles moved in a step or N_max steps ran.
// Then the closest pair of particles of different types gives the separation. When it is under the
// tolerance, the exact check: every triangle within `exactRings` face rings of each of the two
// particles' sites, all pairs (bsTriangle_TriangleDistance2, the central faces first, pairs whose
// boxes are farther apart than the best so far skipped), gives the distance, the two closest
// points and the normal. Coherence: a query starts from the previous query's relaxed sites. Caching
// (3.5): at the start of a query the influence of the particles farther than `cacheDistance` from a
// particle is frozen as a first-order expansion (potential and gradient at the particle's start
// position), so each step sums only the near particles; a particle with cached neighbours moves at
// most 2 sites a query (a linear potential has no minimum), and the next query freezes it anew.
//
// Defaults (the paper's rules; bsSensorPair_Settings reports what they resolved to):
// - particles per body: 2 x the body's convex parts (3.5), estimated from the mesh: vertices whose
//   mean-curvature estimate (umbrella operator along the vertex normal) says "concave" with a
//   curvature radius under half the body's bounding-box diagonal are removed, and the connected
//   pieces of the rest holding at least 2% of the vertices are the convex parts; clamped to 2..32.
// - R_eff: the larger bounding-box diagonal of the two bodies (the "linear dimensions of the model").
// - N_max: "the maximum length of the possible shortest routes between any two particles": the
//   larger mesh's edge-graph diameter in vertices (double-sweep breadth-first estimate), times 2
//   because edge midpoints put a site half-way between two vertices.
// - N_min: the total particle count / 10, at least 1 (so with under 20 particles the relaxation runs
//   until no particle moves).
// - tolerance: 0.05 R_eff. exactRings: 1 (2 and 3 were no more accurate on the letters, and slower:
//   docs/sensors.md). cacheDistance: 0.25 R_eff.
//
// Poses are rigid (bsTransform); a deforming body passes its current vertex positions (welded order,
// local frame) per query; its adjacency must not change. Everything is deterministic: the same
// inputs give the same outputs bit for bit.
//
// A private header of src/bodies: its settings, bsSensorDef, are public in body.h.
#pragma once

#include "mesh_topology.h"

#include "blobsim/body.h"
#include "blobsim/bvh.h"
#include "blobsim/quat.h"

#include <stdint.h>

typedef struct bsSensorPair bsSensorPair;

// The two bodies' topologies must outlive the pair. bs_errInvalidArgument for a NULL pointer, a
// negative count or setting out of range, or more particles than the body has vertices;
// bs_errOutOfMemory. *pair is NULL on failure.
bsResult bsSensorPair_Create(bsSensorPair** pair, const bsMeshTopology* a, const bsMeshTopology* b,
	const bsSensorDef* def);

void bsSensorPair_Destroy(bsSensorPair* pair);

// The settings in use, with every auto value resolved.
bsSensorDef bsSensorPair_Settings(const bsSensorPair* pair);

// The guard (optional): the sensors' separation is only an upper bound of the distance, and its error
// has no bound (the particles settle in a minimum of their energy, which need not be the closest
// features: the W letters passed into each other). With the bodies' BVHs given, a separation that
// could be within contactDistance is confirmed by the exact BVH-BVH distance (mesh_distance.h), so
// every answer at or under contactDistance is exact. Whether it could is decided by a certificate,
// not by the sensors: the last exact distance d_e minus how far the two surfaces can have moved
// relative to each other since, which is, in either body's frame, the other's rigid motion there
// (|change of its centre| + 2 sin(turn / 2) x its radius about that centre) plus both bodies' largest
// vertex displacement in their own frames (a deforming or rescaled body; points of a face move by at
// most its vertices'). While that lower bound stays above contactDistance, no pair of points can be
// that close and the sensors' answer (>= the distance) stands; otherwise the exact query runs (with
// the sensors' separation as its bound and the last answer's leaves as its hint) and renews the
// certificate. The first guarded query is always exact.
typedef struct bsSensorQueryInput
{
	bsTransform poseA;         // A's local frame to the world
	bsTransform poseB;
	const bsVec3* positionsA;  // A's welded vertex positions in its local frame; NULL: the rest ones
	const bsVec3* positionsB;
	const bsBvh* bvhA;         // the guard: A's triangles in its local frame, as positionsA place them
	const bsBvh* bvhB;         // (NULL either: no guard, the paper's method alone)
	double contactDistance;    // the guard: separations up to this are exact (>= 0)
} bsSensorQueryInput;

// A contact for the rigid-body response maps as: point = contactPoint, normal = normal (from A to
// B), separation = separation, bodies A and B.
typedef struct bsSensorQueryOutput
{
	double separation;        // the exact check's distance when it ran, else particleDistance
	double particleDistance;  // the closest pair of particles of different types
	bsVec3 pointA;            // world: the exact check's closest points, else the two particles
	bsVec3 pointB;
	bsVec3 contactPoint;      // (pointA + pointB) / 2
	bsVec3 normal;            // unit, from A towards B; zero when no exact check ran
	uint32_t particleA;       // the closest pair's particles
	uint32_t particleB;
	uint32_t triangleA;       // the exact check's closest triangles (BS_NO_TRIANGLE without it)
	uint32_t triangleB;
	uint32_t facePairs;       // triangle pairs the exact check tested (after the boxes' test)
	int steps;                // interaction steps run by this query
	int moves;                // particle moves, summed over the steps
	uint8_t exactChecked;     // 1 when the exact check (or the guard's exact distance) ran
	uint8_t touching;         // 1 when it found intersecting faces (separation 0)
	uint8_t guarded;          // 1 when the guard's exact BVH-BVH distance gave the answer
	double lowerBound;        // the guard's certified lower bound of the distance before this query's
	                          // exact distance (-HUGE_VAL: none yet; without the guard 0)
} bsSensorQueryOutput;

// One collision query: relaxes the particles from their last sites, measures, and with the guard
// confirms what could be a contact. bs_errInvalidArgument for a NULL pointer or a negative or NaN
// contactDistance, bs_errNonFinite for a non-finite pose, bs_errOutOfMemory (the guard's copy of a
// deforming body's vertices); *out is zeroed with separation HUGE_VAL.
bsResult bsSensorPair_Query(bsSensorPair* pair, const bsSensorQueryInput* input, bsSensorQueryOutput* out);

// The particles after the last query (world positions; the rest pose before any query).
uint32_t bsSensorPair_ParticleCount(const bsSensorPair* pair, int body);  // body 0: A, 1: B
bsVec3 bsSensorPair_Particle(const bsSensorPair* pair, int body, uint32_t index);

// The estimated convex parts of a mesh (see the defaults above); positions NULL: the rest ones.
uint32_t bsSensor_ConvexParts(const bsMeshTopology* topology, const bsVec3* positions);
