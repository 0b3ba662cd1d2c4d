// test_grid.c — the distance/normal grid against independent references: distances against the brute
// force over every triangle (reference.h's point-triangle distance, which never calls the engine's
// closest point), signs against ray parity on a watertight mesh and against the analytic box on a box
// with a hole, a sheet found open and two-sided, normals against the analytic normals of a sphere and
// a box, lookups, and byte-identical grids at 1, 2 and 3 threads.
#include "test.h"

#include "dng.h"
#include "procedural.h"
#include "reference.h"

#include "blobsim/field.h"
#include "blobsim/rng.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

static double BruteDistance(const bsTriangle* tris, uint32_t count, bsVec3 p)
{
	double best = HUGE_VAL;
	for (uint32_t t = 0; t < count; ++t)
	{
		double d = refPointTriangleDistance(tris[t].p1, tris[t].p2, tris[t].p3, p);
		best = d < best ? d : best;
	}
	return best;
}

static double AngleDegrees(const float n[3], bsVec3 ref)
{
	bsVec3 a = bsNormalize(bsV3(n[0], n[1], n[2]));
	double c = bsDot(a, bsNormalize(ref));
	c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
	return acos(c) * 180.0 / BS_PI;
}

static size_t CellIndex(const bsDistanceGrid* g, int i, int j, int k)
{
	return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

static bsDistanceGridDef SmallDef(int resolution)
{
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.resolution = resolution;
	def.threads = 2;
	return def;
}

// Exact distances everywhere (exactFar), and signs by ray parity, at random cells of an icosphere.
static int SphereDistancesAndSigns(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef def = SmallDef(28);
	def.exactFar = true;
	bsDistanceGrid g;
	bsDistanceGridStats st;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, &st) == bs_ok);
	ENSURE(st.components == 1 && st.openComponents == 0 && st.invertedComponents == 0);
	ENSURE(g.flags == bs_gridHasInside);
	bsRng rng = bsMakeRng(13);
	for (int q = 0; q < 1500; ++q)
	{
		int i = (int)bsRng_Below(&rng, (uint32_t)g.nx), j = (int)bsRng_Below(&rng, (uint32_t)g.ny);
		int k = (int)bsRng_Below(&rng, (uint32_t)g.nz);
		bsVec3 c = bsDistanceGrid_Centre(&g, i, j, k);
		double ref = BruteDistance(tris, count, c);
		const bsGridCell* cell = g.cells + CellIndex(&g, i, j, k);
		// The float of an exact double distance.
		ENSURE_SMALL(fabs((double)cell->distance) - ref, 1e-6 * (1.0 + ref));
		bool inside = refRayCrossings(tris, count, c) % 2 == 1;
		ENSURE((cell->distance < 0.0f) == inside);
	}
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

// Propagated distances (exactFar off, the default): never below the true distance (each is the
// distance to a real surface point), and above it by at most half a cell or 3% of the distance,
// whichever is larger (the bound docs/dngrid.md states from its measurements), on a heightfield with
// boxes and inside and around a sphere.
static int PropagatedBound(void)
{
	for (int mesh = 0; mesh < 2; ++mesh)
	{
		bsTriangle* tris = NULL;
		uint32_t count = 0;
		ENSURE((mesh == 0 ? bsMakeHeightfieldScene(5, 12, 6, &tris, &count)
			: bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count)) == bs_ok);
		bsDistanceGridDef def = SmallDef(40);
		def.margin = 8;
		bsDistanceGrid g;
		ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
		double worst = 0.0;
		bsRng rng = bsMakeRng(7);
		for (int q = 0; q < 1500; ++q)
		{
			int i = (int)bsRng_Below(&rng, (uint32_t)g.nx), j = (int)bsRng_Below(&rng, (uint32_t)g.ny);
			int k = (int)bsRng_Below(&rng, (uint32_t)g.nz);
			double ref = BruteDistance(tris, count, bsDistanceGrid_Centre(&g, i, j, k));
			double d = fabs((double)g.cells[CellIndex(&g, i, j, k)].distance);
			ENSURE(d >= ref * (1.0 - 1e-6) - 1e-9);
			double excess = (d - ref) / g.cellSize;
			worst = excess > worst ? excess : worst;
			ENSURE(d - ref <= fmax(0.5 * g.cellSize, 0.03 * ref));
		}
		printf("  propagated distances (%s): worst %.3f cells above the true distance\n",
			mesh == 0 ? "heightfield" : "sphere", worst);
		bsDistanceGrid_Free(&g);
		free(tris);
	}
	return 0;
}

