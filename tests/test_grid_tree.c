// test_grid_tree.c — the compressed distance/normal grid (field.h) against the dense grid it was
// built from: at random points its nearest and trilinear lookups stay within the errors it reports
// (and those within the tolerances asked), far planes are lower bounds, and the field's rules over
// it behave as over the dense grid (a bounce to beta^2, the step the same at 1 and 2 threads, the
// range the same bit for bit as single calls).
#include "test.h"

#include "procedural.h"

#include "blobsim/field.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

static int BuildGrid(bsDistanceGrid* g, bsTriangle* tris, uint32_t count, int resolution)
{
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.resolution = resolution;
	def.threads = 2;
	ENSURE(bsDistanceGrid_Build(g, tris, count, &def, NULL) == bs_ok);
	free(tris);
	return 0;
}

// The test meshes: a sphere (curved everywhere), a box (flat faces, sharp edges), a heightfield with
// boxes on it (an open sheet with buildings).
static int MakeGrid(int which, bsDistanceGrid* g)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	if (which == 0)
	{
		ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
		return BuildGrid(g, tris, count, 40);
	}
	if (which == 1)
	{
		ENSURE(bsMakeBoxMesh(bsV3(-0.5, -0.3, -0.4), bsV3(0.5, 0.3, 0.4), 2, false, &tris, &count) == bs_ok);
		return BuildGrid(g, tris, count, 36);
	}
	ENSURE(bsMakeHeightfieldScene(7, 24, 12, &tris, &count) == bs_ok);
	return BuildGrid(g, tris, count, 48);
}

static double AngleDegrees(const float a[3], const float b[3])
{
	double dot = 0.0, la = 0.0, lb = 0.0;
	for (int m = 0; m < 3; ++m)
	{
		dot += (double)a[m] * (double)b[m];
		la += (double)a[m] * (double)a[m];
		lb += (double)b[m] * (double)b[m];
	}
	double c = dot / sqrt(la * lb);
	return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c) * (180.0 / BS_PI);
}

// The length of the dense trilinear blend of the 8 normals around p before it is normalized,
// written out here from the lookup's definition (centres clamped at the border).
static double DenseBlendLength(const bsDistanceGrid* g, bsVec3 p)
{
	double f[3] = {(p.x - g->origin.x) / g->cellSize - 0.5, (p.y - g->origin.y) / g->cellSize - 0.5,
		(p.z - g->origin.z) / g->cellSize - 0.5};
	int n[3] = {g->nx, g->ny, g->nz}, lo[3];
	double t[3];
	for (int a = 0; a < 3; ++a)
	{
		double c = fmin(fmax(f[a], 0.0), n[a] - 1.0);
		lo[a] = (int)c < n[a] - 1 ? (int)c : n[a] - 1;
		t[a] = c - lo[a];
	}
	double m[3] = {0.0, 0.0, 0.0};
	for (int corner = 0; corner < 8; ++corner)
	{
		int idx[3];
		double w = 1.0;
		for (int a = 0; a < 3; ++a)
		{
			int up = (corner >> a) & 1;
			idx[a] = lo[a] + up < n[a] ? lo[a] + up : n[a] - 1;
			w *= up ? t[a] : 1.0 - t[a];
		}
		const bsGridCell* c = g->cells + idx[0] + (size_t)g->nx * (idx[1] + (size_t)g->ny * idx[2]);
		for (int a = 0; a < 3; ++a)
		{
			m[a] += w * (double)c->normal[a];
		}
	}
	return sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
}

static bsVec3 RandomPointIn(const bsDistanceGrid* g, bsRng* rng)
{
	double u[3];
	for (int a = 0; a < 3; ++a)
	{
		u[a] = bsRng_Uniform(rng);
	}
	return bsV3(g->origin.x + u[0] * g->nx * g->cellSize, g->origin.y + u[1] * g->ny * g->cellSize,
		g->origin.z + u[2] * g->nz * g->cellSize);
}

