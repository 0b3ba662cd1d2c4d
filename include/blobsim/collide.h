// collide.h — one moving sphere against triangles: the question blobsim asks millions of times.
//
// A sphere of radius R moves in a straight line from C1 to C2 during one step; its trace is a capsule
// (a cylinder with spherical caps). Three methods answer "does it touch the triangle, and where does
// it stop?":
//   karabassi  the paper's tests (Karabassi, Papaioannou & Theoharis, JGT 1999): sphere/triangle
//              Steps 1-4 and cylinder/triangle Par4-Par8 / Int4-Int6, combined as in its main loop.
//              Same hit/miss answer as exact; the stop point is an estimate inside the contact
//              interval (docs/algorithm.md states the guarantee).
//   exact      the exact time of first contact t in [0, 1] (face, edge or vertex), so that a stopped
//              sphere just touches the surface.
//   ray        the point-particle baseline of the paper's Fig. 8c: the segment C1 -> C2, radius
//              ignored; watertight at shared edges and vertices.
// Motion is parametrised as C(t) = C1 + t (C2 - C1), t in [0, 1]. Contact means dist(C(t), T) <= R
// (closed sets: a tangential touch is a contact).
//
// At the end: analytic planes (the world's other static collider) and the point of a triangle list
// nearest a query point. The tests of one triangle, plane or sphere at a time, which the list loops,
// the BVH's walks and the world's colliders share, are the engine's (src/collide/collide_internal.h).
#pragma once

#include "blobsim/base.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

typedef enum bsMethod
{
	bs_methodKarabassi = 0,
	bs_methodExact,
	bs_methodRay,
	bs_methodCount
} bsMethod;

// Which sub-test of a method found a contact.
typedef enum bsTest
{
	bs_testNone = 0,
	bs_testStartSphere,  // karabassi: sphere/triangle test at C1 (the sweep starts in contact)
	bs_testCylinder,     // karabassi: cylinder/triangle test on the trace C1 -> C2
	bs_testEndSphere,    // karabassi: sphere/triangle test at C2 (the paper's spherical cap)
	bs_testExact,        // exact
	bs_testRay,          // ray
	bs_testPlane,        // an analytic plane of the environment (bsPlane), any method
	bs_testSphere,       // a static sphere: a stuck or sleeping particle (world.h), any method
	bs_testCount
} bsTest;

// The branch, named as in the paper where the paper names it.
typedef enum bsBranch
{
	bs_branchNone = 0,
	bs_branchStep2,   // sphere/triangle: a vertex inside the sphere
	bs_branchStep3,   // sphere/triangle: the projected centre inside the triangle
	bs_branchStep4,   // sphere/triangle: the sphere crosses an edge (section 3.1)
	bs_branchPar5,    // cylinder, axis parallel to the plane: a vertex inside the cylinder
	bs_branchPar6,    // cylinder, parallel: C1 projects inside the triangle
	bs_branchPar7,    // cylinder, parallel: the projected axis crosses an edge
	bs_branchInt4,    // cylinder, axis meets the plane: inside the triangle
	bs_branchInt6,    // cylinder, axis meets the plane: an edge's closest point inside the cylinder
	bs_branchStart,   // exact/ray: already in contact at t = 0
	bs_branchFace,    // exact/ray: first contact on the face
	bs_branchEdge,    // exact: first contact on an edge
	bs_branchVertex,  // exact: first contact on a vertex
	bs_branchCount
} bsBranch;

// One query.
typedef struct bsSweepInput
{
	bsVec3 c1;      // centre at the start of the step
	bsVec3 c2;      // centre at the end of the step if nothing is hit
	double radius;  // R >= 0 (ignored by the ray method)
} bsSweepInput;

#define BS_NO_TRIANGLE UINT32_MAX

// The kinds of collider a world holds (world.h). A query of one BVH reports bs_colliderMesh.
typedef enum bsColliderKind
{
	bs_colliderMesh = 0,  // a static triangle mesh with its BVH
	bs_colliderPlane,     // analytic planes
	bs_colliderStuck,     // stuck and sleeping particles (world.h: bsWorld_AddStuckParticles)
	bs_colliderBody,      // a moving body (world.h: bsWorld_AddBody)
	bs_colliderKindCount
} bsColliderKind;

// The answer: the nearest contact along the motion.
typedef struct bsSweepOutput
{
	double t;          // stop fraction in [0, 1]; 1 when nothing is hit
	bsVec3 center;     // centre where the sphere stops: C1 + t (C2 - C1) (C2 exactly when t == 1)
	bsVec3 point;      // contact point: the mesh's point nearest center (the hit triangle's unless
	                   // a neighbour is nearer: see bsSweepList)
	bsVec3 normal;     // unit contact normal at point, from the surface towards the centre
	uint32_t triangle; // the primitive hit within its collider: the triangle's index for a mesh, the
	                   // plane's for planes; BS_NO_TRIANGLE when none
	uint16_t collider; // the world's collider hit (world.h: ids in the order added); 0 for one BVH
	uint8_t kind;      // bsColliderKind of that collider
	uint8_t hit;       // 1 when a contact was found
	uint8_t test;      // bsTest
	uint8_t branch;    // bsBranch
	uint8_t feature;   // vertex or edge index (0..2) for Step2/Step4/Par5/Int6/edge/vertex contacts
} bsSweepOutput;

