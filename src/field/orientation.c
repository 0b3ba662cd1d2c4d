// orientation.c — a mesh's edges and which side of each face is out (field.h: bsOrientation).
#include "blobsim/field.h"

#include "mesh_topology.h"
#include "winding_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A closed piece's area-weighted winding number (the face's own jump left out) is 1/2 in magnitude,
// an open one's near 0: a piece beyond this magnitude is closed.
#define BS_ORIENT_CLOSED 0.25
// The points in front of and behind a face's centroid, as a fraction of its longest edge.
#define BS_ORIENT_OFFSET 1e-4

// The edge of face u with the vertices a and b (in either order): its index, or -1.
static int bsEdgeIn(const uint32_t* corners, uint32_t a, uint32_t b)
{
	for (int k = 0; k < 3; ++k)
	{
		uint32_t p = corners[k], q = corners[(k + 1) % 3];
		if ((p == a && q == b) || (p == b && q == a))
		{
			return k;
		}
	}
	return -1;
}

// Faces around vertex a that hold vertex b too: 1 on a boundary edge, 2 on a manifold one.
static uint32_t bsEdgeFaces(const bsMeshTopology* m, uint32_t a, uint32_t b)
{
	uint32_t n = 0;
	for (uint32_t i = m->faceStart[a]; i < m->faceStart[a + 1]; ++i)
	{
		n += bsEdgeIn(m->triangles + 3 * (size_t)m->faces[i], a, b) >= 0;
	}
	return n;
}

// Does face u run its edge with a and b from b to a (the way a neighbour wound like t = (.. a, b ..)
// must)?
static bool bsRunsBack(const bsMeshTopology* m, uint32_t u, uint32_t a, uint32_t b)
{
	const uint32_t* c = m->triangles + 3 * (size_t)u;
	int j = bsEdgeIn(c, a, b);
	return j >= 0 && c[j] == b;
}

static void bsCountEdges(const bsMeshTopology* m, bsOrientation* out)
{
	memset(out, 0, sizeof *out);
	out->boundaryEdges = m->borderEdges;
	out->nonManifoldEdges = m->nonManifoldEdges;
	out->inconsistentFace = UINT32_MAX;
	out->inconsistentEdge = -1;
	out->boundaryFace = UINT32_MAX;
	out->boundaryEdge = -1;
	for (uint32_t t = 0; t < m->triangleCount; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			uint32_t a = m->triangles[3 * (size_t)t + k], b = m->triangles[3 * (size_t)t + (k + 1) % 3];
			uint32_t u = m->neighbours[3 * (size_t)t + k];
			if (u == BS_NO_FACE)
			{
				if (out->boundaryFace == UINT32_MAX && bsEdgeFaces(m, a, b) == 1)
				{
					out->boundaryFace = t;
					out->boundaryEdge = k;
				}
			}
			else if (u > t && !bsRunsBack(m, u, a, b))
			{
				if (out->inconsistentEdges++ == 0)
				{
					out->inconsistentFace = t;
					out->inconsistentEdge = k;
				}
			}
		}
	}
}

bsResult bsOrientation_Edges(const bsTriangle* tris, uint32_t count, bsOrientation* out)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	bsMeshTopology m;
	bsResult r = bsMeshTopology_Build(&m, tris, count);
	if (r == bs_ok)
	{
		bsCountEdges(&m, out);
	}
	bsMeshTopology_Destroy(&m);
	return r;
}

