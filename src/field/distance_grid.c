// distance_grid.c — building the distance/normal grid (see field.h for the phases and what
// each guarantees) and looking it up.
#include "collide_internal.h"

#include "blobsim/field.h"

#include "blobsim/base.h"
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "weld.h"
#include "winding_tree.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Cells (or lines) per chunk handed to a worker.
#define BS_GRID_GRAIN 512
#define BS_GRID_LINE_GRAIN 256
// z planes per chunk of the rasterization (each chunk reads every triangle's z range).
#define BS_GRID_RASTER_PLANES 4

// Triangles of a component whose winding number decides whether it is closed.
#define BS_GRID_CLOSED_SAMPLES 16

// The dipole term stands for a node seen from farther than this many times its radius.
#define BS_GRID_WINDING_BETA 2.0

// Rounds of line sweeps (x, y, z, each both ways): deciding the band's sides, propagating nearest
// points beyond the band, then nearest triangles.
#define BS_GRID_SIDE_ROUNDS 3
#define BS_GRID_POINT_ROUNDS 3
#define BS_GRID_TRIANGLE_ROUNDS 1
#define BS_GRID_SWEEPS_PER_ROUND 6

enum
{
	bs_cellBand = 1,     // exact distance from phase 1
	bs_cellSurface = 2,  // a triangle touches the cell's box
	bs_cellInside = 4,
	bs_cellOpen = 8,     // the nearest triangle is on an open component
	bs_cellNear = 16,    // within band cells (each axis) of a surface voxel: may be in the band
	bs_cellMark = 32,    // scratch of the dilation
	bs_cellSided = 64,   // bs_cellInside is decided
};

static const double bs_fourPi = 4.0 * BS_PI;

const char* bsGridMethodName(bsGridMethod method)
{
	switch (method)
	{
		case bs_gridBlur:
			return "blur";
		case bs_gridPotential:
			return "potential";
		default:
			return "unknown";
	}
}

bsDistanceGridDef bsDefaultDistanceGridDef(void)
{
	bsDistanceGridDef def;
	memset(&def, 0, sizeof def);
	def.cellSize = 0.0;
	def.resolution = 64;
	def.margin = 4;
	def.band = 3;
	def.method = bs_gridBlur;
	def.blurRadius = 3;
	def.blurRounds = 4;
	def.exactFar = false;
	def.threads = 0;
	return def;
}

bsResult bsDistanceGridDef_Check(const bsDistanceGridDef* def)
{
	if (def == NULL || !(def->cellSize >= 0.0) || !isfinite(def->cellSize) || def->margin < 0 ||
		def->margin > 1024 || def->band < 1 || def->band > 64 || (unsigned)def->method >= bs_gridMethodCount ||
		def->blurRadius < 1 || def->blurRadius > 8 || def->blurRounds < 0 || def->blurRounds > 64)
	{
		return bs_errInvalidArgument;
	}
	if (def->cellSize == 0.0 && (def->resolution <= 2 * def->margin || def->resolution > 65536))
	{
		return bs_errInvalidArgument;
	}
	return bs_ok;
}

// ---- hashing and winding numbers ----

uint64_t bsMeshHash(const bsTriangle* tris, uint32_t count)
{
	uint64_t h = BS_FNV1A_BASIS;
	for (uint32_t t = 0; t < count; ++t)
	{
		const bsVec3* v[3] = {&tris[t].p1, &tris[t].p2, &tris[t].p3};
		for (int k = 0; k < 3; ++k)
		{
			double c[3] = {v[k]->x, v[k]->y, v[k]->z};
			for (int a = 0; a < 3; ++a)
			{
				uint64_t bits;
				memcpy(&bits, &c[a], sizeof bits);
				h = bsFnv1a_U64(h, bits);
			}
		}
	}
	return h;
}

// The solid angle of triangle (a, b, c) seen from p, positive from behind (van Oosterom & Strackee).
static double bsSolidAngle(bsVec3 a, bsVec3 b, bsVec3 c, bsVec3 p)
{
	bsVec3 u = bsSub(a, p);
	bsVec3 v = bsSub(b, p);
	bsVec3 w = bsSub(c, p);
	double lu = bsLength(u), lv = bsLength(v), lw = bsLength(w);
	double det = bsDot(u, bsCross(v, w));
	double den = lu * lv * lw + bsDot(u, v) * lw + bsDot(v, w) * lu + bsDot(w, u) * lv;
	return 2.0 * atan2(det, den);
}

double bsWindingNumber(const bsTriangle* tris, uint32_t count, bsVec3 p)
{
	double sum = 0.0;
	for (uint32_t t = 0; t < count; ++t)
	{
		sum += bsSolidAngle(tris[t].p1, tris[t].p2, tris[t].p3, p);
	}
	return sum / bs_fourPi;
}

static void bsWindingTree_Fill(bsWindingTree* wt, uint32_t n)
{
	const bsBvhNode* node = wt->bvh->nodes + n;
	bsWindingNode* out = wt->nodes + n;
	bsVec3 area = bsV3(0.0, 0.0, 0.0);
	bsVec3 weighted = bsV3(0.0, 0.0, 0.0);
	double total = 0.0;
	uint32_t first = 0, count = 0;
	if (node->count > 0)
	{
		first = node->leftFirst;
		count = node->count;
		for (uint32_t t = first; t < first + count; ++t)
		{
			const bsTriangle* tri = wt->bvh->tris + t;
			bsVec3 a = bsScale(0.5, bsCross(bsSub(tri->p2, tri->p1), bsSub(tri->p3, tri->p1)));
			double s = bsLength(a);
			bsVec3 g = bsScale(1.0 / 3.0, bsAdd(tri->p1, bsAdd(tri->p2, tri->p3)));
			area = bsAdd(area, a);
			weighted = bsMulAdd(weighted, s, g);
			total += s;
		}
	}
	else
	{
		uint32_t l = node->leftFirst;
		bsWindingTree_Fill(wt, l);
		bsWindingTree_Fill(wt, l + 1);
		for (uint32_t c = l; c <= l + 1; ++c)
		{
			const bsWindingNode* child = wt->nodes + c;
			// The children's total areas are not kept: weight their centroids by |area| instead
			// (any centre works: the radius below covers the node's vertices from it).
			double s = bsLength(child->area) + 1e-300;
			area = bsAdd(area, child->area);
			weighted = bsMulAdd(weighted, s, child->centre);
			total += s;
		}
	}
	out->area = area;
	bsVec3 mid = bsScale(0.5, bsAdd(bsV3(node->min[0], node->min[1], node->min[2]),
		bsV3(node->max[0], node->max[1], node->max[2])));
	out->centre = total > 0.0 ? bsScale(1.0 / total, weighted) : mid;
	// The farthest corner of the node's box bounds every vertex in it.
	double r2 = 0.0;
	for (int k = 0; k < 8; ++k)
	{
		bsVec3 corner = bsV3((k & 1) ? node->max[0] : node->min[0], (k & 2) ? node->max[1] : node->min[1],
			(k & 4) ? node->max[2] : node->min[2]);
		double d2 = bsDistanceSquared(corner, out->centre);
		r2 = d2 > r2 ? d2 : r2;
	}
	out->radius = sqrt(r2);
}

// Over `shared` (a BVH of exactly these triangles) when not NULL, else over a BVH of its own.
bsResult bsWindingTree_Build(bsWindingTree* wt, const bsTriangle* tris, uint32_t count,
	const bsBvh* shared)
{
	memset(wt, 0, sizeof *wt);
	if (count == 0)
	{
		return bs_ok;
	}
	if (shared == NULL)
	{
		bsResult r = bsBvh_Build(&wt->own, tris, count, NULL);
		if (r != bs_ok)
		{
			return r;
		}
	}
	wt->bvh = shared != NULL ? shared : &wt->own;
	wt->nodes = calloc(wt->bvh->nodeCount, sizeof *wt->nodes);
	if (wt->nodes == NULL)
	{
		return bs_errOutOfMemory;
	}
	bsWindingTree_Fill(wt, 0);
	return bs_ok;
}

