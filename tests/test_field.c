// test_field.c — the paper's rules over a distance/normal grid against closed forms: a particle
// dropped on a floor with impact restitution beta bounces to beta^2 of its height (both measured from
// the threshold, where it bounces; within 2%), drag decays the
// velocity as exp(-delta t), surface flow keeps a stream's speed and turns it around a sphere, the
// spring pushes a particle back out, and nothing acts outside the grid.
#include "test.h"

#include "procedural.h"

#include "blobsim/field.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdlib.h>
#include <string.h>

// A floor: the slab [-0.5, 0.5] x [-0.1, 0] x [-0.5, 0.5], cells of 0.01, 8 cells of margin (also
// the grid tree test's).
int FieldMakeFloor(bsDistanceGrid* g)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeBoxMesh(bsV3(-0.5, -0.1, -0.5), bsV3(0.5, 0.0, 0.5), 2, false, &tris, &count) == bs_ok);
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.cellSize = 0.01;
	def.margin = 8;
	def.threads = 2;
	ENSURE(bsDistanceGrid_Build(g, tris, count, &def, NULL) == bs_ok);
	free(tris);
	return 0;
}

// Drops a particle from height h (above the floor's top, y = 0) under gravity and returns the top of
// its first bounce.
static double BounceHeight(const bsDistanceGrid* g, const bsFieldDef* def, double h, double dt)
{
	bsVec3 x = bsV3(0.013, h, -0.021);
	bsVec3 v = bsV3(0.0, 0.0, 0.0);
	bool bounced = false;
	double top = -1.0;
	for (int step = 0; step < 200000; ++step)
	{
		v.y -= 9.81 * dt;
		bsField_Apply(g, def, x, dt, &v);
		bounced = bounced || v.y > 0.0;
		x = bsMulAdd(x, dt, v);
		if (bounced)
		{
			top = x.y > top ? x.y : top;
			if (v.y < 0.0)
			{
				return top;
			}
		}
	}
	return -1.0;
}

static int ImpactBounce(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	const double betas[3] = {0.7, 0.5, 0.3};
	for (int b = 0; b < 3; ++b)
	{
		bsFieldDef def = bsDefaultFieldDef();
		def.threshold = 0.002;
		def.restitution = betas[b];
		def.trilinear = true;
		// Heights above the threshold, where the particle bounces (its contact distance).
		double h = 0.5 - def.threshold;
		double top = BounceHeight(&g, &def, 0.5, 1e-4) - def.threshold;
		double expected = betas[b] * betas[b] * h;
		printf("  impact beta %.1f: bounced to %.5f above the threshold, beta^2 h = %.5f\n", betas[b], top,
			expected);
		ENSURE(fabs(top - expected) <= 0.02 * expected);
	}
	bsDistanceGrid_Free(&g);
	return 0;
}

// With beta = 0 the particle stops at the threshold and stays there (the paper's non-bouncy surface).
static int ImpactRest(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.threshold = 0.01;
	def.trilinear = true;
	bsVec3 x = bsV3(0.0, 0.2, 0.0), v = bsV3(0.0, 0.0, 0.0);
	double dt = 1e-3;
	for (int step = 0; step < 2000; ++step)
	{
		v.y -= 9.81 * dt;
		bsField_Apply(&g, &def, x, dt, &v);
		x = bsMulAdd(x, dt, v);
	}
	// At the threshold, to within one step's fall g dt^2 (and float rounding of the distance).
	ENSURE(fabs(x.y - 0.01) <= 2.0 * 9.81 * dt * dt && fabs(v.y) < 1e-12);
	bsDistanceGrid_Free(&g);
	return 0;
}

// Drag: a particle gliding within the contact distance slows as exp(-delta t), exactly.
static int Drag(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.drag = 2.0;
	def.contactDistance = 0.05;
	bsVec3 x = bsV3(-0.3, 0.02, 0.0), v = bsV3(1.0, 0.0, 0.0);
	double dt = 1e-3, t = 0.0;
	for (int step = 0; step < 300; ++step)
	{
		ENSURE(bsField_Apply(&g, &def, x, dt, &v));
		x = bsMulAdd(x, dt, v);
		t += dt;
	}
	ENSURE_SMALL(v.x / exp(-2.0 * t) - 1.0, 1e-12);
	// Out of contact (in the grid, which reaches 0.08 above the floor), nothing.
	x = bsV3(0.0, 0.07, 0.0);
	v = bsV3(1.0, 0.0, 0.0);
	ENSURE(bsField_Apply(&g, &def, x, dt, &v) && v.x == 1.0);
	// Outside the grid, nothing either.
	ENSURE(!bsField_Apply(&g, &def, bsV3(5.0, 0.0, 0.0), dt, &v) && v.x == 1.0);
	bsDistanceGrid_Free(&g);
	return 0;
}

