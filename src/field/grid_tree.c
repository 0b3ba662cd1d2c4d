// grid_tree.c — the two-level compressed distance/normal grid (see field.h).
#include "grid_tree_internal.h"
#include "core.h"

#include "blobsim/field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bsGridTreeDef bsDefaultGridTreeDef(void)
{
	bsGridTreeDef def;
	def.blockSize = 4;
	def.distanceTolerance = 0.25;
	def.maxAngle = 10.0 * (BS_PI / 180.0);
	def.farDistance = 0.0;
	return def;
}

bsResult bsGridTreeDef_Check(const bsGridTreeDef* def)
{
	if (def == NULL)
	{
		return bs_errInvalidArgument;
	}
	int b = def->blockSize;
	bool power = b == 2 || b == 4 || b == 8 || b == 16;
	bool ok = power && def->distanceTolerance >= 0.0 && isfinite(def->distanceTolerance) &&
		def->maxAngle >= 0.0 && def->maxAngle <= BS_PI && def->farDistance >= 0.0 && isfinite(def->farDistance);
	return ok ? bs_ok : bs_errInvalidArgument;
}

void bsGridTree_Free(bsGridTree* tree)
{
	if (tree == NULL)
	{
		return;
	}
	free(tree->nodes);
	free(tree->subgrids);
	free(tree->axis[0]);
	memset(tree, 0, sizeof *tree);
}

uint64_t bsGridTree_Bytes(const bsGridTree* tree)
{
	uint64_t blocks = (uint64_t)tree->bx * (uint64_t)tree->by * (uint64_t)tree->bz;
	uint64_t b3 = (uint64_t)1 << (3 * tree->blockShift);
	uint64_t axes = (uint64_t)tree->nx + (uint64_t)tree->ny + (uint64_t)tree->nz;
	return blocks * sizeof(bsGridTreeNode) + (uint64_t)tree->subgridCount * b3 * sizeof(bsGridCell) +
		axes * sizeof(bsGridTreeAxis);
}

bsGridCell bsGridTree_Cell(const bsGridTree* tree, int i, int j, int k)
{
	return bsGridTree_CellAt(tree, i, j, k);
}

// The node of the block holding cell (i, j, k).
static const bsGridTreeNode* bsGridTree_Node(const bsGridTree* tree, int i, int j, int k)
{
	return bsGridTree_KeyNode(tree, bsGridTree_Key(tree, i, j, k));
}

// ---- building ----

// The cells of one block inside the grid: [i0, i0 + sx) x [j0, ...) x [k0, ...).
typedef struct bsBlock
{
	int i0, j0, k0;
	int sx, sy, sz;
} bsBlock;

static const bsGridCell* bsBlock_Cell(const bsDistanceGrid* g, const bsBlock* b, int li, int lj, int lk)
{
	return g->cells + (size_t)(b->i0 + li) + (size_t)g->nx * ((size_t)(b->j0 + lj) + (size_t)g->ny * (size_t)(b->k0 + lk));
}

// The normalized mean of the block's normals into n; false when they cancel.
static bool bsBlock_MeanNormal(const bsDistanceGrid* g, const bsBlock* b, double n[3])
{
	double m[3] = {0.0, 0.0, 0.0};
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				const bsGridCell* c = bsBlock_Cell(g, b, li, lj, lk);
				for (int a = 0; a < 3; ++a)
				{
					m[a] += (double)c->normal[a];
				}
			}
	double len = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
	if (!(len > 1e-9))
	{
		return false;
	}
	for (int a = 0; a < 3; ++a)
	{
		n[a] = m[a] / len;
	}
	return true;
}

// The smallest cosine between n and the block's normals.
static double bsBlock_MinCos(const bsDistanceGrid* g, const bsBlock* b, const double n[3])
{
	double minCos = 1.0;
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				const bsGridCell* c = bsBlock_Cell(g, b, li, lj, lk);
				double cs = n[0] * (double)c->normal[0] + n[1] * (double)c->normal[1] + n[2] * (double)c->normal[2];
				minCos = cs < minCos ? cs : minCos;
			}
	return minCos;
}

