// test_rigid.c — dynamic rigid bodies: mass properties against closed forms (boxes, the corner
// tetrahedron, a fine icosphere against the ball, transformed meshes against R I R^T), Jacobi against
// reconstruction, Senin's response against conservation laws and against the textbook impulse with
// the full world inertia tensor (written here, independently), and a box dropped on a floor (plane and
// mesh) coming to rest without sinking or jitter; determinism.
#include "test.h"

#include "procedural.h"
#include "rigid.h"

#include "blobsim/bvh.h"
#include "blobsim/rng.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

static double RelErr(double a, double b)
{
	return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static bsQuat RandomRotation(bsRng* rng)
{
	return bsQuat_FromAxisAngle(bsRng_UnitVector(rng), bsRng_Range(rng, 0.0, 2.0 * BS_PI));
}

// The columns of q's rotation matrix.
static void QuatMatrix(bsQuat q, double m[3][3])
{
	for (int k = 0; k < 3; ++k)
	{
		bsVec3 e = bsV3(k == 0, k == 1, k == 2);
		bsVec3 c = bsQuat_Rotate(q, e);
		m[0][k] = c.x, m[1][k] = c.y, m[2][k] = c.z;
	}
}

// R diag(d) R^T.
static void RotateDiagonal(bsQuat q, bsVec3 d, double out[3][3])
{
	double r[3][3];
	QuatMatrix(q, r);
	double dd[3] = {d.x, d.y, d.z};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			out[i][j] = 0.0;
			for (int k = 0; k < 3; ++k)
			{
				out[i][j] += r[i][k] * dd[k] * r[j][k];
			}
		}
	}
}

static double MaxDiff(const double a[3][3], const double b[3][3])
{
	double m = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			m = fmax(m, fabs(a[i][j] - b[i][j]));
		}
	}
	return m;
}

static void TransformMesh(bsTriangle* tris, uint32_t count, bsTransform t)
{
	for (uint32_t i = 0; i < count; ++i)
	{
		bsMakeTriangle(bsTransform_Apply(t, tris[i].p1), bsTransform_Apply(t, tris[i].p2),
			bsTransform_Apply(t, tris[i].p3), tris + i);
	}
}

// A box of sides a, b, c: V = abc, I = m/12 (b^2 + c^2, ...), no products, centre in the middle.
static int MassBox(void)
{
	bsVec3 lo = bsV3(-0.25, 0.5, 1.0), hi = bsV3(0.75, 2.5, 4.0);
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeBoxMesh(lo, hi, 2, false, &tris, &n) == bs_ok);
	double rho = 7.5;
	bsMassProperties mp;
	ENSURE(bsComputeMassProperties(tris, n, rho, &mp) == bs_ok);
	double a = 1.0, b = 2.0, c = 3.0, m = rho * a * b * c;
	ENSURE_SMALL(RelErr(mp.volume, a * b * c), 1e-14);
	ENSURE_SMALL(RelErr(mp.mass, m), 1e-14);
	ENSURE_SMALL(bsDistance(mp.centre, bsV3(0.25, 1.5, 2.5)), 1e-14);
	double expect[3][3] = {{m / 12 * (b * b + c * c), 0, 0}, {0, m / 12 * (c * c + a * a), 0},
		{0, 0, m / 12 * (a * a + b * b)}};
	ENSURE_SMALL(MaxDiff(mp.inertia, expect), 1e-13 * m);
	ENSURE_SMALL(RelErr(mp.principal.x, expect[2][2]), 1e-14);
	ENSURE_SMALL(RelErr(mp.principal.y, expect[1][1]), 1e-14);
	ENSURE_SMALL(RelErr(mp.principal.z, expect[0][0]), 1e-14);
	// An inward box has a negative volume: refused.
	free(tris);
	ENSURE(bsMakeBoxMesh(lo, hi, 1, true, &tris, &n) == bs_ok);
	ENSURE(bsComputeMassProperties(tris, n, rho, &mp) == bs_errInvalidArgument);
	ENSURE(bsComputeMassProperties(tris, n, NAN, &mp) == bs_errInvalidArgument);
	ENSURE(bsComputeMassProperties(tris, 0, rho, &mp) == bs_errInvalidArgument);
	free(tris);
	return 0;
}

// The corner tetrahedron (0, e_x, e_y, e_z): V = 1/6, c = (1/4, 1/4, 1/4), and about c
// I_xx = rho / 80, I_xy = +rho / 480 (from the simplex moments x^2: 1/60, xy: 1/120).
static int MassTetrahedron(void)
{
	bsVec3 p[4] = {bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), bsV3(0, 0, 1)};
	int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
	bsTriangle tris[4];
	for (int f = 0; f < 4; ++f)
	{
		ENSURE(bsMakeTriangle(p[faces[f][0]], p[faces[f][1]], p[faces[f][2]], tris + f) == bs_ok);
	}
	double rho = 3.0;
	bsMassProperties mp;
	ENSURE(bsComputeMassProperties(tris, 4, rho, &mp) == bs_ok);
	ENSURE_SMALL(RelErr(mp.volume, 1.0 / 6.0), 1e-14);
	ENSURE_SMALL(bsDistance(mp.centre, bsV3(0.25, 0.25, 0.25)), 1e-15);
	double d = rho / 80.0, o = rho / 480.0;
	double expect[3][3] = {{d, o, o}, {o, d, o}, {o, o, d}};
	ENSURE_SMALL(MaxDiff(mp.inertia, expect), 1e-15);
	// Eigenvalues of d I + o (J - I): d - o (twice) and d + 2o.
	ENSURE_SMALL(RelErr(mp.principal.x, d - o), 1e-13);
	ENSURE_SMALL(RelErr(mp.principal.y, d - o), 1e-13);
	ENSURE_SMALL(RelErr(mp.principal.z, d + 2 * o), 1e-13);
	return 0;
}

