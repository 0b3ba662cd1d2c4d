// test_rotation.c — granular rotation, rolling resistance and Hertz-Mindlin (step.h) against closed
// forms: a sphere on an incline (a plane, and a mesh triangle) rolls without slip at 5/7 g sin theta
// while tan theta <= 7/2 mu, and beyond that slides at g (sin theta - mu cos theta) while its spin grows
// at 5/2 mu g cos theta / r; rolling resistance (cdt) stops a ball rolling on the flat after
// 7 v^2 / (10 mu_r g); a Hertz head-on impact reaches the overlap (15 m v^2 / (16 E* sqrt R))^(2/5)
// and lasts 2.9432 times it over v; and the spin stays 0 with rotation off.
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "test.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

enum
{
	bs_onPlane = 0,
	bs_onMesh = 1,
};

typedef struct Incline
{
	bsWorld* world;
	bsParticles p;
	bsStepDef def;
	bsPlane plane;
	bsBvh bvh;
	bsVec3 down;  // unit, down the slope
	bsVec3 normal;
} Incline;

// One ball of radius r at rest on a slope of theta degrees (through the origin, down along +x) under
// g = 9.81: a plane, or one large triangle of a mesh; wall friction mu, rolling friction mur.
static int Incline_Init(Incline* s, double theta, double mu, double mur, int surface, bool rotation)
{
	memset(s, 0, sizeof(*s));
	double a = theta * BS_PI / 180.0;
	s->normal = bsV3(sin(a), cos(a), 0.0);
	s->down = bsV3(cos(a), -sin(a), 0.0);
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	s->world = bsWorld_Create(&wd);
	ENSURE(s->world != NULL);
	if (surface == bs_onPlane)
	{
		ENSURE(bsMakePlane(bsV3(0, 0, 0), s->normal, &s->plane) == bs_ok);
		ENSURE(bsWorld_AddPlanes(s->world, &s->plane, 1) == bs_ok);
	}
	else
	{
		bsVec3 side = bsV3(0, 0, 1);
		bsVec3 p0 = bsAdd(bsScale(-10.0, s->down), bsScale(-10.0, side));
		bsVec3 p1 = bsAdd(bsScale(-10.0, s->down), bsScale(10.0, side));
		bsVec3 p2 = bsScale(20.0, s->down);
		bsTriangle t;
		// Counter-clockwise seen from the normal's side.
		ENSURE(bsMakeTriangle(p0, p1, p2, &t) == bs_ok);
		ENSURE(bsBvh_Build(&s->bvh, &t, 1, NULL) == bs_ok);
		ENSURE(bsWorld_AddMesh(s->world, &s->bvh) == bs_ok);
	}
	ENSURE(bsParticles_Alloc(&s->p, 1) == bs_ok);
	double r = 0.01;
	s->p.radius[0] = r;
	s->p.position[0] = bsScale(r * (1.0 + 1e-6), s->normal);
	s->def = bsDefaultStepDef();
	s->def.method = bs_methodExact;
	s->def.response = bs_responseSlide;
	s->def.friction = mu;
	s->def.gravity = bsV3(0, -9.81, 0);
	s->def.dt = 0.001;
	s->def.substeps = 10;
	s->def.interaction.type = bs_interactionGranular;
	s->def.interaction.rotation = rotation;
	s->def.interaction.rollingFriction = mur;
	return 0;
}

static void Incline_Free(Incline* s)
{
	bsWorld_Destroy(s->world);
	bsBvh_Destroy(&s->bvh);
	bsParticles_Free(&s->p);
}

static int Incline_Run(Incline* s, int steps)
{
	for (int k = 0; k < steps; ++k)
	{
		ENSURE(bsWorld_Step(s->world, &s->def, &s->p, NULL) == bs_ok);
	}
	return 0;
}

// The speed down the slope gained from 0.2 s to 0.6 s over 0.4 s, and the spin's rate about the
// axis the rolling turns round (down x normal: rolling down, the spin is -|v| / r along it).
static int Incline_Rates(Incline* s, double* a, double* alpha)
{
	bsVec3 axis = bsCross(s->normal, s->down);
	RUN_SUBTEST(Incline_Run(s, 200));
	double v0 = bsDot(s->p.velocity[0], s->down);
	double w0 = s->p.spin != NULL ? bsDot(s->p.spin[0], axis) : 0.0;
	RUN_SUBTEST(Incline_Run(s, 400));
	*a = (bsDot(s->p.velocity[0], s->down) - v0) / 0.4;
	*alpha = ((s->p.spin != NULL ? bsDot(s->p.spin[0], axis) : 0.0) - w0) / 0.4;
	// On the slope: within a skin of touching it.
	double height = bsDot(s->p.position[0], s->normal) - s->p.radius[0];
	ENSURE(height > -1e-9 && height < 1e-4 * s->p.radius[0]);
	return 0;
}