void bsWindingTree_Free(bsWindingTree* wt)
{
	free(wt->nodes);
	bsBvh_Destroy(&wt->own);
	memset(wt, 0, sizeof *wt);
}

// The winding number at p: far nodes by their dipole term, near leaves triangle by triangle, always
// in the same order (the tree's), so the sum is the same on any thread.
double bsWindingTree_Evaluate(const bsWindingTree* wt, bsVec3 p)
{
	if (wt->nodes == NULL)
	{
		return 0.0;
	}
	uint32_t stack[BS_BVH_MAX_DEPTH + 2];  // depth-first, two pushed per level
	int top = 0;
	stack[top++] = 0;
	double sum = 0.0;
	while (top > 0)
	{
		uint32_t n = stack[--top];
		const bsWindingNode* wn = wt->nodes + n;
		const bsBvhNode* node = wt->bvh->nodes + n;
		bsVec3 d = bsSub(wn->centre, p);
		double d2 = bsLengthSquared(d);
		double reach = BS_GRID_WINDING_BETA * wn->radius;
		if (d2 > reach * reach)
		{
			sum += bsDot(wn->area, d) / (d2 * sqrt(d2));
		}
		else if (node->count > 0)
		{
			for (uint32_t t = node->leftFirst; t < node->leftFirst + node->count; ++t)
			{
				const bsTriangle* tri = wt->bvh->tris + t;
				sum += bsSolidAngle(tri->p1, tri->p2, tri->p3, p);
			}
		}
		else
		{
			stack[top++] = node->leftFirst + 1;
			stack[top++] = node->leftFirst;
		}
	}
	return sum / bs_fourPi;
}

// ---- the build ----

typedef struct bsGridBuild bsGridBuild;

// What a sweep does from one cell of a line to the next (centre: the centre of `to`); true when `to`
// changed.
typedef bool bsGridOfferFn(bsGridBuild* b, size_t from, size_t to, bsVec3 centre);

struct bsGridBuild
{
	const bsDistanceGridDef* def;
	bsDistanceGrid* grid;
	const bsTriangle* tris;  // the BVH's copy, in leaf order (near triangles near in memory)
	uint32_t count;
	bsBvh bvh;
	uint32_t* leafOf;        // the caller's index -> leaf order
	int* planes;             // per triangle: the first and last z plane of cells its box covers
	double* coord[3];        // the cell centres' coordinates along each axis (bsDistanceGrid_Centre's)
	size_t cells;
	bsVec3* point;       // nearest surface point per cell
	double* dist;        // its distance (HUGE_VAL: none yet)
	uint32_t* tri;       // its triangle (BS_NO_TRIANGLE: none yet)
	uint8_t* flag;       // bs_cell*
	uint32_t* component; // per triangle
	uint32_t componentCount;
	uint8_t* closed;     // per component: 0 open, 1 closed, 2 closed and inside out
	uint32_t inverted;   // closed components wound inside out
	bsWindingTree winding;
	float* nsum;         // 3 per cell: the summed face normals of a surface voxel
	float* field;        // 3 (blur) or 1 (potential) per cell
	float* scratch;
	float* lineBuffers;      // one line (with the kernel's margins) per worker
	size_t lineBufferFloats;
	int comps;           // components of field
	bool pinPotential;
	int axis;            // of the current line pass
	int direction;       // +1 forwards, -1 backwards (propagation)
	uint8_t srcBit, dstBit;  // of the current dilation pass
	int pass;                // of the current sweep: 0, 1, ... (BS_GRID_SWEEPS_PER_ROUND a round)
	uint8_t* changed;        // per cell: the last pass that changed it
	bsPool* pool;            // the build's threads, started once (NULL: bsParallelFor's)
};

// Every parallel phase: fixed chunks by index, so the grid does not depend on the thread count.
static void bsGrid_For(const bsGridBuild* b, size_t count, size_t grain, bsRangeFn* fn, void* context)
{
	if (b->pool != NULL)
	{
		bsPool_For(b->pool, count, grain, fn, context);
	}
	else
	{
		(void)bsParallelFor(b->def->threads, count, grain, fn, context);
	}
}

static void bsGrid_Split(const bsDistanceGrid* g, size_t c, int* i, int* j, int* k)
{
	size_t nx = (size_t)g->nx, ny = (size_t)g->ny;
	*i = (int)(c % nx);
	*j = (int)((c / nx) % ny);
	*k = (int)(c / (nx * ny));
}

static bsVec3 bsGrid_CentreOf(const bsDistanceGrid* g, size_t c)
{
	int i, j, k;
	bsGrid_Split(g, c, &i, &j, &k);
	return bsDistanceGrid_Centre(g, i, j, k);
}

// Lines along `axis`: how many, and the first cell and stride of line `l`.
static size_t bsGrid_LineCount(const bsDistanceGrid* g, int axis)
{
	size_t n[3] = {(size_t)g->nx, (size_t)g->ny, (size_t)g->nz};
	return n[0] * n[1] * n[2] / n[axis];
}

static void bsGrid_Line(const bsDistanceGrid* g, int axis, size_t l, size_t* start, size_t* stride,
	size_t* length)
{
	size_t nx = (size_t)g->nx, ny = (size_t)g->ny, nz = (size_t)g->nz;
	if (axis == 0)
	{
		*start = l * nx;
		*stride = 1;
		*length = nx;
	}
	else if (axis == 1)
	{
		*start = (l % nx) + nx * ny * (l / nx);
		*stride = nx;
		*length = ny;
	}
	else
	{
		*start = l;
		*stride = nx * ny;
		*length = nz;
	}
}

// Marks dstBit on every cell of a line within band cells of a cell with srcBit (clearing dstBit
// elsewhere, and srcBit when it is the scratch bit).
static void bsGrid_DilateRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	size_t reach = (size_t)b->def->band;
	for (size_t l = begin; l < end; ++l)
	{
		size_t start, stride, n;
		bsGrid_Line(b->grid, b->axis, l, &start, &stride, &n);
		size_t last = SIZE_MAX;  // the last source cell seen going forwards
		for (size_t s = 0; s < n; ++s)
		{
			uint8_t* f = b->flag + start + s * stride;
			last = (*f & b->srcBit) ? s : last;
			bool near = last != SIZE_MAX && s - last <= reach;
			*f = (uint8_t)(near ? (*f | b->dstBit) : (*f & ~b->dstBit));
		}
		last = SIZE_MAX;
		for (size_t s = n; s-- > 0;)
		{
			uint8_t* f = b->flag + start + s * stride;
			last = (*f & b->srcBit) ? s : last;
			if (last != SIZE_MAX && last - s <= reach)
			{
				*f |= b->dstBit;
			}
			if (b->srcBit == bs_cellMark)
			{
				*f &= (uint8_t)~bs_cellMark;
			}
		}
	}
}

// The cells that may be within the band: the surface voxels dilated by band cells along each axis. A
// cell centre (i + 1/2) h within band h of a surface point p in voxel v (v h <= p <= (v + 1) h, per
// axis) has i + 1/2 - band <= v + 1 and i + 1/2 + band >= v, so v - band <= i <= v + band (integers);
// p's voxel is marked even on a cell boundary (the rasterizer's boxes are widened).
static void bsGrid_MarkNear(bsGridBuild* b)
{
	const uint8_t src[3] = {bs_cellSurface, bs_cellNear, bs_cellMark};
	const uint8_t dst[3] = {bs_cellNear, bs_cellMark, bs_cellNear};
	for (int axis = 0; axis < 3; ++axis)
	{
		b->axis = axis;
		b->srcBit = src[axis];
		b->dstBit = dst[axis];
		bsGrid_For(b, bsGrid_LineCount(b->grid, axis), BS_GRID_LINE_GRAIN,
			bsGrid_DilateRange, b);
	}
}

