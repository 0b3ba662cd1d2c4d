// test_body.c — moving bodies (body.h, csrbf.h, the body collider): keyframes against closed forms,
// the CSRBF at its control points and its smoothness, refit against the list loop, a particle meeting
// a translating plate against the relative-motion answer computed here, a rotating paddle at the
// documented substep bound, particles riding a body, a growing body, and determinism.
#include "csrbf.h"
#include "procedural.h"
#include "blobsim/body.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "test.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>


// --- keyframes ---

static bsBody* MakeBody(const bsTriangle* tris, uint32_t count, const bsKeyframes* keys)
{
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.keys = *keys;
	bsBody* body = NULL;
	return bsBody_Create(&def, &body) == bs_ok ? body : NULL;
}

static int Keyframes(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -1), bsV3(1, 1, 1), 1, false, &tris, &count) == bs_ok);
	// Translation 0 -> (2, 4, -6) over [1, 3]; rotation about z from 0.3 to 1.9 rad over [0, 2]; scale
	// 1 -> 3 over [0, 4].
	bsVec3Key translate[] = {{1.0, {0, 0, 0}}, {3.0, {2, 4, -6}}};
	bsQuatKey rotate[] = {{0.0, bsQuat_FromAxisAngle(bsV3(0, 0, 1), 0.3)}, {2.0, bsQuat_FromAxisAngle(bsV3(0, 0, 1), 1.9)}};
	bsVec3Key scale[] = {{0.0, {1, 1, 1}}, {4.0, {3, 3, 3}}};
	bsKeyframes keys = {translate, 2, rotate, 2, scale, 2, false};
	bsBody* body = MakeBody(tris, count, &keys);
	ENSURE(body != NULL);
	ENSURE(!bsBody_RigidShape(body));
	ENSURE_SMALL(bsBody_MaxAngularSpeed(body) - 0.8, 1e-12);
	bsRng rng = bsMakeRng(5);
	for (int k = 0; k < 1000; ++k)
	{
		double t = bsRng_Range(&rng, -1.0, 5.0);
		bsTransform pose;
		bsVec3 s;
		bsBody_Pose(body, t, &pose, &s);
		double ut = fmin(fmax((t - 1.0) / 2.0, 0.0), 1.0);
		double angle = 0.3 + 1.6 * fmin(fmax(t / 2.0, 0.0), 1.0);
		double sc = 1.0 + 2.0 * fmin(fmax(t / 4.0, 0.0), 1.0);
		ENSURE_SMALL(bsDistance(pose.translation, bsV3(2 * ut, 4 * ut, -6 * ut)), 1e-12);
		bsVec3 x = bsQuat_Rotate(pose.rotation, bsV3(1, 0, 0.5));
		ENSURE_SMALL(bsDistance(x, bsV3(cos(angle), sin(angle), 0.5)), 1e-12);
		ENSURE_SMALL(bsDistance(s, bsV3(sc, sc, sc)), 1e-12);
	}
	bsBody_Destroy(body);

	// Looping: each track repeats its span.
	bsKeyframes looped = {translate, 2, rotate, 2, NULL, 0, true};
	body = MakeBody(tris, count, &looped);
	ENSURE(body != NULL && bsBody_RigidShape(body));
	for (int k = 0; k < 200; ++k)
	{
		double t = bsRng_Range(&rng, 3.0, 20.0);
		bsTransform pose, first;
		bsVec3 s;
		bsBody_Pose(body, t, &pose, &s);
		double ut = fmod(t - 1.0, 2.0) / 2.0;
		ENSURE_SMALL(bsDistance(pose.translation, bsV3(2 * ut, 4 * ut, -6 * ut)), 1e-9);
		bsBody_Pose(body, fmod(t, 2.0), &first, &s);
		ENSURE_SMALL(fabs(bsQuat_Dot(pose.rotation, first.rotation)) - 1.0, 1e-9);
	}
	bsBody_Destroy(body);

	// Bad keys.
	bsVec3Key backwards[] = {{1.0, {0, 0, 0}}, {1.0, {1, 0, 0}}};
	bsKeyframes bad = {backwards, 2, NULL, 0, NULL, 0, false};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.keys = bad;
	bsBody* none = NULL;
	ENSURE(bsBody_Create(&def, &none) == bs_errInvalidArgument && none == NULL);
	bsVec3Key flat[] = {{0.0, {1, 0, 1}}};
	bsKeyframes zero = {NULL, 0, NULL, 0, flat, 1, false};
	def.keys = zero;
	ENSURE(bsBody_Create(&def, &none) == bs_errInvalidArgument);
	free(tris);
	return 0;
}