// A fine icosphere approaches the ball: V -> 4/3 pi r^3, I -> 2/5 m r^2 on every axis.
static int MassSphere(void)
{
	bsTriangle* tris;
	uint32_t n;
	double r = 0.5, rho = 2.0;
	ENSURE(bsMakeIcosphere(5, r, 0.0, false, &tris, &n) == bs_ok);
	bsMassProperties mp;
	ENSURE(bsComputeMassProperties(tris, n, rho, &mp) == bs_ok);
	double V = 4.0 / 3.0 * BS_PI * r * r * r, m = rho * V, I = 0.4 * m * r * r;
	// Level 5 (20480 triangles): inscribed, so a little smaller; measured 5e-4 and 8e-4.
	ENSURE_SMALL(RelErr(mp.volume, V), 1e-3);
	ENSURE(mp.volume < V);
	ENSURE_SMALL(bsLength(mp.centre), 1e-12);
	ENSURE_SMALL(RelErr(mp.principal.x, I), 2e-3);
	ENSURE_SMALL(RelErr(mp.principal.z, I), 2e-3);
	ENSURE_SMALL(fabs(mp.inertia[0][1]) + fabs(mp.inertia[1][2]) + fabs(mp.inertia[0][2]), 1e-6 * I);
	free(tris);
	return 0;
}

// A box of distinct sides rotated by R and moved by t (far from the origin, too): centre t + R c,
// tensor R D R^T; the principal frame's axes are R's columns up to sign, the moments D sorted; and
// axes diag(principal) axes^T rebuilds the tensor.
static int MassTransformed(void)
{
	bsRng rng = bsMakeRng(14);
	for (int trial = 0; trial < 50; ++trial)
	{
		bsTriangle* tris;
		uint32_t n;
		double a = 0.4, b = 1.0, c = 2.2;  // moments m/12 (b^2+c^2) > (a^2+c^2) > (a^2+b^2)
		ENSURE(bsMakeBoxMesh(bsV3(-a / 2, -b / 2, -c / 2), bsV3(a / 2, b / 2, c / 2), 1 + trial % 3, false,
			&tris, &n) == bs_ok);
		double far = trial % 2 ? 1e3 : 1.0;
		bsTransform t = {RandomRotation(&rng), bsScale(far, bsRng_UnitVector(&rng))};
		TransformMesh(tris, n, t);
		bsMassProperties mp;
		ENSURE(bsComputeMassProperties(tris, n, 1.0, &mp) == bs_ok);
		double m = a * b * c;
		bsVec3 D = bsV3(m / 12 * (b * b + c * c), m / 12 * (a * a + c * c), m / 12 * (a * a + b * b));
		double expect[3][3], rebuilt[3][3];
		RotateDiagonal(t.rotation, D, expect);
		double tol = (far > 1.0 ? 1e-9 : 1e-13) * D.x;
		ENSURE_SMALL(MaxDiff(mp.inertia, expect), tol);
		ENSURE_SMALL(bsDistance(mp.centre, t.translation), far * 1e-13);
		ENSURE_SMALL(mp.principal.x - D.z, tol);
		ENSURE_SMALL(mp.principal.y - D.y, tol);
		ENSURE_SMALL(mp.principal.z - D.x, tol);
		RotateDiagonal(mp.axes, mp.principal, rebuilt);
		ENSURE_SMALL(MaxDiff(rebuilt, mp.inertia), 1e-12 * D.x);
		// Axis k of the principal frame is the box's axis 2 - k (smallest moment: the long side).
		for (int k = 0; k < 3; ++k)
		{
			bsVec3 e = bsV3(k == 0, k == 1, k == 2), f = bsV3(k == 2, k == 1, k == 0);
			double dot = bsDot(bsQuat_Rotate(mp.axes, e), bsQuat_Rotate(t.rotation, f));
			ENSURE_SMALL(fabs(dot) - 1.0, 1e-9);
		}
		free(tris);
	}
	return 0;
}

// Random symmetric matrices: V diag V^T rebuilds them, V is a rotation.
static int Jacobi(void)
{
	bsRng rng = bsMakeRng(7);
	for (int trial = 0; trial < 1000; ++trial)
	{
		double a[3][3], values[3], v[3][3];
		for (int i = 0; i < 3; ++i)
		{
			for (int j = i; j < 3; ++j)
			{
				a[i][j] = a[j][i] = bsRng_Range(&rng, -1.0, 1.0) * (trial % 4 == 0 && i != j ? 1e-9 : 1.0);
			}
		}
		bsJacobiEigen(a, values, v);
		ENSURE(values[0] <= values[1] && values[1] <= values[2]);
		bsQuat q = bsQuat_FromMatrix(v);
		double rebuilt[3][3];
		RotateDiagonal(q, bsV3(values[0], values[1], values[2]), rebuilt);
		ENSURE_SMALL(MaxDiff(rebuilt, a), 1e-13);
		double m[3][3];
		QuatMatrix(q, m);
		ENSURE_SMALL(MaxDiff(m, v), 1e-13);
	}
	return 0;
}

// bsRotation_EulerXYZ is the rotation Rz Ry Rx of the quaternions (to rounding, not to the bit).
static int EulerXYZ(void)
{
	bsRng rng = bsMakeRng(11);
	for (int trial = 0; trial < 100; ++trial)
	{
		bsVec3 a = bsV3(bsRng_Range(&rng, -4.0, 4.0), bsRng_Range(&rng, -4.0, 4.0), bsRng_Range(&rng, -4.0, 4.0));
		bsQuat q = bsQuat_Mul(bsQuat_FromAxisAngle(bsV3(0, 0, 1), a.z),
			bsQuat_Mul(bsQuat_FromAxisAngle(bsV3(0, 1, 0), a.y), bsQuat_FromAxisAngle(bsV3(1, 0, 0), a.x)));
		double r[3][3], m[3][3];
		bsRotation_EulerXYZ(a, r);
		QuatMatrix(q, m);
		ENSURE_SMALL(MaxDiff(r, m), 1e-14);
	}
	return 0;
}

// A body from a box mesh (sides s) or an icosphere, at a pose with velocities.
static int MakeBox(bsRigidBody* body, bsVec3 s, double density, bsTransform pose, bsVec3 v, bsVec3 w)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeBoxMesh(bsScale(-0.5, s), bsScale(0.5, s), 1, false, &tris, &n) == bs_ok);
	bsRigidBodyDef def = bsDefaultRigidBodyDef();
	def.density = density, def.pose = pose, def.velocity = v, def.angularVelocity = w;
	bsResult r = bsRigidBody_Create(body, tris, n, &def);
	free(tris);
	ENSURE(r == bs_ok);
	return 0;
}