// Winds the faces of each piece alike: flip[t] = 1 for the faces to turn round so that every manifold
// edge is run both ways, breadth first from the lowest face of each piece (which keeps its winding);
// piece[t] the piece's number. Faces of a non-orientable piece keep the first winding reached.
static uint32_t bsWindPieces(const bsMeshTopology* m, uint8_t* flip, uint32_t* piece, uint32_t* queue)
{
	uint32_t pieces = 0;
	for (uint32_t t = 0; t < m->triangleCount; ++t)
	{
		piece[t] = UINT32_MAX;
	}
	for (uint32_t seed = 0; seed < m->triangleCount; ++seed)
	{
		if (piece[seed] != UINT32_MAX)
		{
			continue;
		}
		uint32_t head = 0, tail = 0;
		piece[seed] = pieces;
		flip[seed] = 0;
		queue[tail++] = seed;
		while (head < tail)
		{
			uint32_t t = queue[head++];
			for (int k = 0; k < 3; ++k)
			{
				uint32_t u = m->neighbours[3 * (size_t)t + k];
				if (u == BS_NO_FACE || piece[u] != UINT32_MAX)
				{
					continue;
				}
				uint32_t a = m->triangles[3 * (size_t)t + k], b = m->triangles[3 * (size_t)t + (k + 1) % 3];
				piece[u] = pieces;
				flip[u] = (uint8_t)(flip[t] ^ (bsRunsBack(m, u, a, b) ? 0 : 1));
				queue[tail++] = u;
			}
		}
		pieces += 1;
	}
	return pieces;
}

// The face with its corners p1, p3, p2: the other winding.
static bsTriangle bsTurned(const bsTriangle* t)
{
	bsTriangle o = *t;
	o.p2 = t->p3;
	o.p3 = t->p2;
	o.n = bsScale(-1.0, t->n);
	o.delta = -t->delta;
	return o;
}

// The winding number of the consistently wound faces at the centroid of face t, its own jump left
// out: the mean of the values just in front of and just behind it.
static double bsFaceWinding(const bsWindingTree* wt, const bsTriangle* t)
{
	bsVec3 g = bsScale(1.0 / 3.0, bsAdd(t->p1, bsAdd(t->p2, t->p3)));
	double e = fmax(bsDistance(t->p1, t->p2), fmax(bsDistance(t->p2, t->p3), bsDistance(t->p3, t->p1)));
	bsVec3 d = bsScale(BS_ORIENT_OFFSET * e, t->n);
	return 0.5 * (bsWindingTree_Evaluate(wt, bsAdd(g, d)) + bsWindingTree_Evaluate(wt, bsSub(g, d)));
}

// The faces grouped by piece: order[first[p] .. first[p + 1]) are piece p's, ascending.
static void bsGroupPieces(const uint32_t* piece, uint32_t count, uint32_t pieces, uint32_t* first, uint32_t* order)
{
	memset(first, 0, ((size_t)pieces + 1) * sizeof(uint32_t));
	for (uint32_t t = 0; t < count; ++t)
	{
		first[piece[t] + 1] += 1;
	}
	for (uint32_t p = 0; p < pieces; ++p)
	{
		first[p + 1] += first[p];
	}
	for (uint32_t t = 0; t < count; ++t)
	{
		order[first[piece[t]]++] = t;  // first[p] ends at the next piece's start ...
	}
	for (uint32_t p = pieces; p > 0; --p)
	{
		first[p] = first[p - 1];  // ... and moves back one place
	}
	first[0] = 0;
}

// Piece p's verdict from its own faces alone (another piece's winding says nothing about this one's
// sides: a floor under a roof would turn the roof): the area-weighted winding of its faces, each at
// its centroid with its own jump left out, over a winding tree of the piece. 1: the wound piece faces
// in; 0: out; -1: open (no inside).
static bsResult bsPieceVerdict(const bsTriangle* wound, const uint32_t* faces, uint32_t n, bsTriangle* scratch,
	int* verdict)
{
	for (uint32_t i = 0; i < n; ++i)
	{
		scratch[i] = wound[faces[i]];
	}
	bsWindingTree wt;
	bsResult r = bsWindingTree_Build(&wt, scratch, n, NULL);
	if (r != bs_ok)
	{
		bsWindingTree_Free(&wt);
		return r;
	}
	double sum = 0.0, area = 0.0;
	for (uint32_t i = 0; i < n; ++i)
	{
		const bsTriangle* w = scratch + i;
		double a = 0.5 * bsLength(bsCross(bsSub(w->p2, w->p1), bsSub(w->p3, w->p1)));
		sum += a * bsFaceWinding(&wt, w);
		area += a;
	}
	bsWindingTree_Free(&wt);
	double mean = area > 0.0 ? sum / area : 0.0;
	*verdict = fabs(mean) < BS_ORIENT_CLOSED ? -1 : (mean < 0.0 ? 1 : 0);
	return bs_ok;
}