// --- CSRBF ---

// phi(r) = (1 - r)^4 (4 r + 1) expanded: 1 - 10 r^2 + 20 r^3 - 15 r^4 + 4 r^5 on [0, 1].
static double WendlandPolynomial(double r)
{
	return r >= 1.0 ? 0.0 : 1.0 - 10.0 * r * r + 20.0 * r * r * r - 15.0 * pow(r, 4) + 4.0 * pow(r, 5);
}

// The largest change between neighbouring second differences of f along a line, at spacing h.
static double SecondDifferenceJump(const bsCsrbf* rbf, const bsVec3* w, bsVec3 from, bsVec3 dir, double h,
	bool c1Only)
{
	double jump = 0.0, last = 0.0;
	int n = (int)(2.0 / h);
	for (int k = 0; k < n; ++k)
	{
		double f[3];
		for (int j = 0; j < 3; ++j)
		{
			bsVec3 x = bsMulAdd(from, (k + j) * h, dir);
			// A C¹-only comparison field: (1 - r)²_+ around the first centre, which the check must flag.
			double r = bsDistance(x, rbf->centers[0]) / rbf->support;
			f[j] = c1Only ? (r < 1.0 ? (1.0 - r) * (1.0 - r) : 0.0) : bsCsrbf_Eval(rbf, w, x).y;
		}
		double d2 = (f[0] - 2.0 * f[1] + f[2]) / (h * h);
		jump = k > 0 ? fmax(jump, fabs(d2 - last)) : jump;
		last = d2;
	}
	return jump;
}

static int Csrbf(void)
{
	for (double r = 0.0; r <= 1.2; r += 0.01)
	{
		ENSURE_SMALL(bsWendland(r) - WendlandPolynomial(r), 1e-14);
	}
	bsRng rng = bsMakeRng(9);
	for (int trial = 0; trial < 20; ++trial)
	{
		bsVec3 centers[12], values[12], weights[12];
		int n = 1 + (int)bsRng_Below(&rng, 12);
		for (int j = 0; j < n; ++j)
		{
			centers[j] = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1));
			values[j] = bsV3(bsRng_Range(&rng, -0.2, 0.2), bsRng_Range(&rng, -0.2, 0.2), bsRng_Range(&rng, -0.2, 0.2));
		}
		bsCsrbf rbf;
		bsResult r = bsCsrbf_Init(&rbf, centers, n, 0.8);
		if (r == bs_errInvalidArgument)
		{
			continue;  // two random centres nearly coincide
		}
		ENSURE(r == bs_ok);
		bsCsrbf_Solve(&rbf, values, weights);
		for (int j = 0; j < n; ++j)
		{
			ENSURE_SMALL(bsDistance(bsCsrbf_Eval(&rbf, weights, centers[j]), values[j]), 1e-9);
		}
		// One centre: the field is its value times phi(r) (phi(0) = 1).
		if (n == 1)
		{
			bsVec3 x = bsV3(0.3, -0.2, 0.1);
			double phi = bsWendland(bsDistance(x, centers[0]) / 0.8);
			ENSURE_SMALL(bsDistance(bsCsrbf_Eval(&rbf, weights, x), bsScale(phi, values[0])), 1e-14);
		}
		// C²: on lines through the supports (their edges and the centres), the second difference
		// changes between neighbours by O(h), so halving h halves the largest change; a C¹ field's
		// jumps at the edge of its support stay O(1).
		bsVec3 dir = bsNormalize(bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1)));
		bsVec3 from = bsMulSub(centers[0], 1.0, dir);
		double a = SecondDifferenceJump(&rbf, weights, from, dir, 2e-3, false);
		double b = SecondDifferenceJump(&rbf, weights, from, dir, 1e-3, false);
		ENSURE(b <= 0.6 * a + 1e-6);
		double c1a = SecondDifferenceJump(&rbf, weights, from, dir, 2e-3, true);
		double c1b = SecondDifferenceJump(&rbf, weights, from, dir, 1e-3, true);
		ENSURE(c1b > 0.8 * c1a);
		bsCsrbf_Free(&rbf);
	}
	bsVec3 same[2] = {{0, 0, 0}, {0, 0, 0}};
	bsCsrbf rbf;
	ENSURE(bsCsrbf_Init(&rbf, same, 2, 1.0) == bs_errInvalidArgument);
	return 0;
}