static int MakeBall(bsRigidBody* body, double radius, double density, bsVec3 at, bsVec3 v)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeIcosphere(2, radius, 0.0, false, &tris, &n) == bs_ok);
	bsRigidBodyDef def = bsDefaultRigidBodyDef();
	def.density = density, def.pose.translation = at, def.velocity = v;
	bsResult r = bsRigidBody_Create(body, tris, n, &def);
	free(tris);
	ENSURE(r == bs_ok);
	return 0;
}

static bsRigidStepDef NoGravity(double restitution)
{
	bsRigidStepDef d = bsDefaultRigidStepDef();
	d.gravity = bsV3(0.0, 0.0, 0.0);
	d.restitution = restitution;
	d.friction = 0.0;
	d.restThreshold = 0.0;
	d.sleepDelay = 0.0;
	return d;
}

// Two equal balls head on, e = 1 and e = 0.5: the 1D closed form v1' = ((1-e) v1 + (1+e) v2) / 2.
static int HeadOn(void)
{
	double es[2] = {1.0, 0.5};
	for (int k = 0; k < 2; ++k)
	{
		double e = es[k];
		bsRigidBody a, b;
		RUN_SUBTEST(MakeBall(&a, 0.5, 1000.0, bsV3(-0.5, 0, 0), bsV3(3.0, 0, 0)));
		RUN_SUBTEST(MakeBall(&b, 0.5, 1000.0, bsV3(0.5, 0, 0), bsV3(-1.0, 0, 0)));
		bsRigidContact c = {bsV3(0, 0, 0), bsV3(-1, 0, 0), 0.0, 0, 1, 0, 0.0};
		bsRigidBody pair[2] = {a, b};
		bsRigidStepDef d = NoGravity(e);
		ENSURE(bsRigid_Step(pair, 2, &c, 1, &d, 1e-3, NULL, NULL) == bs_ok);
		ENSURE_SMALL(pair[0].velocity.x - ((1 - e) * 3.0 + (1 + e) * -1.0) / 2, 1e-12);
		ENSURE_SMALL(pair[1].velocity.x - ((1 - e) * -1.0 + (1 + e) * 3.0) / 2, 1e-12);
		ENSURE_SMALL(bsLength(pair[0].angularVelocity) + bsLength(pair[1].angularVelocity), 1e-12);
		bsRigidBody_Destroy(&a);
		bsRigidBody_Destroy(&b);
	}
	return 0;
}

static void Inverse3(const double a[3][3], double inv[3][3])
{
	double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
		a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
			inv[i][j] = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / det;
		}
	}
}