// A box with two triangles of its top face missing: inside is still inside, by the winding number,
// except within two cells of the hole.
static int BoxWithHole(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	bsVec3 lo = bsV3(-1.0, -1.0, -1.0), hi = bsV3(1.0, 1.0, 1.0);
	ENSURE(bsMakeBoxMesh(lo, hi, 4, false, &tris, &count) == bs_ok);
	// Remove the two triangles of one top cell (normal +y) near the middle.
	uint32_t kept = 0;
	bsVec3 holeLo = bsV3(HUGE_VAL, 0, HUGE_VAL), holeHi = bsV3(-HUGE_VAL, 0, -HUGE_VAL);
	int removed = 0;
	for (uint32_t t = 0; t < count; ++t)
	{
		bsVec3 g = bsScale(1.0 / 3.0, bsAdd(tris[t].p1, bsAdd(tris[t].p2, tris[t].p3)));
		if (tris[t].n.y > 0.5 && g.x > 0.0 && g.x < 0.5 && g.z > 0.0 && g.z < 0.5)
		{
			holeLo = bsMin(holeLo, bsTriangle_Min(tris + t));
			holeHi = bsMax(holeHi, bsTriangle_Max(tris + t));
			removed += 1;
			continue;
		}
		tris[kept++] = tris[t];
	}
	ENSURE(removed == 2);
	bsDistanceGridDef def = SmallDef(30);
	bsDistanceGrid g;
	bsDistanceGridStats st;
	ENSURE(bsDistanceGrid_Build(&g, tris, kept, &def, &st) == bs_ok);
	ENSURE(st.openComponents == 0);
	uint64_t wrong = 0, checked = 0;
	for (int k = 0; k < g.nz; ++k)
	{
		for (int j = 0; j < g.ny; ++j)
		{
			for (int i = 0; i < g.nx; ++i)
			{
				bsVec3 c = bsDistanceGrid_Centre(&g, i, j, k);
				bsVec3 nearHole = bsMin(bsMax(c, holeLo), holeHi);
				if (bsDistance(c, nearHole) < 2.0 * g.cellSize)
				{
					continue;
				}
				bool inside = c.x > lo.x && c.x < hi.x && c.y > lo.y && c.y < hi.y && c.z > lo.z && c.z < hi.z;
				checked += 1;
				wrong += (g.cells[CellIndex(&g, i, j, k)].distance < 0.0f) != inside;
			}
		}
	}
	ENSURE(checked > 20000 && wrong == 0);
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

// A sheet (a flat square of two triangles) is open: no cell is inside, and its normals point from the
// sheet towards the cell on both sides.
static int SheetIsTwoSided(void)
{
	bsTriangle tris[2];
	ENSURE(bsMakeTriangle(bsV3(-1, 0, -1), bsV3(-1, 0, 1), bsV3(1, 0, 1), tris) == bs_ok);
	ENSURE(bsMakeTriangle(bsV3(-1, 0, -1), bsV3(1, 0, 1), bsV3(1, 0, -1), tris + 1) == bs_ok);
	for (int method = 0; method < bs_gridMethodCount; ++method)
	{
		bsDistanceGridDef def = SmallDef(24);
		def.method = (bsGridMethod)method;
		bsDistanceGrid g;
		bsDistanceGridStats st;
		ENSURE(bsDistanceGrid_Build(&g, tris, 2, &def, &st) == bs_ok);
		ENSURE(st.openComponents == 1 && st.insideCells == 0);
		ENSURE(g.flags == bs_gridHasOpen);
		for (size_t c = 0; c < bsDistanceGrid_CellCount(&g); ++c)
		{
			int i = (int)(c % (size_t)g.nx), j = (int)((c / (size_t)g.nx) % (size_t)g.ny);
			int k = (int)(c / ((size_t)g.nx * (size_t)g.ny));
			bsVec3 p = bsDistanceGrid_Centre(&g, i, j, k);
			ENSURE(g.cells[c].distance >= 0.0f);
			// Over the sheet's middle the field points away from it on either side.
			if (fabs(p.x) < 0.8 && fabs(p.z) < 0.8 && fabs(p.y) > 0.5 * g.cellSize)
			{
				ENSURE(g.cells[c].normal[1] * (float)p.y > 0.0f);
			}
		}
		bsDistanceGrid_Free(&g);
	}
	return 0;
}

// Normals of a sphere within a stated angle of the analytic normal, cells within the band.
static int SphereNormals(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count) == bs_ok);
	const double limit[bs_gridMethodCount] = {6.0, 12.0};
	for (int method = 0; method < bs_gridMethodCount; ++method)
	{
		bsDistanceGridDef def = SmallDef(32);
		def.method = (bsGridMethod)method;
		bsDistanceGrid g;
		ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
		double worst = 0.0;
		for (int k = 0; k < g.nz; ++k)
		{
			for (int j = 0; j < g.ny; ++j)
			{
				for (int i = 0; i < g.nx; ++i)
				{
					const bsGridCell* cell = g.cells + CellIndex(&g, i, j, k);
					if (fabs((double)cell->distance) > 3.0 * g.cellSize)
					{
						continue;
					}
					double a = AngleDegrees(cell->normal, bsDistanceGrid_Centre(&g, i, j, k));
					worst = a > worst ? a : worst;
				}
			}
		}
		printf("  sphere normals (%s): worst %.2f degrees within the band\n",
			bsGridMethodName((bsGridMethod)method), worst);
		ENSURE(worst <= limit[method]);
		bsDistanceGrid_Free(&g);
	}
	free(tris);
	return 0;
}

