// mesh_topology.h — a triangle soup welded into an indexed mesh, with its face adjacency and vertex
// one-rings: the "list of neighbour faces for each model point" that Senin et al.'s sensor particles
// walk on (section 3.1), built once; a deforming body keeps it while its vertex positions change.
//
// Welding is by exact position (OBJ triangles arrive as an unindexed bsTriangle soup whose shared
// corners are bit-identical copies): corners with the same (x, y, z) become one vertex. Vertex ids are
// given in lexicographic (x, y, z) order of the positions, so the result does not depend on the
// order of the triangles' corners beyond the triangles' own order.
#pragma once

#include "blobsim/base.h"
#include "blobsim/triangle.h"

#include <stdint.h>

#define BS_NO_FACE UINT32_MAX

typedef struct bsMeshTopology
{
	uint32_t vertexCount;
	uint32_t triangleCount;
	bsVec3* positions;        // vertexCount welded rest positions
	uint32_t* triangles;      // 3 per triangle: vertex ids, in the soup's corner order (p1, p2, p3)
	uint32_t* neighbours;     // 3 per triangle: the face across edge k (k: p1p2, p2p3, p3p1), or
	                          // BS_NO_FACE on a border or non-manifold edge (not 2 faces)
	uint32_t* faceStart;      // vertexCount + 1 offsets into faces
	uint32_t* faces;          // faces around each vertex, ascending
	uint32_t* ringStart;      // vertexCount + 1 offsets into ring
	uint32_t* ring;           // the vertices sharing an edge with each vertex, ascending
	uint32_t borderEdges;     // edges with one face
	uint32_t nonManifoldEdges;  // edges with more than two faces
} bsMeshTopology;

// Builds the topology of count triangles. bs_errInvalidArgument for a NULL pointer or count 0,
// bs_errNonFinite for a NaN/inf corner, bs_errTooLarge for count >= 2^30, bs_errOutOfMemory. On
// failure *topology is zeroed and bsMeshTopology_Destroy accepts it.
bsResult bsMeshTopology_Build(bsMeshTopology* topology, const bsTriangle* tris, uint32_t count);

void bsMeshTopology_Destroy(bsMeshTopology* topology);

// Hops along edges between vertex `from` and the vertex farthest from it (breadth first over the
// one-rings), and that vertex in *farthest (may be NULL). 0 (and from) when out of memory.
uint32_t bsMeshTopology_Eccentricity(const bsMeshTopology* topology, uint32_t from, uint32_t* farthest);
