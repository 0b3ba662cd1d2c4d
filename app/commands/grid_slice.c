// grid_slice.c — a plane slice of a distance/normal grid as an image (grid_slice.h).
#include "grid_slice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t bsGridSliceContourRgb[3] = {255, 210, 0};
const uint8_t bsGridSliceArrowRgb[3] = {40, 110, 255};

// Arrows at least this many pixels apart: one a grid cell, or one every few cells.
#define BS_SLICE_MIN_ARROW_SPACING 14.0

bsGridSliceDef bsDefaultGridSliceDef(void)
{
	bsGridSliceDef d = {.axis = 2, .at = 0.5, .size = 800, .nearest = false, .range = 0.0};
	return d;
}

static double bsSliceGet(bsVec3 p, int axis)
{
	return axis == 0 ? p.x : (axis == 1 ? p.y : p.z);
}

static void bsSliceSet(bsVec3* p, int axis, double value)
{
	if (axis == 0)
	{
		p->x = value;
	}
	else if (axis == 1)
	{
		p->y = value;
	}
	else
	{
		p->z = value;
	}
}

static int bsSliceCells(const bsDistanceGrid* grid, int axis)
{
	return axis == 0 ? grid->nx : (axis == 1 ? grid->ny : grid->nz);
}

// The grid's cell (or blend) at p, p first clamped into the grid's box (a pixel's centre may stand a
// hair outside it when the picture's size is rounded).
static bsGridCell bsSliceLookup(const bsDistanceGrid* grid, bool nearest, bsVec3 p)
{
	for (int a = 0; a < 3; ++a)
	{
		double lo = bsSliceGet(grid->origin, a), h = grid->cellSize;
		double hi = lo + bsSliceCells(grid, a) * h;
		double x = bsSliceGet(p, a);
		bsSliceSet(&p, a, fmin(fmax(x, lo + 1e-6 * h), hi - 1e-6 * h));
	}
	bsGridCell c = {0};
	if (nearest)
	{
		const bsGridCell* n = bsDistanceGrid_Nearest(grid, p);
		if (n != NULL)
		{
			c = *n;
		}
	}
	else
	{
		bsDistanceGrid_Trilinear(grid, p, &c);
	}
	return c;
}

bsVec3 bsGridSlice_Point(const bsGridSlice* s, double x, double y)
{
	bsVec3 p = bsV3(0.0, 0.0, 0.0);
	bsSliceSet(&p, s->axis, s->coordinate);
	bsSliceSet(&p, s->u, s->x0 + (x + 0.5) * s->pixel);
	bsSliceSet(&p, s->v, s->y0 + (s->height - y - 0.5) * s->pixel);
	return p;
}

static bool bsSliceCheck(const bsDistanceGrid* grid, const bsGridSliceDef* def, char* err, size_t errlen)
{
	const char* what = NULL;
	if (grid == NULL || grid->cells == NULL || grid->nx < 1 || grid->ny < 1 || grid->nz < 1)
	{
		what = "the grid is empty";
	}
	else if (def->axis < 0 || def->axis > 2)
	{
		what = "the axis must be x, y or z";
	}
	else if (!(def->at >= 0.0 && def->at <= 1.0))
	{
		what = "the position along the axis must be within 0..1";
	}
	else if (def->size < 16 || def->size > 8192)
	{
		what = "the size must be 16..8192 pixels";
	}
	else if (!(def->range >= 0.0) || !isfinite(def->range))
	{
		what = "the shading range must be a finite number >= 0";
	}
	if (what != NULL)
	{
		snprintf(err, errlen, "%s", what);
	}
	return what == NULL;
}

static bool bsSliceArrows(const bsDistanceGrid* grid, const bsGridSliceDef* def, bsGridSlice* s)
{
	double cellPixels = grid->cellSize / s->pixel;
	int stride = (int)ceil(BS_SLICE_MIN_ARROW_SPACING / cellPixels - 1e-9);
	stride = stride < 1 ? 1 : stride;
	s->arrowSpacing = stride * cellPixels;
	int nu = bsSliceCells(grid, s->u), nv = bsSliceCells(grid, s->v);
	int cu = (nu - 1 - stride / 2) / stride + 1, cv = (nv - 1 - stride / 2) / stride + 1;
	s->arrows = calloc((size_t)cu * (size_t)cv, sizeof *s->arrows);
	if (s->arrows == NULL)
	{
		return false;
	}
	double ou = bsSliceGet(grid->origin, s->u), ov = bsSliceGet(grid->origin, s->v);
	for (int j = stride / 2; j < nv; j += stride)
	{
		for (int i = stride / 2; i < nu; i += stride)
		{
			bsGridSliceArrow* a = s->arrows + s->arrowCount++;
			a->point = bsV3(0.0, 0.0, 0.0);
			bsSliceSet(&a->point, s->axis, s->coordinate);
			bsSliceSet(&a->point, s->u, ou + (i + 0.5) * grid->cellSize);
			bsSliceSet(&a->point, s->v, ov + (j + 0.5) * grid->cellSize);
			a->px = (bsSliceGet(a->point, s->u) - s->x0) / s->pixel - 0.5;
			a->py = s->height - 0.5 - (bsSliceGet(a->point, s->v) - s->y0) / s->pixel;
			bsGridCell c = bsSliceLookup(grid, def->nearest, a->point);
			a->normal = bsV3(c.normal[0], c.normal[1], c.normal[2]);
			a->dx = bsSliceGet(a->normal, s->u);
			a->dy = -bsSliceGet(a->normal, s->v);
		}
	}
	return true;
}