// A deforming body's displacement at its control points, through the body: exactly the keyed values,
// linear between keys.
static int DeformKeys(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -1, -1), bsV3(1, 1, 1), 2, false, &tris, &count) == bs_ok);
	bsVec3 controls[3] = {{1, 1, 1}, {-1, 0, 0}, {0, 1, -1}};
	double times[2] = {0.0, 2.0};
	bsVec3 disp[6] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0.2, 0.1, 0}, {0, -0.3, 0}, {0.1, 0.1, 0.1}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bs_motionDeforming;
	bsDeformDef deform = {controls, 3, 1.5, times, disp, 2};
	def.deform = deform;
	bsBody* body;
	ENSURE(bsBody_Create(&def, &body) == bs_ok);
	ENSURE(bsBody_DeformWeightCount(body) == 3 && !bsBody_RigidShape(body));
	bsVec3 w[3];
	for (double t = -1.0; t <= 3.0; t += 0.25)
	{
		bsBody_DeformWeights(body, t, w);
		double u = fmin(fmax(t / 2.0, 0.0), 1.0);
		for (int j = 0; j < 3; ++j)
		{
			bsVec3 x = bsBody_ShapePoint(body, w, bsV3(1, 1, 1), controls[j]);
			ENSURE_SMALL(bsDistance(x, bsAdd(controls[j], bsScale(u, disp[3 + j]))), 1e-12);
		}
	}
	bsBody_Destroy(body);
	free(tris);
	return 0;
}

// --- refit ---

static int Refit(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, tris, count, NULL) == bs_ok);
	bsRng rng = bsMakeRng(3);
	for (int round = 0; round < 4; ++round)
	{
		// A wobble of the sphere: every vertex moved by a smooth field of its position.
		double a = 0.3 * (round + 1);
		for (uint32_t i = 0; i < count; ++i)
		{
			bsVec3* p[3] = {&tris[i].p1, &tris[i].p2, &tris[i].p3};
			bsVec3 q[3];
			for (int v = 0; v < 3; ++v)
			{
				q[v] = bsV3(p[v]->x + a * sin(3.0 * p[v]->y), p[v]->y * (1.0 + a * p[v]->x), p[v]->z);
			}
			ENSURE(bsMakeTriangle(q[0], q[1], q[2], tris + i) == bs_ok);
		}
		ENSURE(bsBvh_Refit(&bvh, tris) == bs_ok);
		for (int k = 0; k < 1500; ++k)
		{
			bsSweepInput in = {bsV3(bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3)),
				bsV3(bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3)), bsRng_Range(&rng, 0, 0.2)};
			bsMethod method = (bsMethod)(k % bs_methodCount);
			bsSweepOutput viaBvh, viaList;
			ENSURE(bsBvh_Sweep(&bvh, method, &in, &viaBvh, NULL) == bs_ok);
			ENSURE(bsSweepList(method, tris, count, &in, &viaList) == bs_ok);
			ENSURE(memcmp(&viaBvh, &viaList, sizeof viaBvh) == 0);
		}
	}
	tris[0].p1.x = NAN;
	ENSURE(bsBvh_Refit(&bvh, tris) == bs_errNonFinite);
	bsBvh_Destroy(&bvh);
	free(tris);
	return 0;
}

// --- particles against moving bodies ---

// A square plate of half-size `half` in the xz plane (two triangles).
static void MakePlate(double half, bsTriangle tris[2])
{
	bsMakeTriangle(bsV3(-half, 0, -half), bsV3(half, 0, half), bsV3(half, 0, -half), tris);
	bsMakeTriangle(bsV3(-half, 0, -half), bsV3(-half, 0, half), bsV3(half, 0, half), tris + 1);
}

static bsVec3 RandomVec(bsRng* rng, double extent)
{
	return bsV3(bsRng_Range(rng, -extent, extent), bsRng_Range(rng, -extent, extent), bsRng_Range(rng, -extent, extent));
}