// 20 degrees, mu 0.5 (tan 20 = 0.36 < 1.75): rolls at 5/7 g sin theta, its contact point at rest
// (v = |spin| r). Without rotation the same ball stays where it is (static Coulomb friction).
static int RollsWithoutSlip(int surface)
{
	Incline s;
	RUN_SUBTEST(Incline_Init(&s, 20.0, 0.5, 0.0, surface, true));
	double a, alpha;
	RUN_SUBTEST(Incline_Rates(&s, &a, &alpha));
	double g = 9.81, sine = sin(20.0 * BS_PI / 180.0);
	ENSURE_SMALL(a / (5.0 / 7.0 * g * sine) - 1.0, 2e-3);
	ENSURE_SMALL(alpha * s.p.radius[0] / a - 1.0, 2e-3);
	bsVec3 axis = bsCross(s.normal, s.down);
	double slip = bsDot(s.p.velocity[0], s.down) - bsDot(s.p.spin[0], axis) * s.p.radius[0];
	ENSURE_SMALL(slip, 1e-3 * bsDot(s.p.velocity[0], s.down));
	Incline_Free(&s);
	RUN_SUBTEST(Incline_Init(&s, 20.0, 0.5, 0.0, surface, false));
	RUN_SUBTEST(Incline_Rates(&s, &a, &alpha));
	ENSURE(s.p.spin == NULL && fabs(a) < 1e-6);
	Incline_Free(&s);
	return 0;
}

// 40 degrees, mu 0.1 (tan 40 = 0.84 > 0.35): slides at g (sin - mu cos) and spins up at
// 5/2 mu g cos / r.
static int SlidesBeyondSevenHalvesMu(int surface)
{
	Incline s;
	RUN_SUBTEST(Incline_Init(&s, 40.0, 0.1, 0.0, surface, true));
	double a, alpha;
	RUN_SUBTEST(Incline_Rates(&s, &a, &alpha));
	double g = 9.81, t = 40.0 * BS_PI / 180.0;
	ENSURE_SMALL(a / (g * (sin(t) - 0.1 * cos(t))) - 1.0, 2e-3);
	ENSURE_SMALL(alpha / (2.5 * 0.1 * g * cos(t) / s.p.radius[0]) - 1.0, 2e-3);
	Incline_Free(&s);
	return 0;
}

// A ball rolling at 1 m/s on the flat with rolling friction mu_r 0.1 decelerates at 5/7 mu_r g and
// stops after 7 v^2 / (10 mu_r g) = 0.714 m, its spin with it, and stays stopped.
static int RollingResistanceStops(int surface)
{
	Incline s;
	RUN_SUBTEST(Incline_Init(&s, 0.0, 0.5, 0.1, surface, true));
	double r = s.p.radius[0], v = 1.0, g = 9.81;
	s.p.velocity[0] = bsV3(v, 0, 0);
	ENSURE(bsParticles_EnableSpin(&s.p) == bs_ok);
	s.p.spin[0] = bsV3(0, 0, -v / r);  // rolling along +x on a floor of normal +y
	double start = s.p.position[0].x;
	double stop = 7.0 * v * v / (10.0 * 0.1 * g);
	double time = v / (5.0 / 7.0 * 0.1 * g);
	RUN_SUBTEST(Incline_Run(&s, (int)(0.5 * time / s.def.dt)));
	// Halfway in time: the speed halved.
	ENSURE_SMALL(s.p.velocity[0].x / (0.5 * v) - 1.0, 5e-3);
	RUN_SUBTEST(Incline_Run(&s, (int)(0.6 * time / s.def.dt)));
	ENSURE_SMALL((s.p.position[0].x - start) / stop - 1.0, 5e-3);
	ENSURE(bsLength(s.p.velocity[0]) < 1e-6 && bsLength(s.p.spin[0]) * r < 1e-6);
	Incline_Free(&s);
	return 0;
}

// --- Hertz: a head-on impact of two equal spheres ---