static bsVec3 MatVec(const double m[3][3], bsVec3 v)
{
	return bsV3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
		m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

// The textbook impulse (Hecker; Baraff) with each body's world inverse inertia tensor, written here
// without the principal frame: j = -(1 + e) v_rel.n / (1/m1 + 1/m2 + n.((I1^-1 (r1 x n)) x r1) + ...).
typedef struct Reference
{
	bsVec3 v[2], w[2];
} Reference;

static Reference ReferenceImpulse(const bsRigidBody* body, bsVec3 p, bsVec3 n, double e)
{
	double inv[2][3][3];
	bsVec3 r[2], vp[2];
	double k = 0.0;
	for (int i = 0; i < 2; ++i)
	{
		double I[3][3];
		RotateDiagonal(body[i].orientation, body[i].mass.principal, I);
		Inverse3(I, inv[i]);
		r[i] = bsSub(p, body[i].position);
		vp[i] = bsAdd(body[i].velocity, bsCross(body[i].angularVelocity, r[i]));
		k += 1.0 / body[i].mass.mass + bsDot(n, bsCross(MatVec(inv[i], bsCross(r[i], n)), r[i]));
	}
	double j = -(1.0 + e) * bsDot(bsSub(vp[0], vp[1]), n) / k;
	Reference out;
	for (int i = 0; i < 2; ++i)
	{
		bsVec3 J = bsScale(i == 0 ? j : -j, n);
		out.v[i] = bsMulAdd(body[i].velocity, 1.0 / body[i].mass.mass, J);
		out.w[i] = bsAdd(body[i].angularVelocity, MatVec(inv[i], bsCross(r[i], J)));
	}
	return out;
}

// Random off-centre hits of two spinning boxes of unequal masses: the paper's response (literal,
// and through the solver with the one contact) equals the reference; momentum and angular momentum
// are conserved; energy too at e = 1, and at e < 1 the loss is (1 - e^2) mu v_n^2 / 2; the normal
// relative speed after is -e times before.
static int OffCentre(void)
{
	bsRng rng = bsMakeRng(2026);
	for (int trial = 0; trial < 2000; ++trial)
	{
		double e = trial % 3 == 0 ? 1.0 : bsRng_Uniform(&rng);
		bsRigidBody body[2];
		for (int i = 0; i < 2; ++i)
		{
			bsVec3 s = bsV3(bsRng_Range(&rng, 0.2, 2.0), bsRng_Range(&rng, 0.2, 2.0), bsRng_Range(&rng, 0.2, 2.0));
			bsTransform pose = {RandomRotation(&rng), bsScale(bsRng_Range(&rng, 0.0, 3.0), bsRng_UnitVector(&rng))};
			RUN_SUBTEST(MakeBox(body + i, s, bsRng_Range(&rng, 100.0, 5000.0), pose,
				bsScale(bsRng_Range(&rng, 0.0, 5.0), bsRng_UnitVector(&rng)),
				bsScale(bsRng_Range(&rng, 0.0, 10.0), bsRng_UnitVector(&rng))));
		}
		bsVec3 p = bsScale(bsRng_Range(&rng, 0.0, 3.0), bsRng_UnitVector(&rng));
		bsVec3 n = bsRng_UnitVector(&rng);
		double vn = bsDot(bsSub(bsRigidBody_PointVelocity(body, p), bsRigidBody_PointVelocity(body + 1, p)), n);
		if (vn >= 0.0)
		{
			n = bsNeg(n), vn = -vn;  // make it approach
		}
		Reference ref = ReferenceImpulse(body, p, n, e);
		bsVec3 P0 = bsAdd(bsRigidBody_Momentum(body), bsRigidBody_Momentum(body + 1));
		bsVec3 L0 = bsAdd(bsRigidBody_AngularMomentum(body), bsRigidBody_AngularMomentum(body + 1));
		double E0 = bsRigidBody_KineticEnergy(body) + bsRigidBody_KineticEnergy(body + 1);
		double mu = 1.0 / (1.0 / bsRigidBody_EffectiveMass(body, p, n) + 1.0 / bsRigidBody_EffectiveMass(body + 1, p, n));
		bsRigidBody solved[2] = {body[0], body[1]};
		bsRigid_SeninResponse(body, body + 1, p, n, e);
		bsRigidContact c = {p, n, 0.0, 0, 1, 0, 0.0};
		bsRigidStepDef d = NoGravity(e);
		d.positionFactor = 0.0;
		// A tiny dt: the step's position update must not move the bodies before we compare.
		bsRigidBody stepped[2] = {solved[0], solved[1]};
		ENSURE(bsRigid_Step(stepped, 2, &c, 1, &d, 1e-300, NULL, NULL) == bs_ok);
		double vs = 1.0 + bsLength(body[0].velocity) + bsLength(body[1].velocity);
		double ws = 1.0 + bsLength(body[0].angularVelocity) + bsLength(body[1].angularVelocity);
		for (int i = 0; i < 2; ++i)
		{
			ENSURE_SMALL(bsDistance(body[i].velocity, ref.v[i]), 1e-11 * vs);
			ENSURE_SMALL(bsDistance(body[i].angularVelocity, ref.w[i]), 1e-10 * ws);
			ENSURE_SMALL(bsDistance(stepped[i].velocity, ref.v[i]), 1e-11 * vs);
			ENSURE_SMALL(bsDistance(stepped[i].angularVelocity, ref.w[i]), 1e-10 * ws);
		}
		bsVec3 P1 = bsAdd(bsRigidBody_Momentum(body), bsRigidBody_Momentum(body + 1));
		bsVec3 L1 = bsAdd(bsRigidBody_AngularMomentum(body), bsRigidBody_AngularMomentum(body + 1));
		double E1 = bsRigidBody_KineticEnergy(body) + bsRigidBody_KineticEnergy(body + 1);
		double ps = bsLength(bsRigidBody_Momentum(body)) + bsLength(bsRigidBody_Momentum(body + 1)) + 1.0;
		ENSURE_SMALL(bsDistance(P0, P1), 1e-12 * ps);
		ENSURE_SMALL(bsDistance(L0, L1), 1e-11 * (bsLength(L0) + ps * 3.0 + 1.0));
		ENSURE_SMALL(E0 - E1 - 0.5 * (1.0 - e * e) * mu * vn * vn, 1e-11 * E0);
		double after = bsDot(bsSub(bsRigidBody_PointVelocity(body, p), bsRigidBody_PointVelocity(body + 1, p)), n);
		ENSURE_SMALL(after + e * vn, 1e-10 * vs);
		bsRigidBody_Destroy(body);
		bsRigidBody_Destroy(body + 1);
	}
	return 0;
}

// A spinning box hits the static environment (infinite mass): e = 1 keeps the energy, the contact
// point's normal speed reverses, and the answer is the reference's with an infinitely heavy partner.
static int StaticHit(void)
{
	bsRng rng = bsMakeRng(99);
	for (int trial = 0; trial < 200; ++trial)
	{
		bsRigidBody body;
		bsTransform pose = {RandomRotation(&rng), bsV3(0, 1, 0)};
		RUN_SUBTEST(MakeBox(&body, bsV3(0.3, 0.7, 1.1), 800.0, pose, bsV3(0.5, -2.0, 0.1),
			bsScale(5.0, bsRng_UnitVector(&rng))));
		bsVec3 p = bsAdd(body.position, bsScale(0.3, bsRng_UnitVector(&rng)));
		bsVec3 n = bsV3(0, 1, 0);
		if (bsDot(bsRigidBody_PointVelocity(&body, p), n) >= 0.0)
		{
			bsRigidBody_Destroy(&body);
			continue;
		}
		double before = bsDot(bsRigidBody_PointVelocity(&body, p), n);
		double E0 = bsRigidBody_KineticEnergy(&body);
		bsRigid_SeninResponse(&body, NULL, p, n, 1.0);
		ENSURE_SMALL(RelErr(bsRigidBody_KineticEnergy(&body), E0), 1e-12);
		ENSURE_SMALL(bsDot(bsRigidBody_PointVelocity(&body, p), n) + before, 1e-11);
		bsRigidBody_Destroy(&body);
	}
	return 0;
}

// A free body of three different moments spinning about a non-principal axis: the world angular
// momentum stays (the integrator keeps it by construction, to rounding) and the energy drifts little.
static int FreeSpin(void)
{
	bsRigidBody body;
	bsTransform pose = {bsQuat_FromAxisAngle(bsV3(1, 2, 3), 0.7), bsV3(0, 0, 0)};
	RUN_SUBTEST(MakeBox(&body, bsV3(0.2, 0.5, 1.0), 1000.0, pose, bsV3(1, 0, 0), bsV3(0.3, 4.0, 0.5)));
	bsVec3 L0 = bsRigidBody_AngularMomentum(&body);
	double E0 = bsRigidBody_KineticEnergy(&body);
	bsRigidStepDef d = NoGravity(1.0);
	double maxDrift = 0.0;
	for (int i = 0; i < 2000; ++i)
	{
		ENSURE(bsRigid_Step(&body, 1, NULL, 0, &d, 1e-3, NULL, NULL) == bs_ok);
		maxDrift = fmax(maxDrift, RelErr(bsRigidBody_KineticEnergy(&body), E0));
	}
	printf("  free spin: angular momentum drift %.3g of %.3g\n", bsDistance(bsRigidBody_AngularMomentum(&body), L0), bsLength(L0));
	ENSURE_SMALL(bsDistance(bsRigidBody_AngularMomentum(&body), L0), 1e-11 * bsLength(L0));  // rounding
	ENSURE_SMALL(bsDistance(body.position, bsV3(2.0, 0, 0)), 1e-12);
	printf("  free spin: energy drift %.3g over 2000 steps of 1 ms\n", maxDrift);
	ENSURE_SMALL(maxDrift, 0.01);
	bsRigidBody_Destroy(&body);
	return 0;
}

// The floor: the plane y = 0, or a static box mesh whose top face is y = 0.
typedef struct Floor
{
	bsPlane plane;
	bsTriangle* tris;  // NULL for the plane
	uint32_t count;
	bsBvh bvh;
} Floor;

typedef struct DropResult
{
	double minHeight;       // lowest vertex over the whole run
	double minRestHeight;   // lowest vertex over the last second
	double maxEnergy;       // kinetic energy over the last second
	double jitter;          // largest vertex motion over the last second
	double centreHeight;
	bool asleep;
	bsRigidBody final;
} DropResult;

static double LowestVertex(const bsRigidBody* b)
{
	double y = HUGE_VAL;
	for (uint32_t i = 0; i < b->vertexCount; ++i)
	{
		y = fmin(y, bsAdd(bsQuat_Rotate(b->orientation, b->vertices[i]), b->position).y);
	}
	return y;
}

// Drops a 0.2 x 0.1 x 0.3 m box (density 500) from 0.5 m, tilted and spinning, for 4 s at 240 Hz.
static int Drop(const Floor* floor, double sleepDelay, DropResult* out)
{
	bsRigidBody body;
	bsTransform pose = {bsQuat_FromAxisAngle(bsV3(1, 0.2, 1), 0.5), bsV3(0, 0.5, 0)};
	RUN_SUBTEST(MakeBox(&body, bsV3(0.2, 0.1, 0.3), 500.0, pose, bsV3(0.3, 0, 0), bsV3(0, 3, 2)));
	bsRigidStepDef d = bsDefaultRigidStepDef();
	d.sleepDelay = sleepDelay;
	double dt = 1.0 / 240.0;
	int steps = 960, restFrom = steps - 240;
	bsRigidContact contacts[64];
	out->minHeight = out->minRestHeight = HUGE_VAL;
	out->maxEnergy = out->jitter = 0.0;
	bsVec3 restCorner = bsV3(0, 0, 0);
	bsRigidContactCache cache = {0};
	for (int i = 0; i < steps; ++i)
	{
		int32_t n = 0;
		double margin = bsRigidBody_ContactMargin(&body, &d, dt);
		if (floor->tris == NULL)
		{
			ENSURE(bsRigidBody_CollidePlane(&body, 0, &floor->plane, margin, contacts, 64, &n));
		}
		else
		{
			ENSURE(bsRigidBody_CollideMesh(&body, 0, &floor->bvh, floor->tris, margin, contacts, 64, &n));
		}
		ENSURE(bsRigid_Step(&body, 1, contacts, n, &d, dt, &cache, NULL) == bs_ok);
		double low = LowestVertex(&body);
		out->minHeight = fmin(out->minHeight, low);
		bsVec3 corner = bsTransform_Apply(bsRigidBody_MeshTransform(&body), bsV3(0.1, 0.05, 0.15));
		if (i == restFrom)
		{
			restCorner = corner;
		}
		if (i >= restFrom)
		{
			out->minRestHeight = fmin(out->minRestHeight, low);
			out->maxEnergy = fmax(out->maxEnergy, bsRigidBody_KineticEnergy(&body));
			out->jitter = fmax(out->jitter, bsDistance(corner, restCorner));
		}
	}
	out->centreHeight = body.position.y;
	out->asleep = !body.awake;
	out->final = body;
	out->final.vertices = NULL;
	bsRigidBody_Destroy(&body);
	bsRigidContactCache_Destroy(&cache);
	return 0;
}

// The box comes to rest flat on one face: the centre at a half side, never more than 5 mm into the
// floor during the fall and 1.5 mm (slop + rounding) at rest, kinetic energy under 1e-6 J and every
// point still to 1e-6 m over the last second (240 steps) with sleep off; with sleep on it sleeps.
static int DropChecks(const Floor* floor, const char* name)
{
	DropResult r;
	RUN_SUBTEST(Drop(floor, 0.0, &r));
	printf("  drop on %s: deepest %.3g mm in the fall, %.3g mm at rest, energy %.3g J, jitter %.3g m, "
		"centre %.6f m\n", name, -1e3 * r.minHeight, -1e3 * r.minRestHeight, r.maxEnergy, r.jitter,
		r.centreHeight);
	ENSURE(r.minHeight > -0.005);
	ENSURE(r.minRestHeight > -0.0015);
	ENSURE(r.maxEnergy < 1e-6);
	ENSURE(r.jitter < 1e-6);
	double halves[3] = {0.05, 0.1, 0.15};
	double best = HUGE_VAL;
	for (int k = 0; k < 3; ++k)
	{
		best = fmin(best, fabs(r.centreHeight - halves[k]));
	}
	ENSURE(best < 0.0015);
	DropResult s;
	RUN_SUBTEST(Drop(floor, 0.5, &s));
	ENSURE(s.asleep);
	ENSURE(s.minRestHeight > -0.0015);
	ENSURE(s.jitter == 0.0);
	return 0;
}

// The mesh generator against the plane generator on the same floor (y = 0 as a plane, and as the top
// of a static box mesh through the BVH): random poses of a box touching, above and up to 3 cm into the
// floor give the same contacts (vertex order, points, normals, separations, keys aside).
static int MeshMatchesPlane(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-2, -1, -2), bsV3(2, 0, 2), 3, false, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsPlane plane = {bsV3(0, 1, 0), 0.0};
	bsRng rng = bsMakeRng(5);
	int penetrating = 0;
	for (int trial = 0; trial < 500; ++trial)
	{
		bsRigidBody body;
		bsTransform pose = {RandomRotation(&rng), bsV3(bsRng_Range(&rng, -1, 1), 0, bsRng_Range(&rng, -1, 1))};
		RUN_SUBTEST(MakeBox(&body, bsV3(0.2, 0.1, 0.3), 500.0, pose, bsV3(0, 0, 0), bsV3(0, 0, 0)));
		body.position.y += bsRng_Range(&rng, -0.03, 0.04) - LowestVertex(&body);
		bsRigidContact a[16], b[16];
		int32_t na = 0, nb = 0;
		ENSURE(bsRigidBody_CollidePlane(&body, 3, &plane, 0.05, a, 16, &na));
		ENSURE(bsRigidBody_CollideMesh(&body, 3, &bvh, tris, 0.05, b, 16, &nb));
		ENSURE(na == nb);
		for (int32_t i = 0; i < na; ++i)
		{
			ENSURE_SMALL(bsDistance(a[i].point, b[i].point), 1e-12);
			ENSURE_SMALL(bsDistance(a[i].normal, b[i].normal), 1e-12);
			ENSURE_SMALL(a[i].separation - b[i].separation, 1e-12);
			ENSURE(b[i].a == 3 && b[i].b == BS_RIGID_STATIC && b[i].key != 0);
			penetrating += b[i].separation < 0.0;
		}
		bsRigidBody_Destroy(&body);
	}
	ENSURE(penetrating > 100);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

static int DropOnFloor(void)
{
	Floor plane = {{bsV3(0, 1, 0), 0.0}, NULL, 0, {0}};
	RUN_SUBTEST(DropChecks(&plane, "plane"));
	Floor mesh = {{bsV3(0, 1, 0), 0.0}, NULL, 0, {0}};
	ENSURE(bsMakeBoxMesh(bsV3(-2, -1, -2), bsV3(2, 0, 2), 4, false, &mesh.tris, &mesh.count) == bs_ok);
	ENSURE(bsBvh_Build(&mesh.bvh, mesh.tris, mesh.count, NULL) == bs_ok);
	int rc = DropChecks(&mesh, "mesh");
	bsBvh_Destroy(&mesh.bvh);
	free(mesh.tris);
	return rc;
}

// A box started 5 mm into the floor is pushed out to within slop by the position correction alone:
// its velocity stays zero the whole time (a split impulse moves positions, adds no kinetic energy).
static int PushOut(void)
{
	bsRigidBody body;
	bsTransform pose = {bsQuat_Identity(), bsV3(0, 0.045, 0)};
	RUN_SUBTEST(MakeBox(&body, bsV3(0.2, 0.1, 0.3), 500.0, pose, bsV3(0, 0, 0), bsV3(0, 0, 0)));
	bsRigidStepDef d = bsDefaultRigidStepDef();
	d.sleepDelay = 0.0;
	bsPlane floor = {bsV3(0, 1, 0), 0.0};
	bsRigidContactCache cache = {0};
	bsRigidContact contacts[64];
	double maxSpeed = 0.0;
	for (int i = 0; i < 240; ++i)
	{
		int32_t n = 0;
		ENSURE(bsRigidBody_CollidePlane(&body, 0, &floor, 0.05, contacts, 64, &n));
		ENSURE(bsRigid_Step(&body, 1, contacts, n, &d, 1.0 / 240.0, &cache, NULL) == bs_ok);
		maxSpeed = fmax(maxSpeed, bsLength(body.velocity) + bsLength(body.angularVelocity));
	}
	printf("  push out: depth %.3g mm after 1 s, largest speed %.3g\n", -1e3 * LowestVertex(&body), maxSpeed);
	ENSURE(LowestVertex(&body) > -d.slop - 1e-6);
	ENSURE(LowestVertex(&body) < 0.0);
	ENSURE(maxSpeed < 1e-6);  // a velocity bias (Baumgarte) at the same rate would reach 0.19 m/s
	bsRigidBody_Destroy(&body);
	bsRigidContactCache_Destroy(&cache);
	return 0;
}

// Coulomb friction on an incline: a box laid flat on a plane at angle theta with friction mu stays
// put when tan theta < mu, and otherwise slides down with a = g (sin theta - mu cos theta): after n
// steps of symplectic Euler it has gone a dt^2 n (n + 1) / 2.
static int Incline(double degrees, double mu)
{
	double theta = degrees * BS_PI / 180.0;
	bsVec3 n = bsV3(-sin(theta), cos(theta), 0.0), down = bsV3(-cos(theta), -sin(theta), 0.0);
	bsRigidBody body;
	bsTransform pose = {bsQuat_FromAxisAngle(bsV3(0, 0, 1), theta), bsScale(0.05, n)};
	RUN_SUBTEST(MakeBox(&body, bsV3(0.3, 0.1, 0.3), 500.0, pose, bsV3(0, 0, 0), bsV3(0, 0, 0)));
	bsRigidStepDef d = bsDefaultRigidStepDef();
	d.friction = mu;
	d.sleepDelay = 0.0;
	bsPlane plane;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), n, &plane) == bs_ok);
	bsRigidContactCache cache = {0};
	bsRigidContact contacts[64];
	bsVec3 start = body.position;
	double dt = 1.0 / 240.0;
	int steps = 240;
	for (int i = 0; i < steps; ++i)
	{
		int32_t k = 0;
		ENSURE(bsRigidBody_CollidePlane(&body, 0, &plane, 0.05, contacts, 64, &k));
		ENSURE(bsRigid_Step(&body, 1, contacts, k, &d, dt, &cache, NULL) == bs_ok);
	}
	double a = fmax(0.0, 9.81 * (sin(theta) - mu * cos(theta)));
	double expect = a * dt * dt * steps * (steps + 1) / 2.0;
	double moved = bsDot(bsSub(body.position, start), down);
	printf("  incline %.0f deg, mu %.1f: slid %.6f m, closed form %.6f m\n", degrees, mu, moved, expect);
	ENSURE_SMALL(moved - expect, 1e-4 * expect + 1e-6);
	ENSURE_SMALL(bsDot(bsSub(body.position, start), n), 1e-3);  // stays on the plane
	bsRigidBody_Destroy(&body);
	bsRigidContactCache_Destroy(&cache);
	return 0;
}