// Normals of a box: at cells outside it within the band, at least 3 cells from the planes of the
// other faces, within a stated angle of the face normal (inside, the blur mixes the faces of a corner
// more: 36 degrees at 2.5 cells from one face and 3.5 from two others).
static int BoxNormals(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.5, -0.75), bsV3(1, 0.5, 0.75), 4, false, &tris, &count) == bs_ok);
	bsVec3 half = bsV3(1, 0.5, 0.75);
	const double limit[bs_gridMethodCount] = {8.0, 20.0};
	for (int method = 0; method < bs_gridMethodCount; ++method)
	{
		bsDistanceGridDef def = SmallDef(36);
		def.method = (bsGridMethod)method;
		bsDistanceGrid g;
		ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
		double worst = 0.0;
		int checked = 0;
		for (int k = 0; k < g.nz; ++k)
		{
			for (int j = 0; j < g.ny; ++j)
			{
				for (int i = 0; i < g.nx; ++i)
				{
					const bsGridCell* cell = g.cells + CellIndex(&g, i, j, k);
					bsVec3 p = bsDistanceGrid_Centre(&g, i, j, k);
					if (cell->distance < 0.0f || cell->distance > 3.0f * (float)g.cellSize)
					{
						continue;
					}
					// The face the point is nearest (largest relative coordinate), and its distance
					// to the other faces' planes (the edges of that face).
					double r[3] = {fabs(p.x) - half.x, fabs(p.y) - half.y, fabs(p.z) - half.z};
					int a = r[0] >= r[1] && r[0] >= r[2] ? 0 : (r[1] >= r[2] ? 1 : 2);
					double pc[3] = {p.x, p.y, p.z};
					bool nearEdge = false;
					for (int o = 0; o < 3; ++o)
					{
						nearEdge |= o != a && r[o] > -3.0 * g.cellSize;
					}
					if (nearEdge)
					{
						continue;
					}
					bsVec3 n = bsV3(a == 0 ? pc[0] : 0.0, a == 1 ? pc[1] : 0.0, a == 2 ? pc[2] : 0.0);
					double angle = AngleDegrees(cell->normal, n);
					worst = angle > worst ? angle : worst;
					checked += 1;
				}
			}
		}
		printf("  box normals (%s): worst %.2f degrees away from edges, %d cells\n",
			bsGridMethodName((bsGridMethod)method), worst, checked);
		ENSURE(checked > 500);
		ENSURE(worst <= limit[method]);
		bsDistanceGrid_Free(&g);
	}
	free(tris);
	return 0;
}

