// test_emitter_motion.c — emitters that move and rates that change (emitter.h): particles placed by
// the frame at their birth time with its velocity added (closed forms for a slide and a spin, a
// central difference of the Euler rotation), rate curves counting their integral within 1 at several
// frame rates and substep counts, birth times, the step's back-dating of each particle to the step's
// start, newborns (a moving nozzle's, a trail's, a splash's) kept out of a moving box (a ray parity
// test against its posed triangles), and the defs the world refuses.
#include "procedural.h"
#include "blobsim/body.h"
#include "blobsim/collide.h"
#include "blobsim/quat.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Keys (t_k, v_k) of a 3-vector track.
static bsTrack Keys(int n, const double* times, const bsVec3* values)
{
	bsTrack track;
	memset(&track, 0, sizeof(track));
	track.count = n;
	for (int k = 0; k < n; ++k)
	{
		track.time[k] = times[k];
		track.value[k] = values[k];
	}
	return track;
}

// A point nozzle at p (in its frame) throwing particles along -y at speed 1, no cone.
static bsEmitterDef PointNozzle(bsVec3 p)
{
	bsEmitterDef def = bsDefaultEmitterDef();
	def.shape.type = bs_emitterNozzle;
	def.shape.count[0] = 1;
	def.shape.nozzle.center = p;
	def.shape.nozzle.direction = bsV3(0, -1, 0);
	def.shape.nozzle.speedMin = def.shape.nozzle.speedMax = 1.0;
	def.radius = 0.01;
	return def;
}

// A world of def alone (no colliders), an empty set and steps of dt without gravity; NULL when the
// world refuses def.
static bsWorld* EmitterWorld(const bsEmitterDef* def, double dt, bsParticles* p, bsStepDef* st)
{
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* world = bsWorld_Create(&wd);
	if (world != NULL && bsWorld_AddEmitter(world, def) != bs_ok)
	{
		bsWorld_Destroy(world);
		world = NULL;
	}
	memset(p, 0, sizeof(*p));
	*st = bsDefaultStepDef();
	st->dt = dt;
	st->gravity = bsV3(0, 0, 0);
	return world;
}

// A slide: T(t) = (2t, 0, 0) from t = 0 to 4. A spin about z at w = 1.5 rad/s: a point r from the axis
// is at R(wt) r moving at w x R(wt) r, with its own velocity turned.
static int SlideAndSpin(void)
{
	const double times[2] = {0.0, 4.0};
	bsEmitterMotion slide = {0};
	slide.translate = Keys(2, times, (bsVec3[]){{0, 0, 0}, {8, 0, 0}});
	bsEmitterMotion spin = {0};
	spin.rotate = Keys(2, times, (bsVec3[]){{0, 0, 0}, {0, 0, 6}});
	ENSURE(bsEmitterMotion_IsValid(&slide) && bsEmitterMotion_IsValid(&spin));
	for (double t = 0.0; t < 4.0; t += 0.37)
	{
		bsVec3 x = bsV3(0.5, 1.0, -0.25), v = bsV3(0, -1, 0);
		bsEmitterMotion_Apply(&slide, t, &x, &v);
		ENSURE_SMALL(x.x - (0.5 + 2 * t), 1e-12);
		ENSURE(x.y == 1.0 && x.z == -0.25);
		ENSURE(v.x == 2.0 && v.y == -1.0 && v.z == 0.0);

		bsVec3 p = bsV3(0.5, 1.0, -0.25), u = bsV3(0, -1, 0);
		bsEmitterMotion_Apply(&spin, t, &p, &u);
		double a = 1.5 * t, c = cos(a), s = sin(a);
		bsVec3 want = bsV3(c * 0.5 - s * 1.0, s * 0.5 + c * 1.0, -0.25);
		ENSURE_SMALL(bsLength(bsSub(p, want)), 1e-12);
		bsVec3 rim = bsCross(bsV3(0, 0, 1.5), want);
		bsVec3 turned = bsV3(s, -c, 0);  // (0, -1, 0) turned by a about z
		ENSURE_SMALL(bsLength(bsSub(u, bsAdd(rim, turned))), 1e-12);
	}
	return 0;
}

