// test_snow.c — sintered bonds (step.h: bond_strength, sintering_time): a resting pair's bond pull
// grows as b (1 - exp(-t / tau)), read from its overlap against the closed form; a ball on a fixed
// ball tilted past its friction angle slides off a fresh contact and holds on an aged one, and with
// rolling_friction_fresh rolls off a fresh contact and holds on an aged one, and with friction_fresh
// (no spin) slides off a fresh contact and holds on an aged one; a checkpoint does not
// refuse bonds (their ages are saved). Bonds to walls (wall_bond): a ball at rest on a mesh face, the
// slope tilted past its friction angle, holds once bonded and slides when fresh or without the bond;
// a checkpoint refuses them.
#include "blobsim/bvh.h"
#include "blobsim/checkpoint.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "test.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The granular interaction with tangential springs and bonds of strength b, growth time tau; no spin.
static bsStepDef BondDef(double b, double tau)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.substeps = 0;
	def.gravity = bsV3(0, 0, 0);
	def.dt = 0.001;
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactTime = 0.005;
	def.interaction.friction = 0.3;
	def.interaction.tangentialStiffness = 2.0 / 7.0;
	def.interaction.bondStrength = b;
	def.interaction.sinteringTime = tau;
	return def;
}

static bsWorld* OneThread(void)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	return bsWorld_Create(&wd);
}

// Two free balls of radius r just touching, no gravity: the bond pulls them together until the spring
// balances it, K delta = b (1 - exp(-t / tau)) (the relative acceleration's, K = (pi^2 + ln^2 e) /
// t_c^2), delta following it while tau is far above the contact time. Checked at t = tau / 4 .. 4 tau
// to 0.5% of b / K.
static int BondGrowsToClosedForm(void)
{
	const double r = 0.05, b = 20.0, tau = 0.2;
	bsStepDef def = BondDef(b, tau);
	bsWorld* world = OneThread();
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	p.radius[0] = p.radius[1] = r;
	p.position[1] = bsV3(2.0 * r - 1e-9, 0, 0);
	double l = log(def.interaction.restitution), tc = def.interaction.contactTime;
	double K = (BS_PI * BS_PI + l * l) / (tc * tc);
	double worst = 0.0;
	for (int step = 1; step <= 800; ++step)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
		if (step % 50 == 0)
		{
			double t = step * def.dt;
			double delta = 2.0 * r - bsLength(bsSub(p.position[1], p.position[0]));
			double expected = b * -expm1(-t / tau) / K;
			worst = fmax(worst, fabs(delta - expected) / (b / K));
		}
	}
	fprintf(stderr, "  bond growth: overlap within %.2g of b / K of the closed form\n", worst);
	ENSURE(worst < 5e-3);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// A ball on a sleeper (a fixed ball of its radius) under gravity straight down through both for
