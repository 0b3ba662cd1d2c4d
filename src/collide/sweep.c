// sweep.c — a query prepared once, dispatched by method, completed into an output; and the paper's
// main loop over a plain triangle list (the brute-force answer the BVH must reproduce).
#include "collide_internal.h"

#include "blobsim/collide.h"
#include "core.h"

#include <string.h>

bsResult bsMakeSweep(const bsSweepInput* input, bsSweep* s)
{
	if (!bsIsValidVec3(input->c1) || !bsIsValidVec3(input->c2) || !bsIsValidDouble(input->radius))
	{
		return bs_errNonFinite;
	}
	if (input->radius < 0.0)
	{
		return bs_errNegativeRadius;
	}
	s->c1 = input->c1;
	s->c2 = input->c2;
	s->d = bsSub(input->c2, input->c1);
	s->len2 = bsLengthSquared(s->d);
	s->radius = input->radius;
	s->radius2 = input->radius * input->radius;
	if (!isfinite(s->len2) || !isfinite(s->radius2))
	{
		return bs_errNonFinite;  // finite coordinates whose squares overflow (beyond ~1e154)
	}
	s->len = sqrt(s->len2);
	bsVec3 grow = bsV3(s->radius, s->radius, s->radius);
	s->boxMin = bsSub(bsMinFinite(s->c1, s->c2), grow);
	s->boxMax = bsAdd(bsMaxFinite(s->c1, s->c2), grow);
	s->roundoff = 1e-14 * (1.0 + bsMaxAbsFinite(s->c1) + bsMaxAbsFinite(s->c2) + s->radius);
	s->axis = s->len > 0.0 ? bsScale(1.0 / s->len, s->d) : bsV3(0.0, 0.0, 0.0);
	return bs_ok;
}

static bsVec3 bsSweep_CenterAt(const bsSweep* s, double t)
{
	if (t <= 0.0)
	{
		return s->c1;
	}
	if (t >= 1.0)
	{
		return s->c2;
	}
	return bsMulAdd(s->c1, t, s->d);
}

// The face normal on the side the motion comes from, for a centre on the surface (the ray method,
// karabassi's Int4): n faces away from the motion, or, for motion along the plane, towards C1.
static bsVec3 bsSweep_FacingNormal(const bsSweep* s, bsVec3 n, bsVec3 point)
{
	double towards = bsDot(n, s->d);
	if (towards == 0.0)
	{
		towards = -bsDot(n, bsSub(s->c1, point));
	}
	return towards > 0.0 ? bsNeg(n) : n;
}

bsFeature bsSweep_Finish(const bsSweep* s, const bsTriangle* tri, uint32_t triangleIndex,
	const bsTriangleHit* hit, bsSweepOutput* out)
{
	memset(out, 0, sizeof(*out));
	out->t = hit->t;
	out->center = bsSweep_CenterAt(s, hit->t);
	bsFeature feature = bs_featureFace;
	out->point = bsTriangle_ClosestPoint(tri, out->center, &feature, NULL);
	if (!bsTriangle_NormalTowards(tri, out->center, out->point, feature, &out->normal))
	{
		out->normal = bsSweep_FacingNormal(s, tri->n, out->point);
	}
	out->triangle = triangleIndex;
	out->hit = 1;
	out->test = hit->test;
	out->branch = hit->branch;
	out->feature = hit->feature;
	return feature;
}

void bsSweep_UseMeshContact(const bsSweep* s, const bsClosestPointOutput* contact, bsSweepOutput* out)
{
	out->point = contact->point;
	out->normal = contact->onSurface ? bsSweep_FacingNormal(s, contact->normal, contact->point)
		: contact->normal;
}

void bsSweep_Miss(const bsSweep* s, bsSweepOutput* out)
{
	memset(out, 0, sizeof(*out));
	out->t = 1.0;
	out->center = s->c2;
	out->point = s->c2;
	out->triangle = BS_NO_TRIANGLE;
}

bsResult bsSweepList(bsMethod method, const bsTriangle* tris, uint32_t count,
	const bsSweepInput* input, bsSweepOutput* out)
{
	return bsSweepListOpen(method, tris, NULL, count, input, out);
}

bsResult bsSweepListOpen(bsMethod method, const bsTriangle* tris, const uint8_t* open, uint32_t count,
	const bsSweepInput* input, bsSweepOutput* out)
{
	bsSweep s;
	bsResult result = bsMakeSweep(input, &s);
	if (result != bs_ok)
	{
		memset(out, 0, sizeof(*out));
		out->t = 1.0;
		out->triangle = BS_NO_TRIANGLE;
		return result;
	}
	if ((unsigned)method >= (unsigned)bs_methodCount)
	{
		bsSweep_Miss(&s, out);
		return bs_errInvalidArgument;
	}

	// For each triangle: the method's contact; keep the one nearest C1 (the first on ties).
	bsTriangleHit best = {2.0, 0, 0, 0};
	uint32_t bestIndex = BS_NO_TRIANGLE;
	for (uint32_t i = 0; i < count; ++i)
	{
		bsTriangleHit hit;
		bool crossed = method == bs_methodRay && open != NULL
			? bsRayTriangleOpen(tris + i, &s, best.t, open[i], &hit)
			: bsSweepTriangle(method, tris + i, &s, best.t, &hit);
		if (crossed && hit.t < best.t)
		{
			best = hit;
			bestIndex = i;
		}
	}
	if (bestIndex == BS_NO_TRIANGLE)
	{
		bsSweep_Miss(&s, out);
	}
	else if (bsSweep_RefinesContact(method, best.t,
		bsSweep_Finish(&s, tris + bestIndex, bestIndex, &best, out)))
	{
		// The contact geometry: the mesh's point nearest the stop centre, no farther than the hit's.
		bsClosestPointInput near = {out->center, bsDistance(out->center, out->point)};
		bsClosestPointOutput contact;
		if (bsClosestPointList(tris, count, &near, &contact) == bs_ok && contact.hit)
		{
			bsSweep_UseMeshContact(&s, &contact, out);
		}
	}
	return bs_ok;
}

const char* bsMethodName(bsMethod method)
{
	static const char* names[] = {"karabassi", "exact", "ray"};
	return (unsigned)method < (unsigned)bs_methodCount ? names[method] : "unknown";
}

bool bsParseMethod(const char* name, bsMethod* method)
{
	for (int m = 0; m < bs_methodCount; ++m)
	{
		if (strcmp(name, bsMethodName((bsMethod)m)) == 0)
		{
			*method = (bsMethod)m;
			return true;
		}
	}
	return false;
}

const char* bsTestName(bsTest test)
{
	static const char* names[] = {"none", "start-sphere", "cylinder", "end-sphere", "exact", "ray",
		"plane", "sphere"};
	_Static_assert(BS_COUNT(names) == bs_testCount, "one name per test");
	return (unsigned)test < (unsigned)bs_testCount ? names[test] : "unknown";
}

const char* bsBranchName(bsBranch branch)
{
	static const char* names[] = {"none", "Step2", "Step3", "Step4", "Par5", "Par6", "Par7", "Int4",
		"Int6", "start", "face", "edge", "vertex"};
	_Static_assert(BS_COUNT(names) == bs_branchCount, "one name per branch");
	return (unsigned)branch < (unsigned)bs_branchCount ? names[branch] : "unknown";
}