// Every track at once (Euler angles about three axes, translation, a scale that grows): the velocity
// added is the derivative of the placed position, against a central difference inside a span.
static int FrameVelocity(void)
{
	const double times[3] = {0.0, 1.0, 2.5};
	bsEmitterMotion m = {0};
	m.translate = Keys(3, times, (bsVec3[]){{0, 0, 0}, {1, 2, 0}, {-1, 2, 3}});
	m.rotate = Keys(3, times, (bsVec3[]){{0.1, -0.3, 0.2}, {0.9, 0.4, -1.1}, {2.0, -0.2, 0.5}});
	m.scale = Keys(3, times, (bsVec3[]){{1, 1, 1}, {2, 0.5, 1.5}, {1, 1, 3}});
	ENSURE(bsEmitterMotion_IsValid(&m));
	const double h = 1e-6;
	for (double t = 0.05; t < 2.5; t += 0.1)
	{
		if (fabs(t - 1.0) < 2 * h)
		{
			continue;
		}
		bsVec3 p = bsV3(0.3, -0.7, 1.1);
		bsVec3 x = p, v = bsV3(0, 0, 0);
		bsEmitterMotion_Apply(&m, t, &x, &v);
		bsVec3 xp = p, xm = p, dummy = bsV3(0, 0, 0);
		bsEmitterMotion_Apply(&m, t + h, &xp, &dummy);
		bsEmitterMotion_Apply(&m, t - h, &xm, &dummy);
		bsVec3 fd = bsScale(0.5 / h, bsSub(xp, xm));
		ENSURE_SMALL(bsLength(bsSub(v, fd)) / (1.0 + bsLength(v)), 1e-7);
	}
	// A bad track, a scale <= 0: not valid.
	bsEmitterMotion bad = m;
	bad.scale.value[1].y = 0.0;
	ENSURE(!bsEmitterMotion_IsValid(&bad));
	bad = m;
	bad.rotate.time[2] = 0.5;
	ENSURE(!bsEmitterMotion_IsValid(&bad));
	bad = m;
	bad.translate.value[0].x = NAN;
	ENSURE(!bsEmitterMotion_IsValid(&bad));
	return 0;
}

// The integral of the piecewise linear rate (times, rates) from `start` to t, summed by the trapezoid
// rule on a fine uniform grid of 1e-5 s (exact for a linear piece when a key falls on the grid).
static double TrapezoidIntegral(int n, const double* times, const double* rates, double start, double t)
{
	double sum = 0.0;
	const double h = 1e-5;
	for (double a = start; a < t - 0.5 * h; a += h)
	{
		double b = fmin(a + h, t);
		double ra, rb;
		for (int side = 0; side < 2; ++side)
		{
			double s = side == 0 ? a : b, r = rates[0];
			for (int k = 0; k + 1 < n; ++k)
			{
				if (s >= times[k] && s <= times[k + 1])
				{
					r = rates[k] + (rates[k + 1] - rates[k]) * (s - times[k]) / (times[k + 1] - times[k]);
				}
			}
			r = s > times[n - 1] ? rates[n - 1] : r;
			*(side == 0 ? &ra : &rb) = r;
		}
		sum += 0.5 * (ra + rb) * (b - a);
	}
	return sum;
}