// `rest` seconds, then tilted by theta for 2 s. Reports how far the ball's direction from the sleeper
// turned, in radians.
static int Tilted(bsStepDef def, double theta, double rest, double* turned)
{
	const double r = 0.1;
	def.sleepSteps = 1000000;
	def.wakeSpeed = 1e9;
	bsWorld* world = OneThread();
	ENSURE(world != NULL);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	p.state[0] = bs_particleSleeping;
	p.radius[0] = p.radius[1] = r;
	p.position[1] = bsV3(0, 2.0 * r, 0);
	int steps = (int)(rest / def.dt + 0.5);
	for (int step = 0; step < steps + 2000; ++step)
	{
		def.gravity = step < steps ? bsV3(0, -9.81, 0) : bsV3(9.81 * sin(theta), -9.81 * cos(theta), 0);
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	ENSURE(p.state[0] == bs_particleSleeping && p.state[1] == bs_particleFree);
	*turned = atan2(p.position[1].x, p.position[1].y);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Tilted by 40 degrees with friction 0.3, the ball slides off (tan 40 > 0.3) unless its bond holds,
// g sin 40 <= 0.3 (g cos 40 + b (1 - exp(-t / tau))), which b = 30 m/s^2 does from t = 0.6 tau (tau 1 s).
static int TiltedAfter(double b, double rest, double* turned)
{
	return Tilted(BondDef(b, 1.0), 40.0 * BS_PI / 180.0, rest, turned);
}

// Fresh snow slides, aged snow holds: tilted at once the ball slides off its bond (it grows too late);
// after 5 tau at rest it holds (turned by under 0.01 rad); without bonds it slides off after the rest too.
static int FreshSlidesAgedHolds(void)
{
	double fresh, aged, none;
	RUN_SUBTEST(TiltedAfter(30.0, 0.0, &fresh));
	RUN_SUBTEST(TiltedAfter(30.0, 5.0, &aged));
	RUN_SUBTEST(TiltedAfter(0.0, 5.0, &none));
	fprintf(stderr, "  tilted 40 degrees: fresh bond turned %.3g rad, aged %.3g rad, no bond %.3g rad\n", fresh,
		aged, none);
	ENSURE(fresh > 1.0 && none > 1.0);
	ENSURE(fabs(aged) < 0.01);
	return 0;
}

// A ball on a sleeper with a bond too weak to matter (1e-3 m/s^2, tau 1 s), tilted by 20 degrees:
// without a fresh key (constant), and with the fresh key `rolling` says (rolling_friction_fresh, else
// friction_fresh) at 0, tilted at once (fresh) and after 5 tau at rest (aged). The fresh ball leaves
// its contact (turned by over 1 rad); the aged one and the constant one hold (under 0.01 rad).
static int FreshLeavesAgedHolds(bsStepDef def, bool rolling, const char* what)
{
	const double theta = 20.0 * BS_PI / 180.0;
	double fresh, aged, constant;
	RUN_SUBTEST(Tilted(def, theta, 0.0, &constant));
	*(rolling ? &def.interaction.rollingFresh : &def.interaction.frictionFresh) = 0.0;
	RUN_SUBTEST(Tilted(def, theta, 0.0, &fresh));
	RUN_SUBTEST(Tilted(def, theta, 5.0, &aged));
	fprintf(stderr, "  tilted 20 degrees, %s: fresh contact turned %.3g rad, aged %.3g rad, without the fresh key "
		"%.3g rad\n", what, fresh, aged, constant);
	ENSURE(fresh > 1.0);
	ENSURE(fabs(aged) < 0.01 && fabs(constant) < 0.01);
	return 0;
}

// Fresh snow rolls, aged snow holds (rolling_friction_fresh): with spin, epsd2's rolling friction 1 and
// friction 1 (no sliding). With a fresh contact's mu_r 0 the ball rolls off; after 5 tau its mu_r has
// grown to 1 - exp(-5); without the fresh key mu_r is 1 from the start.
static int FreshRollsAgedHolds(void)
{
	bsStepDef def = BondDef(1e-3, 1.0);
	def.interaction.friction = 1.0;
	def.interaction.rotation = true;
	def.interaction.rollingModel = bs_rollingEpsd2;
	def.interaction.rollingFriction = 1.0;
	return FreshLeavesAgedHolds(def, true, "spin, mu_r 1, fresh mu_r 0");
}

// Fresh snow slides, aged snow holds (friction_fresh): no spin, friction 0.6 (tan 20 = 0.36). With a
// fresh contact's mu 0 the ball slides off (its mu reaches 0.36 only after 0.9 tau); after 5 tau its mu
// has grown to 0.6 (1 - exp(-5)); without the fresh key mu is 0.6 from the start.
static int FreshFrictionSlidesAgedHolds(void)
{
	bsStepDef def = BondDef(1e-3, 1.0);
	def.interaction.friction = 0.6;
	return FreshLeavesAgedHolds(def, false, "no spin, mu 0.6, fresh mu 0");
}

// The bonds' ages are in a checkpoint ('BOND', test_checkpoint.c resumes a run with them): a run with
// bonds is not refused.
static int CheckpointKeepsBonds(void)
{
	bsWorld* world = OneThread();
	ENSURE(world != NULL);
	bsStepDef def = BondDef(5.0, 1.0);
	ENSURE(bsWorld_CheckpointGap(world, &def) == NULL);
	bsWorld_Destroy(world);
	return 0;
}

// A ball of radius 1 cm on one large mesh triangle (the plane y = 0, facing up), wall friction 0.3,
// bonds to walls of strength w (tau 0.2 s), spin with rolling friction 0.3 or none: gravity straight
// down for `rest` seconds, then tilted by 40 degrees for 1 s. Reports how far the ball moved along the
// face, in radii.
static int OnTiltedFace(double w, double rest, bool spin, double* moved)
{
	const double r = 0.01;
	bsTriangle t;
	ENSURE(bsMakeTriangle(bsV3(-10, 0, -10), bsV3(0, 0, 10), bsV3(10, 0, -10), &t) == bs_ok);
	bsBvh bvh;
	ENSURE(bsBvh_Build(&bvh, &t, 1, NULL) == bs_ok);
	bsWorld* world = OneThread();
	ENSURE(world != NULL);
	ENSURE(bsWorld_AddMesh(world, &bvh) == bs_ok);
	bsStepDef def = BondDef(0.0, 0.2);
	def.interaction.wallBond = w;
	def.interaction.rotation = spin;
	def.interaction.rollingFriction = spin ? 0.3 : 0.0;
	def.friction = 0.3;
	def.substeps = 10;
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 1) == bs_ok);
	p.radius[0] = r;
	p.position[0] = bsV3(0, r * (1.0 + 1e-6), 0);
	int steps = (int)(rest / def.dt + 0.5);
	bsVec3 start = p.position[0];
	for (int step = 0; step < steps + 1000; ++step)
	{
		const double theta = 40.0 * BS_PI / 180.0;
		def.gravity = step < steps ? bsV3(0, -9.81, 0) : bsV3(9.81 * sin(theta), -9.81 * cos(theta), 0);
		start = step == steps ? p.position[0] : start;
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	ENSURE(p.state[0] == bs_particleFree);
	*moved = fabs(p.position[0].x - start.x) / r;
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	bsBvh_Destroy(&bvh);
	return 0;
}

// Tilted by 40 degrees with wall friction 0.3 (tan 40 = 0.84), the ball slides unless its bond to the
// face holds, g sin 40 <= 0.3 (g cos 40 + w (1 - exp(-t / tau))), which w = 30 m/s^2 does from
// t = 0.6 tau: after 5 tau at rest it holds (it creeps by 0.009 r in the second, as any ball the wall's
// static friction holds: each substep it travels the contact skin towards the face before the contact
// stops it, and the same share of its step along it); tilted at once (it never rests, so never bonds)
// or without the bond it slides off (about 200 radii in the second), with spin as without.
static int WallBondHolds(void)
{
	for (int spin = 0; spin <= 1; ++spin)
	{
		double fresh, aged, none;
		RUN_SUBTEST(OnTiltedFace(30.0, 0.0, spin, &fresh));
		RUN_SUBTEST(OnTiltedFace(30.0, 1.0, spin, &aged));
		RUN_SUBTEST(OnTiltedFace(0.0, 1.0, spin, &none));
		fprintf(stderr, "  on a face tilted 40 degrees%s: fresh bond moved %.3g r, aged %.3g r, no bond %.3g r\n",
			spin ? " with spin" : "", fresh, aged, none);
		ENSURE(fresh > 10.0 && none > 10.0);
		ENSURE(aged < 0.02);
	}
	return 0;
}

// A checkpoint does not hold the walls' bond ages: a run with them is refused.
static int CheckpointRefusesWallBonds(void)
{
	bsWorld* world = OneThread();
	ENSURE(world != NULL);
	bsStepDef def = BondDef(0.0, 1.0);
	def.interaction.wallBond = 5.0;
	const char* gap = bsWorld_CheckpointGap(world, &def);
	ENSURE(gap != NULL && strstr(gap, "wall_bond") != NULL);
	bsWorld_Destroy(world);
	return 0;
}

int SnowTest(void)
{
	RUN_SUBTEST(WallBondHolds());
	RUN_SUBTEST(CheckpointRefusesWallBonds());
	RUN_SUBTEST(CheckpointKeepsBonds());
	RUN_SUBTEST(BondGrowsToClosedForm());
	RUN_SUBTEST(FreshSlidesAgedHolds());
	RUN_SUBTEST(FreshRollsAgedHolds());
	RUN_SUBTEST(FreshFrictionSlidesAgedHolds());
	return 0;
}