// The least-squares affine fit of the block's distances (the cells are a regular box, so each
// gradient component is a 1-D regression), its constant then moved to the middle of the residuals'
// range: returns the largest residual.
static double bsBlock_FitDistance(const bsDistanceGrid* g, const bsBlock* b, double* c, double grad[3])
{
	double mean[3] = {(b->sx - 1) * 0.5, (b->sy - 1) * 0.5, (b->sz - 1) * 0.5};
	double sum = 0.0, cov[3] = {0.0, 0.0, 0.0}, var[3] = {0.0, 0.0, 0.0};
	double count = (double)b->sx * b->sy * b->sz;
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				double d = (double)bsBlock_Cell(g, b, li, lj, lk)->distance;
				double x[3] = {li - mean[0], lj - mean[1], lk - mean[2]};
				sum += d;
				for (int a = 0; a < 3; ++a)
				{
					cov[a] += x[a] * d;
					var[a] += x[a] * x[a];
				}
			}
	for (int a = 0; a < 3; ++a)
	{
		grad[a] = var[a] > 0.0 ? cov[a] / var[a] : 0.0;
	}
	double c0 = sum / count - grad[0] * mean[0] - grad[1] * mean[1] - grad[2] * mean[2];
	double lo = 1e300, hi = -1e300;
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				double r = (double)bsBlock_Cell(g, b, li, lj, lk)->distance - (c0 + grad[0] * li + grad[1] * lj + grad[2] * lk);
				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
			}
	*c = c0 + 0.5 * (lo + hi);
	return 0.5 * (hi - lo);
}

// When every cell of the block is beyond far on one side: the nearest distance (signed) into *d.
static bool bsBlock_Far(const bsDistanceGrid* g, const bsBlock* b, double far, double* d)
{
	double nearest = 1e300;
	int sign = 0;
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				double v = (double)bsBlock_Cell(g, b, li, lj, lk)->distance;
				int s = v < 0.0 ? -1 : 1;
				if (fabs(v) < far || (sign != 0 && s != sign))
				{
					return false;
				}
				sign = s;
				nearest = fabs(v) < nearest ? fabs(v) : nearest;
			}
	*d = sign * nearest;
	return true;
}

// x, or +0 for -0: no stored value is -0 (grid_tree_internal.h), which changes none of the sums a
// stored cell is (they add +0 to it), and lets a lookup leave the +0 out.
static float bsNoNegativeZero(double x)
{
	return (float)x + 0.0f;
}

// The block's plane when the tree may stand for it by one; *far says it is only because it is far.
static bool bsBlock_Plane(const bsDistanceGrid* g, const bsBlock* b, const bsGridTreeDef* def, bsGridTreeNode* p,
	bool* far)
{
	double n[3], c, grad[3];
	*far = false;
	if (!bsBlock_MeanNormal(g, b, n))
	{
		return false;
	}
	bool fits = bsBlock_MinCos(g, b, n) >= cos(def->maxAngle) &&
		bsBlock_FitDistance(g, b, &c, grad) <= def->distanceTolerance * g->cellSize;
	if (!fits)
	{
		if (!(def->farDistance > 0.0 && bsBlock_Far(g, b, def->farDistance, &c)))
		{
			return false;
		}
		*far = true;
		grad[0] = grad[1] = grad[2] = 0.0;
	}
	p->c = bsNoNegativeZero(c);
	for (int a = 0; a < 3; ++a)
	{
		p->g[a] = bsNoNegativeZero(grad[a]);
		p->n[a] = bsNoNegativeZero(n[a]);
	}
	p->first = 0;
	return true;
}

static void bsBlock_CopyCells(const bsDistanceGrid* g, const bsBlock* b, int shift, bsGridCell* out)
{
	size_t b3 = (size_t)1 << (3 * shift);
	memset(out, 0, b3 * sizeof *out);
	for (int lk = 0; lk < b->sz; ++lk)
		for (int lj = 0; lj < b->sy; ++lj)
			for (int li = 0; li < b->sx; ++li)
			{
				const bsGridCell* c = bsBlock_Cell(g, b, li, lj, lk);
				bsGridCell* o = out + (size_t)li + ((size_t)lj << shift) + ((size_t)lk << (2 * shift));
				o->distance = bsNoNegativeZero(c->distance);
				for (int a = 0; a < 3; ++a)
				{
					o->normal[a] = bsNoNegativeZero(c->normal[a]);
				}
			}
}