// Inside or outside, by the winding number of the closed components (open ones: outside).
// (Evaluated even where the nearest triangle is on a sheet: the side is passed on to neighbours, which
// may be nearer a closed component; bsGrid_SignRange makes the sheet's own cells outside at the end.)
static void bsGrid_DecideSide(bsGridBuild* b, size_t c, bsVec3 centre)
{
	b->flag[c] |= bs_cellSided;
	if (bsWindingTree_Evaluate(&b->winding, centre) + b->inverted >= 0.5)
	{
		b->flag[c] |= bs_cellInside;
	}
}

// Phase 1: exact within the band. The previous cell's triangle (the cells of a chunk run along x)
// is nearly as near: its distance bounds the query from the start, so the walk skips most boxes at
// once. The answer is the same as without the seed (the nearest triangle, the lowest index of those
// as near, is within that bound).
static void bsGrid_BandRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	double maxDistance = b->def->band * b->grid->cellSize;
	uint32_t seed = BS_NO_TRIANGLE;
	for (size_t c = begin; c < end; ++c)
	{
		if (!(b->flag[c] & bs_cellNear))
		{
			continue;
		}
		bsVec3 centre = bsGrid_CentreOf(b->grid, c);
		bsClosestPointInput in = {centre, maxDistance};
		if (seed != BS_NO_TRIANGLE)
		{
			in.maxDistance = fmin(maxDistance, sqrt(bsTriangle_Distance2(b->tris + seed, centre)));
		}
		bsClosestPointOutput out;
		bsBvh_ClosestPoint(&b->bvh, &in, &out, NULL);
		if (!out.hit)
		{
			continue;
		}
		seed = b->leafOf[out.triangle];
		b->point[c] = out.point;
		b->dist[c] = out.distance;
		b->tri[c] = seed;
		b->flag[c] |= bs_cellBand;
		// The winding number, costly near the surface, is evaluated at a lattice of seeds (every
		// second cell along each axis) farther than a cell from it; the other band cells take the side
		// of a neighbour (bsGrid_OfferSide) or, where none reaches, evaluate their own.
		int i, j, k;
		bsGrid_Split(b->grid, c, &i, &j, &k);
		if (out.distance > b->grid->cellSize && ((i | j | k) & 1) == 0)
		{
			bsGrid_DecideSide(b, c, centre);
		}
	}
}

// Gives a band cell the side of a decided neighbour along the line (bsGrid_Sweep) when their distances
// add up to more than a cell: a surface point p on the segment between the centres (one cell long)
// would have |p - from| + |p - to| = h, and |p - from| >= dist[from], |p - to| >= dist[to]. So the
// segment crosses no triangle, and the winding number of a watertight mesh is the same at both ends.
static inline bool bsGrid_OfferSide(bsGridBuild* b, size_t from, size_t to, bsVec3 centre)
{
	(void)centre;
	uint8_t f = b->flag[to];
	if ((f & bs_cellBand) && !(f & bs_cellSided) && (b->flag[from] & bs_cellSided) &&
		b->dist[to] + b->dist[from] > b->grid->cellSize * (1.0 + 1e-9))
	{
		b->flag[to] = (uint8_t)(f | bs_cellSided | (b->flag[from] & bs_cellInside));
		return true;
	}
	return false;
}

// The band cells no sweep reached decide by their own winding number.
static void bsGrid_UndecidedRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	for (size_t c = begin; c < end; ++c)
	{
		if ((b->flag[c] & bs_cellBand) && !(b->flag[c] & bs_cellSided))
		{
			bsGrid_DecideSide(b, c, bsGrid_CentreOf(b->grid, c));
		}
	}
}

// Offers cell `from`'s nearest triangle to cell `to`, which takes it when it is nearer (or as near
// with a lower index), and with it `from`'s side: the segment between the two centres is shorter than
// `to`'s distance to the surface (it is beyond the band, so more than a cell away), so it crosses no
// triangle and the winding number of a watertight mesh is the same at both ends.
static inline bool bsGrid_Offer(bsGridBuild* b, size_t from, size_t to, bsVec3 centre)
{
	uint32_t t = b->tri[from];
	if (t == BS_NO_TRIANGLE || t == b->tri[to] || (b->flag[to] & bs_cellBand))
	{
		return false;
	}
	// The triangle is at least dist[from] - h from `to` (the centres are h apart): when that is
	// beyond dist[to] (with room for rounding) it cannot win, and its distance need not be computed.
	if (b->dist[from] > b->dist[to] + b->grid->cellSize * (1.0 + 1e-9))
	{
		return false;
	}
	bsVec3 point = bsTriangle_ClosestPoint(b->tris + t, centre, NULL, NULL);
	double d = bsDistance(centre, point);
	if (d < b->dist[to] || (d == b->dist[to] && t < b->tri[to]))
	{
		b->dist[to] = d;
		b->point[to] = point;
		b->tri[to] = t;
		b->flag[to] = (uint8_t)((b->flag[to] & ~bs_cellInside) | (b->flag[from] & bs_cellInside));
		return true;
	}
	return false;
}

// Offers cell `from`'s nearest point (and its triangle and side, as bsGrid_Offer) to cell `to`: a
// distance to a point costs a tenth of one to a triangle, so the nearest points are propagated first
// (BS_GRID_POINT_ROUNDS), each cell then measured to its own triangle (bsGrid_RefineRange) and
// a last round offers whole triangles (bsGrid_Offer), which on curved surfaces are nearer than the
// points that came with them. On the spheres of docs/dngrid.md this is nearer the exact distance
// than three rounds of triangles alone (0.41 cells at worst against 0.71).
static inline bool bsGrid_OfferPoint(bsGridBuild* b, size_t from, size_t to, bsVec3 centre)
{
	uint32_t t = b->tri[from];
	if (t == BS_NO_TRIANGLE || (b->flag[to] & bs_cellBand))
	{
		return false;
	}
	// Most offers lose by far: the squared distance tells without a square root.
	double d2 = bsDistanceSquared(centre, b->point[from]);
	double best = b->dist[to];
	if (d2 > best * best * (1.0 + 1e-9))
	{
		return false;
	}
	double d = sqrt(d2);
	if (d < best || (d == best && t < b->tri[to]))
	{
		b->dist[to] = d;
		b->point[to] = b->point[from];
		b->tri[to] = t;
		b->flag[to] = (uint8_t)((b->flag[to] & ~bs_cellInside) | (b->flag[from] & bs_cellInside));
		return true;
	}
	return false;
}

// Beyond the band: the distance to the cell's triangle rather than to the point that came with it.
static void bsGrid_RefineRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	for (size_t c = begin; c < end; ++c)
	{
		if ((b->flag[c] & bs_cellBand) || b->tri[c] == BS_NO_TRIANGLE)
		{
			continue;
		}
		bsVec3 centre = bsGrid_CentreOf(b->grid, c);
		b->point[c] = bsTriangle_ClosestPoint(b->tris + b->tri[c], centre, NULL, NULL);
		b->dist[c] = bsDistance(centre, b->point[c]);
	}
}