// A room (a box wound inwards): inside the room is free, outside is solid.
static int InvertedRoom(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeBoxMesh(bsV3(0, 0, 0), bsV3(2, 1, 1), 2, true, &tris, &count) == bs_ok);
	bsDistanceGridDef def = SmallDef(24);
	bsDistanceGrid g;
	bsDistanceGridStats st;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, &st) == bs_ok);
	ENSURE(st.invertedComponents == 1 && st.openComponents == 0);
	const bsGridCell* in = bsDistanceGrid_Nearest(&g, bsV3(1.0, 0.5, 0.5));
	const bsGridCell* out = bsDistanceGrid_Nearest(&g, bsV3(-0.2, 0.5, 0.5));
	ENSURE(in != NULL && out != NULL && in->distance > 0.0f && out->distance < 0.0f);
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

// The band's sides (winding numbers at seeds, passed on between neighbours whose distances add up to
// more than a cell): every band cell of a sphere against ray parity; and, in a closed box holding an
// open sheet, every cell nearer the box than the sheet (by brute force, ties within 2% of a cell left
// out) on the analytic box's side, though the seeds near the sheet pass their sides on to them.
static int BandSides(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef def = SmallDef(40);
	bsDistanceGrid g;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
	int checked = 0;
	for (int k = 0; k < g.nz; ++k)
	{
		for (int j = 0; j < g.ny; ++j)
		{
			for (int i = 0; i < g.nx; ++i)
			{
				const bsGridCell* cell = g.cells + CellIndex(&g, i, j, k);
				if (fabs((double)cell->distance) > g.band * g.cellSize)
				{
					continue;
				}
				bool inside = refRayCrossings(tris, count, bsDistanceGrid_Centre(&g, i, j, k)) % 2 == 1;
				ENSURE((cell->distance < 0.0f) == inside);
				checked += 1;
			}
		}
	}
	ENSURE(checked > 10000);
	bsDistanceGrid_Free(&g);
	free(tris);

	bsTriangle* box = NULL;
	uint32_t boxCount = 0;
	ENSURE(bsMakeBoxMesh(bsV3(-1.0, -1.0, -1.0), bsV3(1.0, 1.0, 1.0), 4, false, &box, &boxCount) == bs_ok);
	uint32_t n = boxCount + 2;
	tris = malloc(n * sizeof *tris);
	ENSURE(tris != NULL);
	memcpy(tris, box, boxCount * sizeof *tris);
	free(box);
	bsVec3 a = bsV3(-0.5, 0.1, -0.5), b = bsV3(0.5, 0.1, -0.5), c = bsV3(0.5, 0.1, 0.5), d = bsV3(-0.5, 0.1, 0.5);
	ENSURE(bsMakeTriangle(a, c, b, tris + boxCount) == bs_ok);
	ENSURE(bsMakeTriangle(a, d, c, tris + boxCount + 1) == bs_ok);
	def = SmallDef(30);
	bsDistanceGridStats st;
	ENSURE(bsDistanceGrid_Build(&g, tris, n, &def, &st) == bs_ok);
	ENSURE(st.components == 2 && st.openComponents == 1);
	checked = 0;
	for (int k = 0; k < g.nz; ++k)
	{
		for (int j = 0; j < g.ny; ++j)
		{
			for (int i = 0; i < g.nx; ++i)
			{
				bsVec3 p = bsDistanceGrid_Centre(&g, i, j, k);
				double toBox = BruteDistance(tris, boxCount, p), toSheet = BruteDistance(tris + boxCount, 2, p);
				if (toBox > toSheet - 0.02 * g.cellSize || toBox < 1e-9)
				{
					continue;
				}
				bool inside = fabs(p.x) < 1.0 && fabs(p.y) < 1.0 && fabs(p.z) < 1.0;
				ENSURE((g.cells[CellIndex(&g, i, j, k)].distance < 0.0f) == inside);
				checked += 1;
			}
		}
	}
	ENSURE(checked > 10000);
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

// The same grid at 1, 2 and 3 threads, byte for byte, on a grid of many chunks (a 5,120-triangle
// sphere at 64 cells).
static int DeterministicLarge(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGrid g[3];
	for (int t = 0; t < 3; ++t)
	{
		bsDistanceGridDef def = SmallDef(64);
		def.threads = t + 1;
		ENSURE(bsDistanceGrid_Build(g + t, tris, count, &def, NULL) == bs_ok);
	}
	size_t bytes = bsDistanceGrid_CellCount(g) * sizeof(bsGridCell);
	ENSURE(memcmp(g[0].cells, g[1].cells, bytes) == 0);
	ENSURE(memcmp(g[0].cells, g[2].cells, bytes) == 0);
	for (int t = 0; t < 3; ++t)
	{
		bsDistanceGrid_Free(g + t);
	}
	free(tris);
	return 0;
}

// The same grid at 1, 2 and 3 threads, byte for byte, for both methods.
static int Deterministic(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeHeightfieldScene(3, 10, 8, &tris, &count) == bs_ok);
	for (int method = 0; method < bs_gridMethodCount; ++method)
	{
		bsDistanceGrid g[3];
		for (int t = 0; t < 3; ++t)
		{
			bsDistanceGridDef def = SmallDef(30);
			def.method = (bsGridMethod)method;
			def.threads = t + 1;
			ENSURE(bsDistanceGrid_Build(g + t, tris, count, &def, NULL) == bs_ok);
		}
		size_t bytes = bsDistanceGrid_CellCount(g) * sizeof(bsGridCell);
		ENSURE(memcmp(g[0].cells, g[1].cells, bytes) == 0);
		ENSURE(memcmp(g[0].cells, g[2].cells, bytes) == 0);
		for (int t = 0; t < 3; ++t)
		{
			bsDistanceGrid_Free(g + t);
		}
	}
	free(tris);
	return 0;
}

