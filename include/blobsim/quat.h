// quat.h — unit quaternions and rigid transforms, all inline, doubles (as vec3.h). Moving bodies
// (keyframed, dynamic) and the sensor particles' poses share these.
//
// A rotation is a unit quaternion q = (x, y, z, w) with w the scalar part; rotating v is q v q*.
// A transform maps a body's local point p to world space as rotate(q, p) + translation.
// Angles are in radians, as everywhere in the engine (docs/architecture.md, "Units").
#pragma once

#include "blobsim/vec3.h"

typedef struct bsQuat
{
	double x, y, z, w;
} bsQuat;

typedef struct bsTransform
{
	bsQuat rotation;
	bsVec3 translation;
} bsTransform;

static inline bsQuat bsQuat_Identity(void)
{
	bsQuat q = {0.0, 0.0, 0.0, 1.0};
	return q;
}

// The rotation by angle radians about axis (any length > 0; a zero axis gives the identity).
static inline bsQuat bsQuat_FromAxisAngle(bsVec3 axis, double angle)
{
	double length = bsLength(axis);
	if (length <= 0.0)
	{
		return bsQuat_Identity();
	}
	double s = sin(0.5 * angle) / length;
	bsQuat q = {s * axis.x, s * axis.y, s * axis.z, cos(0.5 * angle)};
	return q;
}

// a b: rotate by b, then by a.
static inline bsQuat bsQuat_Mul(bsQuat a, bsQuat b)
{
	bsQuat q = {
		a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
		a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
		a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
		a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
	};
	return q;
}

static inline bsQuat bsQuat_Conjugate(bsQuat q)
{
	bsQuat c = {-q.x, -q.y, -q.z, q.w};
	return c;
}

static inline double bsQuat_Dot(bsQuat a, bsQuat b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// q / |q|; the identity for a zero quaternion.
static inline bsQuat bsQuat_Normalize(bsQuat q)
{
	double length = sqrt(bsQuat_Dot(q, q));
	if (length <= 0.0)
	{
		return bsQuat_Identity();
	}
	bsQuat n = {q.x / length, q.y / length, q.z / length, q.w / length};
	return n;
}

// q v q* for a unit q, as v + 2 w (u x v) + 2 u x (u x v) with u the vector part (no matrix).
static inline bsVec3 bsQuat_Rotate(bsQuat q, bsVec3 v)
{
	bsVec3 u = bsV3(q.x, q.y, q.z);
	bsVec3 t = bsScale(2.0, bsCross(u, v));
	return bsAdd(bsMulAdd(v, q.w, t), bsCross(u, t));
}

// q* v q: the inverse rotation of a unit q.
static inline bsVec3 bsQuat_InvRotate(bsQuat q, bsVec3 v)
{
	return bsQuat_Rotate(bsQuat_Conjugate(q), v);
}

// Spherical linear interpolation from a (u = 0) to b (u = 1) along the shorter arc, at constant
// angular speed; nearly parallel ends fall back to a normalized linear blend.
static inline bsQuat bsQuat_Slerp(bsQuat a, bsQuat b, double u)
{
	double c = bsQuat_Dot(a, b);
	if (c < 0.0)
	{
		b.x = -b.x, b.y = -b.y, b.z = -b.z, b.w = -b.w;
		c = -c;
	}
	double wa = 1.0 - u, wb = u;
	if (c < 0.9995)
	{
		double angle = acos(c);
		double s = sin(angle);
		wa = sin(wa * angle) / s;
		wb = sin(wb * angle) / s;
	}
	bsQuat q = {wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w};
	return bsQuat_Normalize(q);
}

// The rotation after turning q at the world-space angular velocity omega for dt seconds (exact
// for a constant omega: q' = exp(omega dt / 2) q).
static inline bsQuat bsQuat_Integrate(bsQuat q, bsVec3 omega, double dt)
{
	return bsQuat_Normalize(bsQuat_Mul(bsQuat_FromAxisAngle(omega, bsLength(omega) * dt), q));
}

static inline bsTransform bsTransform_Identity(void)
{
	bsTransform t = {bsQuat_Identity(), bsV3(0.0, 0.0, 0.0)};
	return t;
}

// Local point to world.
static inline bsVec3 bsTransform_Apply(bsTransform t, bsVec3 p)
{
	return bsAdd(bsQuat_Rotate(t.rotation, p), t.translation);
}

// World point to local.
static inline bsVec3 bsTransform_ApplyInverse(bsTransform t, bsVec3 p)
{
	return bsQuat_InvRotate(t.rotation, bsSub(p, t.translation));
}

// a b: apply b, then a.
static inline bsTransform bsTransform_Mul(bsTransform a, bsTransform b)
{
	bsTransform t = {bsQuat_Mul(a.rotation, b.rotation), bsTransform_Apply(a, b.translation)};
	return t;
}

// The rotation about the fixed x, then y, then z axis by angles.x, .y, .z radians, as a matrix
// r = Rz Ry Rx (column k the image of e_k, as bsQuat_FromMatrix reads it) made straight from the
// angles' sines and cosines. The same rotation as bsQuat_Mul(qz, bsQuat_Mul(qy, qx)), not the same
// bits: the environment's meshes are placed with these products (and a matrix turns a whole mesh for
// 9 products a vertex where bsQuat_Rotate takes 18).
static inline void bsRotation_EulerXYZ(bsVec3 angles, double r[3][3])
{
	double cx = cos(angles.x), sx = sin(angles.x);
	double cy = cos(angles.y), sy = sin(angles.y);
	double cz = cos(angles.z), sz = sin(angles.z);
	r[0][0] = cz * cy, r[0][1] = cz * sy * sx - sz * cx, r[0][2] = cz * sy * cx + sz * sx;
	r[1][0] = sz * cy, r[1][1] = sz * sy * sx + cz * cx, r[1][2] = sz * sy * cx - cz * sx;
	r[2][0] = -sy, r[2][1] = cy * sx, r[2][2] = cy * cx;
}
