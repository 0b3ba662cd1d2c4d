// sequence.c — mesh sequences as a deformation (sequence.h).
#include "sequence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bsResult bsSequence_Check(const bsSequenceDef* def, uint32_t triangleCount)
{
	if (def->frameCount < 1 || def->vertexCount < 3 || triangleCount == 0 || def->positions == NULL ||
		def->indices == NULL || def->times == NULL)
	{
		return bs_errInvalidArgument;
	}
	for (int k = 0; k < def->frameCount; ++k)
	{
		if (!isfinite(def->times[k]) || (k > 0 && !(def->times[k] > def->times[k - 1])))
		{
			return bs_errInvalidArgument;
		}
	}
	for (size_t i = 0; i < 3 * (size_t)triangleCount; ++i)
	{
		if (def->indices[i] >= def->vertexCount)
		{
			return bs_errInvalidArgument;
		}
	}
	size_t values = (size_t)def->frameCount * def->vertexCount;
	for (size_t i = 0; i < values; ++i)
	{
		if (!bsIsValidVec3(def->positions[i]))
		{
			return bs_errNonFinite;
		}
	}
	return bs_ok;
}

bsResult bsSequence_Init(bsSequence* s, const bsSequenceDef* def, uint32_t triangleCount)
{
	memset(s, 0, sizeof *s);
	bsResult r = bsSequence_Check(def, triangleCount);
	if (r != bs_ok)
	{
		return r;
	}
	size_t values = (size_t)def->frameCount * def->vertexCount;
	s->positions = malloc(values * sizeof(bsVec3));
	s->indices = malloc(3 * (size_t)triangleCount * sizeof(uint32_t));
	s->times = malloc((size_t)def->frameCount * sizeof(double));
	s->rest = malloc((size_t)triangleCount * sizeof(bsTriangle));
	if (s->positions == NULL || s->indices == NULL || s->times == NULL || s->rest == NULL)
	{
		bsSequence_Free(s);
		return bs_errOutOfMemory;
	}
	memcpy(s->positions, def->positions, values * sizeof(bsVec3));
	memcpy(s->indices, def->indices, 3 * (size_t)triangleCount * sizeof(uint32_t));
	memcpy(s->times, def->times, (size_t)def->frameCount * sizeof(double));
	s->vertexCount = def->vertexCount;
	s->triangleCount = triangleCount;
	s->frameCount = def->frameCount;
	for (uint32_t i = 0; r == bs_ok && i < triangleCount; ++i)
	{
		const uint32_t* f = s->indices + 3 * (size_t)i;
		r = bsMakeTriangle(s->positions[f[0]], s->positions[f[1]], s->positions[f[2]], s->rest + i) == bs_ok
			? bs_ok : bs_errInvalidArgument;
	}
	r = r == bs_ok ? bsBvh_Build(&s->bvh, s->rest, triangleCount, NULL) : r;
	if (r != bs_ok)
	{
		bsSequence_Free(s);
	}
	return r;
}

void bsSequence_Free(bsSequence* s)
{
	free(s->positions);
	free(s->indices);
	free(s->times);
	free(s->rest);
	bsBvh_Destroy(&s->bvh);
	memset(s, 0, sizeof *s);
}

void bsSequence_Displacements(const bsSequence* s, int k, double u, bsVec3* out)
{
	const bsVec3* rest = s->positions;
	const bsVec3* a = s->positions + (size_t)k * s->vertexCount;
	for (uint32_t v = 0; v < s->vertexCount; ++v)
	{
		bsVec3 p = u > 0.0 ? bsLerp(a[v], a[v + s->vertexCount], u) : a[v];
		out[v] = bsSub(p, rest[v]);
	}
}

bsVec3 bsSequence_Field(const bsSequence* s, const bsVec3* displacements, bsVec3 x)
{
	bsClosestPointInput in = {x, HUGE_VAL};
	bsClosestPointOutput near;
	if (bsBvh_ClosestPoint(&s->bvh, &in, &near, NULL) != bs_ok || !near.hit)
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	const uint32_t* f = s->indices + 3 * (size_t)near.triangle;
	if (near.feature == bs_featureVertex)
	{
		return displacements[f[near.index]];
	}
	// The barycentric coordinates of the nearest point in its triangle (Ericson, 3.4).
	const bsTriangle* t = s->rest + near.triangle;
	bsVec3 e1 = bsSub(t->p2, t->p1), e2 = bsSub(t->p3, t->p1), q = bsSub(near.point, t->p1);
	double d11 = bsDot(e1, e1), d12 = bsDot(e1, e2), d22 = bsDot(e2, e2);
	double q1 = bsDot(q, e1), q2 = bsDot(q, e2);
	double den = d11 * d22 - d12 * d12;
	double b = (d22 * q1 - d12 * q2) / den;
	double c = (d11 * q2 - d12 * q1) / den;
	bsVec3 u = bsScale(1.0 - b - c, displacements[f[0]]);
	u = bsMulAdd(u, b, displacements[f[1]]);
	return bsMulAdd(u, c, displacements[f[2]]);
}
