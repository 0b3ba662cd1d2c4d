// polygon.c — ear clipping of an n-gon on its Newell plane (see polygon.h).
#include "polygon.h"

#include <math.h>
#include <stdlib.h>

bool bsPolygonScratch_Reserve(bsPolygonScratch* s, size_t n)
{
	if (n <= s->capacity)
	{
		return true;
	}
	if (n > SIZE_MAX / sizeof(double))
	{
		return false;
	}
	double* u = malloc(n * sizeof(double));
	double* v = malloc(n * sizeof(double));
	uint32_t* prev = malloc(n * sizeof(uint32_t));
	uint32_t* next = malloc(n * sizeof(uint32_t));
	if (u == NULL || v == NULL || prev == NULL || next == NULL)
	{
		free(u);
		free(v);
		free(prev);
		free(next);
		return false;
	}
	bsPolygonScratch_Free(s);
	*s = (bsPolygonScratch){u, v, prev, next, n};
	return true;
}

void bsPolygonScratch_Free(bsPolygonScratch* s)
{
	free(s->u);
	free(s->v);
	free(s->prev);
	free(s->next);
	*s = (bsPolygonScratch){NULL, NULL, NULL, NULL, 0};
}

// The ring being cut: the projected corners and the links between those left.
typedef struct bsPolygonRing
{
	bsPolygonScratch* s;
	const uint32_t* corner;
	uint32_t (*out)[3];
	uint32_t emitted;
	uint32_t left;     // corners still in the ring
	uint64_t budget;   // containment tests left
} bsPolygonRing;

// Projects the corners, relative to the first, on the plane of the Newell normal, so that the
// polygon turns counter-clockwise in (u, v).
static void bsPolygon_Project(const bsVec3* vertices, const uint32_t* corner, uint32_t n,
	bsPolygonScratch* s)
{
	bsVec3 o = vertices[corner[0]];
	bsVec3 normal = bsV3(0.0, 0.0, 0.0);
	for (uint32_t i = 1; i + 1 < n; ++i)
	{
		bsVec3 a = bsSub(vertices[corner[i]], o);
		bsVec3 b = bsSub(vertices[corner[i + 1]], o);
		normal = bsAdd(normal, bsCross(a, b));
	}
	double m[3] = {fabs(normal.x), fabs(normal.y), fabs(normal.z)};
	double nk[3] = {normal.x, normal.y, normal.z};
	int k = m[0] > m[1] ? (m[0] > m[2] ? 0 : 2) : (m[1] > m[2] ? 1 : 2);
	int ku = k == 2 ? 0 : k + 1;
	int kv = ku == 2 ? 0 : ku + 1;
	if (nk[k] < 0.0)
	{
		int t = ku;
		ku = kv;
		kv = t;
	}
	for (uint32_t i = 0; i < n; ++i)
	{
		bsVec3 p = bsSub(vertices[corner[i]], o);
		double c[3] = {p.x, p.y, p.z};
		s->u[i] = c[ku];
		s->v[i] = c[kv];
		s->prev[i] = i == 0 ? n - 1 : i - 1;
		s->next[i] = i + 1 == n ? 0 : i + 1;
	}
}

// Twice the signed area of the corners a, b, c in the plane.
static double bsPolygon_Area2(const bsPolygonScratch* s, uint32_t a, uint32_t b, uint32_t c)
{
	return (s->u[b] - s->u[a]) * (s->v[c] - s->v[a]) - (s->v[b] - s->v[a]) * (s->u[c] - s->u[a]);
}

static bool bsPolygon_SamePoint(const bsPolygonScratch* s, uint32_t a, uint32_t b)
{
	return s->u[a] == s->u[b] && s->v[a] == s->v[b];
}

// Does the counter-clockwise triangle a b c hold another corner of the ring (its edges included)?
// Spends the budget; an exhausted budget blocks.
static bool bsPolygon_Blocked(bsPolygonRing* r, uint32_t a, uint32_t b, uint32_t c)
{
	const bsPolygonScratch* s = r->s;
	for (uint32_t p = s->next[c]; p != a; p = s->next[p])
	{
		if (r->budget == 0)
		{
			return true;  // no ear is trusted once the work is spent
		}
		--r->budget;
		if (bsPolygon_SamePoint(s, p, a) || bsPolygon_SamePoint(s, p, b) || bsPolygon_SamePoint(s, p, c))
		{
			continue;
		}
		if (bsPolygon_Area2(s, a, b, p) >= 0.0 && bsPolygon_Area2(s, b, c, p) >= 0.0 &&
			bsPolygon_Area2(s, c, a, p) >= 0.0)
		{
			return true;
		}
	}
	return false;
}

// Cuts corner c off the ring: its triangle (prev, c, next) in the file's winding.
static void bsPolygon_Cut(bsPolygonRing* r, uint32_t c)
{
	bsPolygonScratch* s = r->s;
	uint32_t a = s->prev[c];
	uint32_t b = s->next[c];
	uint32_t* t = r->out[r->emitted++];
	t[0] = r->corner[a];
	t[1] = r->corner[c];
	t[2] = r->corner[b];
	s->next[a] = b;
	s->prev[b] = a;
	--r->left;
}

// The first corner from `from` on (once round the ring) that passes the test: 0 an ear, 1 a zero-area
// triangle, 2 a triangle that turns the right way. The ring's size when none does.
static uint32_t bsPolygon_Find(bsPolygonRing* r, uint32_t from, int test)
{
	const bsPolygonScratch* s = r->s;
	uint32_t c = from;
	do
	{
		if (r->budget == 0)
		{
			return UINT32_MAX;
		}
		--r->budget;
		double area = bsPolygon_Area2(s, s->prev[c], c, s->next[c]);
		bool pass = test == 1 ? area == 0.0 : area > 0.0;
		if (pass && (test != 0 || !bsPolygon_Blocked(r, s->prev[c], c, s->next[c])))
		{
			return c;
		}
		c = s->next[c];
	} while (c != from);
	return UINT32_MAX;
}

void bsTriangulatePolygon(const bsVec3* vertices, const uint32_t* corner, uint32_t n,
	bsPolygonScratch* s, uint32_t (*out)[3])
{
	bsPolygon_Project(vertices, corner, n, s);
	bsPolygonRing r = {s, corner, out, 0, n, BS_POLYGON_TEST_BUDGET};
	uint32_t c = 1;
	while (r.left > 3)
	{
		// A zero-area corner first (a repeated vertex, a point on a straight edge): cutting it drops
		// nothing, and left in place it can block every ear.
		bool flat = bsPolygon_Area2(s, s->prev[c], c, s->next[c]) == 0.0;
		uint32_t cut = flat ? c : bsPolygon_Find(&r, c, 0);
		for (int test = 1; test <= 2 && cut == UINT32_MAX; ++test)
		{
			cut = bsPolygon_Find(&r, c, test);
		}
		cut = cut != UINT32_MAX ? cut : c;
		c = s->prev[cut];
		bsPolygon_Cut(&r, cut);
		c = s->next[c];
	}
	bsPolygon_Cut(&r, c);
}