// The first time in [0, 1] at which a point whose signed distance from a plane goes linearly from d0
// to d1 is within r of it; -1 for none. *ambiguous when the answer is too close to a boundary case
// (grazing, or touching just at the end) for rounding to decide.
static double PlaneContact(double d0, double d1, double r, bool* ambiguous)
{
	*ambiguous = fabs(fabs(d1) - r) < 1e-9 || fabs(fabs(d0) - r) < 1e-9 || fabs(d0 - d1) < 1e-9;
	if (fabs(d0) <= r)
	{
		return 0.0;
	}
	if (d0 > r)
	{
		return d1 <= r ? (d0 - r) / (d0 - d1) : -1.0;
	}
	return d1 >= -r ? (-r - d0) / (d1 - d0) : -1.0;
}

// A particle meeting a translating plate (at any fixed orientation) stops where the relative motion
// says, over 100,000 random cases: 20 plates, 5,000 particles each, one step each.
static int TranslatingPlate(void)
{
	bsTriangle plate[2];
	MakePlate(10.0, plate);
	bsRng rng = bsMakeRng(14);
	int checked = 0, hits = 0;
	for (int world = 0; world < 20; ++world)
	{
		bsVec3Key translate[2] = {{0.0, RandomVec(&rng, 1.0)}, {1.0, RandomVec(&rng, 1.0)}};
		translate[1].value = bsAdd(translate[0].value, translate[1].value);
		bsQuatKey rotate[1] = {{0.0, bsQuat_FromAxisAngle(RandomVec(&rng, 1.0), bsRng_Range(&rng, 0, 3))}};
		bsKeyframes keys = {translate, 2, rotate, 1, NULL, 0, false};
		bsBody* body = MakeBody(plate, 2, &keys);
		ENSURE(body != NULL);
		bsWorldDef wd = bsDefaultWorldDef();
		wd.threads = 2;
		bsWorld* w = bsWorld_Create(&wd);
		ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
		bsParticles p;
		memset(&p, 0, sizeof p);
		bsQuat q = rotate[0].value;
		bsVec3 n = bsQuat_Rotate(q, bsV3(0, 1, 0));
		for (int k = 0; k < 5000; ++k)
		{
			// Laterally within 3 of the plate's centre, within 2 of its plane: face contacts only.
			bsVec3 local = bsV3(bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -2, 2), bsRng_Range(&rng, -3, 3));
			bsParticleDef d = {bsTransform_Apply((bsTransform){q, translate[0].value}, local), RandomVec(&rng, 2.0),
				bsRng_Range(&rng, 0.01, 0.3), bs_particleFree, {0, 0, 0}};
			ENSURE(bsParticles_Append(&p, &d) == bs_ok);
		}
		bsParticles before = p;
		bsVec3* x0 = malloc(p.count * sizeof(bsVec3));
		bsVec3* v0 = malloc(p.count * sizeof(bsVec3));
		ENSURE(x0 != NULL && v0 != NULL);
		memcpy(x0, p.position, p.count * sizeof(bsVec3));
		memcpy(v0, p.velocity, p.count * sizeof(bsVec3));
		(void)before;
		bsStepDef st = bsDefaultStepDef();
		st.method = bs_methodExact;
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		for (size_t i = 0; i < p.count; ++i)
		{
			// The reference: the signed distance from the plate's plane of the particle's motion
			// relative to the plate, linear in time.
			double d0 = bsDot(n, bsSub(x0[i], translate[0].value));
			double d1 = bsDot(n, bsSub(bsAdd(x0[i], v0[i]), translate[1].value));
			bool ambiguous;
			double t = PlaneContact(d0, d1, p.radius[i], &ambiguous);
			if (ambiguous)
			{
				continue;
			}
			checked += 1;
			if (t < 0.0)
			{
				ENSURE(p.state[i] == bs_particleFree);
				ENSURE_SMALL(bsDistance(p.position[i], bsAdd(x0[i], v0[i])), 1e-12);
				continue;
			}
			hits += 1;
			ENSURE(p.state[i] == bs_particleStuck);
			ENSURE_SMALL(bsDistance(p.position[i], bsMulAdd(x0[i], t, v0[i])), 1e-9);
		}
		free(x0);
		free(v0);
		bsParticles_Free(&p);
		bsWorld_Destroy(w);
		bsBody_Destroy(body);
	}
	ENSURE(checked >= 100000 - 100 && hits > 20000 && hits < checked - 20000);
	return 0;
}