// The same inputs give the same bits.
static int Determinism(void)
{
	Floor plane = {{bsV3(0, 1, 0), 0.0}, NULL, 0, {0}};
	DropResult a, b;
	RUN_SUBTEST(Drop(&plane, 0.0, &a));
	RUN_SUBTEST(Drop(&plane, 0.0, &b));
	ENSURE(memcmp(&a.final.position, &b.final.position, sizeof(bsVec3)) == 0);
	ENSURE(memcmp(&a.final.orientation, &b.final.orientation, sizeof(bsQuat)) == 0);
	ENSURE(memcmp(&a.final.velocity, &b.final.velocity, sizeof(bsVec3)) == 0);
	ENSURE(memcmp(&a.final.angularVelocity, &b.final.angularVelocity, sizeof(bsVec3)) == 0);
	return 0;
}

// A ball dropped from h = 1 m on the plane rebounds to e^2 h. The bounce is applied when the gap
// would close within the substep (at a gap s <= |v| dt), so the apex is s + e^2 (h - s): off by at
// most |v| dt (1 - e^2), plus the integrator's O(g dt) per bounce.
static int Bounce(void)
{
	double es[3] = {1.0, 0.8, 0.5};
	for (int k = 0; k < 3; ++k)
	{
		bsRigidBody ball;
		RUN_SUBTEST(MakeBall(&ball, 0.1, 1000.0, bsV3(0, 0, 0), bsV3(0, 0, 0)));
		ball.position.y += 1.0 - LowestVertex(&ball);  // lowest vertex at h = 1
		bsRigidStepDef d = bsDefaultRigidStepDef();
		d.restitution = es[k];
		d.friction = 0.0;
		d.sleepDelay = 0.0;
		double dt = 1.0 / 240.0;
		bsPlane floor = {bsV3(0, 1, 0), 0.0};
		bsRigidContactCache cache = {0};
		bsRigidContact contacts[64];
		double apex = 0.0;
		bool bounced = false;
		for (int i = 0; i < 480; ++i)
		{
			int32_t n = 0;
			ENSURE(bsRigidBody_CollidePlane(&ball, 0, &floor, bsRigidBody_ContactMargin(&ball, &d, dt), contacts,
				64, &n));
			bsRigidStepStats st;
			ENSURE(bsRigid_Step(&ball, 1, contacts, n, &d, dt, &cache, &st) == bs_ok);
			bounced = bounced || st.bounces > 0;
			if (bounced)
			{
				apex = fmax(apex, LowestVertex(&ball));
				if (ball.velocity.y < 0.0)
				{
					break;  // past the first apex
				}
			}
		}
		double v = sqrt(2.0 * 9.81), e2 = es[k] * es[k];
		printf("  bounce e = %.1f: apex %.5f m, e^2 h = %.5f m\n", es[k], apex, e2);
		ENSURE(bounced);
		ENSURE_SMALL(apex - e2, v * dt * (1.0 - e2) + 1e-3);
		bsRigidBody_Destroy(&ball);
		bsRigidContactCache_Destroy(&cache);
	}
	return 0;
}

