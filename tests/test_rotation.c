// test_rotation.c — granular rotation, rolling resistance and Hertz-Mindlin (step.h) against closed
// forms: a sphere on an incline (a plane, and a mesh triangle) rolls without slip at 5/7 g sin theta
// while tan theta <= 7/2 mu, and beyond that slides at g (sin theta - mu cos theta) while its spin grows
// at 5/2 mu g cos theta / r; rolling resistance (cdt) stops a ball rolling on the flat after
// 7 v^2 / (10 mu_r g); a Hertz head-on impact reaches the overlap (15 m v^2 / (16 E* sqrt R))^(2/5)
// and lasts 2.9432 times it over v; and the spin stays 0 with rotation off. A pair turning rigidly
// keeps its tangential spring's length with spring_turn "rescale" and loses it as cos^k of the turn a
// substep with "project" (LIGGGHTS's and LAMMPS's).
#include "blobsim/bvh.h"
#include "blobsim/collide.h"
#include "blobsim/quat.h"
#include "blobsim/step.h"
#include "blobsim/world.h"
#include "ply.h"
#include "test.h"
#include "core.h"
#include "world_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum
{
	bs_onPlane = 0,
	bs_onMesh = 1,
};

// A world on `threads` threads.
static bsWorld* MakeWorld(int threads)
{
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = threads;
	return bsWorld_Create(&wd);
}

