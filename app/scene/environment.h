// environment.h — the world a run's particles move through, built from the config: every OBJ mesh
// loaded, transformed (scale, then rotation about x, y, z in degrees, then translation) and split into
// its groups, each group with its material; the analytic planes; and the BVH over all triangles.
//
// A group's material: the config's entry for that group (matched by the group's full key
// "name:material", by its name alone, or by its usemtl material), else the group's usemtl material
// when that is a preset name (scenes/ use preset names: wood, plaster, metal, ...), else the mesh's
// material. A config entry that matches no group of its mesh is an error.
#pragma once

#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/field.h"
#include "config.h"
#include "blobsim/world.h"

#include <stddef.h>
#include <stdint.h>

// A run of triangles from one OBJ group, drawn with one material.
typedef struct bsEnvGroup
{
	char* name;            // "mesh-file-name/group-key", for comments in the scene
	const char* key;       // the OBJ group key ("base" or "base:material"), within name
	int mesh;              // index in environment.meshes: a mesh's groups are consecutive
	uint32_t first;        // into bsEnvironment.triangles
	uint32_t count;
	const char* material;  // POV-Ray text inside texture { }, borrowed from the config or a preset
	const char* look;      // with a vertex_colors material: its texture without the pigment, which
	                       // the vertices' colours give (bsEnvironment.cornerColors); else NULL
} bsEnvGroup;

// What one mesh's edges say (bsOrientation_Edges over its transformed triangles), with the example
// edges' vertices as the OBJ file numbers them (1-based; 0 0 when there is no example).
typedef struct bsEnvMeshEdges
{
	bsOrientation edges;
	uint32_t inconsistentVertices[2];
	uint32_t boundaryVertices[2];
} bsEnvMeshEdges;

typedef struct bsEnvironment
{
	bsTriangle* triangles;   // every mesh's triangles, group after group
	uint32_t triangleCount;
	bsVec3* cornerColors;    // three a triangle (its corners' rgb), for the groups with a look; NULL
	                         // when none has (entries of the other groups unset)
	bsEnvGroup* groups;
	uint32_t groupCount;
	bsPlane* planes;
	const char** planeMaterials;
	uint32_t planeCount;
	uint64_t droppedDegenerate;  // zero-area triangles dropped (by the loader or after transforming)
	bsEnvMeshEdges* meshEdges;   // per mesh of the config
	bsBvh bvh;
	struct bsEnvBodies* bodies;  // the moving bodies (bodies.h), NULL when none
	double loadSeconds;
	double buildSeconds;
} bsEnvironment;

// Loads and builds everything, the BVH on `threads` threads (<= 0: all cores; the tree is the same
// for any count). On failure a one-line message naming the file (file:line for OBJ errors) or the
// config path goes to err, and *env is left empty (bsEnvironment_Free is harmless).
bsResult bsEnvironment_Load(bsEnvironment* env, const bsConfig* config, int threads, char* err,
	size_t errlen);

void bsEnvironment_Free(bsEnvironment* env);

// Mesh m's winding and openness in one line, for check and run: `FILE: 624 edges wound inconsistently
// (their two faces run them the same way, e.g. the edge of vertices 12 and 40), 17 boundary edges
// (open, e.g. the edge of vertices 3 and 4)`. False (out "") for a closed, consistently wound mesh.
bool bsEnvironment_DescribeEdges(const bsEnvironment* env, const bsConfig* config, int m, char* out,
	size_t size);

// Does a config's group name select this OBJ group key ("base" or "base:material")? 3: the whole
// key, 2: the base, 1: the material, 0: no. A name selects the groups of its best match.
int bsEnvGroup_Match(const char* configName, const char* key);

// Adds the environment's colliders to the world: the mesh (when it has triangles), the planes, then
// the moving bodies.
// The world borrows them: env must outlive it.
bsResult bsEnvironment_AddToWorld(const bsEnvironment* env, bsWorld* world);