// The distance of a point from the box [lo, hi] (0 inside).
static double BoxDistance(bsVec3 x, bsVec3 lo, bsVec3 hi)
{
	bsVec3 out = bsV3(fmax(fmax(lo.x - x.x, x.x - hi.x), 0.0), fmax(fmax(lo.y - x.y, x.y - hi.y), 0.0),
		fmax(fmax(lo.z - x.z, x.z - hi.z), 0.0));
	return bsLength(out);
}

// A paddle turning about y by pi over [0, 1] (keys every half second), then holding.
typedef struct Paddle
{
	bsTriangle* tris;
	uint32_t count;
	bsBody* body;
	bsVec3 lo, hi;
} Paddle;

static int MakePaddle(Paddle* paddle, double maxAngle)
{
	paddle->lo = bsV3(0.05, -0.5, -0.01);
	paddle->hi = bsV3(1.0, 0.5, 0.01);
	ENSURE(bsMakeBoxMesh(paddle->lo, paddle->hi, 1, false, &paddle->tris, &paddle->count) == bs_ok);
	bsQuatKey rotate[3];
	for (int k = 0; k < 3; ++k)
	{
		rotate[k].time = 0.5 * k;
		rotate[k].value = bsQuat_FromAxisAngle(bsV3(0, 1, 0), 0.5 * BS_PI * k);
	}
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = paddle->tris;
	def.triangleCount = paddle->count;
	def.keys.rotate = rotate;
	def.keys.rotateCount = 3;
	def.maxAngle = maxAngle;
	ENSURE(bsBody_Create(&def, &paddle->body) == bs_ok);
	ENSURE_SMALL(bsBody_MaxAngularSpeed(paddle->body) - BS_PI, 1e-12);
	return 0;
}

static void FreePaddle(Paddle* paddle)
{
	bsBody_Destroy(paddle->body);
	free(paddle->tris);
}

// Particles at rest in the half turn the paddle sweeps.
static int PaddleParticles(bsParticles* p, uint64_t seed, int count, double radius)
{
	memset(p, 0, sizeof *p);
	bsRng rng = bsMakeRng(seed);
	for (int k = 0; k < count; ++k)
	{
		double rho = bsRng_Range(&rng, 0.15, 0.9), phi = bsRng_Range(&rng, 0.1, BS_PI - 0.1);
		bsParticleDef d = {bsV3(rho * cos(phi), bsRng_Range(&rng, -0.4, 0.4), -rho * sin(phi)), bsV3(0, 0, 0), radius,
			bs_particleFree, {0, 0, 0}};
		ENSURE(bsParticles_Append(p, &d) == bs_ok);
	}
	return 0;
}