// The granular interaction with the exact sweep sliding on the walls, substeps planned; spin as given.
static bsStepDef GranularDef(bool rotation)
{
	bsStepDef def = bsDefaultStepDef();
	def.method = bs_methodExact;
	def.response = bs_responseSlide;
	def.substeps = 0;
	def.interaction.type = bs_interactionGranular;
	def.interaction.rotation = rotation;
	return def;
}

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
	s->world = MakeWorld(1);
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
	s->def = GranularDef(rotation);
	s->def.friction = mu;
	s->def.gravity = bsV3(0, -9.81, 0);
	s->def.dt = 0.001;
	s->def.substeps = 10;
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
	bsWorld* world = MakeWorld(1);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	double r = 0.01;
	bsStepDef def = GranularDef(false);
	def.interaction.contactModel = bs_contactHertz;
	def.interaction.youngsModulus = youngs;
	def.interaction.poissonRatio = poisson;
	def.interaction.restitution = 1.0;
	def.interaction.friction = 0.0;
	def.dt = dt;  // about 1/500 of the contact
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
// contact spins both (the second by 0.8 to 7 rad/s), and the faster spin (45 rad/s) is the slower
// after it (14 to 18).
static int PairKeepsAngularMomentum(bsContactModel law, double tangentialStiffness, bsRollingModel rolling)
{
	bsWorld* world = MakeWorld(1);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	ENSURE(bsParticles_EnableSpin(&p) == bs_ok);
	bsStepDef def = GranularDef(true);
	def.interaction.contactModel = law;
	def.interaction.youngsModulus = 1e6;
	def.interaction.tangentialStiffness = tangentialStiffness;
	def.interaction.contactTime = 0.002;
	def.interaction.friction = 0.5;
	def.interaction.rollingFriction = 0.3;
	def.interaction.rollingModel = rolling;
	def.dt = 1e-4;
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
	ENSURE(bsLength(p.spin[1]) > 0.5 && bsLength(p.spin[0]) < 40.0);
	ENSURE(p.position[1].x - p.position[0].x > 0.026);  // apart again
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- particles.ply: the spin written and read back ---

// Writes set to path and reads it back into *d.
static int PlyRoundTrip(const char* path, const bsParticles* set, bsPlyData* d)
{
	char err[1200];
	ENSURE(bsPly_WriteParticles(path, set, err, sizeof(err)));
	ENSURE(bsPly_Read(path, d, err, sizeof(err)));
	ENSURE(d->count == set->count);
	return 0;
}

// A set that spins writes wx wy wz (read back as the floats they were); one without writes none; a
// particle appended with a spin gives a set without spin its array (the file emitter's way in).
static int PlyKeepsSpin(void)
{
	char dir[] = "/tmp/blobsim-rotation-XXXXXX";
	ENSURE(mkdtemp(dir) != NULL);
	char path[64];
	snprintf(path, sizeof(path), "%s/p.ply", dir);
	bsParticles set;
	memset(&set, 0, sizeof(set));
	bsParticleDef def = {bsV3(1, 2, 3), bsV3(0, -1, 0), 0.5, bs_particleFree, {0, 0, 0}};
	ENSURE(bsParticles_Append(&set, &def) == bs_ok && set.spin == NULL);
	bsPlyData d;
	RUN_SUBTEST(PlyRoundTrip(path, &set, &d));
	ENSURE(!(d.fields & bs_plyHasSpin) && d.particles[0].spin.x == 0.0);
	free(d.particles);
	def.spin = bsV3(0.1, -250.0, 3e-5);
	ENSURE(bsParticles_Append(&set, &def) == bs_ok && set.spin != NULL);
	ENSURE(set.spin[0].y == 0.0 && set.spin[1].y == -250.0);
	RUN_SUBTEST(PlyRoundTrip(path, &set, &d));
	ENSURE(d.fields & bs_plyHasSpin);
	ENSURE(d.particles[1].spin.x == (double)0.1f && d.particles[1].spin.y == -250.0 &&
		d.particles[1].spin.z == (double)3e-5f && d.particles[0].spin.y == 0.0);
	ENSURE(d.particles[1].id == 1 && d.particles[1].radius == 0.5);
	free(d.particles);
	bsParticles_Free(&set);
	ENSURE(unlink(path) == 0 && rmdir(dir) == 0);
	return 0;
}

// --- rolling resistance holds a ball on a ball ---

// A ball on a sleeper (a fixed ball of the same radius r) at polar angle theta from the top, friction
// 0.5 (enough not to slide), spin, rolling friction mu_r: it stays where the rolling torque can hold
// it, r m g sin theta <= mu_r m g cos theta R* (R* = r / 2), that is tan theta <= mu_r / 2, and rolls
// off beyond. Reports how far its direction from the sleeper turned over 2 s and how far it moved over
// the last 0.5 s, in r.
static int OnSleeper(double theta, double mur, bsRollingModel model, double* turned, double* lastMoved)
{
	bsWorld* world = MakeWorld(1);
	bsParticles p;
	ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
	const double r = 0.1;
	bsStepDef def = GranularDef(true);
	def.gravity = bsV3(0, -9.81, 0);
	def.dt = 0.001;
	def.sleepSteps = 1000000;
	def.wakeSpeed = 1e9;
	def.interaction.contactTime = 0.005;
	def.interaction.friction = 0.5;
	def.interaction.tangentialStiffness = 2.0 / 7.0;
	def.interaction.rollingFriction = mur;
	def.interaction.rollingModel = model;
	p.state[0] = bs_particleSleeping;
	p.radius[0] = p.radius[1] = r;
	p.position[1] = bsScale(2.0 * r, bsV3(sin(theta), cos(theta), 0.0));
	bsVec3 before = p.position[1];
	for (int step = 0; step < 2000; ++step)
	{
		before = step == 1500 ? p.position[1] : before;
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	ENSURE(p.state[0] == bs_particleSleeping && p.state[1] == bs_particleFree);
	*turned = atan2(p.position[1].x, p.position[1].y) - theta;
	*lastMoved = bsLength(bsSub(p.position[1], before)) / r;
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// mu_r 0.4: held at tan theta = 0.8 mu_r / 2 by either model, rolled off at 1.25 mu_r / 2 (and at
// 0.8 without rolling friction). epsd2's spring holds it still (1.8e-6 r in the last 0.5 s); cdt's
// torque, which acts only once the ball turns, lets it creep (2.0e-3 r in 0.5 s: each substep it
// turns by what the friction torque gives it in one substep before the cut stops it).
static int RollingHolds(void)
{
	double mur = 0.4, turned, moved;
	for (int model = bs_rollingCdt; model < bs_rollingModelCount; ++model)
	{
		RUN_SUBTEST(OnSleeper(atan(0.8 * mur / 2.0), mur, (bsRollingModel)model, &turned, &moved));
		fprintf(stderr, "  %s held: turned %.3g rad, last 0.5 s %.3g r\n", bsRollingModelName(model), turned, moved);
		ENSURE(fabs(turned) < 0.01 && moved < (model == bs_rollingCdt ? 5e-3 : 1e-5));
		RUN_SUBTEST(OnSleeper(atan(1.25 * mur / 2.0), mur, (bsRollingModel)model, &turned, &moved));
		ENSURE(turned > 1.0);
	}
	RUN_SUBTEST(OnSleeper(atan(0.8 * mur / 2.0), 0.0, bs_rollingCdt, &turned, &moved));
	ENSURE(turned > 1.0);
	return 0;
}

// --- a small poured pile: spin and rolling resistance set the angle of repose ---

// The angle of repose of the pile on the floor y = 0, as tools/repose_angle.py measures it: rings 2 R
// wide about the pile's axis (the mean x, z), each ring's surface the highest centre in it minus R, a
// least-squares line through the rings from 20% of the pile's radius to the last ring higher than R.
static double ReposeAngle(const bsParticles* p, double r)
{
	enum { rings = 64 };
	double top[rings];
	double cx = 0.0, cz = 0.0, n = 0.0;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] != bs_particleEscaped)
		{
			cx += p->position[i].x;
			cz += p->position[i].z;
			n += 1.0;
		}
	}
	cx /= n;
	cz /= n;
	for (int k = 0; k < rings; ++k)
	{
		top[k] = -1.0;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		int k = (int)(hypot(p->position[i].x - cx, p->position[i].z - cz) / (2.0 * r));
		if (p->state[i] != bs_particleEscaped && k < rings)
		{
			top[k] = fmax(top[k], p->position[i].y - r);
		}
	}
	int edge = 0;
	for (int k = 0; k < rings; ++k)
	{
		edge = top[k] > r ? k : edge;
	}
	double sr = 0.0, sh = 0.0, srr = 0.0, srh = 0.0, m = 0.0;
	for (int k = 0; k <= edge; ++k)
	{
		if (top[k] >= 0.0 && k >= 0.2 * (edge + 1))
		{
			double x = (k + 0.5) * 2.0 * r;
			sr += x;
			sh += top[k];
			srr += x * x;
			srh += x * top[k];
			m += 1.0;
		}
	}
	double slope = -(srh - sr * sh / m) / (srr - sr * sr / m);
	return m >= 2.0 ? atan(slope) * 180.0 / BS_PI : 0.0;
}