// Contacts of box `top`'s vertices with the top face of box `low` (sides s), as a body-body query
// would report them: normal the low box's up axis, separation the height above that face.
static void StackContacts(const bsRigidBody* body, int32_t top, int32_t low, bsVec3 s,
	bsRigidContact* out, int32_t* n)
{
	bsTransform lowPose = bsRigidBody_MeshTransform(body + low);
	bsVec3 up = bsQuat_Rotate(lowPose.rotation, bsV3(0, 1, 0));
	for (uint32_t i = 0; i < body[top].vertexCount; ++i)
	{
		bsVec3 x = bsAdd(bsQuat_Rotate(body[top].orientation, body[top].vertices[i]), body[top].position);
		bsVec3 local = bsTransform_ApplyInverse(lowPose, x);
		double sep = local.y - 0.5 * s.y;
		if (fabs(local.x) <= 0.5 * s.x && fabs(local.z) <= 0.5 * s.z && sep < 0.05)
		{
			bsRigidContact c = {bsMulSub(x, 0.5 * sep, up), up, sep, top, low, i + 1, 0.0};
			out[(*n)++] = c;
		}
	}
}

// A box dropped on a box on the floor (two dynamic bodies, the body-body contacts through the same
// solver): both come to rest stacked, the upper one 0.1 m over the lower one's top, without sinking
// or jitter; with sleep on, both fall asleep (and stay asleep); a sleeping body hit by an awake one
// wakes.
static int Stack(double sleepDelay)
{
	bsVec3 s = bsV3(0.3, 0.1, 0.3), small = bsV3(0.15, 0.1, 0.15);  // the small one's corners stay over
	bsRigidBody body[2];
	bsTransform p0 = {bsQuat_Identity(), bsV3(0, 0.06, 0)};
	bsTransform p1 = {bsQuat_FromAxisAngle(bsV3(0, 1, 0), 0.3), bsV3(0.03, 0.3, 0.02)};
	RUN_SUBTEST(MakeBox(body, s, 800.0, p0, bsV3(0, 0, 0), bsV3(0, 0, 0)));
	RUN_SUBTEST(MakeBox(body + 1, small, 300.0, p1, bsV3(0, 0, 0), bsV3(0, 0, 0)));
	bsRigidStepDef d = bsDefaultRigidStepDef();
	d.sleepDelay = sleepDelay;
	bsPlane floor = {bsV3(0, 1, 0), 0.0};
	bsRigidContactCache cache = {0};
	bsRigidContact contacts[64];
	double minGap = HUGE_VAL, jitter = 0.0;
	int asleepFrom = -1;
	bsVec3 rest = bsV3(0, 0, 0);
	for (int i = 0; i < 720; ++i)
	{
		int32_t n = 0;
		ENSURE(bsRigidBody_CollidePlane(body, 0, &floor, 0.05, contacts, 64, &n));
		ENSURE(bsRigidBody_CollidePlane(body + 1, 1, &floor, 0.05, contacts, 64, &n));
		StackContacts(body, 1, 0, s, contacts, &n);
		ENSURE(bsRigid_Step(body, 2, contacts, n, &d, 1.0 / 240.0, &cache, NULL) == bs_ok);
		minGap = fmin(minGap, LowestVertex(body + 1) - (body[0].position.y + 0.05));
		bool asleep = !body[0].awake && !body[1].awake;
		asleepFrom = !asleep ? -1 : asleepFrom < 0 ? i : asleepFrom;
		if (i == 480)
		{
			rest = body[1].position;
		}
		if (i > 480)
		{
			jitter = fmax(jitter, bsDistance(body[1].position, rest));
		}
	}
	printf("  stack (sleep %.1f s): deepest %.3g mm, upper centre %.6f m, lower %.6f m, jitter %.3g m, "
		"both asleep from step %d\n", sleepDelay, -1e3 * minGap, body[1].position.y, body[0].position.y,
		jitter, asleepFrom);
	ENSURE(sleepDelay == 0.0 ? asleepFrom < 0 : (asleepFrom >= 0 && asleepFrom < 480));
	ENSURE(minGap > -0.0015);
	ENSURE_SMALL(body[0].position.y - 0.05, 0.0015);
	ENSURE_SMALL(body[1].position.y - 0.15, 0.003);
	ENSURE(jitter < 1e-6);
	ENSURE(bsRigidBody_KineticEnergy(body) + bsRigidBody_KineticEnergy(body + 1) < 1e-9);
	// Wake: the lower body asleep; the upper one, slow (sleepTime > 0), does not wake it; pushed
	// into it (moving: sleepTime 0), it does.
	body[0].awake = false;
	body[1].awake = true;
	body[1].sleepTime = 0.1;
	int32_t n = 0;
	StackContacts(body, 1, 0, s, contacts, &n);
	ENSURE(n == 4);
	ENSURE(bsRigid_Step(body, 2, contacts, n, &d, 1.0 / 240.0, NULL, NULL) == bs_ok);
	ENSURE(!body[0].awake);
	body[1].velocity = bsV3(0, -1, 0);
	body[1].sleepTime = 0.0;
	ENSURE(bsRigid_Step(body, 2, contacts, n, &d, 1.0 / 240.0, NULL, NULL) == bs_ok);
	ENSURE(body[0].awake);
	ENSURE(body[0].velocity.y < 0.0);
	bsRigidBody_Destroy(body);
	bsRigidBody_Destroy(body + 1);
	bsRigidContactCache_Destroy(&cache);
	return 0;
}