// A rate curve rising from 200/s to 1000/s, held, then falling to 0 (times 0.2 .. 1.7), from start
// 0.1 to stop 2: a world steps it at 24, 30, 60 and 100 frames a second with 1 and 3 substeps; after
// every step the particles emitted are the curve's integral within 1, and in all floor(I(stop)).
static int RateCurve(void)
{
	const double times[4] = {0.2, 0.6, 1.2, 1.7};
	const double rates[4] = {200, 1000, 1000, 0};
	bsEmitterDef def = PointNozzle(bsV3(0, 0, 0));
	def.start = 0.1;
	def.stop = 2.0;
	def.shape.count[0] = 0;
	memset(&def.rateKeys, 0, sizeof(def.rateKeys));
	def.rateKeys.count = 4;
	for (int k = 0; k < 4; ++k)
	{
		def.rateKeys.time[k] = times[k];
		def.rateKeys.value[k] = bsV3(rates[k], 0, 0);
	}
	double whole = TrapezoidIntegral(4, times, rates, 0.1, 2.0);  // 20 + 240 + 600 + 250 = 1110
	ENSURE_SMALL(whole - 1110.0, 1e-6);
	ENSURE_SMALL(bsEmitterDef_Integral(&def, 2.0) - 1110.0, 1e-9);
	uint64_t total = 0;
	ENSURE(bsEmitterDef_Count(&def, UINT64_MAX, &total) == bs_ok && total == 1110);
	// Birth times: the integral reaches k + 1 there.
	for (uint64_t k = 0; k < total; k += 37)
	{
		double tau = bsEmitterDef_BirthTime(&def, k);
		ENSURE(tau > def.start && tau <= def.stop);
		ENSURE_SMALL(bsEmitterDef_Integral(&def, tau) - (double)(k + 1), 1e-8);
	}
	const double fps[4] = {24, 30, 60, 100};
	for (int f = 0; f < 4; ++f)
	{
		for (int substeps = 1; substeps <= 3; substeps += 2)
		{
			bsParticles p;
			bsStepDef st;
			bsWorld* world = EmitterWorld(&def, 1.0 / fps[f], &p, &st);
			ENSURE(world != NULL);
			st.substeps = substeps;
			int steps = (int)ceil(2.2 * fps[f]);
			for (int n = 1; n <= steps; ++n)
			{
				ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
				double want = TrapezoidIntegral(4, times, rates, 0.1, fmin(n * st.dt, 2.0));
				ENSURE(fabs((double)p.count - want) <= 1.0);
			}
			ENSURE(p.count == total);
			bsParticles_Free(&p);
			bsWorld_Destroy(world);
		}
	}
	return 0;
}