bool bsGridSlice_Sample(const bsDistanceGrid* grid, const bsGridSliceDef* def, bsGridSlice* s, char* err,
	size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (!bsSliceCheck(grid, def, err, errlen))
	{
		return false;
	}
	s->axis = def->axis;
	s->u = def->axis == 0 ? 1 : 0;
	s->v = def->axis == 2 ? 1 : 2;
	double h = grid->cellSize;
	s->coordinate = bsSliceGet(grid->origin, s->axis) + (0.5 + def->at * (bsSliceCells(grid, s->axis) - 1)) * h;
	double extentU = bsSliceCells(grid, s->u) * h, extentV = bsSliceCells(grid, s->v) * h;
	s->pixel = fmax(extentU, extentV) / def->size;
	s->width = (int)fmax(1.0, floor(extentU / s->pixel + 0.5));
	s->height = (int)fmax(1.0, floor(extentV / s->pixel + 0.5));
	s->x0 = bsSliceGet(grid->origin, s->u);
	s->y0 = bsSliceGet(grid->origin, s->v);
	s->distance = malloc((size_t)s->width * (size_t)s->height * sizeof *s->distance);
	if (s->distance == NULL || !bsSliceArrows(grid, def, s))
	{
		bsGridSlice_Free(s);
		snprintf(err, errlen, "out of memory");
		return false;
	}
	double largest = 0.0;
	for (int y = 0; y < s->height; ++y)
	{
		for (int x = 0; x < s->width; ++x)
		{
			float d = bsSliceLookup(grid, def->nearest, bsGridSlice_Point(s, x, y)).distance;
			s->distance[(size_t)y * s->width + x] = d;
			largest = fmax(largest, fabs((double)d));
		}
	}
	s->range = def->range > 0.0 ? def->range : (largest > 0.0 ? largest : 1.0);
	return true;
}

void bsGridSlice_Free(bsGridSlice* s)
{
	free(s->distance);
	free(s->arrows);
	memset(s, 0, sizeof *s);
}

void bsGridSlice_Shade(double d, double range, uint8_t rgb[3])
{
	double t = fmin(fabs(d) / range, 1.0);
	if (d >= 0.0)
	{
		rgb[0] = rgb[1] = rgb[2] = (uint8_t)lround(60.0 + 195.0 * t);
	}
	else
	{
		rgb[0] = (uint8_t)lround(60.0 + 195.0 * t);
		rgb[1] = (uint8_t)lround(60.0 + 80.0 * t);
		rgb[2] = (uint8_t)lround(60.0 + 40.0 * t);
	}
}

static void bsSlicePut(bsImage* im, int x, int y, int r, const uint8_t rgb[3])
{
	for (int yy = y - r; yy <= y + r; ++yy)
	{
		for (int xx = x - r; xx <= x + r; ++xx)
		{
			if (xx >= 0 && yy >= 0 && xx < im->width && yy < im->height)
			{
				memcpy(im->pixels + ((size_t)yy * im->width + xx) * 3, rgb, 3);
			}
		}
	}
}

static void bsSliceLine(bsImage* im, double x0, double y0, double x1, double y1, int r, const uint8_t rgb[3])
{
	double len = hypot(x1 - x0, y1 - y0);
	int steps = (int)ceil(len * 4.0) + 1;
	for (int k = 0; k <= steps; ++k)
	{
		double t = (double)k / steps;
		bsSlicePut(im, (int)floor(x0 + t * (x1 - x0)), (int)floor(y0 + t * (y1 - y0)), r, rgb);
	}
}

// The arrow from its point along the normal's part in the plane, with a head of two strokes at 25
// degrees; a dot marks the point (an arrow seen end on).
static void bsSliceArrow(bsImage* im, const bsGridSlice* s, const bsGridSliceArrow* a, int r)
{
	double len = 0.85 * s->arrowSpacing;
	double x0 = a->px + 0.5, y0 = a->py + 0.5;
	double x1 = x0 + a->dx * len, y1 = y0 + a->dy * len;
	bsSlicePut(im, (int)floor(x0), (int)floor(y0), r, bsGridSliceArrowRgb);
	bsSliceLine(im, x0, y0, x1, y1, r, bsGridSliceArrowRgb);
	double m = hypot(a->dx, a->dy);
	if (m * len < 3.0)
	{
		return;
	}
	double ux = a->dx / m, uy = a->dy / m, head = fmin(0.35 * m * len, 0.3 * len);
	for (int side = -1; side <= 1; side += 2)
	{
		double c = cos(0.4363323129985824), sn = side * sin(0.4363323129985824);  // 25 degrees
		double bx = -(ux * c - uy * sn), by = -(ux * sn + uy * c);
		bsSliceLine(im, x1, y1, x1 + bx * head, y1 + by * head, r, bsGridSliceArrowRgb);
	}
}

bool bsGridSlice_Render(const bsGridSlice* s, bsImage* im, char* err, size_t errlen)
{
	if (!bsImage_Init(im, s->width, s->height, 3, err, errlen))
	{
		return false;
	}
	for (int y = 0; y < s->height; ++y)
	{
		for (int x = 0; x < s->width; ++x)
		{
			size_t i = (size_t)y * s->width + x;
			float d = s->distance[i];
			bool right = x + 1 < s->width && ((d < 0.0f) != (s->distance[i + 1] < 0.0f));
			bool below = y + 1 < s->height && ((d < 0.0f) != (s->distance[i + s->width] < 0.0f));
			if (right || below)
			{
				memcpy(im->pixels + i * 3, bsGridSliceContourRgb, 3);
			}
			else
			{
				bsGridSlice_Shade(d, s->range, im->pixels + i * 3);
			}
		}
	}
	int r = (s->width > s->height ? s->width : s->height) >= 1200 ? 1 : 0;
	for (int k = 0; k < s->arrowCount; ++k)
	{
		bsSliceArrow(im, s, s->arrows + k, r);
	}
	return true;
}