// 20,000 random points: nearest and trilinear lookups of the tree against the dense grid's.
static int LookupsWithinReported(const bsDistanceGrid* g, const bsGridTree* t, const bsGridTreeStats* st)
{
	bsRng rng = bsMakeRng(17);
	double worstD = 0.0, worstA = 0.0, worstTD = 0.0, worstTA = 0.0;
	double slack = 1e-6 * g->cellSize;  // the trilinear blends' own float rounding
	for (int s = 0; s < 20000; ++s)
	{
		bsVec3 p = RandomPointIn(g, &rng);
		const bsGridCell* dense = bsDistanceGrid_Nearest(g, p);
		bsGridCell tree;
		ENSURE(dense != NULL && bsGridTree_Nearest(t, p, &tree));
		double e = fabs((double)tree.distance - (double)dense->distance);
		double a = AngleDegrees(tree.normal, dense->normal);
		ENSURE(e <= st->maxDistanceError);
		ENSURE(a <= st->maxAngle * (180.0 / BS_PI) + 1e-9);
		worstD = fmax(worstD, e);
		worstA = fmax(worstA, a);
		bsGridCell dt, tt;
		ENSURE(bsDistanceGrid_Trilinear(g, p, &dt) && bsGridTree_Trilinear(t, p, &tt));
		e = fabs((double)tt.distance - (double)dt.distance);
		ENSURE(e <= st->maxDistanceError + slack);
		worstTD = fmax(worstTD, e);
		double len = DenseBlendLength(g, p);
		double chord = 2.0 * sin(0.5 * st->maxAngle);
		if (len > 2.0 * chord)
		{
			double bound = asin(chord / len) * (180.0 / BS_PI) + 1e-3;
			a = AngleDegrees(tt.normal, dt.normal);
			ENSURE(a <= bound);
			worstTA = fmax(worstTA, a);
		}
	}
	ENSURE(!bsGridTree_Nearest(t, bsV3(g->origin.x - 1e-3, g->origin.y, g->origin.z), &(bsGridCell){0}));
	printf("    at random points: nearest %.3g cells, %.2f deg; trilinear %.3g cells, %.2f deg\n",
		worstD / g->cellSize, worstA, worstTD / g->cellSize, worstTA);
	return 0;
}

// Every rule of the field on, each reaching into the grids' cells near the surface.
static bsFieldDef AllRules(void)
{
	bsFieldDef def = bsDefaultFieldDef();
	def.threshold = 0.05;
	def.restitution = 0.5;
	def.drag = 2.0;
	def.contactDistance = 0.05;
	def.flowIn = 3.0;
	def.flowOut = -1.0;
	def.flowDistance = 0.2;
	def.spring = 10.0;
	def.springDistance = 0.03;
	return def;
}

// The trilinear lookup as it was first written: the plane at the point when all 8 cells are in one
// plane block, else the blend of the 8 cells each through bsGridTree_Cell (its node's plane plus its
// subgrid cell). The faster paths must give the same bits.
static bool ReferenceTrilinear(const bsGridTree* tree, bsVec3 p, bsGridCell* out)
{
	bsGridCell nearest;
	if (!bsGridTree_Nearest(tree, p, &nearest))
	{
		return false;
	}
	int i0, j0, k0;
	double t[3];
	double h = tree->cellSize;
	bsDistanceGrid_Axis(p.x, tree->origin.x, h, tree->nx, &i0, &t[0]);
	bsDistanceGrid_Axis(p.y, tree->origin.y, h, tree->ny, &j0, &t[1]);
	bsDistanceGrid_Axis(p.z, tree->origin.z, h, tree->nz, &k0, &t[2]);
	int i1 = i0 + 1 < tree->nx ? i0 + 1 : tree->nx - 1;
	int j1 = j0 + 1 < tree->ny ? j0 + 1 : tree->ny - 1;
	int k1 = k0 + 1 < tree->nz ? k0 + 1 : tree->nz - 1;
	int s = tree->blockShift, mask = (1 << s) - 1;
	const bsGridTreeNode* node =
		tree->nodes + (size_t)(i0 >> s) + (size_t)tree->bx * ((size_t)(j0 >> s) + (size_t)tree->by * (size_t)(k0 >> s));
	if (node->first == 0 && (i0 >> s) == (i1 >> s) && (j0 >> s) == (j1 >> s) && (k0 >> s) == (k1 >> s))
	{
		double d = (double)node->c + (double)node->g[0] * ((i0 & mask) + t[0]) +
			(double)node->g[1] * ((j0 & mask) + t[1]) + (double)node->g[2] * ((k0 & mask) + t[2]);
		out->distance = (float)d;
		memcpy(out->normal, node->n, sizeof out->normal);
		return true;
	}
	double d = 0.0, n[3] = {0.0, 0.0, 0.0};
	for (int corner = 0; corner < 8; ++corner)
	{
		int di = corner & 1, dj = (corner >> 1) & 1, dk = (corner >> 2) & 1;
		double w = (di ? t[0] : 1.0 - t[0]) * (dj ? t[1] : 1.0 - t[1]) * (dk ? t[2] : 1.0 - t[2]);
		if (w == 0.0)
		{
			continue;
		}
		bsGridCell c = bsGridTree_Cell(tree, di ? i1 : i0, dj ? j1 : j0, dk ? k1 : k0);
		d += w * (double)c.distance;
		for (int m = 0; m < 3; ++m)
		{
			n[m] += w * (double)c.normal[m];
		}
	}
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	out->distance = (float)d;
	for (int m = 0; m < 3; ++m)
	{
		out->normal[m] = len > 1e-12 ? (float)(n[m] / len) : nearest.normal[m];
	}
	return true;
}