// Each face's verdict: flip[t] turned round again when its piece faces in, or (an open piece) when
// most of the piece's area was filed the other way.
static bsResult bsDecide(const bsTriangle* wound, const uint8_t* flip, const uint32_t* piece, uint32_t count,
	uint32_t pieces, uint8_t* inward, bsOrientation* out)
{
	uint32_t* first = malloc(((size_t)pieces + 1) * sizeof(uint32_t));
	uint32_t* order = malloc((size_t)count * sizeof(uint32_t));
	bsTriangle* scratch = malloc((size_t)count * sizeof(bsTriangle));
	bsResult r = first == NULL || order == NULL || scratch == NULL ? bs_errOutOfMemory : bs_ok;
	if (r == bs_ok)
	{
		bsGroupPieces(piece, count, pieces, first, order);
	}
	for (uint32_t p = 0; p < pieces && r == bs_ok; ++p)
	{
		const uint32_t* faces = order + first[p];
		uint32_t n = first[p + 1] - first[p];
		int verdict = 0;
		r = bsPieceVerdict(wound, faces, n, scratch, &verdict);
		double kept = 0.0, area = 0.0;
		for (uint32_t i = 0; i < n && verdict < 0; ++i)
		{
			const bsTriangle* w = wound + faces[i];
			double a = bsLength(bsCross(bsSub(w->p2, w->p1), bsSub(w->p3, w->p1)));
			kept += flip[faces[i]] ? 0.0 : a;
			area += a;
		}
		bool turnPiece = verdict < 0 ? kept < 0.5 * area : verdict == 1;
		for (uint32_t i = 0; i < n; ++i)
		{
			uint32_t t = faces[i];
			inward[t] = (uint8_t)(flip[t] ^ (turnPiece ? 1 : 0));
			out->inward += inward[t];
			out->open += verdict < 0;
		}
	}
	free(first);
	free(order);
	free(scratch);
	return r;
}

bsResult bsOrientation_Outside(const bsTriangle* tris, uint32_t count, uint8_t* inward, bsOrientation* out)
{
	if (out == NULL || inward == NULL)
	{
		return bs_errInvalidArgument;
	}
	bsMeshTopology m;
	bsResult r = bsMeshTopology_Build(&m, tris, count);
	if (r != bs_ok)
	{
		bsMeshTopology_Destroy(&m);
		return r;
	}
	bsCountEdges(&m, out);
	uint8_t* flip = malloc(count);
	uint32_t* piece = malloc((size_t)count * sizeof(uint32_t));
	uint32_t* queue = malloc((size_t)count * sizeof(uint32_t));
	bsTriangle* wound = malloc((size_t)count * sizeof(bsTriangle));
	r = flip == NULL || piece == NULL || queue == NULL || wound == NULL ? bs_errOutOfMemory : bs_ok;
	if (r == bs_ok)
	{
		uint32_t pieces = bsWindPieces(&m, flip, piece, queue);
		for (uint32_t t = 0; t < count; ++t)
		{
			wound[t] = flip[t] ? bsTurned(tris + t) : tris[t];
		}
		r = bsDecide(wound, flip, piece, count, pieces, inward, out);
	}
	free(flip);
	free(piece);
	free(queue);
	free(wound);
	bsMeshTopology_Destroy(&m);
	return r;
}
