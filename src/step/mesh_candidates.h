// mesh_candidates.h — each particle's candidate triangles of the world's first mesh, kept between
// substeps, so that the move phase's sweep tests a few triangles instead of walking the BVH.
//
// A particle's entry holds an anchor a (a point, stored as floats), a skin s (a float) and the
// triangles (their places in the BVH's triangle order) whose closest point lies within
// r + s + slack of a, slack = 1e-6 r + 1e-9 (1 + max |a_k|) (the kernels' own rounding allowance,
// bsMakeSweep's roundoff, is 1e-14 of the coordinates). A sweep from C1 to C2 of radius r is answered
// from the entry when both |C1 - a| <= s and |C2 - a| <= s: every point of the segment is then within
// s of a (a ball is convex), so every point the swept sphere covers is within r + s of a, and a
// triangle left out, farther than r + s + slack from a, is farther than slack from the swept sphere:
// no kernel reports a contact with it. The candidates are tested with the same kernels, the same
// bound (bsBvhBest: the smallest t, then the lowest caller's index) and the same finishing as the BVH
// walk (bsBvh_SweepLeaves), so the answer is the walk's bit for bit. Otherwise (the particle moved
// out of its ball, is new, or the mesh changed) the entry is made again around C1 with
// s = max(BS_MESH_SKIN r, 2 |C2 - C1|); a sweep the new entry still does not hold (a float anchor far
// from the origin) and an entry with more than BS_MESH_CANDIDATES triangles are answered by the walk.
// The ray method (a point, with its own open-edge rule) always walks.
//
// Memory: 36 bytes a particle, only with an interaction in a world whose first collider is a mesh.
#pragma once

#include "blobsim/collide.h"
#include "blobsim/world.h"

#define BS_MESH_CANDIDATES 4  // triangles an entry holds
#define BS_MESH_SKIN 0.5      // the skin, x the particle's radius

typedef struct bsMeshCandidates
{
	float anchor[3];
	float skin;      // < 0: no entry
	uint32_t leaf[BS_MESH_CANDIDATES];
	uint8_t count;   // BS_MESH_CANDIDATES + 1: more than the entry holds
} bsMeshCandidates;

typedef struct bsMeshCache
{
	const void* shape;            // the mesh (a bsBvh) the entries are of
	bsMeshCandidates* particles;  // by particle index
	size_t count, capacity;       // entries in use, room
} bsMeshCache;

// Room for an entry per particle before a move phase, new ones empty; every entry emptied when the
// world's first collider is no longer the same mesh. False when out of memory (the cache is then off:
// every sweep walks, the same answers). on false turns it off: the step keeps candidates only with an
// interaction, whose many short substeps they pay for; a step of long sweeps would make its entries
// again at nearly every sweep, so without one it costs neither the time nor the memory.
bool bsMeshCache_Prepare(bsMeshCache* cache, const bsWorld* world, size_t particles, bool on);

// bsWorld_SweepWindow for particle i's sweep in the move phase: the same answer, the first mesh's
// part from particle i's entry where it holds (the worker that moves particle i owns its entry).
void bsMeshCache_Sweep(const bsWorld* world, bsMethod method, const bsSweep* sweep, double u0, size_t i,
	bsSweepOutput* out, bsQueryStats* stats);

// True when particle i's sweep from c1 to c2 of the radius (by method) touches no collider, known
// without making the sweep: the world's only collider is its first mesh, and particle i's entry holds
// both ends and has no triangle (no triangle within r + s + slack of its anchor, so none within slack
// of the swept sphere: above). bsMeshCache_Sweep would answer that sweep with a miss from the same
// entry, kept as it is (an entry of no triangle is kept whenever it holds), so the move phase takes
// c2 without making the sweep; the query is counted in stats as bsMeshCache_Sweep counts it (no node,
// no triangle). False, and nothing counted, otherwise: the move phase makes the sweep.
bool bsMeshCache_Clear(const bsWorld* world, bsMethod method, size_t i, bsVec3 c1, bsVec3 c2, double radius,
	bsQueryStats* stats);

size_t bsMeshCache_Bytes(const bsMeshCache* cache);

void bsMeshCache_Free(bsMeshCache* cache);
