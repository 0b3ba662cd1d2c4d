// bvh_quant.h — the quantized boxes of the 4-wide tree (bsBvhWideNode): how the build and the refit
// quantize a node's child boxes, and how the walks (bvh.c) and the tests read them back.
//
// Why a dequantized box contains the child's float box. On each axis a bound is read as
// fl(origin + fl(q * 2^exp)), q an integer in [0, 255] and 2^exp a normal float (exp in [-126,
// 127]); while the product stays below FLT_MAX it is exact (q has 8 significant bits, a float 24),
// so the walk's value is one correctly rounded sum, the same whether or not a compiler fuses the
// multiply and add. bsBvhWide_Bound below is that very expression, and the quantization picks each
// q by evaluating it: qmin the largest q whose bound is at or below the child's min, qmax the
// smallest whose bound is at or above its max. Both exist: q = 0 gives origin, the node's min,
// at or below every child's min; exp is chosen so that q = 255 gives a bound at or above the node's
// max (an overflow to +inf is above it too). The walks compute the same float expression (c_std=c11
// keeps contraction off, and the exact product makes a fused one agree anyway), so each dequantized
// box is at or outside the exact one on every side: a box only grows, every query still enters
// every box holding a contact, and answers stay bit for bit the list loop's.
#ifndef BLOBSIM_BVH_QUANT_H
#define BLOBSIM_BVH_QUANT_H

#include "blobsim/boxf.h"
#include "blobsim/bvh.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The most triangles a leaf slot holds (its count is 16 bits).
#define BS_BVH_WIDE_MAX_COUNT 65535u

// 2^(biased - 127) as a float, biased in [1, 254] (a float's exponent field).
static inline float bsBvhWide_Scale(int biased)
{
	uint32_t bits = (uint32_t)biased << 23;
	float s;
	memcpy(&s, &bits, sizeof s);
	return s;
}

// A bound as every reader computes it.
static inline float bsBvhWide_Bound(float origin, float scale, unsigned q)
{
	return origin + (float)q * scale;
}

// The float box of triangles [first, first + count) of the leaf order, rounded outwards: the box the
// build gives a leaf. Leaf-order triangle i is tris[index[i]], or tris[i] when index is NULL.
static inline void bsBvhWide_RangeBox(const bsTriangle* tris, const uint32_t* index, uint32_t first,
	uint32_t count, float min[3], float max[3])
{
	bsVec3 lo = bsV3(INFINITY, INFINITY, INFINITY);
	bsVec3 hi = bsNeg(lo);
	for (uint32_t i = first; i < first + count; ++i)
	{
		const bsTriangle* t = tris + (index != NULL ? index[i] : i);
		lo = bsMin(lo, bsTriangle_Min(t));
		hi = bsMax(hi, bsTriangle_Max(t));
	}
	min[0] = bsFloatDown(lo.x), min[1] = bsFloatDown(lo.y), min[2] = bsFloatDown(lo.z);
	max[0] = bsFloatUp(hi.x), max[1] = bsFloatUp(hi.y), max[2] = bsFloatUp(hi.z);
}

// The smallest exp whose 255 quanta from origin reach max.
static inline int bsBvhWide_Exp(float origin, float max)
{
	double extent = (double)max - (double)origin;
	int exp = extent > 0.0 ? ilogb(extent / 255.0) : -126;
	exp = exp < -126 ? -126 : (exp > 127 ? 127 : exp);
	while (exp < 127 && !(bsBvhWide_Bound(origin, bsBvhWide_Scale(exp + 127), 255u) >= max))
	{
		++exp;
	}
	return exp;
}

// Quantizes the exact float boxes of slots [0, n) (rows min[axis][slot], max likewise) into node:
// its origin and exponents from their union, each slot's bounds rounded outwards (see the top);
// unused slots get q = 0. child and count are left alone.
static inline void bsBvhWideNode_Quantize(bsBvhWideNode* node, const float min[3][4],
	const float max[3][4], uint32_t n)
{
	node->used = (uint8_t)((1u << n) - 1u);
	for (int a = 0; a < 3; ++a)
	{
		float lo = min[a][0], hi = max[a][0];
		for (uint32_t i = 1; i < n; ++i)
		{
			lo = fminf(lo, min[a][i]);
			hi = fmaxf(hi, max[a][i]);
		}
		int exp = bsBvhWide_Exp(lo, hi);
		float scale = bsBvhWide_Scale(exp + 127);
		node->origin[a] = lo;
		node->exp[a] = (uint8_t)(exp + 127);
		for (uint32_t i = 0; i < 4; ++i)
		{
			unsigned qlo = 0, qhi = 0;
			if (i < n)
			{
				double step = ldexp(1.0, exp);
				double fl = floor(((double)min[a][i] - (double)lo) / step);
				double fh = ceil(((double)max[a][i] - (double)lo) / step);
				qlo = fl < 0.0 ? 0u : (fl > 255.0 ? 255u : (unsigned)fl);
				qhi = fh < 0.0 ? 0u : (fh > 255.0 ? 255u : (unsigned)fh);
				// The estimates are within a step or two; the float expression decides.
				while (qlo > 0 && bsBvhWide_Bound(lo, scale, qlo) > min[a][i])
				{
					--qlo;
				}
				while (qlo < 255 && bsBvhWide_Bound(lo, scale, qlo + 1) <= min[a][i])
				{
					++qlo;
				}
				while (qhi < 255 && bsBvhWide_Bound(lo, scale, qhi) < max[a][i])
				{
					++qhi;
				}
				while (qhi > 0 && bsBvhWide_Bound(lo, scale, qhi - 1) >= max[a][i])
				{
					--qhi;
				}
			}
			node->qmin[a][i] = (uint8_t)qlo;
			node->qmax[a][i] = (uint8_t)qhi;
		}
	}
}

