// test_grid_slice.c — `blobsim grid slice`'s numbers (app/commands/grid_slice.h): a slice of a sphere's
// grid, whose pixels' distances and colours match the analytic distance and whose arrows point along
// the analytic normal, on every axis; bad settings named.
#include "test.h"

#include "grid_slice.h"
#include "procedural.h"

#include "blobsim/field.h"
#include "blobsim/rng.h"

#include <stdlib.h>
#include <string.h>

// The unit sphere's centre, away from the origin.
static const bsVec3 sphereCentre = {0.3, -0.2, 0.1};

// The unit sphere's grid: 36 cells along the box, exact distances everywhere (the slice's error is
// then the trilinear blend's and the icosphere's, not the propagation's).
static int SphereGrid(bsDistanceGrid* g)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count) == bs_ok);
	for (uint32_t t = 0; t < count; ++t)
	{
		bsTriangle* k = tris + t;
		ENSURE(bsMakeTriangle(bsAdd(k->p1, sphereCentre), bsAdd(k->p2, sphereCentre), bsAdd(k->p3, sphereCentre),
			k) == bs_ok);
	}
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.resolution = 36;
	def.exactFar = true;
	def.threads = 2;
	ENSURE(bsDistanceGrid_Build(g, tris, count, &def, NULL) == bs_ok);
	free(tris);
	return 0;
}

static bool SameRgb(const uint8_t* a, const uint8_t* b)
{
	return memcmp(a, b, 3) == 0;
}

// The distance a pixel's shade stands for (bsGridSlice_Shade inverted by its red channel; green below
// red means inside).
static double Unshade(const uint8_t* rgb, double range)
{
	double t = (rgb[0] - 60.0) / 195.0;
	return (rgb[1] < rgb[0] ? -t : t) * range;
}

// Pixels at random: the slice's distance within the grid's error of the analytic |p| - 1 (trilinear
// between exact cells: at most a cell's diagonal times the distance's variation, bounded here by half
// a cell, plus the icosphere's sagitta), the pixel the shade of it unless a contour or an arrow is
// drawn over it, and the shade read back within the same error and a level of quantization.
static int SlicePixels(const bsDistanceGrid* g, const bsGridSlice* s, const bsImage* im)
{
	double tolerance = 0.5 * g->cellSize + 2e-3;
	bsRng rng = bsMakeRng(27);
	int shaded = 0;
	for (int q = 0; q < 2000; ++q)
	{
		int x = (int)bsRng_Below(&rng, (uint32_t)s->width), y = (int)bsRng_Below(&rng, (uint32_t)s->height);
		bsVec3 p = bsGridSlice_Point(s, x, y);
		ENSURE_SMALL((s->axis == 0 ? p.x : (s->axis == 1 ? p.y : p.z)) - s->coordinate, 1e-12);
		double analytic = bsLength(bsSub(p, sphereCentre)) - 1.0;
		double d = s->distance[(size_t)y * s->width + x];
		ENSURE_SMALL(d - analytic, tolerance);
		const uint8_t* rgb = im->pixels + ((size_t)y * s->width + x) * 3;
		if (SameRgb(rgb, bsGridSliceContourRgb) || SameRgb(rgb, bsGridSliceArrowRgb))
		{
			continue;
		}
		uint8_t want[3];
		bsGridSlice_Shade(d, s->range, want);
		ENSURE(SameRgb(rgb, want));
		if (fabs(analytic) < s->range)
		{
			ENSURE_SMALL(Unshade(rgb, s->range) - analytic, tolerance + s->range / 195.0);
		}
		shaded += 1;
	}
	ENSURE(shaded > 1000);
	return 0;
}

// Arrows within two cells of the surface (where the blurred normals are the surface's): along the
// radius within 8 degrees, their in-plane part the normal's, and drawn (the pixel halfway along a long
// one is the arrows' colour).
static int SliceArrows(const bsDistanceGrid* g, const bsGridSlice* s, const bsImage* im)
{
	int u = s->u, v = s->v, checked = 0;
	for (int k = 0; k < s->arrowCount; ++k)
	{
		const bsGridSliceArrow* a = s->arrows + k;
		double r = bsLength(bsSub(a->point, sphereCentre));
		if (fabs(r - 1.0) > 2.0 * g->cellSize)
		{
			continue;
		}
		bsVec3 radial = bsScale(1.0 / r, bsSub(a->point, sphereCentre));
		ENSURE(bsDot(radial, a->normal) > cos(8.0 * 3.14159265358979 / 180.0));
		double nu = u == 0 ? a->normal.x : a->normal.y, nv = v == 1 ? a->normal.y : a->normal.z;
		ENSURE(a->dx == nu && a->dy == -nv);
		bsVec3 back = bsGridSlice_Point(s, a->px, a->py);
		ENSURE_SMALL(bsLength(bsSub(back, a->point)), 1e-9);
		double in = hypot(a->dx, a->dy);
		if (in > 0.7)
		{
			double half = 0.5 * 0.85 * s->arrowSpacing;
			int x = (int)floor(a->px + 0.5 + a->dx * half), y = (int)floor(a->py + 0.5 + a->dy * half);
			ENSURE(SameRgb(im->pixels + ((size_t)y * s->width + x) * 3, bsGridSliceArrowRgb));
		}
		checked += 1;
	}
	ENSURE(checked >= 20);
	ENSURE(s->arrowSpacing >= 14.0);
	return 0;
}