// One sweep along b->axis in b->direction, each line alone: b->offer from each cell to the next. From
// the second round on, a cell whose triangle (or side) has not changed in the last round's six sweeps
// offers nothing: its neighbour had the same offer one round ago and, since a cell only ever takes a
// nearer (or as near, lower) triangle, would refuse it again. So the rounds after the first cost only
// what still changes, and the grid is the same as with every offer made.
static inline void bsGrid_SweepStep(bsGridBuild* b, size_t start, size_t stride, size_t n, size_t s,
	int ijk[3], bool first, bsGridOfferFn* offer)
{
	size_t sFrom = b->direction > 0 ? s - 1 : n - s;
	size_t sTo = b->direction > 0 ? s : n - s - 1;
	size_t from = start + sFrom * stride, to = start + sTo * stride;
	if (!first && b->changed[from] + BS_GRID_SWEEPS_PER_ROUND <= b->pass)
	{
		return;
	}
	ijk[b->axis] = (int)sTo;
	bsVec3 centre = bsV3(b->coord[0][ijk[0]], b->coord[1][ijk[1]], b->coord[2][ijk[2]]);
	if (offer(b, from, to, centre))
	{
		b->changed[to] = (uint8_t)b->pass;
	}
}

// Lines along x are walked one at a time; lines along y or z side by side, a step of every line of
// the chunk at a time, so that consecutive cells in memory are visited together (a cache line serves
// several lines instead of one). Inlined for each offer (a call through a pointer per step costs
// more than the cheaper offers).
static inline void bsGrid_SweepLines(bsGridBuild* b, size_t begin, size_t end, bsGridOfferFn* offer)
{
	const bsDistanceGrid* g = b->grid;
	bool first = b->pass < BS_GRID_SWEEPS_PER_ROUND;
	size_t start[BS_GRID_LINE_GRAIN], stride = 0, n = 0;
	int ijk[BS_GRID_LINE_GRAIN][3];
	for (size_t l = begin; l < end; l += BS_GRID_LINE_GRAIN)
	{
		size_t lines = end - l < BS_GRID_LINE_GRAIN ? end - l : BS_GRID_LINE_GRAIN;
		for (size_t q = 0; q < lines; ++q)
		{
			bsGrid_Line(g, b->axis, l + q, &start[q], &stride, &n);
			bsGrid_Split(g, start[q], &ijk[q][0], &ijk[q][1], &ijk[q][2]);
		}
		if (b->axis == 0)
		{
			for (size_t q = 0; q < lines; ++q)
			{
				for (size_t s = 1; s < n; ++s)
				{
					bsGrid_SweepStep(b, start[q], stride, n, s, ijk[q], first, offer);
				}
			}
		}
		else
		{
			for (size_t s = 1; s < n; ++s)
			{
				for (size_t q = 0; q < lines; ++q)
				{
					bsGrid_SweepStep(b, start[q], stride, n, s, ijk[q], first, offer);
				}
			}
		}
	}
}

static void bsGrid_SweepSideRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGrid_SweepLines(context, begin, end, bsGrid_OfferSide);
}

static void bsGrid_SweepPointRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGrid_SweepLines(context, begin, end, bsGrid_OfferPoint);
}

static void bsGrid_SweepTriangleRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGrid_SweepLines(context, begin, end, bsGrid_Offer);
}

// Phase 3: exact beyond the band, bounded by the propagated distance.
static void bsGrid_FarRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	for (size_t c = begin; c < end; ++c)
	{
		if ((b->flag[c] & bs_cellBand) || b->tri[c] == BS_NO_TRIANGLE)
		{
			continue;
		}
		// The propagated point lies on triangle tri[c], so that triangle is within this bound (the
		// slack covers the rounding of the two distance computations).
		double bound = b->dist[c] * (1.0 + 1e-9) + 1e-12 * b->grid->cellSize;
		bsClosestPointInput in = {bsGrid_CentreOf(b->grid, c), bound};
		bsClosestPointOutput out;
		bsBvh_ClosestPoint(&b->bvh, &in, &out, NULL);
		if (out.hit && out.distance <= b->dist[c])
		{
			b->point[c] = out.point;
			b->dist[c] = out.distance;
			b->tri[c] = b->leafOf[out.triangle];
		}
	}
}

// ---- connected components and which are closed ----

static uint32_t bsFind(uint32_t* parent, uint32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

// Components numbered in the order of their lowest triangle: triangles that share a welded vertex
// are joined to the vertex's first triangle.
static bsResult bsGrid_Components(bsGridBuild* b)
{
	uint32_t n = b->count;
	bsWeld weld;
	bsResult welded = bsWeld_Build(&weld, b->tris, n);
	if (welded != bs_ok)
	{
		return welded;
	}
	uint32_t* first = malloc((size_t)(weld.vertexCount > 0 ? weld.vertexCount : 1) * sizeof *first);
	uint32_t* parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *parent);
	b->component = malloc((size_t)(n > 0 ? n : 1) * sizeof *b->component);
	if (first == NULL || parent == NULL || b->component == NULL)
	{
		free(first);
		free(parent);
		bsWeld_Destroy(&weld);
		return bs_errOutOfMemory;
	}
	memset(first, 0xff, (size_t)weld.vertexCount * sizeof *first);
	for (uint32_t t = 0; t < n; ++t)
	{
		parent[t] = t;
	}
	for (uint32_t c = 0; c < weld.cornerCount; ++c)
	{
		uint32_t t = c / 3, v = weld.cornerVertex[c];
		if (first[v] == UINT32_MAX)
		{
			first[v] = t;
			continue;
		}
		uint32_t ra = bsFind(parent, t), rb = bsFind(parent, first[v]);
		if (ra != rb)
		{
			parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;  // the lower triangle is the root
		}
	}
	free(first);
	bsWeld_Destroy(&weld);
	uint32_t count = 0;
	for (uint32_t t = 0; t < n; ++t)
	{
		uint32_t r = bsFind(parent, t);
		b->component[t] = r == t ? count++ : b->component[r];  // a root precedes its members
	}
	free(parent);
	b->componentCount = count;
	return bs_ok;
}

typedef struct bsClosedSample
{
	uint32_t triangle;
	uint32_t component;
	double winding;
} bsClosedSample;

typedef struct bsClosedContext
{
	const bsGridBuild* b;
	const uint32_t* members;  // triangles grouped by component
	const uint32_t* firstMember;
	bsClosedSample* samples;
} bsClosedContext;

// The component's winding number at the sample triangle's centroid, the triangle itself left out:
// halfway between its values just behind and just in front of the triangle.
static void bsGrid_ClosedRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsClosedContext* cc = context;
	for (size_t s = begin; s < end; ++s)
	{
		bsClosedSample* sample = cc->samples + s;
		const bsTriangle* own = cc->b->tris + sample->triangle;
		bsVec3 g = bsScale(1.0 / 3.0, bsAdd(own->p1, bsAdd(own->p2, own->p3)));
		double sum = 0.0;
		for (uint32_t m = cc->firstMember[sample->component]; m < cc->firstMember[sample->component + 1]; ++m)
		{
			uint32_t t = cc->members[m];
			if (t != sample->triangle)
			{
				const bsTriangle* tri = cc->b->tris + t;
				sum += bsSolidAngle(tri->p1, tri->p2, tri->p3, g);
			}
		}
		sample->winding = sum / bs_fourPi;
	}
}

