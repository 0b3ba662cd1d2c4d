// mesh_topology.c — welding a triangle soup, face adjacency and one-rings (mesh_topology.h).
#include "mesh_topology.h"

#include "array.h"
#include "weld.h"

#include <stdlib.h>
#include <string.h>

// An edge of one triangle, its vertices sorted, for pairing the two faces that share it.
typedef struct bsHalfEdge
{
	uint32_t lo, hi;
	uint32_t face;
	uint32_t k;
} bsHalfEdge;

static int bsCompareHalfEdges(const void* pa, const void* pb)
{
	const bsHalfEdge* a = pa;
	const bsHalfEdge* b = pb;
	if (a->lo != b->lo)
	{
		return a->lo < b->lo ? -1 : 1;
	}
	if (a->hi != b->hi)
	{
		return a->hi < b->hi ? -1 : 1;
	}
	if (a->face != b->face)
	{
		return a->face < b->face ? -1 : 1;
	}
	return a->k < b->k ? -1 : (a->k > b->k);
}

// Vertices numbered in the order of their positions, so the numbering is the same for any triangle
// order.
static bool bsWeldTopology(bsMeshTopology* m, const bsTriangle* tris, uint32_t count)
{
	bsWeld weld;
	if (bsWeld_Build(&weld, tris, count) != bs_ok || !bsWeld_SortByPosition(&weld))
	{
		bsWeld_Destroy(&weld);
		return false;
	}
	memcpy(m->triangles, weld.cornerVertex, sizeof(uint32_t) * 3 * count);
	m->positions = weld.positions;
	m->vertexCount = weld.vertexCount;
	free(weld.cornerVertex);
	return true;
}