// The dequantized box of slot i (the tests' and the scalar walks' reading).
static inline void bsBvhWideNode_SlotBox(const bsBvhWideNode* node, int i, float min[3], float max[3])
{
	for (int a = 0; a < 3; ++a)
	{
		float scale = bsBvhWide_Scale(node->exp[a]);
		min[a] = bsBvhWide_Bound(node->origin[a], scale, node->qmin[a][i]);
		max[a] = bsBvhWide_Bound(node->origin[a], scale, node->qmax[a][i]);
	}
}

// The node's dequantized boxes as rows, one SIMD register each (the walks' reading).
#if defined(__SSE2__)
typedef struct bsBvhWideRows
{
	__m128 min[3];
	__m128 max[3];
} bsBvhWideRows;

// The same float operations as bsBvhWide_Bound, four lanes at once: the bytes widened to int32 and
// converted (exactly), times 2^exp built from its bits, plus the origin.
static inline void bsBvhWideNode_Rows(const bsBvhWideNode* node, bsBvhWideRows* rows)
{
	const __m128i zero = _mm_setzero_si128();
	// Bytes 12..27: exp x3, used, qmin x12; then qmax x12 from byte 28.
	__m128i head = _mm_loadu_si128((const __m128i*)(const void*)((const uint8_t*)node + 12));
	__m128i tail = _mm_loadu_si128((const __m128i*)(const void*)((const uint8_t*)node + 28));
	__m128i head16lo = _mm_unpacklo_epi8(head, zero);  // exp, used, qmin x
	__m128i head16hi = _mm_unpackhi_epi8(head, zero);  // qmin y, qmin z
	__m128i tail16lo = _mm_unpacklo_epi8(tail, zero);  // qmax x, qmax y
	__m128i tail16hi = _mm_unpackhi_epi8(tail, zero);  // qmax z, child[0]'s low bytes
	// The exponents' bytes widened to int32 lanes and shifted into place: 2^exp x, y, z (and `used`
	// in the last lane, unused).
	__m128 scales = _mm_castsi128_ps(_mm_slli_epi32(_mm_unpacklo_epi16(head16lo, zero), 23));
	__m128 scale[3] = {_mm_shuffle_ps(scales, scales, _MM_SHUFFLE(0, 0, 0, 0)),
		_mm_shuffle_ps(scales, scales, _MM_SHUFFLE(1, 1, 1, 1)),
		_mm_shuffle_ps(scales, scales, _MM_SHUFFLE(2, 2, 2, 2))};
	__m128i q[6] = {
		_mm_unpackhi_epi16(head16lo, zero), _mm_unpacklo_epi16(head16hi, zero),
		_mm_unpackhi_epi16(head16hi, zero), _mm_unpacklo_epi16(tail16lo, zero),
		_mm_unpackhi_epi16(tail16lo, zero), _mm_unpacklo_epi16(tail16hi, zero)};
	for (int a = 0; a < 3; ++a)
	{
		__m128 origin = _mm_set1_ps(node->origin[a]);
		rows->min[a] = _mm_add_ps(origin, _mm_mul_ps(_mm_cvtepi32_ps(q[a]), scale[a]));
		rows->max[a] = _mm_add_ps(origin, _mm_mul_ps(_mm_cvtepi32_ps(q[3 + a]), scale[a]));
	}
}
#else
typedef struct bsBvhWideRows
{
	float min[3][4];
	float max[3][4];
} bsBvhWideRows;

static inline void bsBvhWideNode_Rows(const bsBvhWideNode* node, bsBvhWideRows* rows)
{
	for (int a = 0; a < 3; ++a)
	{
		float scale = bsBvhWide_Scale(node->exp[a]);
		for (int i = 0; i < 4; ++i)
		{
			rows->min[a][i] = bsBvhWide_Bound(node->origin[a], scale, node->qmin[a][i]);
			rows->max[a][i] = bsBvhWide_Bound(node->origin[a], scale, node->qmax[a][i]);
		}
	}
}
#endif

#endif