// Lookups: the nearest cell contains the point; trilinear at a centre is that cell; outside is none.
static int Lookups(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(2, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef def = SmallDef(16);
	bsDistanceGrid g;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
	bsVec3 c = bsDistanceGrid_Centre(&g, 3, 5, 7);
	ENSURE(bsDistanceGrid_Nearest(&g, bsAdd(c, bsV3(0.49 * g.cellSize, -0.49 * g.cellSize, 0))) ==
		g.cells + CellIndex(&g, 3, 5, 7));
	bsGridCell t;
	ENSURE(bsDistanceGrid_Trilinear(&g, c, &t));
	ENSURE(t.distance == g.cells[CellIndex(&g, 3, 5, 7)].distance);
	ENSURE(bsDistanceGrid_Nearest(&g, bsV3(100, 0, 0)) == NULL);
	ENSURE(bsDistanceGrid_Nearest(&g, bsV3(NAN, 0, 0)) == NULL);
	ENSURE(!bsDistanceGrid_Trilinear(&g, bsV3(0, -100, 0), &t));
	bsDistanceGrid_Free(&g);
	// Bad settings are refused and leave the grid zeroed.
	def.band = 0;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_errInvalidArgument && g.cells == NULL);
	def = SmallDef(8);
	def.margin = 4;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_errInvalidArgument);
	def = SmallDef(16);
	def.cellSize = 1e-4;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_errTooLarge && g.cells == NULL);
	free(tris);
	return 0;
}