// A random point of the grid, each coordinate on a cell centre (zero trilinear weights) a time in
// four, on a cell face a time in eight.
static bsVec3 RandomAlignedPoint(const bsDistanceGrid* g, bsRng* rng)
{
	bsVec3 p = RandomPointIn(g, rng);
	double* c[3] = {&p.x, &p.y, &p.z};
	double o[3] = {g->origin.x, g->origin.y, g->origin.z};
	for (int a = 0; a < 3; ++a)
	{
		double u = bsRng_Uniform(rng), cells = floor((*c[a] - o[a]) / g->cellSize);
		*c[a] = u < 0.25 ? o[a] + (cells + 0.5) * g->cellSize : u < 0.375 ? o[a] + cells * g->cellSize : *c[a];
	}
	return p;
}

// The tree's fast lookups give the bits of its stored cells (bsGridTree_Cell, plane plus subgrid
// cell): the range's nearest lookup against the dense range over a grid filled with those cells,
// every rule on, a state array and a range not starting at 0 or ending on a batch; the trilinear
// lookup against ReferenceTrilinear.
static int SameAsStoredCells(const bsDistanceGrid* g, const bsGridTree* t)
{
	bsDistanceGrid stored = *g;
	size_t cells = bsDistanceGrid_CellCount(g);
	stored.cells = malloc(cells * sizeof *stored.cells);
	enum { count = 4001 };
	bsVec3* x = malloc(count * sizeof *x);
	bsVec3* v = malloc(count * sizeof *v);
	bsVec3* w = malloc(count * sizeof *w);
	uint8_t* state = malloc(count);
	ENSURE(stored.cells != NULL && x != NULL && v != NULL && w != NULL && state != NULL);
	for (int k = 0; k < g->nz; ++k)
		for (int j = 0; j < g->ny; ++j)
			for (int i = 0; i < g->nx; ++i)
			{
				stored.cells[i + (size_t)g->nx * (j + (size_t)g->ny * k)] = bsGridTree_Cell(t, i, j, k);
			}
	bsRng rng = bsMakeRng(23);
	for (size_t i = 0; i < count; ++i)
	{
		x[i] = i % 11 == 0 ? bsV3(g->origin.x - 0.5 * g->cellSize, g->origin.y, g->origin.z) : RandomAlignedPoint(g, &rng);
		v[i] = bsV3(bsRng_Uniform(&rng) - 0.5, -2.0 * bsRng_Uniform(&rng), bsRng_Uniform(&rng) - 0.5);
		state[i] = i % 9 == 0 ? 1 : 0;
		bsGridCell fast, slow;
		bool in = bsGridTree_Trilinear(t, x[i], &fast);
		ENSURE(in == ReferenceTrilinear(t, x[i], &slow));
		ENSURE(!in || memcmp(&fast, &slow, sizeof fast) == 0);
	}
	bsFieldDef def = AllRules();
	memcpy(w, v, count * sizeof *w);
	bsField_ApplyRange(&stored, NULL, &def, 1e-3, x, v, state, 5, count - 3);
	bsField_ApplyRange(g, t, &def, 1e-3, x, w, state, 5, count - 3);
	ENSURE(memcmp(v, w, count * sizeof *v) == 0);
	free(stored.cells);
	free(x);
	free(v);
	free(w);
	free(state);
	return 0;
}

