// test_field.c — the paper's rules over a distance/normal grid against closed forms: a particle
// dropped on a floor with impact restitution beta bounces to beta^2 of its height (both measured from
// the threshold, where it bounces; within 2%), drag decays the
// velocity as exp(-delta t), surface flow keeps a stream's speed and turns it around a sphere, the
// spring pushes a particle back out, and nothing acts outside the grid.
#include "test.h"

#include "procedural.h"

#include "blobsim/distance_grid.h"
#include "blobsim/field.h"

#include <stdlib.h>

// A floor: the slab [-0.5, 0.5] x [-0.1, 0] x [-0.5, 0.5], cells of 0.01, 8 cells of margin.
static int MakeFloor(bsDistanceGrid* g)
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
	RUN_SUBTEST(MakeFloor(&g));
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
	RUN_SUBTEST(MakeFloor(&g));
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
	RUN_SUBTEST(MakeFloor(&g));
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
	RUN_SUBTEST(MakeFloor(&g));
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

// Surface flow around a unit sphere: a stream coming from +x keeps its speed, never enters the
// sphere and leaves it turned.
static int SurfaceFlow(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, &tris, &count) == bs_ok);
	bsDistanceGridDef gdef = bsDefaultDistanceGridDef();
	gdef.resolution = 45;
	gdef.margin = 10;
	gdef.threads = 2;
	bsDistanceGrid g;
	ENSURE(bsDistanceGrid_Build(&g, tris, count, &gdef, NULL) == bs_ok);
	free(tris);
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

int FieldTest(void)
{
	RUN_SUBTEST(ImpactBounce());
	RUN_SUBTEST(ImpactRest());
	RUN_SUBTEST(Drag());
	RUN_SUBTEST(Spring());
	RUN_SUBTEST(SurfaceFlow());
	return 0;
}