// 600 grains of radius 2 cm poured from 15 cm onto a floor for 2 s, 3.5 s in all (the settings of
// configs/sand-pile-rolling.json, half its height, a quarter of its grains): with spin and epsd2
// rolling friction 0.3 the pile stands at 25.3 degrees (smaller than the config's, 28.1); with spin
// and no rolling friction it spreads into a sheet, -1.2 degrees (as LIGGGHTS's does, issue 25); 28.2
// without spin.
static int PouredPile(bool rotation, double mur, bsRollingModel model, double* angle)
{
	bsWorld* world = MakeWorld(2);  // the emitters' seed: 1
	bsPlane floor;
	ENSURE(bsMakePlane(bsV3(0, 0, 0), bsV3(0, 1, 0), &floor) == bs_ok);
	ENSURE(bsWorld_AddPlanes(world, &floor, 1) == bs_ok);
	double r = 0.02;
	bsEmitterDef e = bsDefaultEmitterDef();
	e.shape.type = bs_emitterNozzle;
	e.shape.nozzle.center = bsV3(0, 0.15, 0);
	e.shape.nozzle.direction = bsV3(0, -1, 0);
	e.shape.nozzle.diskRadius = 0.04;
	e.shape.nozzle.coneAngle = 3.0 * BS_PI / 180.0;
	e.shape.nozzle.speedMin = e.shape.nozzle.speedMax = 1.0;
	e.radius = r;
	e.rate = 300.0;
	e.stop = 2.0;
	ENSURE(bsWorld_AddEmitter(world, &e) == bs_ok);
	bsStepDef def = GranularDef(rotation);
	def.friction = 1.0;
	def.gravity = bsV3(0, -9.81, 0);
	def.dt = 0.02;
	def.maxSubsteps = 400;
	def.sleepSteps = 10;
	def.sleepSpeed = 0.02;
	def.sleepAcceleration = 1.0;
	def.wakeSpeed = 0.3;
	def.interaction.restitution = 0.2;
	def.interaction.contactTime = 0.04;
	def.interaction.friction = 0.5;
	def.interaction.tangentialStiffness = 0.2857;
	def.interaction.rollingFriction = mur;
	def.interaction.rollingModel = model;
	bsParticles p;
	memset(&p, 0, sizeof(p));
	for (int k = 0; k < 175; ++k)
	{
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
	}
	ENSURE(p.count == 600);
	*angle = ReposeAngle(&p, r);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

static int PileStands(void)
{
	double rolling, sheet;
	RUN_SUBTEST(PouredPile(true, 0.3, bs_rollingEpsd2, &rolling));
	RUN_SUBTEST(PouredPile(true, 0.0, bs_rollingCdt, &sheet));
	fprintf(stderr, "  pile: %.1f degrees with spin and rolling friction 0.3 (epsd2), %.1f without rolling friction\n",
		rolling, sheet);
	ENSURE(rolling > 20.0 && rolling < 36.0);
	ENSURE(sheet < 10.0);
	return 0;
}

// A free particle spinning at a constant w (no gravity, nothing to touch) for t seconds, on 1 and 2
// threads: its orientation is the rotation by |w| t about w (to 1e-12), the same bytes on both; a set
// without orientations gets none from the step.
static int OrientationFollowsSpin(void)
{
	bsVec3 w = bsV3(0.3, -1.2, 2.0);
	bsQuat q[2];
	for (int threads = 1; threads <= 2; ++threads)
	{
		bsWorld* world = MakeWorld(threads);
		ENSURE(world != NULL);
		bsStepDef def = GranularDef(true);
		def.gravity = bsV3(0.0, 0.0, 0.0);
		def.dt = 0.01;
		def.substeps = 4;
		bsParticles p;
		ENSURE(bsParticles_Alloc(&p, 2) == bs_ok);
		ENSURE(bsParticles_EnableOrientation(&p) == bs_ok);
		p.radius[0] = p.radius[1] = 0.1;
		p.position[1] = bsV3(5.0, 0.0, 0.0);
		ENSURE(bsParticles_SetSpin(&p, 0, w) == bs_ok);
		int steps = 150;
		for (int k = 0; k < steps; ++k)
		{
			ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
		}
		double t = steps * def.dt;
		bsQuat expect = bsQuat_FromAxisAngle(w, bsLength(w) * t);
		q[threads - 1] = p.orientation[0];
		fprintf(stderr, "  orientation after %g s at |w| %g: (%.15f %.15f %.15f %.15f), expected (%.15f %.15f %.15f %.15f)\n",
			t, bsLength(w), q[threads - 1].w, q[threads - 1].x, q[threads - 1].y, q[threads - 1].z, expect.w, expect.x,
			expect.y, expect.z);
		ENSURE(fabs(q[threads - 1].x - expect.x) < 1e-12 && fabs(q[threads - 1].y - expect.y) < 1e-12 &&
			fabs(q[threads - 1].z - expect.z) < 1e-12 && fabs(q[threads - 1].w - expect.w) < 1e-12);
		ENSURE(fabs(bsLength(w) * t) > 1.0);  // turned well past a small angle
		ENSURE(p.orientation[1].w == 1.0 && p.orientation[1].x == 0.0);  // the one at rest is unturned
		ENSURE(bsLength(bsSub(p.spin[0], w)) == 0.0);
		bsParticles_Free(&p);
		bsWorld_Destroy(world);
	}
	ENSURE(memcmp(&q[0], &q[1], sizeof(bsQuat)) == 0);
	bsWorld* world = MakeWorld(1);
	bsStepDef def = GranularDef(true);
	def.gravity = bsV3(0.0, 0.0, 0.0);
	def.substeps = 4;
	bsParticles p;
	ENSURE(world != NULL && bsParticles_Alloc(&p, 1) == bs_ok);
	p.radius[0] = 0.1;
	ENSURE(bsParticles_SetSpin(&p, 0, w) == bs_ok);
	bsResult r = bsWorld_Step(world, &def, &p, NULL);
	ENSURE(r == bs_ok && p.orientation == NULL);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// --- the tangential spring's turn (step.h: bsSpringTurn) ---

// Places the pair of radius r, overlap delta, at angle theta about the z axis through the origin, turning
// rigidly at omega rad/s about z: velocities omega x x and spins omega, so the contact points move
// together (c_i = c_j = d / 2) and the spring gets no tangential travel, only the pair's turn.
static void PlaceTurningPair(bsParticles* p, double r, double delta, double theta, double omega)
{
	double half = 0.5 * (2.0 * r - delta);
	bsVec3 n = bsV3(cos(theta), sin(theta), 0.0);
	bsVec3 w = bsV3(0.0, 0.0, omega);
	for (size_t i = 0; i < 2; ++i)
	{
		p->position[i] = bsScale(i == 0 ? -half : half, n);
		p->velocity[i] = bsCross(w, p->position[i]);
		p->spin[i] = w;
	}
}

// The spring of particle i with particle j (world_internal.h), or NULL.
static const bsContactSpring* FindSpring(const bsWorld* world, size_t i, uint32_t j)
{
	for (int k = 0; k < BS_CONTACT_SPRINGS; ++k)
	{
		const bsContactSpring* s = world->springs + i * BS_CONTACT_SPRINGS + k;
		if (s->partner == j)
		{
			return s;
		}
	}
	return NULL;
}

static double SpringLength(const bsContactSpring* s)
{
	return bsLength(bsV3(s->xi[0], s->xi[1], s->xi[2]));
}

// Two grains of radius 0.01 pressed 0.1 r together, friction 10 (never sliding), no gravity, one
// substep a step: a first step with a tangential relative speed u sets the spring xi0 = h u (in the
// plane of the turn), then the pair is set turning rigidly by phi a substep (its state placed anew
// before each step, so only the turn changes the spring). After k turns |xi| is |xi0| with "rescale"
// and |xi0| cos^k phi with "project" (the part along the new n lost each time), within the floats'
// rounding; xi stays in the tangent plane of n; the two particles keep exact negatives of each other's
// spring; *last holds the final springs and states, to compare across thread counts.
static int SpringTurnsWithPair(bsSpringTurn turn, int threads, bsVec3 last[4])
{
	const double r = 0.01, delta = 0.001, u = 0.1, phi = 0.05;
	const int turns = 60;
	bsWorld* world = MakeWorld(threads);
	bsParticles p;
	ENSURE(world != NULL && bsParticles_Alloc(&p, 2) == bs_ok && bsParticles_EnableSpin(&p) == bs_ok);
	bsStepDef def = GranularDef(true);
	def.gravity = bsV3(0.0, 0.0, 0.0);
	def.interaction.contactTime = 0.002;
	def.interaction.tangentialStiffness = 2.0 / 7.0;
	def.interaction.friction = 10.0;
	def.interaction.springTurn = turn;
	def.substeps = 1;
	def.dt = def.interaction.contactTime / 50.0;
	p.radius[0] = p.radius[1] = r;
	PlaceTurningPair(&p, r, delta, 0.0, 0.0);
	p.velocity[0] = bsV3(0.0, -0.5 * u, 0.0);
	p.velocity[1] = bsV3(0.0, 0.5 * u, 0.0);
	ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok && world->springs != NULL);
	const bsContactSpring* s = FindSpring(world, 0, 1);
	ENSURE(s != NULL);
	double xi0 = SpringLength(s);
	ENSURE(fabs(xi0 - def.dt * u) < 1e-6 * def.dt * u);
	for (int k = 1; k <= turns; ++k)
	{
		PlaceTurningPair(&p, r, delta, k * phi, phi / def.dt);
		ENSURE(bsWorld_Step(world, &def, &p, NULL) == bs_ok);
		s = FindSpring(world, 0, 1);
		const bsContactSpring* t = FindSpring(world, 1, 0);
		ENSURE(s != NULL && t != NULL);
		double expected = turn == bs_springTurnProject ? xi0 * pow(cos(phi), k) : xi0;
		ENSURE(fabs(SpringLength(s) - expected) < 1e-6 * xi0);
		bsVec3 n = bsV3(cos(k * phi), sin(k * phi), 0.0);
		ENSURE(fabs(bsDot(bsV3(s->xi[0], s->xi[1], s->xi[2]), n)) < 1e-6 * xi0);
		for (int c = 0; c < 3; ++c)
		{
			ENSURE(t->xi[c] == -s->xi[c]);
		}
	}
	// Rescale kept the length, project lost the factor cos^60(0.05) = 0.928.
	ENSURE(turn == bs_springTurnRescale || SpringLength(s) < 0.93 * xi0);
	if (threads == 1)
	{
		printf("  spring turn %s: |xi| / |xi0| after %d rigid turns of %g rad: %.7f (closed form %.7f)\n",
			bsSpringTurnName(turn), turns, phi, SpringLength(s) / xi0,
			turn == bs_springTurnProject ? pow(cos(phi), turns) : 1.0);
	}
	bsVec3 state[4] = {bsV3(s->xi[0], s->xi[1], s->xi[2]), p.velocity[0], p.velocity[1], p.spin[0]};
	memcpy(last, state, sizeof state);
	bsParticles_Free(&p);
	bsWorld_Destroy(world);
	return 0;
}

// Both turns against their closed forms, the same bytes at 1, 2 and 3 threads.
static int SpringTurn(bsSpringTurn turn)
{
	bsVec3 last[3][4];
	for (int threads = 1; threads <= 3; ++threads)
	{
		RUN_SUBTEST(SpringTurnsWithPair(turn, threads, last[threads - 1]));
	}
	ENSURE(memcmp(last[0], last[1], sizeof last[0]) == 0 && memcmp(last[0], last[2], sizeof last[0]) == 0);
	return 0;
}

int RotationTest(void)
{
	RUN_SUBTEST(SpringTurn(bs_springTurnRescale));
	RUN_SUBTEST(SpringTurn(bs_springTurnProject));
	RUN_SUBTEST(OrientationFollowsSpin());
	RUN_SUBTEST(RollingHolds());
	RUN_SUBTEST(PileStands());
	RUN_SUBTEST(PlyKeepsSpin());
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHooke, 0.0, bs_rollingCdt));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHooke, 2.0 / 7.0, bs_rollingCdt));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHooke, 2.0 / 7.0, bs_rollingEpsd2));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHertz, 0.0, bs_rollingCdt));
	RUN_SUBTEST(PairKeepsAngularMomentum(bs_contactHertz, 0.0, bs_rollingEpsd2));
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
