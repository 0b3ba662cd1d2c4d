// mass_properties.c — mass, centre of mass and inertia tensor of a closed triangle mesh from its
// volume integrals, and the principal frame by Jacobi rotations.
//
// The integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx over the solid are turned into surface
// integrals by the divergence theorem and summed per triangle in closed form (D. Eberly, "Polyhedral
// Mass Properties (Revisited)", 2002, itself a simplification of Mirtich 1996 for triangles). The
// vertices are taken relative to the centre of the mesh's bounds first, so a mesh far from the origin
// loses no digits to cancellation.
#include "rigid.h"

#include <string.h>

// Eberly's per-axis subexpressions for one triangle's coordinates w0, w1, w2.
typedef struct bsSubexpr
{
	double f1, f2, f3, g0, g1, g2;
} bsSubexpr;

static bsSubexpr bsSubexpressions(double w0, double w1, double w2)
{
	bsSubexpr s;
	double t0 = w0 + w1;
	double t1 = w0 * w0;
	double t2 = t1 + w1 * t0;
	s.f1 = t0 + w2;
	s.f2 = t2 + w2 * s.f1;
	s.f3 = w0 * t1 + w1 * t2 + w2 * s.f2;
	s.g0 = s.f2 + w0 * (s.f1 + w0);
	s.g1 = s.f2 + w1 * (s.f1 + w1);
	s.g2 = s.f2 + w2 * (s.f1 + w2);
	return s;
}

// The ten volume integrals (1, x, y, z, x^2, y^2, z^2, xy, yz, zx) of the solid, vertices relative
// to origin.
static void bsVolumeIntegrals(const bsTriangle* tris, uint32_t count, bsVec3 origin, double in[10])
{
	memset(in, 0, 10 * sizeof(double));
	for (uint32_t i = 0; i < count; ++i)
	{
		bsVec3 p0 = bsSub(tris[i].p1, origin);
		bsVec3 p1 = bsSub(tris[i].p2, origin);
		bsVec3 p2 = bsSub(tris[i].p3, origin);
		bsVec3 d = bsCross(bsSub(p1, p0), bsSub(p2, p0));  // twice the area times the unit normal
		bsSubexpr x = bsSubexpressions(p0.x, p1.x, p2.x);
		bsSubexpr y = bsSubexpressions(p0.y, p1.y, p2.y);
		bsSubexpr z = bsSubexpressions(p0.z, p1.z, p2.z);
		in[0] += d.x * x.f1;
		in[1] += d.x * x.f2;
		in[2] += d.y * y.f2;
		in[3] += d.z * z.f2;
		in[4] += d.x * x.f3;
		in[5] += d.y * y.f3;
		in[6] += d.z * z.f3;
		in[7] += d.x * (p0.y * x.g0 + p1.y * x.g1 + p2.y * x.g2);
		in[8] += d.y * (p0.z * y.g0 + p1.z * y.g1 + p2.z * y.g2);
		in[9] += d.z * (p0.x * z.g0 + p1.x * z.g1 + p2.x * z.g2);
	}
	static const double scale[10] = {1.0 / 6.0, 1.0 / 24.0, 1.0 / 24.0, 1.0 / 24.0, 1.0 / 60.0,
		1.0 / 60.0, 1.0 / 60.0, 1.0 / 120.0, 1.0 / 120.0, 1.0 / 120.0};
	for (int k = 0; k < 10; ++k)
	{
		in[k] *= scale[k];
	}
}

static bsVec3 BoundsCentre(const bsTriangle* tris, uint32_t count)
{
	bsVec3 lo = bsTriangle_Min(tris), hi = bsTriangle_Max(tris);
	for (uint32_t i = 1; i < count; ++i)
	{
		lo = bsMin(lo, bsTriangle_Min(tris + i));
		hi = bsMax(hi, bsTriangle_Max(tris + i));
	}
	return bsScale(0.5, bsAdd(lo, hi));
}