// A nozzle sliding at 3 units/s along x throws one particle every 1/50 s down at 1 unit/s: after a
// step of 0.1 s (no forces, no colliders) particle k, born at tau_k = (k + 1)/50 at (3 tau_k, 0, 0)
// with velocity (3, -1, 0), is at its birth point + its velocity x (0.1 - tau_k): each particle is
// where it would be emitted at its own time, not where the step began.
static int BackDated(void)
{
	const double times[2] = {0.0, 10.0};
	bsEmitterDef def = PointNozzle(bsV3(0, 0, 0));
	def.shape.count[0] = 0;
	def.rate = 50.0;
	def.stop = 10.0;
	def.motion.translate = Keys(2, times, (bsVec3[]){{0, 0, 0}, {30, 0, 0}});
	bsParticles p;
	bsStepDef st;
	bsWorld* world = EmitterWorld(&def, 0.1, &p, &st);
	ENSURE(world != NULL);
	for (int n = 1; n <= 3; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		double end = n * 0.1;
		ENSURE(p.count == (size_t)(5 * n));
		for (size_t k = 0; k < p.count; ++k)
		{
			double tau = (double)(k + 1) / 50.0;
			bsVec3 want = bsV3(3 * tau + 3 * (end - tau), -(end - tau), 0);
			ENSURE_SMALL(bsLength(bsSub(p.position[k], want)), 1e-12);
			ENSURE(p.velocity[k].x == 3.0 && p.velocity[k].y == -1.0);
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Defs the world refuses: a rate curve with a value < 0, or beside a constant rate, or without a stop;
// a motion with keys out of order.
static int Refused(void)
{
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL);
	const double times[2] = {0.0, 1.0};
	bsEmitterDef def = PointNozzle(bsV3(0, 0, 0));
	def.shape.count[0] = 0;
	def.stop = 2.0;
	def.rateKeys = Keys(2, times, (bsVec3[]){{10, 0, 0}, {20, 0, 0}});
	ENSURE(bsWorld_AddEmitter(world, &def) == bs_ok);
	bsEmitterDef bad = def;
	bad.rateKeys.value[1].x = -1.0;
	ENSURE(bsWorld_AddEmitter(world, &bad) == bs_errInvalidArgument);
	bad = def;
	bad.rate = 5.0;
	ENSURE(bsWorld_AddEmitter(world, &bad) == bs_errInvalidArgument);
	bad = def;
	bad.stop = INFINITY;
	ENSURE(bsWorld_AddEmitter(world, &bad) == bs_errInvalidArgument);
	bad = def;
	bad.motion.translate = Keys(2, (double[]){1.0, 1.0}, (bsVec3[]){{0, 0, 0}, {1, 0, 0}});
	ENSURE(bsWorld_AddEmitter(world, &bad) == bs_errInvalidArgument);
	bsWorld_Destroy(world);
	return 0;
}

// A box turning about y at 1.2 rad/s while it slides along x at 0.5 units/s, a surface emitter on it
// (200 particles a second, no speed of their own): each particle, followed back to its birth time
// tau, lies radius + gap off the box as posed at tau (closest-point distance within 1e-9), and moves
// at the surface point's velocity, T' + w x (x_s - T(tau)) (within 1e-8 of the speed). Deforming too
// (a CSRBF control pulling one end up 0.3 over the second): on the deformed, posed surface.
// The box of the body tests: 2 x 1 x 1.5, sliding at 0.5 units/s along x and turning at w = 1.2 rad/s
// about y for its first second (deforming, the corner side at x = 1 lifted 0.3 over it); a surface
// emitter on its rest faces, 1e-3 off them, leaving them at `speed`.
typedef struct TurningBox
{
	bsTriangle* tris;
	bsBody* body;
	const bsTriangle* rest;
	uint32_t restCount;
	double* cumulative;
	bsEmitterDef def;
} TurningBox;

static const double bs_boxSpin = 1.2;
static const bsVec3Key bs_boxSlide[] = {{0.0, {0, 0, 0}}, {1.0, {0.5, 0, 0}}};
static const bsVec3 bs_boxControl[1] = {{1, 0, 0}};
static const double bs_boxTimes[2] = {0.0, 1.0};
static const bsVec3 bs_boxLift[2] = {{0, 0, 0}, {0, 0.3, 0}};

static int MakeTurningBox(bool deforming, double speed, TurningBox* box)
{
	uint32_t count;
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.5, -0.75), bsV3(1, 0.5, 0.75), 2, false, &box->tris, &count) == bs_ok);
	bsQuatKey rotate[] = {{0.0, bsQuat_FromAxisAngle(bsV3(0, 1, 0), 0.0)},
		{1.0, bsQuat_FromAxisAngle(bsV3(0, 1, 0), bs_boxSpin)}};
	bsBodyDef bd = bsDefaultBodyDef();
	bd.triangles = box->tris;
	bd.triangleCount = count;
	bd.keys = (bsKeyframes){bs_boxSlide, 2, rotate, 2, NULL, 0, false};
	if (deforming)
	{
		bd.kind = bs_motionDeforming;
		bd.deform = (bsDeformDef){bs_boxControl, 1, 1.5, bs_boxTimes, bs_boxLift, 2};
	}
	box->body = NULL;
	ENSURE(bsBody_Create(&bd, &box->body) == bs_ok);
	box->rest = bsBody_Triangles(box->body, &box->restCount);
	box->cumulative = malloc(box->restCount * sizeof(double));
	ENSURE(box->cumulative != NULL && bsSurface_Accumulate(box->rest, box->restCount, NULL, box->cumulative) > 0.0);
	box->def = bsDefaultEmitterDef();
	box->def.shape.type = bs_emitterSurface;
	box->def.shape.surface = (bsSurface){box->rest, box->cumulative, box->restCount, 1e-3, 0.0, speed, speed, false, NULL};
	return 0;
}

static void FreeTurningBox(TurningBox* box)
{
	bsBody_Destroy(box->body);
	free(box->cumulative);
	free(box->tris);
}

