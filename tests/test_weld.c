// test_weld.c — welding a triangle soup (src/mesh/weld.h) against a brute-force reference: every pair of
// corners compared as doubles. Soups with shared corners, -0 and +0 at one corner, duplicates of whole
// triangles, and the order by position independent of the triangles' order.
#include "test.h"

#include "weld.h"

#include "blobsim/rng.h"

#include <stdlib.h>
#include <string.h>

static bsVec3 Corner(const bsTriangle* tris, uint32_t c)
{
	const bsTriangle* t = tris + c / 3;
	return c % 3 == 0 ? t->p1 : (c % 3 == 1 ? t->p2 : t->p3);
}

static int SamePosition(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;  // -0 == +0
}

// A soup of count triangles whose corners are drawn from a small pool of lattice points (so corners
// are shared many times), some with a coordinate of -0 where the pool has +0.
static void MakeSoup(bsTriangle* tris, uint32_t count, uint32_t pool, bsRng* rng)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p[3];
		for (int k = 0; k < 3; ++k)
		{
			uint32_t q = bsRng_Below(rng, pool);
			p[k] = bsV3((double)(q % 7), (double)(q / 7 % 7), (double)(q / 49));
			if (p[k].x == 0.0 && bsRng_Below(rng, 2) == 0)
			{
				p[k].x = -0.0;
			}
		}
		tris[i] = (bsTriangle){p[0], p[1], p[2], bsV3(0.0, 0.0, 1.0), 0.0};
	}
}

// The weld against brute force: corners at one position share one vertex, corners at different
// positions never do, every vertex is used and holds its corners' position.
static int CheckAgainstBruteForce(const bsTriangle* tris, uint32_t count, const bsWeld* w)
{
	uint32_t corners = 3 * count;
	ENSURE(w->cornerCount == corners);
	uint32_t distinct = 0;
	for (uint32_t a = 0; a < corners; ++a)
	{
		int seen = 0;
		for (uint32_t b = 0; b < corners; ++b)
		{
			int same = SamePosition(Corner(tris, a), Corner(tris, b));
			ENSURE(same == (w->cornerVertex[a] == w->cornerVertex[b]));
			seen |= same && b < a;
		}
		distinct += !seen;
		ENSURE(w->cornerVertex[a] < w->vertexCount);
		ENSURE(SamePosition(w->positions[w->cornerVertex[a]], Corner(tris, a)));
	}
	ENSURE(w->vertexCount == distinct);
	return 0;
}

static int LessThan(bsVec3 a, bsVec3 b)
{
	return a.x != b.x ? a.x < b.x : (a.y != b.y ? a.y < b.y : a.z < b.z);
}

static int Soups(void)
{
	bsRng rng = bsMakeRng(7);
	enum { count = 300 };
	bsTriangle tris[count], shuffled[count];
	for (uint32_t pool = 2; pool <= 343; pool = pool * 3 + 1)
	{
		MakeSoup(tris, count, pool, &rng);
		bsWeld w;
		ENSURE(bsWeld_Build(&w, tris, count) == bs_ok);
		RUN_SUBTEST(CheckAgainstBruteForce(tris, count, &w));
		for (uint32_t c = 0; c < w.cornerCount; ++c)  // first-corner order: vertex v first at corner >= v
		{
			ENSURE(w.cornerVertex[c] <= c);
		}
		ENSURE(bsWeld_SortByPosition(&w));
		RUN_SUBTEST(CheckAgainstBruteForce(tris, count, &w));
		for (uint32_t v = 1; v < w.vertexCount; ++v)
		{
			ENSURE(LessThan(w.positions[v - 1], w.positions[v]));
		}
		// The sorted numbering does not depend on the triangles' order.
		memcpy(shuffled, tris, sizeof tris);
		for (uint32_t i = count - 1; i > 0; --i)
		{
			uint32_t j = bsRng_Below(&rng, i + 1);
			bsTriangle t = shuffled[i];
			shuffled[i] = shuffled[j];
			shuffled[j] = t;
		}
		bsWeld s;
		ENSURE(bsWeld_Build(&s, shuffled, count) == bs_ok && bsWeld_SortByPosition(&s));
		ENSURE(s.vertexCount == w.vertexCount);
		for (uint32_t v = 0; v < w.vertexCount; ++v)
		{
			ENSURE(SamePosition(s.positions[v], w.positions[v]));
		}
		bsWeld_Destroy(&s);
		bsWeld_Destroy(&w);
		ENSURE(w.positions == NULL && w.cornerVertex == NULL && w.vertexCount == 0);
	}
	return 0;
}

static int Empty(void)
{
	bsWeld w;
	ENSURE(bsWeld_Build(&w, NULL, 0) == bs_ok);
	ENSURE(w.vertexCount == 0 && w.cornerCount == 0);
	ENSURE(bsWeld_SortByPosition(&w));
	bsWeld_Destroy(&w);
	return 0;
}

int WeldTest(void)
{
	RUN_SUBTEST(Soups());
	RUN_SUBTEST(Empty());
	return 0;
}