static int Compression(const bsDistanceGrid* sphere)
{
	static const char* const names[3] = {"sphere", "box", "heightfield"};
	for (int which = 0; which < 3; ++which)
	{
		bsDistanceGrid g = *sphere;
		if (which > 0)
		{
			RUN_SUBTEST(MakeGrid(which, &g));
		}
		for (int b = 2; b <= 4; b *= 2)
		{
			bsGridTreeDef def = bsDefaultGridTreeDef();
			def.blockSize = b;
			bsGridTree t;
			bsGridTreeStats st;
			ENSURE(bsGridTree_Build(&t, &g, &def, &st) == bs_ok);
			printf("  %s %d x %d x %d, blocks of %d: %u of %u blocks planes, %llu of %llu bytes (%.1f%%); "
				"errors %.3g cells, %.2f deg\n", names[which], g.nx, g.ny, g.nz, b, st.planes, st.blocks,
				(unsigned long long)st.treeBytes, (unsigned long long)st.denseBytes,
				100.0 * (double)st.treeBytes / (double)st.denseBytes, st.maxDistanceError / g.cellSize,
				st.maxAngle * (180.0 / BS_PI));
			// The tolerances asked hold (the fit is decided in doubles, the tree stores floats).
			ENSURE(st.maxDistanceError <= def.distanceTolerance * g.cellSize * (1.0 + 1e-4) + 1e-6 * g.cellSize);
			ENSURE(st.maxAngle <= def.maxAngle + 0.01 * (BS_PI / 180.0));
			ENSURE(st.farPlanes == 0 && st.planes > 0);
			ENSURE(which == 2 || st.treeBytes < st.denseBytes);  // the noisy terrain is curved everywhere
			ENSURE(st.treeBytes == bsGridTree_Bytes(&t));
			RUN_SUBTEST(LookupsWithinReported(&g, &t, &st));
			RUN_SUBTEST(SameAsStoredCells(&g, &t));
			bsGridTree_Free(&t);
		}
		if (which > 0)
		{
			bsDistanceGrid_Free(&g);
		}
	}
	return 0;
}

// farDistance: blocks all beyond it are planes whose distance is the block's nearest, a lower bound
// that never comes nearer than farDistance; the rest keeps its tolerances.
static int FarPlanes(const bsDistanceGrid* sphere)
{
	bsDistanceGrid g = *sphere;
	bsGridTreeDef def = bsDefaultGridTreeDef();
	def.farDistance = 0.2;
	bsGridTree t;
	bsGridTreeStats st, plain;
	ENSURE(bsGridTree_Build(&t, &g, &def, &st) == bs_ok);
	printf("  sphere, far 0.2: %u far planes, %.1f%% of the dense bytes\n", st.farPlanes,
		100.0 * (double)st.treeBytes / (double)st.denseBytes);
	ENSURE(st.farPlanes > 0 && st.farLowerBound);
	bsGridTree_Free(&t);
	def.farDistance = 0.0;
	ENSURE(bsGridTree_Build(&t, &g, &def, &plain) == bs_ok);
	ENSURE(plain.treeBytes > st.treeBytes);
	bsGridTree_Free(&t);
	def.farDistance = 0.2;
	ENSURE(bsGridTree_Build(&t, &g, &def, NULL) == bs_ok);
	for (int k = 0; k < g.nz; ++k)
		for (int j = 0; j < g.ny; ++j)
			for (int i = 0; i < g.nx; ++i)
			{
				const bsGridCell* d = g.cells + i + (size_t)g.nx * (j + (size_t)g.ny * k);
				bsGridCell c = bsGridTree_Cell(&t, i, j, k);
				bool sameSide = (c.distance < 0.0f) == (d->distance < 0.0f);
				double err = fabs((double)c.distance - (double)d->distance);
				bool within = err <= plain.maxDistanceError * 2.0 + 1e-6;
				bool lower = sameSide && fabsf(c.distance) <= fabsf(d->distance) && fabsf(c.distance) >= 0.2f;
				ENSURE(within || lower);
			}
	bsGridTree_Free(&t);
	// Settings out of range.
	def.blockSize = 3;
	ENSURE(bsGridTree_Build(&t, &g, &def, NULL) == bs_errInvalidArgument && t.nodes == NULL);
	def = bsDefaultGridTreeDef();
	def.maxAngle = -1.0;
	ENSURE(bsGridTreeDef_Check(&def) == bs_errInvalidArgument);
	return 0;
}