static int SphereSlices(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(SphereGrid(&g));
	for (int axis = 0; axis < 3; ++axis)
	{
		for (int nearest = 0; nearest < 2; ++nearest)
		{
			bsGridSliceDef def = bsDefaultGridSliceDef();
			def.axis = axis;
			def.at = 0.4;
			def.size = 300;
			def.nearest = nearest == 1;
			bsGridSlice s;
			char err[256];
			ENSURE(bsGridSlice_Sample(&g, &def, &s, err, sizeof err));
			ENSURE(s.width == 300 || s.height == 300);
			// The picture's right and up are the plane's u and v axes, increasing.
			bsVec3 topLeft = bsGridSlice_Point(&s, 0, 0), right = bsGridSlice_Point(&s, s.width - 1, 0);
			bsVec3 down = bsGridSlice_Point(&s, 0, s.height - 1);
			double axes[3][3] = {{topLeft.x, topLeft.y, topLeft.z}, {right.x, right.y, right.z},
				{down.x, down.y, down.z}};
			ENSURE(axes[1][s.u] > axes[0][s.u] && axes[2][s.v] < axes[0][s.v]);
			ENSURE(s.u == (axis == 0 ? 1 : 0) && s.v == (axis == 2 ? 1 : 2));
			// --at 0.4: four tenths of the way from the first cell centre to the last.
			int n = axis == 0 ? g.nx : (axis == 1 ? g.ny : g.nz);
			double lo = axis == 0 ? g.origin.x : (axis == 1 ? g.origin.y : g.origin.z);
			ENSURE_SMALL(s.coordinate - (lo + (0.5 + 0.4 * (n - 1)) * g.cellSize), 1e-12);
			bsImage im;
			ENSURE(bsGridSlice_Render(&s, &im, err, sizeof err));
			ENSURE(im.width == s.width && im.height == s.height && im.channels == 3);
			if (nearest == 0)
			{
				RUN_SUBTEST(SlicePixels(&g, &s, &im));
			}
			RUN_SUBTEST(SliceArrows(&g, &s, &im));
			bsImage_Free(&im);
			bsGridSlice_Free(&s);
		}
	}
	bsDistanceGrid_Free(&g);
	return 0;
}

// The shading: one colour on the surface from both sides, darker closer, clamped at the range.
static int Shading(void)
{
	uint8_t a[3], b[3], c[3];
	bsGridSlice_Shade(0.0, 1.0, a);
	bsGridSlice_Shade(-1e-9, 1.0, b);
	ENSURE(a[0] == 60 && a[1] == 60 && a[2] == 60 && SameRgb(a, b));
	bsGridSlice_Shade(0.5, 1.0, b);
	bsGridSlice_Shade(2.0, 1.0, c);
	ENSURE(b[0] > a[0] && c[0] == 255 && c[1] == 255);
	bsGridSlice_Shade(-2.0, 1.0, c);
	ENSURE(c[0] == 255 && c[1] == 140 && c[2] == 100);
	ENSURE(!SameRgb(c, bsGridSliceContourRgb) && !SameRgb(c, bsGridSliceArrowRgb));
	return 0;
}

// Settings out of range: refused, the message naming what is wrong, nothing to free.
static int BadSettings(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(SphereGrid(&g));
	struct
	{
		int axis;
		double at;
		int size;
		double range;
		const char* words;
	} bad[] = {
		{3, 0.5, 800, 0.0, "axis"},
		{-1, 0.5, 800, 0.0, "axis"},
		{2, 1.5, 800, 0.0, "position along the axis"},
		{2, NAN, 800, 0.0, "position along the axis"},
		{2, 0.5, 15, 0.0, "size"},
		{2, 0.5, 9000, 0.0, "size"},
		{2, 0.5, 800, -1.0, "shading range"},
		{2, 0.5, 800, INFINITY, "shading range"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
	{
		bsGridSliceDef def = bsDefaultGridSliceDef();
		def.axis = bad[k].axis;
		def.at = bad[k].at;
		def.size = bad[k].size;
		def.range = bad[k].range;
		bsGridSlice s;
		char err[256] = "";
		ENSURE(!bsGridSlice_Sample(&g, &def, &s, err, sizeof err));
		ENSURE(strstr(err, bad[k].words) != NULL);
		ENSURE(s.distance == NULL && s.arrows == NULL);
	}
	bsDistanceGrid empty = {0};
	bsGridSliceDef def = bsDefaultGridSliceDef();
	bsGridSlice s;
	char err[256] = "";
	ENSURE(!bsGridSlice_Sample(&empty, &def, &s, err, sizeof err) && strstr(err, "empty") != NULL);
	bsDistanceGrid_Free(&g);
	return 0;
}

int GridSliceTest(void)
{
	RUN_SUBTEST(Shading());
	RUN_SUBTEST(SphereSlices());
	RUN_SUBTEST(BadSettings());
	return 0;
}