static bool bsPairFaces(bsMeshTopology* m)
{
	uint32_t n = 3 * m->triangleCount;
	bsHalfEdge* e = malloc(sizeof(bsHalfEdge) * n);
	if (e == NULL)
	{
		return false;
	}
	for (uint32_t i = 0; i < n; ++i)
	{
		uint32_t a = m->triangles[i];
		uint32_t b = m->triangles[3 * (i / 3) + (i % 3 + 1) % 3];
		e[i] = (bsHalfEdge){a < b ? a : b, a < b ? b : a, i / 3, i % 3};
		m->neighbours[i] = BS_NO_FACE;
	}
	qsort(e, n, sizeof(bsHalfEdge), bsCompareHalfEdges);
	for (uint32_t i = 0; i < n;)
	{
		uint32_t j = i + 1;
		while (j < n && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
		{
			++j;
		}
		if (j - i == 2)
		{
			m->neighbours[3 * e[i].face + e[i].k] = e[i + 1].face;
			m->neighbours[3 * e[i + 1].face + e[i + 1].k] = e[i].face;
		}
		else if (j - i == 1)
		{
			++m->borderEdges;
		}
		else
		{
			++m->nonManifoldEdges;
		}
		i = j;
	}
	free(e);
	return true;
}

static int bsCompareU32(const void* pa, const void* pb)
{
	uint32_t a = *(const uint32_t*)pa, b = *(const uint32_t*)pb;
	return a < b ? -1 : (a > b);
}

// Faces around each vertex (counting sort keeps them ascending) and the one-rings (each face adds
// its two other vertices; sorted and deduplicated per vertex).
static bool bsBuildRings(bsMeshTopology* m)
{
	uint32_t nv = m->vertexCount, n = 3 * m->triangleCount;
	m->faceStart = calloc((size_t)nv + 1, sizeof(uint32_t));
	m->faces = malloc(sizeof(uint32_t) * n);
	m->ringStart = calloc((size_t)nv + 1, sizeof(uint32_t));
	uint32_t* twice = malloc(sizeof(uint32_t) * 2 * n);
	uint32_t* fill = calloc((size_t)nv, sizeof(uint32_t));
	if (m->faceStart == NULL || m->faces == NULL || m->ringStart == NULL || twice == NULL || fill == NULL)
	{
		free(twice);
		free(fill);
		return false;
	}
	for (uint32_t i = 0; i < n; ++i)
	{
		++m->faceStart[m->triangles[i] + 1];
	}
	for (uint32_t v = 0; v < nv; ++v)
	{
		m->faceStart[v + 1] += m->faceStart[v];
	}
	for (uint32_t i = 0; i < n; ++i)
	{
		uint32_t v = m->triangles[i];
		m->faces[m->faceStart[v] + fill[v]++] = i / 3;
	}
	uint32_t used = 0;
	for (uint32_t v = 0; v < nv; ++v)
	{
		uint32_t start = used;
		for (uint32_t f = m->faceStart[v]; f < m->faceStart[v + 1]; ++f)
		{
			const uint32_t* t = m->triangles + 3 * m->faces[f];
			for (int k = 0; k < 3; ++k)
			{
				if (t[k] != v)
				{
					twice[used++] = t[k];
				}
			}
		}
		qsort(twice + start, used - start, sizeof(uint32_t), bsCompareU32);
		uint32_t w = start;
		for (uint32_t i = start; i < used; ++i)
		{
			if (i == start || twice[i] != twice[w - 1])
			{
				twice[w++] = twice[i];
			}
		}
		used = w;
		m->ringStart[v + 1] = used;
	}
	free(fill);
	if (!BS_ARRAY_RESIZE(twice, used))
	{
		free(twice);
		return false;
	}
	m->ring = twice;
	return true;
}

bsResult bsMeshTopology_Build(bsMeshTopology* topology, const bsTriangle* tris, uint32_t count)
{
	if (topology == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(topology, 0, sizeof(*topology));
	if (tris == NULL || count == 0)
	{
		return bs_errInvalidArgument;
	}
	if (count >= (1u << 30))
	{
		return bs_errTooLarge;
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		if (!bsIsValidVec3(tris[i].p1) || !bsIsValidVec3(tris[i].p2) || !bsIsValidVec3(tris[i].p3))
		{
			return bs_errNonFinite;
		}
	}
	topology->triangleCount = count;
	topology->triangles = malloc(sizeof(uint32_t) * 3 * count);
	topology->neighbours = malloc(sizeof(uint32_t) * 3 * count);
	if (topology->triangles == NULL || topology->neighbours == NULL || !bsWeldTopology(topology, tris, count) ||
		!bsPairFaces(topology) || !bsBuildRings(topology))
	{
		bsMeshTopology_Destroy(topology);
		return bs_errOutOfMemory;
	}
	return bs_ok;
}

void bsMeshTopology_Destroy(bsMeshTopology* topology)
{
	if (topology == NULL)
	{
		return;
	}
	free(topology->positions);
	free(topology->triangles);
	free(topology->neighbours);
	free(topology->faceStart);
	free(topology->faces);
	free(topology->ringStart);
	free(topology->ring);
	memset(topology, 0, sizeof(*topology));
}

uint32_t bsMeshTopology_Eccentricity(const bsMeshTopology* topology, uint32_t from, uint32_t* farthest)
{
	uint32_t nv = topology->vertexCount;
	uint32_t* queue = malloc(sizeof(uint32_t) * nv);
	uint32_t* hops = calloc(nv, sizeof(uint32_t));  // hop count + 1; 0: not reached yet
	uint32_t head = 0, tail = 0, last = from;
	if (queue != NULL && hops != NULL)
	{
		queue[tail++] = from;
		hops[from] = 1;
	}
	while (head < tail)
	{
		uint32_t v = queue[head++];
		last = v;
		for (uint32_t r = topology->ringStart[v]; r < topology->ringStart[v + 1]; ++r)
		{
			uint32_t u = topology->ring[r];
			if (hops[u] == 0)
			{
				hops[u] = hops[v] + 1;
				queue[tail++] = u;
			}
		}
	}
	uint32_t result = tail > 0 ? hops[last] - 1 : 0;
	free(queue);
	free(hops);
	if (farthest != NULL)
	{
		*farthest = last;
	}
	return result;
}