// A query prepared once and tested against many triangles.
typedef struct bsSweep
{
	bsVec3 c1, c2;
	bsVec3 d;        // C2 - C1
	bsVec3 axis;     // unit axis C1 -> C2, zero when the motion has zero length
	double len;      // |C2 - C1|
	double len2;     // |C2 - C1|^2
	double radius;
	double radius2;
	bsVec3 boxMin;   // bounds of the capsule: min(C1, C2) - R
	bsVec3 boxMax;   // max(C1, C2) + R
	double roundoff; // bound on the rounding of a plane distance at C1 or C2 (the slab cull)
} bsSweep;

// Checks the input (finite coordinates, radius >= 0) and precomputes the sweep.
bsResult bsMakeSweep(const bsSweepInput* input, bsSweep* sweep);

// The paper's main loop over a triangle list: the contact nearest C1 wins (the first triangle on
// ties); the contact point and normal are then those of the mesh's point nearest the stop centre
// when the stop may overlap the surface on an edge or a vertex (a karabassi estimate, an exact sweep
// that starts in contact). Brute force; the BVH answers the same question faster (bvh.h).
bsResult bsSweepList(bsMethod method, const bsTriangle* tris, uint32_t count,
	const bsSweepInput* input, bsSweepOutput* out);

// The list loop with the triangles' open edges (open[i], bit k: edge k of triangle i, p1p2, p2p3,
// p3p1, has no neighbour; bsFindOpenEdges), which the ray method's tie rule gives every crossing
// exactly on them (docs/algorithm.md); open NULL: none, as bsSweepList. The BVH's answers are this
// with the open edges of its build.
bsResult bsSweepListOpen(bsMethod method, const bsTriangle* tris, const uint8_t* open, uint32_t count,
	const bsSweepInput* input, bsSweepOutput* out);

// Per triangle, bit k of open[i] set when edge k (p1p2, p2p3, p3p1) of triangle i is an edge of no
// other triangle (ends matched by exact position, either direction): the border of an open mesh.
// The edges of three or more triangles are paired in the order given, and an odd one out is open.
// Linear time, fastest for spatially coherent orders (the BVH's leaf order); bs_errInvalidArgument
// (NULL with count > 0), bs_errOutOfMemory, bs_errTooLarge (count above 1.4 billion).
bsResult bsFindOpenEdges(const bsTriangle* tris, uint32_t count, uint8_t* open);

// Names for reports ("karabassi", "Int6", ...). Never NULL.
const char* bsMethodName(bsMethod method);
const char* bsTestName(bsTest test);
const char* bsBranchName(bsBranch branch);
// Parses a method name; returns false when it is none of them.
bool bsParseMethod(const char* name, bsMethod* method);

// --- Planes (plane.c) ---

// Analytic planes of the environment (an infinite floor, say), swept against with the
// dynamic sphere/plane test of Real-Time Rendering (3rd ed., section 16.18.1).

typedef struct bsPlane
{
	bsVec3 n;  // unit normal
	double d;  // n . x + d = 0 on the plane
} bsPlane;

// The plane through `point` with normal `normal` (normalised). Fails with bs_errNonFinite on
// NaN/inf and bs_errInvalidArgument on a zero normal.
bsResult bsMakePlane(bsVec3 point, bsVec3 normal, bsPlane* out);

// --- Closest points (closest.c) ---

// The point of a triangle mesh nearest a query point: the question a response asks to
// push a sphere clear of every surface, and a distance field asks per grid point.
//
// Over a plain triangle list here (brute force); over the BVH in bvh.h (bsBvh_ClosestPoint), with
// the same answer bit for bit. The distance to a triangle is |q - c| with c its closest point
// (bsTriangle_ClosestPoint); the nearest triangle wins, the lowest caller's index among triangles at
// the same distance (the same double), so the answer does not depend on any tree.

typedef struct bsClosestPointInput
{
	bsVec3 point;        // the query point
	double maxDistance;  // only triangles at distance <= maxDistance count; >= 0; HUGE_VAL: all
} bsClosestPointInput;

typedef struct bsClosestPointOutput
{
	bsVec3 point;        // the mesh's point nearest the query (on the reported triangle)
	bsVec3 normal;       // unit, from the surface towards the query point (see below); zero on a miss
	double distance;     // |query - point|; HUGE_VAL (infinity) on a miss
	uint32_t triangle;   // the caller's index of the nearest triangle, BS_NO_TRIANGLE on a miss
	uint8_t hit;         // 1 when a triangle is within maxDistance
	uint8_t feature;     // bsFeature of the closest point: face, edge or vertex
	uint8_t index;       // the edge (0: p1p2, 1: p2p3, 2: p3p1) or vertex (0..2) index
	uint8_t onSurface;   // 1 when the query point is on the surface (the normal is the stored one)
} bsClosestPointOutput;

// The normal, by where the closest point lies: on the face (the query projects inside the
// triangle), the triangle's face normal on the query's side; on an edge or vertex, the direction
// from the closest point to the query. When the query point is on the surface (the plane distance,
// for a face, or the distance, for an edge or vertex, is at most 1e-12 (1 + max |q_i|)) no side can
// be told: the triangle's stored normal, and onSurface = 1.

// Checks the input: bs_errNonFinite for a NaN/inf point or one whose squared length overflows
// (beyond ~1e154), bs_errInvalidArgument for a NaN or negative maxDistance.
bsResult bsClosestPointInput_Check(const bsClosestPointInput* input);

// Brute force over a triangle list. On an invalid input returns the error of
// bsClosestPointInput_Check and fills out with a miss. Every byte of out is written.
bsResult bsClosestPointList(const bsTriangle* tris, uint32_t count, const bsClosestPointInput* input,
	bsClosestPointOutput* out);