static bool GridsEqual(const bsDistanceGrid* a, const bsDistanceGrid* b)
{
	return a->nx == b->nx && a->ny == b->ny && a->nz == b->nz && a->cellSize == b->cellSize &&
		a->origin.x == b->origin.x && a->origin.y == b->origin.y && a->origin.z == b->origin.z &&
		a->method == b->method && a->band == b->band && a->blurRadius == b->blurRadius &&
		a->blurRounds == b->blurRounds && a->exactFar == b->exactFar && a->flags == b->flags &&
		a->meshHash == b->meshHash &&
		memcmp(a->cells, b->cells, bsDistanceGrid_CellCount(a) * sizeof(bsGridCell)) == 0;
}

// Decoding must fail with a message starting "name: byte N" or "name: payload byte N".
static int ExpectBad(const uint8_t* data, size_t size, const char* expected)
{
	bsDistanceGrid g;
	char err[512];
	if (bsDng_Decode(data, size, "t.dng", &g, NULL, err, sizeof err))
	{
		fprintf(stderr, "decoded a bad file (%zu bytes), expected '%s'\n", size, expected);
		bsDistanceGrid_Free(&g);
		return 1;
	}
	ENSURE(g.cells == NULL);
	ENSURE(strncmp(err, "t.dng: byte ", 12) == 0 || strncmp(err, "t.dng: payload byte ", 20) == 0);
	if (expected != NULL && strstr(err, expected) == NULL)
	{
		fprintf(stderr, "got '%s', expected '%s'\n", err, expected);
		return 1;
	}
	return 0;
}

// The file round-trips bit for bit, compressed or not; every truncation, a flip of any header byte
// and a flip of a payload byte are refused with the offset.
static int FileRoundTrip(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(2, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef def = SmallDef(12);
	def.method = bs_gridPotential;
	bsDistanceGrid g;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &def, NULL) == bs_ok);
	free(tris);
	for (int compress = 0; compress < 2; ++compress)
	{
		uint8_t* data = NULL;
		size_t size = 0;
		char err[512];
		ENSURE(bsDng_Encode(&g, compress != 0, &data, &size, err, sizeof err));
		ENSURE(compress || size == BS_DNG_HEADER_BYTES + bsDistanceGrid_CellCount(&g) * 16);
		bsDistanceGrid back;
		bsDngInfo info;
		ENSURE(bsDng_Decode(data, size, "t.dng", &back, &info, err, sizeof err));
		ENSURE(GridsEqual(&g, &back) && info.compressed == (compress != 0) && info.fileBytes == size);
		bsDistanceGrid_Free(&back);
		// Every truncation (all of them within the header, a spread of them in the payload).
		for (size_t n = 0; n < size; n += n < 200 ? 1 : 97)
		{
			RUN_SUBTEST(ExpectBad(data, n, NULL));
		}
		uint8_t* copy = malloc(size + 1);
		ENSURE(copy != NULL);
		for (size_t k = 0; k < BS_DNG_HEADER_BYTES; ++k)
		{
			memcpy(copy, data, size);
			copy[k] ^= 0x10;
			RUN_SUBTEST(ExpectBad(copy, size, k < 8 ? "bad magic" : "header checksum mismatch"));
		}
		memcpy(copy, data, size);
		copy[size - 5] ^= 0x01;
		RUN_SUBTEST(ExpectBad(copy, size, compress ? NULL : "payload checksum mismatch"));
		memcpy(copy, data, size);
		copy[size] = 0;
		RUN_SUBTEST(ExpectBad(copy, size + 1, "1 byte after the payload"));
		free(copy);
		free(data);
	}
	bsDistanceGrid_Free(&g);
	return 0;
}

int GridTest(void)
{
	RUN_SUBTEST(FileRoundTrip());
	RUN_SUBTEST(Lookups());
	RUN_SUBTEST(SphereDistancesAndSigns());
	RUN_SUBTEST(PropagatedBound());
	RUN_SUBTEST(BoxWithHole());
	RUN_SUBTEST(SheetIsTwoSided());
	RUN_SUBTEST(InvertedRoom());
	RUN_SUBTEST(SphereNormals());
	RUN_SUBTEST(BoxNormals());
	RUN_SUBTEST(Deterministic());
	RUN_SUBTEST(BandSides());
	RUN_SUBTEST(DeterministicLarge());
	return 0;
}