static bsResult bsGrid_Closedness(bsGridBuild* b)
{
	uint32_t nc = b->componentCount;
	uint32_t* firstMember = calloc((size_t)nc + 1, sizeof *firstMember);
	uint32_t* members = malloc((size_t)b->count * sizeof *members);
	b->closed = calloc(nc, 1);
	bsClosedSample* samples = NULL;
	if (firstMember == NULL || members == NULL || b->closed == NULL)
	{
		free(firstMember);
		free(members);
		return bs_errOutOfMemory;
	}
	for (uint32_t t = 0; t < b->count; ++t)
	{
		firstMember[b->component[t] + 1] += 1;
	}
	size_t sampleCount = 0;
	for (uint32_t c = 0; c < nc; ++c)
	{
		uint32_t size = firstMember[c + 1];
		sampleCount += size < BS_GRID_CLOSED_SAMPLES ? size : BS_GRID_CLOSED_SAMPLES;
		firstMember[c + 1] += firstMember[c];
	}
	uint32_t* fill = malloc((size_t)nc * sizeof *fill);
	samples = malloc(sampleCount * sizeof *samples);
	if (fill == NULL || samples == NULL)
	{
		free(fill);
		free(samples);
		free(firstMember);
		free(members);
		return bs_errOutOfMemory;
	}
	memcpy(fill, firstMember, (size_t)nc * sizeof *fill);
	for (uint32_t t = 0; t < b->count; ++t)
	{
		members[fill[b->component[t]]++] = t;
	}
	free(fill);
	size_t s = 0;
	for (uint32_t c = 0; c < nc; ++c)
	{
		uint32_t size = firstMember[c + 1] - firstMember[c];
		uint32_t k = size < BS_GRID_CLOSED_SAMPLES ? size : BS_GRID_CLOSED_SAMPLES;
		for (uint32_t q = 0; q < k; ++q)
		{
			uint32_t m = firstMember[c] + (uint32_t)(((uint64_t)q * size) / k);
			samples[s++] = (bsClosedSample){members[m], c, 0.0};
		}
	}
	bsClosedContext cc = {b, members, firstMember, samples};
	bsGrid_For(b, sampleCount, 1, bsGrid_ClosedRange, &cc);
	s = 0;
	for (uint32_t c = 0; c < nc; ++c)
	{
		uint32_t size = firstMember[c + 1] - firstMember[c];
		uint32_t k = size < BS_GRID_CLOSED_SAMPLES ? size : BS_GRID_CLOSED_SAMPLES;
		double mean = 0.0;
		for (uint32_t q = 0; q < k; ++q)
		{
			mean += samples[s++].winding;
		}
		mean /= k;
		b->closed[c] = mean >= 0.25 ? 1 : (mean <= -0.25 ? 2 : 0);
		b->inverted += b->closed[c] == 2;
	}
	free(samples);
	free(firstMember);
	free(members);
	return bs_ok;
}

// Cells whose nearest triangle is on an open component: unsigned.
static void bsGrid_SignRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	for (size_t c = begin; c < end; ++c)
	{
		uint32_t t = b->tri[c];
		if (t == BS_NO_TRIANGLE)
		{
			continue;
		}
		if (b->closed[b->component[t]] == 0)
		{
			b->flag[c] = (uint8_t)((b->flag[c] | bs_cellOpen) & ~bs_cellInside);
		}
	}
}

// Components, which are closed, and the winding tree over the closed ones.
static bsResult bsGrid_Sign(bsGridBuild* b)
{
	bsResult r = bsGrid_Components(b);
	if (r == bs_ok)
	{
		r = bsGrid_Closedness(b);
	}
	if (r != bs_ok)
	{
		return r;
	}
	uint32_t closedCount = 0;
	for (uint32_t t = 0; t < b->count; ++t)
	{
		closedCount += b->closed[b->component[t]] != 0;
	}
	bsTriangle* closedTris = malloc(((size_t)closedCount + 1) * sizeof *closedTris);
	if (closedTris == NULL)
	{
		return bs_errOutOfMemory;
	}
	uint32_t k = 0;
	for (uint32_t t = 0; t < b->count; ++t)
	{
		if (b->closed[b->component[t]] != 0)
		{
			closedTris[k++] = b->tris[t];
		}
	}
	// The grid's own BVH serves when every triangle is closed (the usual case): no second build.
	r = bsWindingTree_Build(&b->winding, closedTris, closedCount, closedCount == b->count ? &b->bvh : NULL);
	free(closedTris);
	return r;
}

// ---- surface voxels: triangle against cell box, separating axes (Akenine-Moeller) ----

static bool bsAxisSeparates(bsVec3 axis, bsVec3 v0, bsVec3 v1, bsVec3 v2, double half)
{
	double p0 = bsDot(axis, v0), p1 = bsDot(axis, v1), p2 = bsDot(axis, v2);
	double lo = fmin(p0, fmin(p1, p2)), hi = fmax(p0, fmax(p1, p2));
	double r = half * (fabs(axis.x) + fabs(axis.y) + fabs(axis.z));
	return lo > r || hi < -r;
}

static bool bsTriangle_OverlapsBox(const bsTriangle* t, bsVec3 centre, double half)
{
	bsVec3 v0 = bsSub(t->p1, centre), v1 = bsSub(t->p2, centre), v2 = bsSub(t->p3, centre);
	bsVec3 e[3] = {bsSub(v1, v0), bsSub(v2, v1), bsSub(v0, v2)};
	bsVec3 box[3] = {bsV3(1, 0, 0), bsV3(0, 1, 0), bsV3(0, 0, 1)};
	for (int a = 0; a < 3; ++a)
	{
		for (int k = 0; k < 3; ++k)
		{
			if (bsAxisSeparates(bsCross(box[a], e[k]), v0, v1, v2, half))
			{
				return false;
			}
		}
		if (bsAxisSeparates(box[a], v0, v1, v2, half))
		{
			return false;
		}
	}
	return !bsAxisSeparates(t->n, v0, v1, v2, half);
}

static int bsGrid_CellOf(double x, double origin, double h, int n)
{
	double f = floor((x - origin) / h);
	return f < 0.0 ? 0 : (f >= n ? n - 1 : (int)f);
}

// The cells a triangle's box (widened like the cells' boxes, so that a face on a cell boundary
// reaches the cells on both sides) covers along each axis.
static void bsGrid_TriangleCells(const bsDistanceGrid* g, const bsTriangle* tri, int lo[3], int hi[3])
{
	double h = g->cellSize;
	bsVec3 pad = bsV3(1e-7 * h, 1e-7 * h, 1e-7 * h);
	bsVec3 a = bsSub(bsTriangle_Min(tri), pad), z = bsAdd(bsTriangle_Max(tri), pad);
	lo[0] = bsGrid_CellOf(a.x, g->origin.x, h, g->nx);
	hi[0] = bsGrid_CellOf(z.x, g->origin.x, h, g->nx);
	lo[1] = bsGrid_CellOf(a.y, g->origin.y, h, g->ny);
	hi[1] = bsGrid_CellOf(z.y, g->origin.y, h, g->ny);
	lo[2] = bsGrid_CellOf(a.z, g->origin.z, h, g->nz);
	hi[2] = bsGrid_CellOf(z.z, g->origin.z, h, g->nz);
}

// Phase 5 over planes [begin, end) of z: every triangle reaching them, in order, so each cell's sum
// is made in the same order whatever the thread (gathered by plane, not scattered by triangle).
static void bsGrid_RasterizeRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	const bsDistanceGrid* g = b->grid;
	double half = 0.5 * g->cellSize * (1.0 + 1e-7);
	for (uint32_t t = 0; t < b->count; ++t)
	{
		if (b->planes[2 * (size_t)t + 1] < (int)begin || b->planes[2 * (size_t)t] >= (int)end)
		{
			continue;
		}
		const bsTriangle* tri = b->tris + t;
		int lo[3], hi[3];
		bsGrid_TriangleCells(g, tri, lo, hi);
		int k0 = lo[2] > (int)begin ? lo[2] : (int)begin;
		int k1 = hi[2] < (int)end - 1 ? hi[2] : (int)end - 1;
		for (int k = k0; k <= k1; ++k)
		{
			for (int j = lo[1]; j <= hi[1]; ++j)
			{
				for (int i = lo[0]; i <= hi[0]; ++i)
				{
					if (!bsTriangle_OverlapsBox(tri, bsDistanceGrid_Centre(g, i, j, k), half))
					{
						continue;
					}
					size_t c = (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
					b->flag[c] |= bs_cellSurface;
					b->nsum[3 * c] += (float)tri->n.x;
					b->nsum[3 * c + 1] += (float)tri->n.y;
					b->nsum[3 * c + 2] += (float)tri->n.z;
				}
			}
		}
	}
}