// Dropped on the floor through the tree, with impact beta 0.7: bounces to beta^2 of its height (2%).
static int TreeBounce(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsGridTreeDef tdef = bsDefaultGridTreeDef();
	bsGridTree t;
	ENSURE(bsGridTree_Build(&t, &g, &tdef, NULL) == bs_ok);
	for (int trilinear = 0; trilinear < 2; ++trilinear)
	{
		bsFieldDef def = bsDefaultFieldDef();
		def.threshold = 0.002;
		def.restitution = 0.7;
		def.trilinear = trilinear == 1;
		bsVec3 x = bsV3(0.013, 0.5, -0.021), v = bsV3(0.0, 0.0, 0.0);
		double dt = 1e-4, top = -1.0;
		bool bounced = false;
		for (int step = 0; step < 200000; ++step)
		{
			v.y -= 9.81 * dt;
			bsField_ApplyTree(&t, &def, x, dt, &v);
			bounced = bounced || v.y > 0.0;
			x = bsMulAdd(x, dt, v);
			if (bounced)
			{
				top = fmax(top, x.y);
				if (v.y < 0.0)
				{
					break;
				}
			}
		}
		double expected = 0.49 * (0.5 - def.threshold);
		printf("  tree, impact beta 0.7, %s: bounced to %.5f above the threshold, beta^2 h = %.5f\n",
			trilinear ? "trilinear" : "nearest", top - def.threshold, expected);
		ENSURE(fabs(top - def.threshold - expected) <= 0.02 * expected);
	}
	bsGridTree_Free(&t);
	bsDistanceGrid_Free(&g);
	return 0;
}