static int BadInput(void)
{
	bsRigidBody body;
	RUN_SUBTEST(MakeBall(&body, 0.5, 1000.0, bsV3(0, 0, 0), bsV3(0, 0, 0)));
	bsRigidStepDef d = bsDefaultRigidStepDef();
	bsRigidContact c = {bsV3(0, 0, 0), bsV3(0, 1, 0), 0.0, 0, BS_RIGID_STATIC, 0, 0.0};
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.01, NULL, NULL) == bs_ok);
	c.a = BS_RIGID_STATIC;
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.01, NULL, NULL) == bs_errInvalidArgument);
	c.a = 1;
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.01, NULL, NULL) == bs_errInvalidArgument);
	c.a = 0, c.normal = bsV3(0, 2, 0);
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.01, NULL, NULL) == bs_errInvalidArgument);
	c.normal = bsV3(0, 1, 0);
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.0, NULL, NULL) == bs_errInvalidArgument);
	d.restitution = 1.5;
	ENSURE(bsRigid_Step(&body, 1, &c, 1, &d, 0.01, NULL, NULL) == bs_errInvalidArgument);
	bsRigidBody_Destroy(&body);
	bsRigidBody_Destroy(&body);  // a destroyed body is zeroed: destroying it again is harmless
	return 0;
}