// Spring: a particle falling into the spring's reach is thrown back up.
static int Spring(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.spring = 20000.0;
	def.springDistance = 0.05;
	bsVec3 x = bsV3(0.0, 0.2, 0.0), v = bsV3(0.0, 0.0, 0.0);
	double dt = 1e-4, lowest = 1.0;
	bool up = false;
	for (int step = 0; step < 20000 && !up; ++step)
	{
		v.y -= 9.81 * dt;
		bsField_Apply(&g, &def, x, dt, &v);
		x = bsMulAdd(x, dt, v);
		lowest = x.y < lowest ? x.y : lowest;
		up = lowest < 0.05 && v.y > 0.0 && x.y > 0.05;
	}
	ENSURE(up && lowest > 0.0);
	bsDistanceGrid_Free(&g);
	return 0;
}

// A unit sphere (icosphere of 5,120 triangles) in a grid of 45 cells across, 10 of margin.
static int MakeSphere(bsDistanceGrid* g)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef gdef = bsDefaultDistanceGridDef();
	gdef.resolution = 45;
	gdef.margin = 10;
	gdef.threads = 2;
	ENSURE(bsDistanceGrid_Build(g, tris, count, &gdef, NULL) == bs_ok);
	free(tris);
	return 0;
}

// Surface flow around a unit sphere: a stream coming from +x keeps its speed, never enters the
// sphere and leaves it turned.
static int SurfaceFlow(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(MakeSphere(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.flowIn = 12.0;
	def.flowOut = 3.0;
	def.flowDistance = 0.3;
	double closest = HUGE_VAL, worstSpeed = 0.0;
	for (int k = 1; k <= 8; ++k)
	{
		bsVec3 x = bsV3(1.6, 0.1 * k, 0.05), v = bsV3(-1.0, 0.0, 0.0);
		double dt = 1e-3;
		for (int step = 0; step < 3000; ++step)
		{
			bsField_Apply(&g, &def, x, dt, &v);
			x = bsMulAdd(x, dt, v);
			closest = fmin(closest, bsLength(x) - 1.0);
			worstSpeed = fmax(worstSpeed, fabs(bsLength(v) - 1.0));
		}
		ENSURE(v.y > 0.0);  // deflected away from the sphere, upwards
	}
	printf("  surface flow: closest approach %.4f, speed within %.2g of 1\n", closest, worstSpeed);
	ENSURE(closest > 0.0);
	ENSURE(worstSpeed < 1e-12);
	bsDistanceGrid_Free(&g);
	return 0;
}

// --- the rules as a force of the step (src/step/forces.c), through bsWorld_Step ---

// A world without colliders on `threads` threads, and the step's settings with the field's grid.
static bsWorld* FieldWorld(int threads)
{
	bsWorldDef def = bsDefaultWorldDef();
	def.threads = threads;
	return bsWorld_Create(&def);
}

static bsStepDef FieldStep(const bsDistanceGrid* g, const bsFieldDef* field, double dt, bsVec3 gravity)
{
	bsStepDef st = bsDefaultStepDef();
	st.dt = dt;
	st.gravity = gravity;
	st.fieldGrid = g;
	st.field = *field;
	return st;
}

// bsWorld_Step refuses a field out of range (field.h's list), one setting wrong at a time, and takes
// the same settings in range.
static int StepRefusesBadField(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsWorld* world = FieldWorld(1);
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.position[0] = bsV3(0.013, 0.3, -0.021);
	p.velocity[0] = bsV3(0.0, 0.0, 0.0);
	p.radius[0] = 0.001;
	bsFieldDef good = bsDefaultFieldDef();
	good.spring = 10.0;
	good.springDistance = 0.1;
	good.threshold = 0.02;
	good.restitution = 0.5;
	good.drag = 2.0;
	good.contactDistance = 0.1;
	good.flowIn = 3.0;
	good.flowOut = -3.0;
	good.flowDistance = 0.2;
	const double nan = NAN;
	struct
	{
		double* field;
		double value;
	} bad[] = {
		{&good.spring, -1.0}, {&good.spring, nan}, {&good.springDistance, 0.0}, {&good.springDistance, -0.1},
		{&good.threshold, nan}, {&good.threshold, INFINITY}, {&good.restitution, -0.01},
		{&good.restitution, 1.01}, {&good.restitution, nan}, {&good.drag, -1.0}, {&good.drag, INFINITY},
		{&good.contactDistance, 0.0}, {&good.flowIn, nan}, {&good.flowOut, -INFINITY},
		{&good.flowDistance, 0.0}, {&good.flowDistance, -1.0},
	};
	bsStepDef st = FieldStep(&g, &good, 0.01, bsV3(0.0, -9.81, 0.0));
	ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k)
	{
		double keep = *bad[k].field;
		*bad[k].field = bad[k].value;
		st = FieldStep(&g, &good, 0.01, bsV3(0.0, -9.81, 0.0));
		ENSURE(!bsFieldDef_IsValid(&good));
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_errInvalidArgument);
		*bad[k].field = keep;
	}
	// Each rule off with its distance 0 is fine, and so is the impact off (threshold < 0).
	bsFieldDef off = bsDefaultFieldDef();
	off.threshold = -1.0;
	st = FieldStep(&g, &off, 0.01, bsV3(0.0, -9.81, 0.0));
	ENSURE(bsFieldDef_IsValid(&off) && bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsDistanceGrid_Free(&g);
	return 0;
}

// Dropped from 0.5 above the floor through the step, with impact beta: the first bounce's top is
// beta^2 of the height (both from the threshold, where it bounces), within 2%. Trilinear lookup, and
// the nearest cell for beta 0.7: its distance is the cell centre's, so the bounce point is off by up
// to half a cell (0.005 here), 1% of a 0.5 drop but more of a low bounce (beta 0.4: 2.2%).
static int StepBounce(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsWorld* world = FieldWorld(1);
	ENSURE(world != NULL);
	const double betas[3] = {0.7, 0.4, 0.7};
	for (int b = 0; b < 3; ++b)
	{
		bsFieldDef def = bsDefaultFieldDef();
		def.threshold = 0.002;
		def.restitution = betas[b];
		def.trilinear = b < 2;
		bsStepDef st = FieldStep(&g, &def, 1e-4, bsV3(0.0, -9.81, 0.0));
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
		p.position[0] = bsV3(0.013, 0.5, -0.021);
		p.velocity[0] = bsV3(0.0, 0.0, 0.0);
		p.radius[0] = 0.001;
		bool bounced = false;
		double top = -1.0;
		for (int step = 0; step < 100000; ++step)
		{
			ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
			bounced = bounced || p.velocity[0].y > 0.0;
			if (bounced)
			{
				top = fmax(top, p.position[0].y);
				if (p.velocity[0].y < 0.0)
				{
					break;
				}
			}
		}
		double expected = betas[b] * betas[b] * (0.5 - def.threshold);
		printf("  step, impact beta %.1f, %s: bounced to %.5f above the threshold, beta^2 h = %.5f\n",
			betas[b], def.trilinear ? "trilinear" : "nearest", top - def.threshold, expected);
		ENSURE(fabs(top - def.threshold - expected) <= 0.02 * expected);
		bsParticles_Free(&p);
	}
	bsWorld_Destroy(world);
	bsDistanceGrid_Free(&g);
	return 0;
}

// Drag through the step, with air drag too: within theta the speed decays as exp(-(drag + delta) t).
static int StepDrag(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(FieldMakeFloor(&g));
	bsWorld* world = FieldWorld(1);
	ENSURE(world != NULL);
	bsFieldDef def = bsDefaultFieldDef();
	def.drag = 2.0;
	def.contactDistance = 0.05;
	bsStepDef st = FieldStep(&g, &def, 1e-3, bsV3(0.0, 0.0, 0.0));
	st.drag = 0.5;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	p.position[0] = bsV3(-0.3, 0.02, 0.0);  // in contact
	p.position[1] = bsV3(-0.3, 0.07, 0.1);  // in the grid, beyond theta: air drag only
	for (int i = 0; i < 2; ++i)
	{
		p.velocity[i] = bsV3(1.0, 0.0, 0.0);
		p.radius[i] = 0.001;
	}
	int steps = 300;
	for (int step = 0; step < steps; ++step)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
	}
	double t = steps * 1e-3;
	ENSURE_SMALL(p.velocity[0].x / exp(-2.5 * t) - 1.0, 1e-12);
	ENSURE_SMALL(p.velocity[1].x / exp(-0.5 * t) - 1.0, 1e-12);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsDistanceGrid_Free(&g);
	return 0;
}