// bsField_ApplyRange gives each particle exactly what bsField_Apply / bsField_ApplyTree give it, and
// leaves the particles that are not free alone; the step over the tree is the same at 1 and 2
// threads.
static int RangeAndThreads(const bsDistanceGrid* sphere)
{
	bsDistanceGrid g = *sphere;
	bsGridTreeDef tdef = bsDefaultGridTreeDef();
	bsGridTree t;
	ENSURE(bsGridTree_Build(&t, &g, &tdef, NULL) == bs_ok);
	enum { count = 3000 };
	bsVec3* x = malloc(count * sizeof *x);
	bsVec3* v = malloc(count * sizeof *v);
	bsVec3* w = malloc(count * sizeof *w);
	uint8_t* state = malloc(count);
	ENSURE(x != NULL && v != NULL && w != NULL && state != NULL);
	bsRng rng = bsMakeRng(5);
	for (size_t i = 0; i < count; ++i)
	{
		x[i] = RandomPointIn(&g, &rng);
		x[i] = i % 7 == 0 ? bsV3(9.0, 0.0, 0.0) : x[i];  // outside the grid: unchanged
		v[i] = bsV3(bsRng_Uniform(&rng) - 0.5, -2.0 * bsRng_Uniform(&rng), bsRng_Uniform(&rng) - 0.5);
		state[i] = i % 5 == 0 ? 1 : 0;
	}
	bsFieldDef def = AllRules();
	for (int run = 0; run < 4; ++run)
	{
		def.trilinear = (run & 1) != 0;
		const bsGridTree* tree = run >= 2 ? &t : NULL;
		memcpy(w, v, count * sizeof *w);
		bsField_ApplyRange(&g, tree, &def, 1e-3, x, w, state, 0, count);
		for (size_t i = 0; i < count; ++i)
		{
			bsVec3 one = v[i];
			if (state[i] == 0)
			{
				if (tree != NULL)
				{
					bsField_ApplyTree(tree, &def, x[i], 1e-3, &one);
				}
				else
				{
					bsField_Apply(&g, &def, x[i], 1e-3, &one);
				}
			}
			ENSURE(memcmp(&one, &w[i], sizeof one) == 0);
		}
	}
	free(x);
	free(v);
	free(w);
	free(state);
	bsParticles p[2];
	for (int th = 0; th < 2; ++th)
	{
		bsWorldDef wd = bsDefaultWorldDef();
		wd.threads = th + 1;
		bsWorld* world = bsWorld_Create(&wd);
		ENSURE(world != NULL);
		bsStepDef st = bsDefaultStepDef();
		st.dt = 2e-3;
		st.gravity = bsV3(0.0, -9.81, 0.0);
		st.fieldTree = &t;
		st.field = def;
		ENSURE(bsParticles_Alloc(&p[th], count) == bs_ok);
		for (size_t i = 0; i < count; ++i)
		{
			double a = 0.001 * (double)i;
			p[th].position[i] = bsV3(1.3 * cos(7.0 * a), 1.5 + 0.1 * sin(3.0 * a), 1.3 * sin(5.0 * a));
			p[th].velocity[i] = bsV3(-0.5 * cos(a), -1.0, 0.2 * sin(11.0 * a));
			p[th].radius[i] = 0.001;
		}
		for (int step = 0; step < 200; ++step)
		{
			ENSURE(bsWorld_Step(world, &st, &p[th], NULL) == bs_ok);
		}
		bsWorld_Destroy(world);
	}
	ENSURE(memcmp(p[0].position, p[1].position, count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(p[0].velocity, p[1].velocity, count * sizeof(bsVec3)) == 0);
	bsParticles_Free(&p[0]);
	bsParticles_Free(&p[1]);
	bsGridTree_Free(&t);
	return 0;
}

static bool IsNegativeZero(float x)
{
	return x == 0.0f && signbit(x);
}

// A grid with -0 in its cells (a normal component of every 5th cell, the distance of every 13th):
// the tree stores no -0 (which lets the range read a plane or a dense cell alone,
// grid_tree_internal.h), and the range's lookups still give the bits of its stored cells.
static int NegativeZeros(const bsDistanceGrid* sphere)
{
	bsDistanceGrid g = *sphere;
	size_t cells = bsDistanceGrid_CellCount(sphere);
	g.cells = malloc(cells * sizeof *g.cells);
	ENSURE(g.cells != NULL);
	memcpy(g.cells, sphere->cells, cells * sizeof *g.cells);
	for (size_t c = 0; c < cells; c += 5)
	{
		g.cells[c].normal[c % 3] = -0.0f;
		g.cells[c].distance = c % 13 == 0 ? -0.0f : g.cells[c].distance;
	}
	for (int b = 2; b <= 4; b *= 2)
	{
		bsGridTreeDef def = bsDefaultGridTreeDef();
		def.blockSize = b;
		bsGridTree t;
		ENSURE(bsGridTree_Build(&t, &g, &def, NULL) == bs_ok);
		ENSURE(t.subgridCount > 1);
		size_t blocks = (size_t)t.bx * (size_t)t.by * (size_t)t.bz;
		for (size_t i = 0; i < blocks; ++i)
		{
			const bsGridTreeNode* nd = t.nodes + i;
			ENSURE(!IsNegativeZero(nd->c));
			for (int a = 0; a < 3; ++a)
			{
				ENSURE(!IsNegativeZero(nd->g[a]) && !IsNegativeZero(nd->n[a]));
			}
		}
		size_t stored = (size_t)t.subgridCount << (3 * t.blockShift);
		for (size_t i = 0; i < stored; ++i)
		{
			const bsGridCell* c = t.subgrids + i;
			ENSURE(!IsNegativeZero(c->distance) && !IsNegativeZero(c->normal[0]) && !IsNegativeZero(c->normal[1]) &&
				!IsNegativeZero(c->normal[2]));
		}
		RUN_SUBTEST(SameAsStoredCells(&g, &t));
		bsGridTree_Free(&t);
	}
	free(g.cells);
	return 0;
}

// A tree whose nodes outgrow the cache (blocks of 2 on a 68^3 grid of the sphere: 34^3 nodes, 1.26 MB,
// beyond the half megabyte from which the range prefetches them, field.c) takes the range's other
// path: its lookups still give the stored cells' bits, and stay within the reported errors.
static int FarNodes(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGrid g;
	RUN_SUBTEST(BuildGrid(&g, tris, count, 68));
	bsGridTreeDef def = bsDefaultGridTreeDef();
	def.blockSize = 2;
	bsGridTree t;
	bsGridTreeStats st;
	ENSURE(bsGridTree_Build(&t, &g, &def, &st) == bs_ok);
	ENSURE((size_t)t.bx * (size_t)t.by * (size_t)t.bz * sizeof(bsGridTreeNode) > ((size_t)1 << 19));
	RUN_SUBTEST(LookupsWithinReported(&g, &t, &st));
	RUN_SUBTEST(SameAsStoredCells(&g, &t));
	bsGridTree_Free(&t);
	bsDistanceGrid_Free(&g);
	return 0;
}

int GridTreeTest(void)
{
	bsDistanceGrid sphere;
	RUN_SUBTEST(MakeGrid(0, &sphere));
	RUN_SUBTEST(Compression(&sphere));
	RUN_SUBTEST(FarPlanes(&sphere));
	RUN_SUBTEST(TreeBounce());
	RUN_SUBTEST(RangeAndThreads(&sphere));
	RUN_SUBTEST(NegativeZeros(&sphere));
	RUN_SUBTEST(FarNodes());
	bsDistanceGrid_Free(&sphere);
	return 0;
}