// Two spheres of radius r meet at relative speed v (elastic: restitution 1); the deepest overlap and
// the contact's duration against the closed forms, to 1%.
static int HertzImpact(double youngs, double poisson, double v, double dt)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = bsWorld_Create(&wd);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	double r = 0.01;
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactModel = bs_contactHertz;
	def.interaction.youngsModulus = youngs;
	def.interaction.poissonRatio = poisson;
	def.interaction.restitution = 1.0;
	def.interaction.friction = 0.0;
	def.dt = dt;  // about 1/500 of the contact
	def.substeps = 0;
	p.radius[0] = p.radius[1] = r;
	p.position[0] = bsV3(-r - 1e-4, 0, 0);
	p.position[1] = bsV3(r + 1e-4, 0, 0);
	p.velocity[0] = bsV3(0.5 * v, 0, 0);
	p.velocity[1] = bsV3(-0.5 * v, 0, 0);
	double deepest = 0.0, first = -1.0, last = -1.0;
	for (int k = 0; k < 200000 && !(last >= 0.0); ++k)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
		double overlap = 2.0 * r - (p.position[1].x - p.position[0].x);
		deepest = fmax(deepest, overlap);
		first = overlap > 0.0 && first < 0.0 ? (k + 1) * def.dt : first;
		last = overlap <= 0.0 && first >= 0.0 ? (k + 1) * def.dt : last;
	}
	double m = 1000.0 * 4.0 / 3.0 * BS_PI * r * r * r;
	double meff = 0.5 * m, reff = 0.5 * r;
	double estar = youngs / (2.0 * (1.0 - poisson * poisson));
	double depth = pow(15.0 * meff * v * v / (16.0 * estar * sqrt(reff)), 0.4);
	ENSURE_SMALL(deepest / depth - 1.0, 0.01);
	ENSURE_SMALL((last - first) / (2.9432 * depth / v) - 1.0, 0.01);
	// Elastic: the pair separates at the speed it met.
	ENSURE_SMALL((p.velocity[1].x - p.velocity[0].x) / v - 1.0, 0.01);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- a pair: angular momentum ---

static double Mass(double r)
{
	return 1000.0 * 4.0 / 3.0 * BS_PI * r * r * r;
}

// The pair's angular momentum about the origin, orbital and spin (I = 2/5 m r^2).
static bsVec3 AngularMomentum(const bsParticles* p)
{
	bsVec3 l = bsV3(0, 0, 0);
	for (size_t i = 0; i < p->count; ++i)
	{
		double m = Mass(p->radius[i]);
		l = bsMulAdd(l, m, bsCross(p->position[i], p->velocity[i]));
		l = bsMulAdd(l, 0.4 * m * p->radius[i] * p->radius[i], p->spin[i]);
	}
	return l;
}

// Two particles of radii 0.01 and 0.015, one spinning, meet off-centre with friction (springs or
// viscous, on either law) and rolling resistance: the torques of friction and of rolling resistance
// are equal and opposite, so the pair's angular momentum (orbital and spin) is kept to rounding, the
// contact spins both, and the faster spin is the slower after it.
static int PairKeepsAngularMomentum(bsContactModel law, double tangentialStiffness)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 1;
	bsWorld* world = bsWorld_Create(&wd);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	ENSURE(bsParticles_EnableSpin(&p) == bs_ok);
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.interaction.type = bs_interactionGranular;
	def.interaction.contactModel = law;
	def.interaction.youngsModulus = 1e6;
	def.interaction.tangentialStiffness = tangentialStiffness;
	def.interaction.contactTime = 0.002;
	def.interaction.friction = 0.5;
	def.interaction.rotation = true;
	def.interaction.rollingFriction = 0.3;
	def.dt = 1e-4;
	def.substeps = 0;
	p.radius[0] = 0.01;
	p.radius[1] = 0.015;
	p.position[0] = bsV3(-0.0101, 0.004, 0.001);
	p.position[1] = bsV3(0.0151, -0.004, 0);
	p.velocity[0] = bsV3(0.3, -0.1, 0.05);
	p.velocity[1] = bsV3(-0.2, 0.05, 0);
	p.spin[0] = bsV3(3, -40, 20);
	bsVec3 before = AngularMomentum(&p);
	for (int k = 0; k < 400; ++k)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	bsVec3 after = AngularMomentum(&p);
	ENSURE(bsLength(bsSub(after, before)) < 1e-12 * bsLength(before));
	ENSURE(bsLength(p.spin[1]) > 1.0 && bsLength(p.spin[0]) < 40.0);
	ENSURE(p.position[1].x - p.position[0].x > 0.026);  // apart again
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

int RotationTest(void)
{
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHooke, 0.0));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHooke, 2.0 / 7.0));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHertz, 0.0));
	for (int surface = bs_onPlane; surface <= bs_onMesh; ++surface)
	{
		RUN_SUBTEST(RollsWithoutSlip(surface));
		RUN_SUBTEST(SlidesBeyondSevenHalvesMu(surface));
		RUN_SUBTEST(RollingResistanceStops(surface));
	}
	RUN_SUBTEST(HertzImpact(1e7, 0.3, 1.0, 2e-6));
	RUN_SUBTEST(HertzImpact(7e10, 0.22, 0.5, 1e-7));
	return 0;
}