static bsResult bsGrid_Rasterize(bsGridBuild* b)
{
	b->planes = malloc(2 * (size_t)b->count * sizeof *b->planes);
	if (b->planes == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (uint32_t t = 0; t < b->count; ++t)
	{
		int lo[3], hi[3];
		bsGrid_TriangleCells(b->grid, b->tris + t, lo, hi);
		b->planes[2 * (size_t)t] = lo[2];
		b->planes[2 * (size_t)t + 1] = hi[2];
	}
	bsGrid_For(b, (size_t)b->grid->nz, BS_GRID_RASTER_PLANES, bsGrid_RasterizeRange, b);
	return bs_ok;
}

// ---- blurring: the separable linear-attenuation kernel along one axis ----

static void bsGrid_BlurWeights(int radius, float weight[17])
{
	float norm = 1.0f / (float)((radius + 1) * (radius + 1));
	for (int o = -radius; o <= radius; ++o)
	{
		weight[o + radius] = (float)(radius + 1 - abs(o)) * norm;
	}
}

// Along y or z: lines next to each other in memory (consecutive x) are blurred together, a row of
// them at a time, so every read is contiguous. Each sum takes the taps in the same order as along x
// (the taps beyond the grid, zero there, left out).
static void bsGrid_BlurRowsRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	const bsDistanceGrid* g = b->grid;
	int radius = b->def->blurRadius;
	float weight[17];
	bsGrid_BlurWeights(radius, weight);
	size_t comps = (size_t)b->comps;
	size_t nx = (size_t)g->nx;
	for (size_t l = begin; l < end;)
	{
		size_t start, stride, n;
		bsGrid_Line(g, b->axis, l, &start, &stride, &n);
		size_t run = b->axis == 1 ? nx - l % nx : end - l;  // along y, a run ends with its x row
		run = run < end - l ? run : end - l;
		size_t width = run * comps;
		for (size_t s = 0; s < n; ++s)
		{
			float* dst = b->scratch + (start + s * stride) * comps;
			memset(dst, 0, width * sizeof(float));
			for (int o = -radius; o <= radius; ++o)
			{
				if ((long)s + o < 0 || (long)s + o >= (long)n)
				{
					continue;
				}
				const float* src = b->field + (start + (size_t)((long)s + o) * stride) * comps;
				float w = weight[o + radius];
				for (size_t m = 0; m < width; ++m)
				{
					dst[m] += w * src[m];
				}
			}
		}
		l += run;
	}
}

static void bsGrid_BlurRange(void* context, size_t begin, size_t end, int worker)
{
	bsGridBuild* b = context;
	if (b->axis != 0)
	{
		bsGrid_BlurRowsRange(context, begin, end, worker);
		return;
	}
	int radius = b->def->blurRadius;
	float weight[17];
	bsGrid_BlurWeights(radius, weight);
	size_t comps = (size_t)b->comps;
	float* line = b->lineBuffers + (size_t)worker * b->lineBufferFloats;
	for (size_t l = begin; l < end; ++l)
	{
		size_t start, stride, n;
		bsGrid_Line(b->grid, b->axis, l, &start, &stride, &n);
		// The line with `radius` zero cells on either side (beyond the grid: zero), so the taps
		// need no test.
		memset(line, 0, (n + 2 * (size_t)radius) * comps * sizeof(float));
		bool empty = true;
		for (size_t s = 0; s < n; ++s)
		{
			const float* src = b->field + (start + s * stride) * comps;
			float* dst = line + (s + (size_t)radius) * comps;
			for (size_t m = 0; m < comps; ++m)
			{
				dst[m] = src[m];
				empty = empty && src[m] == 0.0f;
			}
		}
		if (empty)
		{
			// Beyond the blur's reach (deep inside a solid, far outside): zero stays zero.
			for (size_t s = 0; s < n; ++s)
			{
				memset(b->scratch + (start + s * stride) * comps, 0, comps * sizeof(float));
			}
			continue;
		}
		for (size_t s = 0; s < n; ++s)
		{
			float acc[3] = {0.0f, 0.0f, 0.0f};
			const float* src = line + s * comps;
			for (int o = 0; o <= 2 * radius; ++o)
			{
				for (size_t m = 0; m < comps; ++m)
				{
					acc[m] += weight[o] * src[(size_t)o * comps + m];
				}
			}
			float* dst = b->scratch + (start + s * stride) * comps;
			for (size_t m = 0; m < comps; ++m)
			{
				dst[m] = acc[m];
			}
		}
	}
}

// One round: x, y and z passes (field -> scratch -> field ...), ending in field.
static void bsGrid_BlurRound(bsGridBuild* b)
{
	for (int axis = 0; axis < 3; ++axis)
	{
		b->axis = axis;
		bsGrid_For(b, bsGrid_LineCount(b->grid, axis), BS_GRID_LINE_GRAIN,
			bsGrid_BlurRange, b);
		float* t = b->field;
		b->field = b->scratch;
		b->scratch = t;
	}
}

// Surface voxels (blur) or occupied cells (potential) back to their pinned value.
static void bsGrid_Pin(bsGridBuild* b)
{
	for (size_t c = 0; c < b->cells; ++c)
	{
		if (b->comps == 3 && (b->flag[c] & bs_cellSurface))
		{
			memcpy(b->field + 3 * c, b->nsum + 3 * c, 3 * sizeof(float));
		}
		else if (b->comps == 1 && b->pinPotential && (b->flag[c] & (bs_cellSurface | bs_cellInside)))
		{
			b->field[c] = 1.0f;
		}
	}
}

// The normal where the method gives none: the distance's gradient.
static bsVec3 bsGrid_Fallback(const bsGridBuild* b, size_t c, bsVec3 centre)
{
	bsVec3 u = bsSub(centre, b->point[c]);
	double len = bsLength(u);
	if (len > 1e-9 * b->grid->cellSize)
	{
		u = bsScale(1.0 / len, u);
		return (b->flag[c] & bs_cellInside) ? bsNeg(u) : u;
	}
	return b->tris[b->tri[c]].n;
}

static float bsGrid_Potential(const bsGridBuild* b, int i, int j, int k)
{
	const bsDistanceGrid* g = b->grid;
	i = i < 0 ? 0 : (i >= g->nx ? g->nx - 1 : i);
	j = j < 0 ? 0 : (j >= g->ny ? g->ny - 1 : j);
	k = k < 0 ? 0 : (k >= g->nz ? g->nz - 1 : k);
	return b->field[(size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k)];
}

// The method's raw direction at cell c (zero when it has none).
static bsVec3 bsGrid_MethodNormal(const bsGridBuild* b, size_t c)
{
	if (b->comps == 3)
	{
		const float* f = b->field + 3 * c;
		return bsV3(f[0], f[1], f[2]);
	}
	int i, j, k;
	bsGrid_Split(b->grid, c, &i, &j, &k);
	// Central differences (one-sided at the border, where the clamped neighbour is the cell itself).
	double gx = (double)bsGrid_Potential(b, i + 1, j, k) - (double)bsGrid_Potential(b, i - 1, j, k);
	double gy = (double)bsGrid_Potential(b, i, j + 1, k) - (double)bsGrid_Potential(b, i, j - 1, k);
	double gz = (double)bsGrid_Potential(b, i, j, k + 1) - (double)bsGrid_Potential(b, i, j, k - 1);
	return bsV3(-gx, -gy, -gz);
}