// The documented bound on the relative sweep's chord (collider_body.c): a turn of theta per substep
// moves the true relative path of a particle at distance rho (at rest) off the chord by at most
// theta² rho / 8. With stick, the paddle catches every particle of its half turn, each within that of
// touching it; with slide it pushes them and none gets inside it, at the substeps the bound picks
// (maxAngle 0.1: the 0.157 rad of each 0.05 s step in 2 substeps).
static int RotatingPaddle(void)
{
	const double maxAngle = 0.1, radius = 0.01, dt = 0.05;
	Paddle paddle;
	RUN_SUBTEST(MakePaddle(&paddle, maxAngle));
	double theta = BS_PI * dt / ceil(BS_PI * dt / maxAngle);
	double bound = theta * theta * 1.0 / 8.0;  // rho <= 1 (the paddle's tip)
	for (int response = 0; response < 2; ++response)
	{
		bsWorldDef wd = bsDefaultWorldDef();
		bsWorld* w = bsWorld_Create(&wd);
		ENSURE(w != NULL && bsWorld_AddBody(w, paddle.body) == bs_ok);
		bsParticles p;
		RUN_SUBTEST(PaddleParticles(&p, 21, 2000, radius));
		bsStepDef st = bsDefaultStepDef();
		st.dt = dt;
		st.method = bs_methodExact;
		st.response = response == 0 ? bs_responseStick : bs_responseSlide;
		for (int step = 0; step < 22; ++step)
		{
			bsStepStats stats;
			memset(&stats, 0, sizeof stats);
			ENSURE(bsWorld_Step(w, &st, &p, &stats) == bs_ok);
			ENSURE(stats.substeps == 2);  // from the fastest span of the keys, at every time
			bsTransform pose;
			bsVec3 scale;
			bsBody_Pose(paddle.body, bsWorld_Time(w), &pose, &scale);
			for (size_t i = 0; i < p.count; ++i)
			{
				double dist = BoxDistance(bsTransform_ApplyInverse(pose, p.position[i]), paddle.lo, paddle.hi);
				if (p.state[i] == bs_particleFree)
				{
					ENSURE(dist >= radius - bound);
				}
				else if (step >= 20)
				{
					ENSURE(response == 0 && p.state[i] == bs_particleStuck);
					ENSURE_SMALL(dist - radius, bound + 1e-9);
				}
			}
		}
		uint64_t states[bs_particleStateCount];
		bsParticles_CountStates(&p, states);
		ENSURE(states[bs_particleStuck] == (response == 0 ? p.count : 0));
		bsParticles_Free(&p);
		bsWorld_Destroy(w);
	}
	FreePaddle(&paddle);

	// The bound itself, on random relative paths: the distance of R(-theta u)(x) from the chord.
	bsRng rng = bsMakeRng(4);
	for (int k = 0; k < 2000; ++k)
	{
		double th = bsRng_Range(&rng, 0.0, 0.5);
		bsVec3 x = RandomVec(&rng, 1.0);
		bsQuat q1 = bsQuat_FromAxisAngle(bsV3(0, 1, 0), th);
		bsVec3 a = x, b = bsQuat_InvRotate(q1, x);
		double worst = 0.0;
		for (int s = 0; s <= 64; ++s)
		{
			double u = s / 64.0;
			bsVec3 path = bsQuat_InvRotate(bsQuat_FromAxisAngle(bsV3(0, 1, 0), u * th), x);
			worst = fmax(worst, bsDistance(path, bsLerp(a, b, u)));
		}
		ENSURE(worst <= th * th * bsLength(x) / 8.0 + 1e-12);
	}
	return 0;
}

// Particles that land on a moving, turning plate and stick ride with it: their place in the plate's
// frame stays put, step after step.
static int Carried(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.1, -1), bsV3(1, 0, 1), 1, false, &tris, &count) == bs_ok);
	bsVec3Key translate[] = {{0.0, {0, 0, 0}}, {2.0, {1.5, 0.5, 0}}};
	bsQuatKey rotate[] = {{0.0, bsQuat_Identity()}, {2.0, bsQuat_FromAxisAngle(bsV3(0, 1, 0), 1.0)}};
	bsKeyframes keys = {translate, 2, rotate, 2, NULL, 0, false};
	bsBody* body = MakeBody(tris, count, &keys);
	ENSURE(body != NULL);
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* w = bsWorld_Create(&wd);
	ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	bsRng rng = bsMakeRng(8);
	for (int k = 0; k < 300; ++k)
	{
		bsParticleDef d = {bsV3(bsRng_Range(&rng, -0.5, 0.5), bsRng_Range(&rng, 0.05, 0.6), bsRng_Range(&rng, -0.5, 0.5)),
			bsV3(0, 0, 0), 0.02, bs_particleFree, {0, 0, 0}};
		ENSURE(bsParticles_Append(&p, &d) == bs_ok);
	}
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.02;
	st.gravity = bsV3(0, -9.81, 0);
	st.method = bs_methodExact;
	bsVec3* local = malloc(p.count * sizeof(bsVec3));
	uint8_t* ridden = calloc(p.count, 1);  // steps a particle has been stuck at a step's end
	ENSURE(local != NULL && ridden != NULL);
	int compared = 0;
	for (int step = 0; step < 100; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		bsTransform pose;
		bsVec3 scale;
		bsBody_Pose(body, bsWorld_Time(w), &pose, &scale);
		for (size_t i = 0; i < p.count; ++i)
		{
			if (p.state[i] != bs_particleStuck)
			{
				continue;
			}
			bsVec3 here = bsTransform_ApplyInverse(pose, p.position[i]);
			// Stuck by the end of one step, carried through the next: from then on it stays put.
			if (ridden[i] >= 2)
			{
				ENSURE_SMALL(bsDistance(here, local[i]), 1e-9);
				compared += 1;
			}
			ridden[i] = ridden[i] < 2 ? ridden[i] + 1 : 2;
			local[i] = here;
		}
	}
	uint64_t states[bs_particleStateCount];
	bsParticles_CountStates(&p, states);
	ENSURE(states[bs_particleStuck] == p.count && compared > 100 * 50);
	free(local);
	free(ridden);
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	free(tris);
	return 0;
}