bsResult bsComputeMassProperties(const bsTriangle* tris, uint32_t count, double density,
	bsMassProperties* out)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(out, 0, sizeof(*out));
	if (tris == NULL || count == 0 || !(density > 0.0) || !isfinite(density))
	{
		return bs_errInvalidArgument;
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		if (!bsIsValidVec3(tris[i].p1) || !bsIsValidVec3(tris[i].p2) || !bsIsValidVec3(tris[i].p3))
		{
			return bs_errNonFinite;
		}
	}
	bsVec3 o = BoundsCentre(tris, count);
	double in[10];
	bsVolumeIntegrals(tris, count, o, in);
	double volume = in[0];
	if (!(volume > 0.0) || !isfinite(volume))
	{
		return bs_errInvalidArgument;
	}
	// Moments about the centre of mass c (relative to o): the parallel-axis shift.
	bsVec3 c = bsV3(in[1] / volume, in[2] / volume, in[3] / volume);
	double xx = in[4] - volume * c.x * c.x, yy = in[5] - volume * c.y * c.y;
	double zz = in[6] - volume * c.z * c.z;
	double xy = in[7] - volume * c.x * c.y, yz = in[8] - volume * c.y * c.z;
	double zx = in[9] - volume * c.z * c.x;
	double (*I)[3] = out->inertia;
	I[0][0] = density * (yy + zz);
	I[1][1] = density * (zz + xx);
	I[2][2] = density * (xx + yy);
	I[0][1] = I[1][0] = -density * xy;
	I[1][2] = I[2][1] = -density * yz;
	I[0][2] = I[2][0] = -density * zx;
	out->volume = volume;
	out->mass = density * volume;
	out->centre = bsAdd(o, c);
	double values[3], vectors[3][3];
	bsJacobiEigen(out->inertia, values, vectors);
	out->principal = bsV3(values[0], values[1], values[2]);
	out->axes = bsQuat_FromMatrix(vectors);
	if (!(values[0] > 0.0))
	{
		memset(out, 0, sizeof(*out));
		return bs_errInvalidArgument;  // only a degenerate (flat) solid has a zero moment
	}
	return bs_ok;
}

// One Jacobi rotation in the (p, q) plane that zeroes a[p][q] (Golub & Van Loan, sym.schur2),
// applied to a (both sides) and accumulated into v (columns).
static void bsJacobiRotate(double a[3][3], double v[3][3], int p, int q)
{
	if (a[p][q] == 0.0)
	{
		return;
	}
	double tau = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
	double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
	double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
	for (int k = 0; k < 3; ++k)
	{
		double akp = a[k][p], akq = a[k][q];
		a[k][p] = c * akp - s * akq;
		a[k][q] = s * akp + c * akq;
	}
	for (int k = 0; k < 3; ++k)
	{
		double apk = a[p][k], aqk = a[q][k];
		a[p][k] = c * apk - s * aqk;
		a[q][k] = s * apk + c * aqk;
	}
	for (int k = 0; k < 3; ++k)
	{
		double vkp = v[k][p], vkq = v[k][q];
		v[k][p] = c * vkp - s * vkq;
		v[k][q] = s * vkp + c * vkq;
	}
}

void bsJacobiEigen(const double in[3][3], double values[3], double vectors[3][3])
{
	double a[3][3], v[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
	memcpy(a, in, sizeof(a));
	double norm = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			norm += a[i][j] * a[i][j];
		}
	}
	// Cyclic sweeps converge quadratically; 50 is far more than doubles ever need.
	for (int sweep = 0; sweep < 50; ++sweep)
	{
		double off = a[0][1] * a[0][1] + a[1][2] * a[1][2] + a[0][2] * a[0][2];
		if (off <= 1e-32 * norm)
		{
			break;
		}
		bsJacobiRotate(a, v, 0, 1);
		bsJacobiRotate(a, v, 1, 2);
		bsJacobiRotate(a, v, 0, 2);
	}
	// Sort ascending (selection over three), moving the columns along.
	int order[3] = {0, 1, 2};
	for (int i = 0; i < 2; ++i)
	{
		for (int j = i + 1; j < 3; ++j)
		{
			if (a[order[j]][order[j]] < a[order[i]][order[i]])
			{
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		values[k] = a[order[k]][order[k]];
		for (int r = 0; r < 3; ++r)
		{
			vectors[r][k] = v[r][order[k]];
		}
	}
	// A proper rotation: the third axis is the cross product of the first two.
	bsVec3 e0 = bsV3(vectors[0][0], vectors[1][0], vectors[2][0]);
	bsVec3 e1 = bsV3(vectors[0][1], vectors[1][1], vectors[2][1]);
	bsVec3 e2 = bsCross(e0, e1);
	vectors[0][2] = e2.x, vectors[1][2] = e2.y, vectors[2][2] = e2.z;
}

bsQuat bsQuat_FromMatrix(const double m[3][3])
{
	// Shepperd's method: divide by the largest of the four candidates for stability.
	double trace = m[0][0] + m[1][1] + m[2][2];
	bsQuat q;
	if (trace >= m[0][0] && trace >= m[1][1] && trace >= m[2][2])
	{
		double s = 2.0 * sqrt(1.0 + trace);
		q = (bsQuat){(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s};
	}
	else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2])
	{
		double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
		q = (bsQuat){0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s};
	}
	else if (m[1][1] >= m[2][2])
	{
		double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
		q = (bsQuat){(m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s};
	}
	else
	{
		double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
		q = (bsQuat){(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s, (m[1][0] - m[0][1]) / s};
	}
	return bsQuat_Normalize(q);
}