static void bsGrid_FinishRange(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsGridBuild* b = context;
	for (size_t c = begin; c < end; ++c)
	{
		bsVec3 centre = bsGrid_CentreOf(b->grid, c);
		bsVec3 n = bsGrid_MethodNormal(b, c);
		double len = bsLength(n);
		n = len > 1e-7 ? bsScale(1.0 / len, n) : bsGrid_Fallback(b, c, centre);
		// A sheet's field is two-sided: the normal points from the sheet towards the cell.
		if ((b->flag[c] & bs_cellOpen) && bsDot(n, bsSub(centre, b->point[c])) < 0.0)
		{
			n = bsNeg(n);
		}
		bsGridCell* cell = b->grid->cells + c;
		cell->distance = (float)((b->flag[c] & bs_cellInside) ? -b->dist[c] : b->dist[c]);
		cell->normal[0] = (float)n.x;
		cell->normal[1] = (float)n.y;
		cell->normal[2] = (float)n.z;
	}
}

static bsResult bsGrid_Normals(bsGridBuild* b)
{
	b->comps = b->def->method == bs_gridBlur ? 3 : 1;
	b->field = calloc(b->cells * (size_t)b->comps, sizeof(float));
	b->scratch = calloc(b->cells * (size_t)b->comps, sizeof(float));
	int longest = b->grid->nx > b->grid->ny ? b->grid->nx : b->grid->ny;
	longest = longest > b->grid->nz ? longest : b->grid->nz;
	b->lineBufferFloats = ((size_t)longest + 2 * (size_t)b->def->blurRadius) * (size_t)b->comps;
	b->lineBuffers = malloc((size_t)bsResolveThreads(b->def->threads, SIZE_MAX) * b->lineBufferFloats *
		sizeof(float));
	if (b->field == NULL || b->scratch == NULL || b->lineBuffers == NULL)
	{
		return bs_errOutOfMemory;
	}
	// The surface voxels' averaged face normals, unit (a voxel where they cancel keeps zero).
	for (size_t c = 0; c < b->cells; ++c)
	{
		float* s = b->nsum + 3 * c;
		double x = s[0], y = s[1], z = s[2];
		double len = sqrt(x * x + y * y + z * z);
		for (int m = 0; m < 3; ++m)
		{
			s[m] = len > 1e-6 ? (float)((double)s[m] / len) : 0.0f;
		}
	}
	b->pinPotential = true;
	bsGrid_Pin(b);
	// The potential is not re-pinned: pinning the occupied voxels back to 1 after each round keeps
	// their staircase in the gradient (40 degrees off on a sphere at 32 cells, 2.5 without).
	b->pinPotential = false;
	for (int round = 0; round < b->def->blurRounds; ++round)
	{
		bsGrid_BlurRound(b);
		bsGrid_Pin(b);
	}
	bsGrid_For(b, b->cells, BS_GRID_GRAIN, bsGrid_FinishRange, b);
	return bs_ok;
}

// ---- the whole build ----

static bsResult bsGrid_Layout(bsDistanceGrid* g, const bsTriangle* tris, uint32_t count,
	const bsDistanceGridDef* def)
{
	bsVec3 lo = bsTriangle_Min(tris), hi = bsTriangle_Max(tris);
	for (uint32_t t = 1; t < count; ++t)
	{
		lo = bsMin(lo, bsTriangle_Min(tris + t));
		hi = bsMax(hi, bsTriangle_Max(tris + t));
	}
	bsVec3 ext = bsSub(hi, lo);
	double h = def->cellSize;
	if (h == 0.0)
	{
		double longest = fmax(ext.x, fmax(ext.y, ext.z));
		h = longest / (def->resolution - 2 * def->margin);
	}
	if (!(h > 0.0) || !isfinite(h))
	{
		return bs_errInvalidArgument;  // a mesh with no extent (degenerate triangles are refused earlier)
	}
	double e[3] = {ext.x, ext.y, ext.z};
	double n[3];
	uint64_t cells = 1;
	for (int a = 0; a < 3; ++a)
	{
		n[a] = fmax(1.0, ceil(e[a] / h * (1.0 - 1e-12))) + 2.0 * def->margin;
		if (n[a] > (double)BS_GRID_MAX_CELLS)
		{
			return bs_errTooLarge;
		}
		cells *= (uint64_t)n[a];
		if (cells > BS_GRID_MAX_CELLS)
		{
			return bs_errTooLarge;
		}
	}
	g->nx = (int)n[0];
	g->ny = (int)n[1];
	g->nz = (int)n[2];
	g->cellSize = h;
	// Centred on the mesh's box.
	bsVec3 mid = bsScale(0.5, bsAdd(lo, hi));
	g->origin = bsV3(mid.x - 0.5 * n[0] * h, mid.y - 0.5 * n[1] * h, mid.z - 0.5 * n[2] * h);
	return bs_ok;
}

static void bsGridBuild_Free(bsGridBuild* b)
{
	bsPool_Destroy(b->pool);
	bsBvh_Destroy(&b->bvh);
	bsWindingTree_Free(&b->winding);
	free(b->point);
	free(b->dist);
	free(b->tri);
	free(b->flag);
	free(b->leafOf);
	free(b->planes);
	for (int a = 0; a < 3; ++a)
	{
		free(b->coord[a]);
	}
	free(b->changed);
	free(b->component);
	free(b->closed);
	free(b->nsum);
	free(b->field);
	free(b->scratch);
	free(b->lineBuffers);
}

// Rounds of line sweeps along x, y and z, each forwards and backwards.
static void bsGrid_Sweep(bsGridBuild* b, bsRangeFn* sweep, int rounds)
{
	b->pass = 0;
	memset(b->changed, 0, b->cells);
	for (int round = 0; round < rounds; ++round)
	{
		for (int axis = 0; axis < 3; ++axis)
		{
			for (int direction = 1; direction >= -1; direction -= 2)
			{
				b->axis = axis;
				b->direction = direction;
				bsGrid_For(b, bsGrid_LineCount(b->grid, axis), BS_GRID_LINE_GRAIN,
					sweep, b);
				b->pass += 1;
			}
		}
	}
}