// A box that grows (scale keys) pushes the particles at rest around it (slide): none ends inside.
static int Growing(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-0.5, -0.5, -0.5), bsV3(0.5, 0.5, 0.5), 2, false, &tris, &count) == bs_ok);
	bsVec3Key scale[] = {{0.0, {1, 1, 1}}, {1.0, {2, 1.5, 2}}};
	bsKeyframes keys = {NULL, 0, NULL, 0, scale, 2, false};
	bsBody* body = MakeBody(tris, count, &keys);
	ENSURE(body != NULL);
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* w = bsWorld_Create(&wd);
	ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	bsRng rng = bsMakeRng(2);
	const double radius = 0.02;
	while (p.count < 1000)
	{
		bsVec3 x = RandomVec(&rng, 1.1);
		if (BoxDistance(x, bsV3(-0.5, -0.5, -0.5), bsV3(0.5, 0.5, 0.5)) > 2.0 * radius)
		{
			bsParticleDef d = {x, bsV3(0, 0, 0), radius, bs_particleFree, {0, 0, 0}};
			ENSURE(bsParticles_Append(&p, &d) == bs_ok);
		}
	}
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.05;
	st.substeps = 2;
	st.method = bs_methodExact;
	st.response = bs_responseSlide;
	for (int step = 0; step < 24; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		bsTransform pose;
		bsVec3 s;
		bsBody_Pose(body, bsWorld_Time(w), &pose, &s);
		bsVec3 half = bsScale(0.5, s);
		for (size_t i = 0; i < p.count; ++i)
		{
			ENSURE(p.state[i] == bs_particleFree);
			ENSURE(BoxDistance(p.position[i], bsNeg(half), half) >= radius - 2e-3);
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	free(tris);
	return 0;
}

// A plate whose middle a CSRBF bump raises by 0.3 lifts the particles resting over it (slide): the
// particle over the control point ends at least the keyed 0.3 higher (the deformation is exact there),
// and none ends inside the plate's shape.
static int Deforming(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.1, -1), bsV3(1, 0, 1), 8, false, &tris, &count) == bs_ok);
	bsVec3 control[1] = {{0, 0, 0}};
	double times[2] = {0.0, 1.0};
	bsVec3 disp[2] = {{0, 0, 0}, {0, 0.3, 0}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bs_motionDeforming;
	bsDeformDef deform = {control, 1, 0.8, times, disp, 2};
	def.deform = deform;
	bsBody* body;
	ENSURE(bsBody_Create(&def, &body) == bs_ok);
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* w = bsWorld_Create(&wd);
	ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	const double radius = 0.02;
	for (int i = -5; i <= 5; ++i)
	{
		for (int k = -5; k <= 5; ++k)
		{
			bsParticleDef d = {bsV3(0.1 * i, radius + 0.01, 0.1 * k), bsV3(0, 0, 0), radius, bs_particleFree, {0, 0, 0}};
			ENSURE(bsParticles_Append(&p, &d) == bs_ok);
		}
	}
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.05;
	st.substeps = 2;
	st.method = bs_methodExact;
	st.response = bs_responseSlide;
	for (int step = 0; step < 20; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
	}
	size_t middle = p.count / 2;
	ENSURE(p.position[middle].y >= 0.3 + radius - 1e-3);
	bsVec3 weights[1];
	bsBody_DeformWeights(body, 1.0, weights);
	for (size_t i = 0; i < p.count; ++i)
	{
		// The top of the plate under the particle, to first order: its rest top point deformed.
		bsVec3 top = bsBody_ShapePoint(body, weights, bsV3(1, 1, 1), bsV3(p.position[i].x, 0, p.position[i].z));
		ENSURE(p.state[i] == bs_particleFree && p.position[i].y >= top.y + radius - 0.01);
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	free(tris);
	return 0;
}

// bsWorld_BodyShape after each step is the body's shape at bsWorld_Time, to the bit: what a frame
// draws. dt = 0.025 in 11 substeps: 11 (dt / 11) falls short of dt on some steps, so this needs the
// last substep to end at the step's end.
static int ShapeAtWorldTime(void)
{
	bsTriangle* tris;
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.1, -1), bsV3(1, 0, 1), 4, false, &tris, &count) == bs_ok);
	bsVec3 control[1] = {{0, 0, 0}};
	double times[3] = {0.0, 0.5, 1.2};
	bsVec3 disp[3] = {{0, 0.1, 0}, {0, 0.3, 0.1}, {0.2, 0, 0}};
	bsVec3Key scale[2] = {{0.0, {1, 1, 1}}, {1.2, {1.5, 0.5, 1}}};
	bsBodyDef def = bsDefaultBodyDef();
	def.triangles = tris;
	def.triangleCount = count;
	def.kind = bs_motionDeforming;
	def.keys.scale = scale;
	def.keys.scaleCount = 2;
	bsDeformDef deform = {control, 1, 0.8, times, disp, 3};
	def.deform = deform;
	bsBody* body;
	ENSURE(bsBody_Create(&def, &body) == bs_ok);
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* w = bsWorld_Create(&wd);
	ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.025;
	st.substeps = 11;
	uint32_t n = 0;
	for (int step = 0; step <= 48; ++step)
	{
		ENSURE(step == 0 || bsWorld_Step(w, &st, &p, NULL) == bs_ok);
		const bsTriangle* shape = bsWorld_BodyShape(w, body, &n);
		ENSURE(shape != NULL && n == count);
		bsTransform pose;
		bsVec3 s, weights[1];
		bsBody_Pose(body, bsWorld_Time(w), &pose, &s);
		bsBody_DeformWeights(body, bsWorld_Time(w), weights);
		for (uint32_t i = 0; i < n; ++i)
		{
			bsVec3 v[3] = {bsBody_ShapePoint(body, weights, s, tris[i].p1),
				bsBody_ShapePoint(body, weights, s, tris[i].p2), bsBody_ShapePoint(body, weights, s, tris[i].p3)};
			ENSURE(memcmp(&shape[i].p1, v, sizeof v) == 0);
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	free(tris);
	return 0;
}

// The paddle through resting particles on a floor (slide, gravity, sleep): the same bytes at 1 and 2
// threads.
static int RunPaddleScene(int threads, bsParticles* p)
{
	Paddle paddle;
	RUN_SUBTEST(MakePaddle(&paddle, 0.1));
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* w = bsWorld_Create(&wd);
	bsPlane floor = {bsV3(0, 1, 0), 0.5};
	ENSURE(w != NULL && bsWorld_AddBody(w, paddle.body) == bs_ok && bsWorld_AddPlanes(w, &floor, 1) == bs_ok);
	ENSURE(bsWorld_AddStuckParticles(w, 0.0) == bs_ok);
	RUN_SUBTEST(PaddleParticles(p, 33, 1500, 0.015));
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.05;
	st.gravity = bsV3(0, -9.81, 0);
	st.method = bs_methodKarabassi;
	st.response = bs_responseSlide;
	st.friction = 0.3;
	st.sleepSteps = 3;
	st.sleepSpeed = 0.05;
	st.sleepAcceleration = 1.0;
	for (int step = 0; step < 24; ++step)
	{
		ENSURE(bsWorld_Step(w, &st, p, NULL) == bs_ok);
	}
	bsWorld_Destroy(w);
	FreePaddle(&paddle);
	return 0;
}

static int Determinism(void)
{
	bsParticles a, b;
	RUN_SUBTEST(RunPaddleScene(1, &a));
	RUN_SUBTEST(RunPaddleScene(2, &b));
	ENSURE(a.count == b.count);
	ENSURE(memcmp(a.position, b.position, a.count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(a.velocity, b.velocity, a.count * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(a.state, b.state, a.count) == 0);
	bsParticles_Free(&a);
	bsParticles_Free(&b);
	return 0;
}

int BodyTest(void)
{
	RUN_SUBTEST(Keyframes());
	RUN_SUBTEST(Csrbf());
	RUN_SUBTEST(DeformKeys());
	RUN_SUBTEST(Refit());
	RUN_SUBTEST(TranslatingPlate());
	RUN_SUBTEST(RotatingPaddle());
	RUN_SUBTEST(Carried());
	RUN_SUBTEST(Growing());
	RUN_SUBTEST(Deforming());
	RUN_SUBTEST(ShapeAtWorldTime());
	RUN_SUBTEST(Determinism());
	return 0;
}