// The pair's manifold (bsRigidBody_CollideBody): a unit box resting on another exactly (corners on
// the other's edges), the pair placed anywhere (a random turn and shift), overlapping by 0.5 mm or
// 1 mm apart. The closest point given on the lower box is on its side face just under the top, as
// the exact query found it for a box sunk into another. Every one of the upper box's 4 lower corners
// is a contact with the lower box's top normal and its height over the top: the vertex test alone
// gave 0 (the corner is on the side face) and a horizontal normal there.
static int ManifoldOfStackedBoxes(void)
{
	bsTriangle* tris;
	uint32_t n;
	ENSURE(bsMakeBoxMesh(bsV3(-0.5, -0.5, -0.5), bsV3(0.5, 0.5, 0.5), 1, false, &tris, &n) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, n, NULL) == bs_ok);
	bsRng rng = bsMakeRng(3);
	for (int trial = 0; trial < 20; ++trial)
	{
		bsTransform place = {bsQuat_FromAxisAngle(bsRng_UnitVector(&rng), 3.0 * bsRng_Uniform(&rng)),
			bsScale(10.0 * bsRng_Uniform(&rng), bsRng_UnitVector(&rng))};
		double gap = trial % 2 == 0 ? -0.0005 : 0.001;
		bsTransform upper = bsTransform_Mul(place, (bsTransform){bsQuat_Identity(), bsV3(0.0, 1.0 + gap, 0.0)});
		bsRigidBody body;
		RUN_SUBTEST(MakeBox(&body, bsV3(1, 1, 1), 500.0, upper, bsV3(0, 0, 0), bsV3(0, 0, 0)));
		bsVec3 point = bsTransform_Apply(place, bsV3(0.5, 0.5 + fmin(gap, 0.0), 0.2));
		bsRigidContact contacts[16];
		int32_t count = 0;
		ENSURE(bsRigidBody_CollideBody(&body, 0, &bvh, tris, place, 1, point, fmax(gap, 0.0), 0.003, contacts, 16,
			&count));
		ENSURE(count == 4);
		bsVec3 up = bsQuat_Rotate(place.rotation, bsV3(0, 1, 0));
		for (int32_t k = 0; k < count; ++k)
		{
			ENSURE(contacts[k].a == 0 && contacts[k].b == 1 && contacts[k].key != 0);
			ENSURE(bsDistance(contacts[k].normal, up) < 1e-12);
			ENSURE_SMALL(contacts[k].separation - gap, 1e-9);
		}
		bsRigidBody_Destroy(&body);
	}
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

int RigidTest(void)
{
	RUN_SUBTEST(MassBox());
	RUN_SUBTEST(MassTetrahedron());
	RUN_SUBTEST(MassSphere());
	RUN_SUBTEST(MassTransformed());
	RUN_SUBTEST(Jacobi());
	RUN_SUBTEST(EulerXYZ());
	RUN_SUBTEST(HeadOn());
	RUN_SUBTEST(OffCentre());
	RUN_SUBTEST(StaticHit());
	RUN_SUBTEST(FreeSpin());
	RUN_SUBTEST(MeshMatchesPlane());
	RUN_SUBTEST(DropOnFloor());
	RUN_SUBTEST(Bounce());
	RUN_SUBTEST(PushOut());
	RUN_SUBTEST(Incline(20.0, 0.5));
	RUN_SUBTEST(Incline(35.0, 0.5));
	RUN_SUBTEST(Incline(30.0, 0.0));
	RUN_SUBTEST(Stack(0.0));
	RUN_SUBTEST(Stack(0.5));
	RUN_SUBTEST(ManifoldOfStackedBoxes());
	RUN_SUBTEST(Determinism());
	RUN_SUBTEST(BadInput());
	return 0;
}
