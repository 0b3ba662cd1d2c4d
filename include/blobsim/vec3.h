// vec3.h — small 3D vector math, all inline. Doubles throughout: the collision core promises contact
// times to 1e-6, which float cannot hold for grazing contacts.
#pragma once

#include <math.h>
#include <stdbool.h>

typedef struct bsVec3
{
	double x, y, z;
} bsVec3;

static inline bsVec3 bsV3(double x, double y, double z)
{
	bsVec3 v = {x, y, z};
	return v;
}

static inline bsVec3 bsAdd(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline bsVec3 bsSub(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline bsVec3 bsNeg(bsVec3 a)
{
	return bsV3(-a.x, -a.y, -a.z);
}

// s * a
static inline bsVec3 bsScale(double s, bsVec3 a)
{
	return bsV3(s * a.x, s * a.y, s * a.z);
}

// a + s * b
static inline bsVec3 bsMulAdd(bsVec3 a, double s, bsVec3 b)
{
	return bsV3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

// a - s * b
static inline bsVec3 bsMulSub(bsVec3 a, double s, bsVec3 b)
{
	return bsV3(a.x - s * b.x, a.y - s * b.y, a.z - s * b.z);
}

static inline double bsDot(bsVec3 a, bsVec3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline bsVec3 bsCross(bsVec3 a, bsVec3 b)
{
	return bsV3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double bsLengthSquared(bsVec3 a)
{
	return bsDot(a, a);
}

static inline double bsLength(bsVec3 a)
{
	return sqrt(bsDot(a, a));
}

static inline double bsDistanceSquared(bsVec3 a, bsVec3 b)
{
	return bsLengthSquared(bsSub(a, b));
}

static inline double bsDistance(bsVec3 a, bsVec3 b)
{
	return sqrt(bsDistanceSquared(a, b));
}

// a + t * (b - a)
static inline bsVec3 bsLerp(bsVec3 a, bsVec3 b, double t)
{
	return bsV3(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
}

static inline bsVec3 bsMin(bsVec3 a, bsVec3 b)
{
	return bsV3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z));
}

static inline bsVec3 bsMax(bsVec3 a, bsVec3 b)
{
	return bsV3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z));
}

// Unit vector along a; the zero vector when a is too short to normalise.
static inline bsVec3 bsNormalize(bsVec3 a)
{
	double len = bsLength(a);
	if (len < 1e-300)
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	return bsScale(1.0 / len, a);
}

static inline double bsMaxAbs(bsVec3 a)
{
	return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}

// Component-wise min and max and the largest magnitude of finite vectors, as compares rather than
// libm's fmin/fmax calls (which handle NaN operands, and which gcc does not inline): the same values
// for finite operands, but for the sign of a zero that compares equal to the other operand.
static inline bsVec3 bsMinFinite(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}

static inline bsVec3 bsMaxFinite(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

static inline double bsMaxAbsFinite(bsVec3 a)
{
	double x = fabs(a.x), y = fabs(a.y), z = fabs(a.z);
	double m = x > y ? x : y;
	return m > z ? m : z;
}

// Validity checks, shared by the input checks of every query and by the tests.
static inline bool bsIsValidDouble(double a)
{
	return isfinite(a);
}

static inline bool bsIsValidVec3(bsVec3 a)
{
	return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