static int BodySurface(bool deforming)
{
	TurningBox box;
	RUN_SUBTEST(MakeTurningBox(deforming, 0.0, &box));
	const double w = bs_boxSpin;
	bsBody* body = box.body;
	uint32_t restCount = box.restCount;
	const bsTriangle* rest = box.rest;
	bsEmitterDef def = box.def;
	def.radius = 0.05;
	def.rate = 200.0;
	def.stop = 0.99;
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL);
	ENSURE(bsWorld_AddBodyEmitter(world, &def, body) == bs_errInvalidArgument);  // not in the world yet
	ENSURE(bsWorld_AddBody(world, body) == bs_ok);
	bsEmitterDef moving = def;
	moving.motion.translate = bsConstantTrack(bsV3(1, 0, 0));
	ENSURE(bsWorld_AddBodyEmitter(world, &moving, body) == bs_errInvalidArgument);
	ENSURE(bsWorld_AddBodyEmitter(world, &def, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	ENSURE(bsWorld_Emit(world, &p, NULL) == bs_ok && p.count == 198);
	bsTriangle* posed = malloc(restCount * sizeof(bsTriangle));
	ENSURE(posed != NULL);
	for (size_t k = 0; k < p.count; ++k)
	{
		// Emitted at time 0 (bsWorld_Emit): every particle on the surface as posed then, not set back.
		double tau = 0.0;
		bsVec3 birth = p.position[k];
		bsTransform pose;
		bsVec3 scale;
		bsBody_Pose(body, tau, &pose, &scale);
		bsVec3 weights[1];
		bsBody_DeformWeights(body, tau, weights);
		const bsVec3* w1 = deforming ? weights : NULL;
		for (uint32_t i = 0; i < restCount; ++i)
		{
			ENSURE(bsMakeTriangle(bsTransform_Apply(pose, bsBody_ShapePoint(body, w1, scale, rest[i].p1)),
				bsTransform_Apply(pose, bsBody_ShapePoint(body, w1, scale, rest[i].p2)),
				bsTransform_Apply(pose, bsBody_ShapePoint(body, w1, scale, rest[i].p3)), posed + i) == bs_ok);
		}
		// Born radius + gap off a face of the posed mesh (inside the face, along its normal); on the
		// convex box no face is nearer.
		bsClosestPointInput in = {birth, HUGE_VAL};
		bool onFace = false;
		for (uint32_t i = 0; i < restCount; ++i)
		{
			bsClosestPointOutput face;
			ENSURE(bsClosestPointList(posed + i, 1, &in, &face) == bs_ok);
			onFace = onFace || (face.feature == bs_featureFace && fabs(face.distance - (p.radius[k] + 1e-3)) <= 1e-9);
		}
		ENSURE(onFace);
		if (deforming)
		{
			continue;
		}
		bsClosestPointOutput out;
		ENSURE(bsClosestPointList(posed, restCount, &in, &out) == bs_ok && out.hit);
		ENSURE_SMALL(out.distance - (p.radius[k] + 1e-3), 1e-9);
		bsVec3 centre = bsV3(0.5 * tau, 0, 0);
		bsVec3 want = bsAdd(bsV3(0.5, 0, 0), bsCross(bsV3(0, w, 0), bsSub(out.point, centre)));
		// The surface's velocity is a difference over the 2e-5 s after the pose (emitter_body.c): the
		// turn moves the point's velocity by w^2 r 1e-5, at most 2e-5 here (r <= 1.35).
		ENSURE_SMALL(bsLength(bsSub(p.velocity[k], want)), 3e-5);
	}
	free(posed);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	FreeTurningBox(&box);
	return 0;
}

// The turning box emits 300 particles a second off its faces at 0.5 units/s (and, riding, at 0): after
// each step of 1/24 s no particle's centre is inside the box, and no free particle is within its
// radius of it. Set back along their paths to the step's start, the leaving particles began inside the
// box, and the sweeps met its faces from within: every one ended inside or on it.
static int BodyEmitterOutside(double speed)
{
	TurningBox box;
	RUN_SUBTEST(MakeTurningBox(false, speed, &box));
	bsBody* body = box.body;
	bsEmitterDef def = box.def;
	def.radius = 0.02;
	def.rate = 300.0;
	def.stop = 1.0;
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL && bsWorld_AddBody(world, body) == bs_ok && bsWorld_AddBodyEmitter(world, &def, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof(p));
	bsStepDef st = bsDefaultStepDef();
	st.dt = 1.0 / 24.0;
	st.gravity = bsV3(0, 0, 0);
	for (int n = 1; n <= 30; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		bsTransform pose;
		bsVec3 scale;
		bsBody_Pose(body, n * st.dt, &pose, &scale);
		for (size_t k = 0; k < p.count; ++k)
		{
			bsVec3 q = bsTransform_ApplyInverse(pose, p.position[k]);  // in the box's frame
			bsVec3 out = bsV3(fmax(fabs(q.x) - 1.0, 0.0), fmax(fabs(q.y) - 0.5, 0.0), fmax(fabs(q.z) - 0.75, 0.0));
			// A free particle clear of the box; one that hit it after it stopped (the default response
			// sticks) has its centre on the face, sunk into it as the paper's blobs are: none inside.
			bool inside = fabs(q.x) < 1.0 - 1e-9 && fabs(q.y) < 0.5 - 1e-9 && fabs(q.z) < 0.75 - 1e-9;
			ENSURE(!inside);
			ENSURE(p.state[k] != bs_particleFree || bsLength(out) >= p.radius[k] * (1.0 - 1e-6));
		}
	}
	ENSURE(p.count == 300);  // floor(rate x (stop - start))
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	FreeTurningBox(&box);
	return 0;
}

// A point nozzle at height y sliding at 3 units/s along x for 10 s, throwing a particle every 1/200 s
// straight up at `speed`.
static bsEmitterDef SlidingUpNozzle(double y, double speed)
{
	const double times[2] = {0.0, 10.0};
	bsEmitterDef def = PointNozzle(bsV3(0, y, 0));
	def.shape.count[0] = 0;
	def.shape.nozzle.direction = bsV3(0, 1, 0);
	def.shape.nozzle.speedMin = def.shape.nozzle.speedMax = speed;
	def.rate = 200.0;
	def.stop = 10.0;
	def.motion.translate = Keys(2, times, (bsVec3[]){{0, 0, 0}, {30, 0, 0}});
	return def;
}

// A nozzle sliding at 3 units/s along x, 0.02 above a floor, throws a particle every 1/200 s straight
// up at 2 units/s. Set back along its path to the step's start (up to 2 x 0.1 = 0.2 back, under the
// floor) a particle would begin below the floor and meet it from beneath: each starts clear of it on
// its way back instead (bsWorld_ClearWay), and after every step every particle is above the floor.
static int BackDatedClearOfFloor(void)
{
	bsEmitterDef def = SlidingUpNozzle(0.02, 2.0);
	bsParticles p;
	bsStepDef st;
	bsWorld* world = EmitterWorld(&def, 0.1, &p, &st);
	bsPlane floor;
	bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor);
	ENSURE(world != NULL && bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
	for (int n = 1; n <= 3; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		ENSURE(p.count == (size_t)(20 * n));
		for (size_t k = 0; k < p.count; ++k)
		{
			ENSURE(p.position[k].y >= p.radius[k] * (1.0 - 1e-6));
			ENSURE(p.velocity[k].y == 2.0);
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- newborn particles and moving bodies: each starts clear of a body held where it is then ---

// A box 2 x 1 x 1.5 about its origin, keyed to slide from `at` at velocity v without turning.
typedef struct SlidingBox
{
	bsTriangle* tris;
	uint32_t count;
	bsBody* body;
} SlidingBox;

static int MakeSlidingBox(bsVec3 at, bsVec3 v, SlidingBox* box)
{
	ENSURE(bsMakeBoxMesh(bsV3(-1, -0.5, -0.75), bsV3(1, 0.5, 0.75), 1, false, &box->tris, &box->count) == bs_ok);
	bsVec3Key slide[2] = {{0.0, at}, {10.0, bsMulAdd(at, 10.0, v)}};
	bsBodyDef bd = bsDefaultBodyDef();
	bd.triangles = box->tris;
	bd.triangleCount = box->count;
	bd.keys = (bsKeyframes){slide, 2, NULL, 0, NULL, 0, false};
	box->body = NULL;
	ENSURE(bsBody_Create(&bd, &box->body) == bs_ok);
	return 0;
}

// Is x inside the box as its keys pose it at time t: a ray from x, along a direction no face or edge
// of the box is parallel to, crosses its posed triangles an odd number of times (Moller-Trumbore).
static bool InsideBox(const SlidingBox* box, double t, bsVec3 x)
{
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(box->body, t, &pose, &scale);
	const bsVec3 dir = bsV3(0.5773, 0.5917, 0.5640);
	int crossings = 0;
	for (uint32_t k = 0; k < box->count; ++k)
	{
		bsVec3 a = bsTransform_Apply(pose, box->tris[k].p1);
		bsVec3 e1 = bsSub(bsTransform_Apply(pose, box->tris[k].p2), a);
		bsVec3 e2 = bsSub(bsTransform_Apply(pose, box->tris[k].p3), a);
		bsVec3 pv = bsCross(dir, e2);
		double det = bsDot(e1, pv);
		bsVec3 tv = bsSub(x, a);
		bsVec3 qv = bsCross(tv, e1);
		double u = bsDot(tv, pv) / det, w = bsDot(dir, qv) / det;
		crossings += u >= 0.0 && w >= 0.0 && u + w <= 1.0 && bsDot(e2, qv) / det > 0.0;
	}
	return crossings % 2 == 1;
}

// A world of the box and the emitters at `threads` threads, stepped `steps` times by dt without
// gravity; after every step no particle of species 1 (the newborns) and no free particle has its
// centre inside the box. The set as it ends in *p.
static int RunBesideBox(const SlidingBox* box, const bsEmitterDef* defs, int count, int threads, int steps,
	bsParticles* p)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	bsWorld* world = bsWorld_Create(&wd);
	ENSURE(world != NULL && bsWorld_AddBody(world, box->body) == bs_ok);
	for (int e = 0; e < count; ++e)
	{
		ENSURE(bsWorld_AddEmitter(world, defs + e) == bs_ok);
	}
	memset(p, 0, sizeof(*p));
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.1;
	st.gravity = bsV3(0, 0, 0);
	st.response = bs_responseBounce;  // a particle the box runs into then is not left stuck where it met it
	int newborns = 0;
	for (int n = 1; n <= steps; ++n)
	{
		ENSURE(bsWorld_Step(world, &st, p, NULL) == bs_ok);
		for (size_t k = 0; k < p->count; ++k)
		{
			bool newborn = p->species != NULL && p->species[k] == 1;
			newborns += newborn;
			ENSURE(!((newborn || p->state[k] == bs_particleFree) && InsideBox(box, n * st.dt, p->position[k])));
		}
	}
	ENSURE(newborns > 0);
	bsWorld_Destroy(world);
	return 0;
}

// The same scene at 1, 2 and 3 threads: clear of the box every step, and the same bytes.
static int BesideBoxThreads(bsVec3 at, bsVec3 v, const bsEmitterDef* defs, int count, int steps)
{
	SlidingBox box;
	RUN_SUBTEST(MakeSlidingBox(at, v, &box));
	bsParticles runs[3];
	for (int t = 0; t < 3; ++t)
	{
		RUN_SUBTEST(RunBesideBox(&box, defs, count, t + 1, steps, runs + t));
	}
	for (int t = 1; t < 3; ++t)
	{
		ENSURE(runs[t].count == runs[0].count);
		ENSURE(memcmp(runs[t].position, runs[0].position, runs[0].count * sizeof(bsVec3)) == 0);
		ENSURE(memcmp(runs[t].velocity, runs[0].velocity, runs[0].count * sizeof(bsVec3)) == 0);
	}
	for (int t = 0; t < 3; ++t)
	{
		bsParticles_Free(runs + t);
	}
	bsBody_Destroy(box.body);
	free(box.tris);
	return 0;
}

// A nozzle riding with the box (both at 3 units/s along x), 0.03 off its top face, throws a particle
// every 1/200 s off it at 1 unit/s: set back to the step's start (up to 0.1 back along its path,
// relative to the box) a particle would start inside the box and meet its face from within; each
// starts just clear of the face as the box is at the step's start instead.
static int NozzleBesideBody(void)
{
	bsEmitterDef def = SlidingUpNozzle(0.53, 1.0);
	def.species = 1;
	return BesideBoxThreads(bsV3(0, 0, 0), bsV3(3, 0, 0), &def, 1, 3);
}

// The box sliding at 4 units/s along x passes over a nozzle at x = 0.05 (crawling along z) that throws
// after it at 1 unit/s from t = 1.06, when the box's back face (x = 4t - 4) has left it: a particle
// born in the step from 1 has its birth point inside the box as it is at the step's start and its
// start behind it. No point of that way is clear of the box, and the way meets the back face from
// within: the particle keeps its start (swept up to that face, it would start inside).
static int NozzleBehindBody(void)
{
	const double times[2] = {0.0, 10.0};
	bsEmitterDef def = PointNozzle(bsV3(0.05, 0, 0));
	def.shape.count[0] = 0;
	def.shape.nozzle.direction = bsV3(1, 0, 0);
	def.rate = 200.0;
	def.start = 1.06;
	def.stop = 10.0;
	def.species = 1;
	def.motion.translate = Keys(2, times, (bsVec3[]){{0, 0, 0}, {0, 0, 0.1}});
	return BesideBoxThreads(bsV3(-3, 0, 0), bsV3(4, 0, 0), &def, 1, 13);
}

// A source, one particle of species 0, flies at 4 units/s into the face x = 1 of the box (sliding along
// z at 0.5 units/s) in the step's middle; its trail's sparks stand still where it was at their birth
// (inherit 0), so those born after its contact on its free path would lie inside the box: each is
// kept clear of the box as it is at the step's start on the way from the source's start.
static int TrailIntoBody(void)
{
	static const bsParticleDef source = {{2.0, 0.0, 0.1}, {-4.0, 0.0, 0.0}, 0.05, bs_particleFree, {0, 0, 0}};
	bsEmitterDef defs[2] = {bsDefaultEmitterDef(), bsDefaultEmitterDef()};
	defs[0].shape.type = bs_emitterList;
	defs[0].list = &source;
	defs[0].listCount = 1;
	defs[1].shape.type = bs_emitterTrail;
	defs[1].shape.trail.source = 0;
	defs[1].shape.trail.inherit = 0.0;
	defs[1].rate = 400.0;
	defs[1].radius = 0.01;
	defs[1].species = 1;
	return BesideBoxThreads(bsV3(0, 0, 0), bsV3(0, 0, 0.5), defs, 2, 4);
}

// A source falls at 2 units/s onto the top face of the box, which rises at 1 unit/s, and splashes 6
// sparks a contact leaving the face at 0.1 to 0.3 units/s: carried on to the step's end, slower than
// the face, they would end inside the box; each stops just clear of the face as it is at the step's
// end, on the way from the source's centre at the contact as the box carries it there.
static int SplashOffBody(void)
{
	static const bsParticleDef source = {{0.0, 1.2, 0.1}, {0.0, -2.0, 0.0}, 0.05, bs_particleFree, {0, 0, 0}};
	bsEmitterDef defs[2] = {bsDefaultEmitterDef(), bsDefaultEmitterDef()};
	defs[0].shape.type = bs_emitterList;
	defs[0].list = &source;
	defs[0].listCount = 1;
	defs[1].shape.type = bs_emitterTrail;
	defs[1].shape.trail = (bsTrail){0, 0.0, 0.0, true, 6.0, 0.0, 0.5, 0.1, 0.3};
	defs[1].rate = 0.0;
	defs[1].radius = 0.01;
	defs[1].species = 1;
	return BesideBoxThreads(bsV3(0, 0, 0), bsV3(0, 1, 0), defs, 2, 4);
}

int EmitterMotionTest(void)
{
	RUN_SUBTEST(BodySurface(false));
	RUN_SUBTEST(BodySurface(true));
	RUN_SUBTEST(BodyEmitterOutside(0.5));
	RUN_SUBTEST(BodyEmitterOutside(0.0));
	RUN_SUBTEST(SlideAndSpin());
	RUN_SUBTEST(FrameVelocity());
	RUN_SUBTEST(RateCurve());
	RUN_SUBTEST(BackDated());
	RUN_SUBTEST(BackDatedClearOfFloor());
	RUN_SUBTEST(NozzleBesideBody());
	RUN_SUBTEST(NozzleBehindBody());
	RUN_SUBTEST(TrailIntoBody());
	RUN_SUBTEST(SplashOffBody());
	RUN_SUBTEST(Refused());
	return 0;
}