static bsResult bsGrid_Run(bsGridBuild* b, bsDistanceGridStats* st)
{
	double cpu0 = bsCpuNow();
	double t0 = bsNow();
	b->pool = bsPool_Create(b->def->threads);
	bsBvhOptions options = bsDefaultBvhOptions();
	options.threads = b->def->threads;  // the same tree on any thread count
	bsResult r = bsBvh_Build(&b->bvh, b->tris, b->count, &options);
	if (r != bs_ok)
	{
		return r;
	}
	// From here on triangles are numbered in the BVH's leaf order, where triangles near in space are
	// near in memory: the propagation reads a neighbour's triangle per offer, and in the caller's
	// order (a downloaded mesh's, say) most of those reads would miss the cache.
	b->tris = b->bvh.tris;
	b->leafOf = malloc((size_t)b->count * sizeof *b->leafOf);
	if (b->leafOf == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (uint32_t k = 0; k < b->count; ++k)
	{
		b->leafOf[b->bvh.triIndex[k]] = k;
	}
	size_t n = b->cells;
	const bsDistanceGrid* g = b->grid;
	const int dims[3] = {g->nx, g->ny, g->nz};
	for (int a = 0; a < 3; ++a)
	{
		b->coord[a] = malloc((size_t)dims[a] * sizeof *b->coord[a]);
		if (b->coord[a] == NULL)
		{
			return bs_errOutOfMemory;
		}
		for (int i = 0; i < dims[a]; ++i)
		{
			bsVec3 c = bsDistanceGrid_Centre(g, a == 0 ? i : 0, a == 1 ? i : 0, a == 2 ? i : 0);
			b->coord[a][i] = a == 0 ? c.x : (a == 1 ? c.y : c.z);
		}
	}
	b->point = malloc(n * sizeof *b->point);
	b->dist = malloc(n * sizeof *b->dist);
	b->tri = malloc(n * sizeof *b->tri);
	b->flag = calloc(n, 1);
	b->changed = malloc(n);
	b->nsum = calloc(n * 3, sizeof(float));
	b->grid->cells = calloc(n, sizeof(bsGridCell));
	if (b->point == NULL || b->dist == NULL || b->tri == NULL || b->flag == NULL || b->changed == NULL ||
		b->nsum == NULL ||
		b->grid->cells == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (size_t c = 0; c < n; ++c)
	{
		b->point[c] = bsV3(0.0, 0.0, 0.0);
		b->dist[c] = HUGE_VAL;
		b->tri[c] = BS_NO_TRIANGLE;
	}
	r = bsGrid_Sign(b);
	if (r != bs_ok)
	{
		return r;
	}
	double tSign = bsNow();
	r = bsGrid_Rasterize(b);
	if (r != bs_ok)
	{
		return r;
	}
	bsGrid_MarkNear(b);
	double tRaster = bsNow();
	bsGrid_For(b, n, BS_GRID_GRAIN, bsGrid_BandRange, b);
	bsGrid_Sweep(b, bsGrid_SweepSideRange, BS_GRID_SIDE_ROUNDS);
	bsGrid_For(b, n, BS_GRID_GRAIN, bsGrid_UndecidedRange, b);
	double t1 = bsNow();
	bsGrid_Sweep(b, bsGrid_SweepPointRange, BS_GRID_POINT_ROUNDS);
	bsGrid_For(b, n, BS_GRID_GRAIN, bsGrid_RefineRange, b);
	bsGrid_Sweep(b, bsGrid_SweepTriangleRange, BS_GRID_TRIANGLE_ROUNDS);
	double t2 = bsNow();
	if (b->def->exactFar)
	{
		bsGrid_For(b, n, BS_GRID_GRAIN, bsGrid_FarRange, b);
	}
	bsGrid_For(b, n, BS_GRID_GRAIN, bsGrid_SignRange, b);
	double t3 = bsNow();
	r = bsGrid_Normals(b);
	if (r != bs_ok)
	{
		return r;
	}
	double t6 = bsNow();
	uint64_t band = 0, inside = 0, open = 0, voxels = 0;
	for (size_t c = 0; c < n; ++c)
	{
		voxels += (b->flag[c] & bs_cellSurface) != 0;
		band += (b->flag[c] & bs_cellBand) != 0;
		inside += (b->flag[c] & bs_cellInside) != 0;
		open += (b->flag[c] & bs_cellOpen) != 0;
	}
	b->grid->flags = (open > 0 ? bs_gridHasOpen : 0u) | (inside > 0 ? bs_gridHasInside : 0u);
	if (st != NULL)
	{
		st->cells = n;
		st->bandCells = band;
		st->surfaceVoxels = voxels;
		st->components = b->componentCount;
		st->openComponents = 0;
		for (uint32_t c = 0; c < b->componentCount; ++c)
		{
			st->openComponents += b->closed[c] == 0;
		}
		st->invertedComponents = b->inverted;
		st->insideCells = inside;
		st->signSeconds = tSign - t0;
		st->rasterSeconds = tRaster - tSign;
		st->bandSeconds = t1 - tRaster;
		st->propagateSeconds = t2 - t1;
		st->farSeconds = t3 - t2;
		st->normalSeconds = t6 - t3;
		st->totalSeconds = t6 - t0;
		st->cpuSeconds = bsCpuNow() - cpu0;
	}
	return bs_ok;
}

bsResult bsDistanceGrid_Layout(bsDistanceGrid* grid, const bsTriangle* tris, uint32_t count,
	const bsDistanceGridDef* def)
{
	if (grid == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(grid, 0, sizeof *grid);
	if (tris == NULL || count == 0 || bsDistanceGridDef_Check(def) != bs_ok)
	{
		return bs_errInvalidArgument;
	}
	for (uint32_t t = 0; t < count; ++t)
	{
		if (!bsIsValidVec3(tris[t].p1) || !bsIsValidVec3(tris[t].p2) || !bsIsValidVec3(tris[t].p3))
		{
			return bs_errNonFinite;
		}
	}
	bsResult r = bsGrid_Layout(grid, tris, count, def);
	if (r != bs_ok)
	{
		memset(grid, 0, sizeof *grid);
		return r;
	}
	grid->method = def->method;
	grid->band = def->band;
	grid->blurRadius = def->blurRadius;
	grid->blurRounds = def->blurRounds;
	grid->exactFar = def->exactFar;
	grid->meshHash = bsMeshHash(tris, count);
	return bs_ok;
}

bsResult bsDistanceGrid_Build(bsDistanceGrid* grid, const bsTriangle* tris, uint32_t count,
	const bsDistanceGridDef* def, bsDistanceGridStats* stats)
{
	if (stats != NULL)
	{
		memset(stats, 0, sizeof *stats);
	}
	bsResult r = bsDistanceGrid_Layout(grid, tris, count, def);
	if (r != bs_ok)
	{
		return r;
	}
	bsGridBuild b;
	memset(&b, 0, sizeof b);
	b.def = def;
	b.grid = grid;
	b.tris = tris;
	b.count = count;
	b.cells = (size_t)bsDistanceGrid_CellCount(grid);
	r = bsGrid_Run(&b, stats);
	bsGridBuild_Free(&b);
	if (r != bs_ok)
	{
		bsDistanceGrid_Free(grid);
	}
	return r;
}

void bsDistanceGrid_Free(bsDistanceGrid* grid)
{
	if (grid != NULL)
	{
		free(grid->cells);
		memset(grid, 0, sizeof *grid);
	}
}

// ---- lookups ----

const bsGridCell* bsDistanceGrid_Nearest(const bsDistanceGrid* grid, bsVec3 p)
{
	double h = grid->cellSize;
	double fx = floor((p.x - grid->origin.x) / h);
	double fy = floor((p.y - grid->origin.y) / h);
	double fz = floor((p.z - grid->origin.z) / h);
	if (!(fx >= 0.0 && fx < grid->nx && fy >= 0.0 && fy < grid->ny && fz >= 0.0 && fz < grid->nz))
	{
		return NULL;
	}
	return grid->cells + (size_t)fx + (size_t)grid->nx * ((size_t)fy + (size_t)grid->ny * (size_t)fz);
}

bool bsDistanceGrid_Trilinear(const bsDistanceGrid* grid, bsVec3 p, bsGridCell* out)
{
	const bsGridCell* nearest = bsDistanceGrid_Nearest(grid, p);
	if (nearest == NULL)
	{
		return false;
	}
	int i0, j0, k0;
	double tx, ty, tz;
	double h = grid->cellSize;
	bsDistanceGrid_Axis(p.x, grid->origin.x, h, grid->nx, &i0, &tx);
	bsDistanceGrid_Axis(p.y, grid->origin.y, h, grid->ny, &j0, &ty);
	bsDistanceGrid_Axis(p.z, grid->origin.z, h, grid->nz, &k0, &tz);
	double d = 0.0, n[3] = {0.0, 0.0, 0.0};
	for (int corner = 0; corner < 8; ++corner)
	{
		int di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
		double w = (di ? tx : 1.0 - tx) * (dj ? ty : 1.0 - ty) * (dk ? tz : 1.0 - tz);
		if (w == 0.0)
		{
			continue;
		}
		int i = i0 + di < grid->nx ? i0 + di : grid->nx - 1;
		int j = j0 + dj < grid->ny ? j0 + dj : grid->ny - 1;
		int k = k0 + dk < grid->nz ? k0 + dk : grid->nz - 1;
		const bsGridCell* c = grid->cells + (size_t)i + (size_t)grid->nx * ((size_t)j + (size_t)grid->ny * (size_t)k);
		d += w * (double)c->distance;
		for (int m = 0; m < 3; ++m)
		{
			n[m] += w * (double)c->normal[m];
		}
	}
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	out->distance = (float)d;
	for (int m = 0; m < 3; ++m)
	{
		out->normal[m] = len > 1e-12 ? (float)(n[m] / len) : nearest->normal[m];
	}
	return true;
}