static double bsAngle(const float a[3], const float b[3])
{
	double x[3] = {a[0], a[1], a[2]}, y[3] = {b[0], b[1], b[2]};
	double dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
	double la = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
	double lb = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
	double cs = dot / (la * lb);
	cs = cs > 1.0 ? 1.0 : cs < -1.0 ? -1.0 : cs;
	return acos(cs);
}

// The errors of the tree's cells against the grid's, measured through bsGridTree_Cell.
static void bsGridTree_Measure(const bsGridTree* t, const bsDistanceGrid* g, const uint8_t* farBlock,
	bsGridTreeStats* stats)
{
	stats->maxDistanceError = 0.0;
	stats->maxAngle = 0.0;
	stats->farLowerBound = true;
	int s = t->blockShift;
	for (int k = 0; k < g->nz; ++k)
		for (int j = 0; j < g->ny; ++j)
			for (int i = 0; i < g->nx; ++i)
			{
				const bsGridCell* d = g->cells + (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
				bsGridCell c = bsGridTree_Cell(t, i, j, k);
				if (farBlock[(size_t)(i >> s) + (size_t)t->bx * ((size_t)(j >> s) + (size_t)t->by * (size_t)(k >> s))])
				{
					bool lower = (c.distance < 0.0f) == (d->distance < 0.0f) && fabsf(c.distance) <= fabsf(d->distance) &&
						fabsf(c.distance) >= (float)t->farDistance;
					stats->farLowerBound = stats->farLowerBound && lower;
					continue;
				}
				double e = fabs((double)c.distance - (double)d->distance);
				double a = bsAngle(c.normal, d->normal);
				stats->maxDistanceError = e > stats->maxDistanceError ? e : stats->maxDistanceError;
				stats->maxAngle = a > stats->maxAngle ? a : stats->maxAngle;
			}
}

static bsResult bsGridTree_Alloc(bsGridTree* t, const bsDistanceGrid* g, int shift)
{
	int b = 1 << shift;
	t->nx = g->nx;
	t->ny = g->ny;
	t->nz = g->nz;
	t->cellSize = g->cellSize;
	t->origin = g->origin;
	t->blockShift = shift;
	t->bx = (g->nx + b - 1) / b;
	t->by = (g->ny + b - 1) / b;
	t->bz = (g->nz + b - 1) / b;
	size_t blocks = (size_t)t->bx * (size_t)t->by * (size_t)t->bz;
	if (blocks > UINT32_MAX)
	{
		return bs_errOutOfMemory;  // a node's index is 32 bits (as is a subgrid cell's)
	}
	t->nodes = malloc(blocks * sizeof *t->nodes);
	t->axis[0] = malloc(((size_t)g->nx + (size_t)g->ny + (size_t)g->nz) * sizeof *t->axis[0]);
	if (t->nodes == NULL || t->axis[0] == NULL)
	{
		return bs_errOutOfMemory;
	}
	t->axis[1] = t->axis[0] + g->nx;
	t->axis[2] = t->axis[1] + g->ny;
	int n[3] = {g->nx, g->ny, g->nz};
	uint64_t nodeStride[3] = {1, (uint64_t)t->bx, (uint64_t)t->bx * (uint64_t)t->by};
	for (int a = 0; a < 3; ++a)
	{
		for (int i = 0; i < n[a]; ++i)
		{
			int local = i & (b - 1);
			uint64_t sub = (uint64_t)local << (a * shift);
			t->axis[a][i].key = (uint64_t)(i >> shift) * nodeStride[a] + (sub << 32);
			t->axis[a][i].local = (float)local;
			t->axis[a][i].pad = 0;
		}
	}
	return bs_ok;
}

static void bsGridTree_BlockAt(const bsDistanceGrid* g, int b, int bi, int bj, int bk, bsBlock* blk)
{
	blk->i0 = bi * b;
	blk->j0 = bj * b;
	blk->k0 = bk * b;
	blk->sx = g->nx - blk->i0 < b ? g->nx - blk->i0 : b;
	blk->sy = g->ny - blk->j0 < b ? g->ny - blk->j0 : b;
	blk->sz = g->nz - blk->k0 < b ? g->nz - blk->k0 : b;
}

// One pass decides each block (a plane, or a dense block given the next subgrid), one copies the
// dense blocks' cells into their subgrids (subgrid 0 stays zero, the planes').
static bsResult bsGridTree_Fill(bsGridTree* t, const bsDistanceGrid* g, const bsGridTreeDef* def, uint8_t* farBlock,
	bsGridTreeStats* stats)
{
	int b = 1 << t->blockShift;
	size_t b3 = (size_t)1 << (3 * t->blockShift);
	uint32_t planes = 0, subgrids = 1, farPlanes = 0;
	size_t index = 0;
	for (int bk = 0; bk < t->bz; ++bk)
		for (int bj = 0; bj < t->by; ++bj)
			for (int bi = 0; bi < t->bx; ++bi, ++index)
			{
				bsBlock blk;
				bsGridTree_BlockAt(g, b, bi, bj, bk, &blk);
				bool far = false;
				bsGridTreeNode* node = t->nodes + index;
				bool plane = bsBlock_Plane(g, &blk, def, node, &far);
				if (!plane)
				{
					memset(node, 0, sizeof *node);
					node->first = (uint32_t)(subgrids++ * b3);
				}
				planes += plane ? 1u : 0u;
				farPlanes += far ? 1u : 0u;
				farBlock[index] = far ? 1 : 0;
			}
	t->subgridCount = subgrids;
	if ((uint64_t)subgrids * b3 > UINT32_MAX)
	{
		return bs_errOutOfMemory;  // the nodes' first cells would not fit 32 bits
	}
	t->subgrids = calloc(subgrids * b3, sizeof *t->subgrids);
	if (t->subgrids == NULL)
	{
		return bs_errOutOfMemory;
	}
	index = 0;
	for (int bk = 0; bk < t->bz; ++bk)
		for (int bj = 0; bj < t->by; ++bj)
			for (int bi = 0; bi < t->bx; ++bi, ++index)
			{
				uint32_t first = t->nodes[index].first;
				if (first != 0)
				{
					bsBlock blk;
					bsGridTree_BlockAt(g, b, bi, bj, bk, &blk);
					bsBlock_CopyCells(g, &blk, t->blockShift, t->subgrids + first);
				}
			}
	stats->blocks = (uint32_t)index;
	stats->planes = planes;
	stats->farPlanes = farPlanes;
	return bs_ok;
}

bsResult bsGridTree_Build(bsGridTree* tree, const bsDistanceGrid* grid, const bsGridTreeDef* def,
	bsGridTreeStats* stats)
{
	if (tree == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(tree, 0, sizeof *tree);
	if (grid == NULL || grid->cells == NULL || grid->nx < 1 || grid->ny < 1 || grid->nz < 1 ||
		bsGridTreeDef_Check(def) != bs_ok)
	{
		return bs_errInvalidArgument;
	}
	int shift = def->blockSize == 2 ? 1 : def->blockSize == 4 ? 2 : def->blockSize == 8 ? 3 : 4;
	bsGridTreeStats local;
	bsGridTreeStats* st = stats != NULL ? stats : &local;
	memset(st, 0, sizeof *st);
	bsResult r = bsGridTree_Alloc(tree, grid, shift);
	size_t blocks = (size_t)tree->bx * (size_t)tree->by * (size_t)tree->bz;
	uint8_t* farBlock = r == bs_ok ? malloc(blocks) : NULL;
	r = r == bs_ok && farBlock == NULL ? bs_errOutOfMemory : r;
	tree->farDistance = (float)def->farDistance;
	r = r == bs_ok ? bsGridTree_Fill(tree, grid, def, farBlock, st) : r;
	if (r == bs_ok)
	{
		st->denseBytes = bsDistanceGrid_CellCount(grid) * sizeof(bsGridCell);
		st->treeBytes = bsGridTree_Bytes(tree);
		bsGridTree_Measure(tree, grid, farBlock, st);
	}
	free(farBlock);
	if (r != bs_ok)
	{
		bsGridTree_Free(tree);
	}
	return r;
}

// ---- lookups ----

// The cell holding p: false outside the grid (or for a NaN point).
static bool bsGridTree_Locate(const bsGridTree* tree, bsVec3 p, int* i, int* j, int* k)
{
	double h = tree->cellSize;
	double fx = floor((p.x - tree->origin.x) / h);
	double fy = floor((p.y - tree->origin.y) / h);
	double fz = floor((p.z - tree->origin.z) / h);
	if (!(fx >= 0.0 && fx < tree->nx && fy >= 0.0 && fy < tree->ny && fz >= 0.0 && fz < tree->nz))
	{
		return false;
	}
	*i = (int)fx, *j = (int)fy, *k = (int)fz;
	return true;
}

bool bsGridTree_Nearest(const bsGridTree* tree, bsVec3 p, bsGridCell* out)
{
	int i, j, k;
	if (!bsGridTree_Locate(tree, p, &i, &j, &k))
	{
		return false;
	}
	*out = bsGridTree_Cell(tree, i, j, k);
	return true;
}

// The trilinear blend of 8 cells with the weights of t (corner c at +1 along x when c & 1, y when
// c & 2, z when c & 4), as bsDistanceGrid_Trilinear blends them: zero weights skipped, the sums in
// doubles. False when the normals cancel (*out's normal is then left alone).
static bool bsGridTree_Blend(const bsGridCell corner[8], const double t[3], bsGridCell* out)
{
	double d = 0.0, n[3] = {0.0, 0.0, 0.0};
	for (int c = 0; c < 8; ++c)
	{
		int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
		double w = (di ? t[0] : 1.0 - t[0]) * (dj ? t[1] : 1.0 - t[1]) * (dk ? t[2] : 1.0 - t[2]);
		if (w == 0.0)
		{
			continue;
		}
		d += w * (double)corner[c].distance;
		for (int m = 0; m < 3; ++m)
		{
			n[m] += w * (double)corner[c].normal[m];
		}
	}
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	out->distance = (float)d;
	if (!(len > 1e-12))
	{
		return false;
	}
	for (int m = 0; m < 3; ++m)
	{
		out->normal[m] = (float)(n[m] / len);
	}
	return true;
}

bool bsGridTree_Trilinear(const bsGridTree* tree, bsVec3 p, bsGridCell* out)
{
	int ic, jc, kc;
	if (!bsGridTree_Locate(tree, p, &ic, &jc, &kc))
	{
		return false;
	}
	double h = tree->cellSize;
	int i0, j0, k0;
	double t[3];
	bsDistanceGrid_Axis(p.x, tree->origin.x, h, tree->nx, &i0, &t[0]);
	bsDistanceGrid_Axis(p.y, tree->origin.y, h, tree->ny, &j0, &t[1]);
	bsDistanceGrid_Axis(p.z, tree->origin.z, h, tree->nz, &k0, &t[2]);
	int i1 = i0 + 1 < tree->nx ? i0 + 1 : tree->nx - 1;
	int j1 = j0 + 1 < tree->ny ? j0 + 1 : tree->ny - 1;
	int k1 = k0 + 1 < tree->nz ? k0 + 1 : tree->nz - 1;
	int s = tree->blockShift, mask = (1 << s) - 1;
	const bsGridTreeNode* node = bsGridTree_Node(tree, i0, j0, k0);
	bool oneBlock = (i0 >> s) == (i1 >> s) && (j0 >> s) == (j1 >> s) && (k0 >> s) == (k1 >> s);
	if (oneBlock && node->first == 0)
	{
		// All 8 cells in one plane: the blend of an affine function is the function at the point.
		double d = (double)node->c + (double)node->g[0] * ((i0 & mask) + t[0]) +
			(double)node->g[1] * ((j0 & mask) + t[1]) + (double)node->g[2] * ((k0 & mask) + t[2]);
		out->distance = (float)d;
		memcpy(out->normal, node->n, sizeof out->normal);
		return true;
	}
	bsGridCell corner[8];
	for (int c = 0; c < 8; ++c)
	{
		int i = c & 1 ? i1 : i0, j = c & 2 ? j1 : j0, k = c & 4 ? k1 : k0;
		// All 8 cells in one dense block: read from its subgrid, without a node and plane each.
		corner[c] = oneBlock ? *(tree->subgrids + node->first +
				(size_t)(i & mask) + ((size_t)(j & mask) << s) + ((size_t)(k & mask) << (2 * s)))
			: bsGridTree_Cell(tree, i, j, k);
	}
	if (!bsGridTree_Blend(corner, t, out))
	{
		// The normals cancel: the nearest cell's.
		bsGridCell nearest = bsGridTree_Cell(tree, ic, jc, kc);
		memcpy(out->normal, nearest.normal, sizeof out->normal);
	}
	return true;
}