// A stream aimed at a unit sphere through the step, 9 particles. Returns the largest inward normal
// part of the velocity, -v . x/|x| / |v|, seen within `near` of the surface once the particle has been
// 0.2 s that near (-infinity when none was), and the closest approach.
static int StreamNormal(const bsDistanceGrid* g, const bsFieldDef* def, double near, double* worstNormal,
	double* closest)
{
	bsWorld* world = FieldWorld(2);
	ENSURE(world != NULL);
	bsStepDef st = FieldStep(g, def, 1e-3, bsV3(0.0, 0.0, 0.0));
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 9) == bs_ok);
	double inFlow[9] = {0};
	for (int k = 0; k < 9; ++k)
	{
		p.position[k] = bsV3(1.6, 0.05 + 0.1 * k, 0.05);
		p.velocity[k] = bsV3(-1.0, 0.0, 0.0);
		p.radius[k] = 0.001;
	}
	*worstNormal = -HUGE_VAL;
	*closest = HUGE_VAL;
	for (int step = 0; step < 3000; ++step)
	{
		ENSURE(bsWorld_Step(world, &st, &p, NULL) == bs_ok);
		for (int k = 0; k < 9; ++k)
		{
			double r = bsLength(p.position[k]);
			*closest = fmin(*closest, r - 1.0);
			inFlow[k] = r - 1.0 < def->flowDistance ? inFlow[k] + st.dt : 0.0;
			if (r - 1.0 < near && inFlow[k] >= 0.2)
			{
				double vn = -bsDot(p.velocity[k], p.position[k]) / (r * bsLength(p.velocity[k]));
				*worstNormal = fmax(*worstNormal, vn);
			}
		}
	}
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Surface flow keeps the stream tangential near the sphere: once a particle has been 0.2 s within
// the flow distance (rho_in 12 turns a unit velocity by 2.4 rad in that time), the inward normal part
// of its velocity stays under 0.05 of the speed there (measured: -0.185, all moving along or away).
// Without the flow the same stream goes straight in: the bound fails and the particles cross.
static int StepSurfaceFlow(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(MakeSphere(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.flowIn = 12.0;
	def.flowOut = 3.0;
	def.flowDistance = 0.3;
	double worst, closest;
	RUN_SUBTEST(StreamNormal(&g, &def, def.flowDistance, &worst, &closest));
	printf("  step, surface flow: inward normal speed within %.2f of the sphere at most %.4f of the speed, "
		"closest approach %.4f\n", def.flowDistance, worst, closest);
	ENSURE(isfinite(worst) && worst < 0.05 && closest > 0.0);
	def.flowIn = def.flowOut = 0.0;
	RUN_SUBTEST(StreamNormal(&g, &def, 0.3, &worst, &closest));
	ENSURE(worst > 0.9 && closest < 0.0);
	bsDistanceGrid_Free(&g);
	return 0;
}

// Every rule at once on 3000 particles around the sphere: byte-identical at 1 and 2 threads.
static int StepThreads(void)
{
	bsDistanceGrid g;
	RUN_SUBTEST(MakeSphere(&g));
	bsFieldDef def = bsDefaultFieldDef();
	def.spring = 50.0;
	def.springDistance = 0.1;
	def.threshold = 0.02;
	def.restitution = 0.6;
	def.drag = 1.0;
	def.contactDistance = 0.05;
	def.flowIn = 12.0;
	def.flowOut = 3.0;
	def.flowDistance = 0.3;
	def.trilinear = true;
	bsParticles p[2];
	for (int t = 0; t < 2; ++t)
	{
		bsWorld* world = FieldWorld(t + 1);
		ENSURE(world != NULL);
		bsStepDef st = FieldStep(&g, &def, 2e-3, bsV3(0.0, -9.81, 0.0));
		ENSURE(bsParticles_Alloc(&p[t], 3000) == bs_ok);
		for (size_t i = 0; i < 3000; ++i)
		{
			double a = 0.001 * (double)i;
			p[t].position[i] = bsV3(1.3 * cos(7.0 * a), 1.5 + 0.1 * sin(3.0 * a), 1.3 * sin(5.0 * a));
			p[t].velocity[i] = bsV3(-0.5 * cos(a), -1.0, 0.2 * sin(11.0 * a));
			p[t].radius[i] = 0.001;
		}
		for (int step = 0; step < 300; ++step)
		{
			ENSURE(bsWorld_Step(world, &st, &p[t], NULL) == bs_ok);
		}
		bsWorld_Destroy(world);
	}
	ENSURE(memcmp(p[0].position, p[1].position, 3000 * sizeof(bsVec3)) == 0);
	ENSURE(memcmp(p[0].velocity, p[1].velocity, 3000 * sizeof(bsVec3)) == 0);
	bsParticles_Free(&p[0]);
	bsParticles_Free(&p[1]);
	bsDistanceGrid_Free(&g);
	return 0;
}

int FieldTest(void)
{
	RUN_SUBTEST(ImpactBounce());
	RUN_SUBTEST(ImpactRest());
	RUN_SUBTEST(Drag());
	RUN_SUBTEST(Spring());
	RUN_SUBTEST(SurfaceFlow());
	RUN_SUBTEST(StepBounce());
	RUN_SUBTEST(StepDrag());
	RUN_SUBTEST(StepSurfaceFlow());
	RUN_SUBTEST(StepThreads());
	RUN_SUBTEST(StepRefusesBadField());
	return 0;
}
