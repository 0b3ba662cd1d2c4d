// step.c — bsWorld_Step: the phases of a step (step.h) on the world's pool.
#include "body_dynamics.h"
#include "array.h"
#include "collider_body.h"
#include "forces.h"
#include "interaction_class.h"
#include "morton.h"
#include "sleep.h"
#include "stuck_grid.h"
#include "world_internal.h"

#include "blobsim/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char* bsResponseName(bsResponse response)
{
	static const char* names[] = {"stick", "slide", "bounce"};
	return (unsigned)response < (unsigned)bs_responseCount ? names[response] : "unknown";
}

bool bsParseResponse(const char* name, bsResponse* response)
{
	for (int r = 0; r < bs_responseCount; ++r)
	{
		if (strcmp(name, bsResponseName((bsResponse)r)) == 0)
		{
			*response = (bsResponse)r;
			return true;
		}
	}
	return false;
}

bsStepDef bsDefaultStepDef(void)
{
	bsStepDef def;
	memset(&def, 0, sizeof(def));
	def.dt = 1.0;
	def.substeps = 1;
	def.method = bs_methodKarabassi;
	def.response = bs_responseStick;
	def.restitution = 0.5;
	def.friction = 0.0;
	def.maxContacts = 4;
	def.maxSubsteps = 1000;
	def.interaction = bsDefaultInteractionDef();
	bsForces_SetDefaults(&def);
	return def;
}

void bsStepStats_Add(bsStepStats* total, const bsStepStats* add)
{
	for (int t = 0; t < bs_testCount; ++t)
	{
		for (int b = 0; b < bs_branchCount; ++b)
		{
			total->contacts[t][b] += add->contacts[t][b];
		}
	}
	total->queries += add->queries;
	total->nodesVisited += add->nodesVisited;
	total->trianglesTested += add->trianglesTested;
	total->emitted += add->emitted;
	total->stuck += add->stuck;
	total->escaped += add->escaped;
	total->expired += add->expired;
	total->contactLimit += add->contactLimit;
	total->fellAsleep += add->fellAsleep;
	total->woken += add->woken;
	total->substeps += add->substeps;
	total->pairs += add->pairs;
	total->contactPairs += add->contactPairs;
	total->fluidSubsteps += add->fluidSubsteps;
	total->divergenceIterations += add->divergenceIterations;
	total->densityIterations += add->densityIterations;
	total->viscosityIterations += add->viscosityIterations;
	total->unconverged += add->unconverged;
	total->densityErrorMean = fmax(total->densityErrorMean, add->densityErrorMean);
	total->densityErrorMax = fmax(total->densityErrorMax, add->densityErrorMax);
}

bsStepProfile bsWorld_GetProfile(const bsWorld* world)
{
	return world->profile;
}

void bsStepProfile_Add(bsStepProfile* total, const bsStepProfile* add)
{
	total->emit += add->emit;
	total->plan += add->plan;
	total->interaction += add->interaction;
	total->forces += add->forces;
	total->colliders += add->colliders;
	total->move += add->move;
	total->sleep += add->sleep;
	total->expire += add->expire;
}

double bsStepProfile_Total(const bsStepProfile* p)
{
	return p->emit + p->plan + p->interaction + p->forces + p->colliders + p->move + p->sleep + p->expire;
}

// Ends a phase: adds the time since *clock to it and starts the next one there, so the phases tile
// the step (one clock read per phase).
static void bsLap(double* clock, double* phase)
{
	double now = bsNow();
	*phase += now - *clock;
	*clock = now;
}

static bool bsStepDef_IsValid(const bsStepDef* def)
{
	return def->maxContacts >= 1 && def->maxContacts <= BS_MAX_CONTACTS && def->substeps >= 0 &&
		(def->substeps >= 1 || def->maxSubsteps >= 1) && def->dt > 0.0 && isfinite(def->dt) &&
		(unsigned)def->method < (unsigned)bs_methodCount && (unsigned)def->response < (unsigned)bs_responseCount &&
		bsInteractionDef_IsValid(&def->interaction) &&
		def->sleepSteps >= 0 && def->sleepSpeed >= 0.0 && isfinite(def->sleepSpeed) && def->sleepAcceleration >= 0.0 &&
		isfinite(def->sleepAcceleration) && def->wakeSpeed >= 0.0 && !isnan(def->wakeSpeed) &&
		bsForces_AreValid(def);
}

// The substeps of this step: as given, or as the interaction's rule plans them (step.h) from
// the particles as they are after the emit phase; more than maxSubsteps is bs_errUnstable. Moving
// bodies raise either to as many as keep every body's turn per substep within its maxAngle
// (collider_body.c: the bound of the relative sweep).
static bsResult bsStepSubsteps(const bsWorld* world, const bsStepDef* def, const bsParticles* particles,
	int* substeps)
{
	*substeps = def->substeps;
	double planned = (double)def->substeps;
	if (def->substeps < 1)
	{
		bsSubstepPlan plan;
		bsInteraction_PlanSubsteps(&def->interaction, def->dt, def->gravity, particles, &plan);
		const bsInteractionClass* c = bsInteractionClass_Of(def->interaction.type);
		planned = c->worldSubsteps != NULL ? c->worldSubsteps(world, &def->interaction, def->dt, plan.substeps) :
			plan.substeps;
	}
	if (world->bodies != NULL)
	{
		planned = fmax(planned, bsWorldBodies_Substeps(world->bodies, def->dt));
	}
	if (def->substeps >= 1 && planned <= (double)def->substeps)
	{
		return bs_ok;
	}
	if (!(planned <= (double)def->maxSubsteps))
	{
		return bs_errUnstable;
	}
	*substeps = (int)planned;
	return bs_ok;
}

// --- emit ---

// Remembers that particles [first, first + count) were born at the world's time, when they die.
static bsResult bsWorld_AddBirth(bsWorld* world, const bsEmitterDef* def, size_t first, size_t count)
{
	if (count == 0 || !isfinite(def->lifetime))
	{
		return bs_ok;
	}
	if (!BS_ARRAY_RESERVE(world->births, world->birthCapacity, world->birthCount + 1))
	{
		return bs_errOutOfMemory;
	}
	bsBirth b = {first, count, world->time + def->lifetime};
	world->births[world->birthCount++] = b;
	return bs_ok;
}

// Remembers that particles [first, first + count) joined at the world's time (bsWorld_BirthTime): one
// batch for a step's emissions, however many emitters.
static bsResult bsWorld_AddBatch(bsWorld* world, size_t first, size_t count)
{
	if (count == 0 || (world->batchCount > 0 && world->batches[world->batchCount - 1].time == world->time))
	{
		return bs_ok;
	}
	if (!BS_ARRAY_RESERVE(world->batches, world->batchCapacity, world->batchCount + 1))
	{
		return bs_errOutOfMemory;
	}
	world->batches[world->batchCount++] = (bsBornBatch){first, world->time};
	return bs_ok;
}

// A moving emitter's particles (its motion's) [first, p->count), its k0-th on: each born at its birth time tau in
// the step's window [now, until] (bsEmitterDef_BirthTime) at x with velocity v starts the step at
// x - v (tau - now), on the straight line that reaches x at tau, so that its path from its birth on is
// the one it would have had emitted at tau (forces and contacts aside) and a fast emitter leaves no
// clumps a step apart. Not a body's (emitter_body.c): set back along its path a particle leaving the
// body's face would start inside the body.
static void bsWorld_BackDate(const bsWorld* world, const bsWorldEmitter* em, uint64_t k0, double until,
	bsParticles* p, size_t first)
{
	const bsEmitterDef* def = &em->def;
	double now = world->time;
	for (size_t i = first; i < p->count && bsEmitterMotion_IsMoving(&def->motion); ++i)
	{
		double tau = fmin(fmax(bsEmitterDef_BirthTime(def, k0 + (i - first)), now), until);
		bsVec3 start = bsMulAdd(p->position[i], now - tau, p->velocity[i]);
		p->position[i] = bsWorld_ClearWay(world, p->position[i], start, p->radius[i]);
	}
}

// Particles [first, p->count) joined from def: its species, its lifetime, their birth time.
static bsResult bsWorld_Joined(bsWorld* world, const bsEmitterDef* def, size_t first, bsParticles* p)
{
	bsResult r = bsParticles_SetSpecies(p, first, p->count, def->species);
	r = r == bs_ok ? bsWorld_AddBirth(world, def, first, p->count - first) : r;
	return r == bs_ok ? bsWorld_AddBatch(world, first, p->count - first) : r;
}

// After the other emitters, the trails' particles born in the step [time, time + dt) of substeps of
// h seconds under def's gravity (emitter.h: bsTrail), trail after trail in the order added, from the
// same stream.
static bsResult bsWorld_EmitTrails(bsWorld* world, const bsStepDef* def, double h, bsParticles* particles,
	bsStepStats* stats)
{
	bsTrailWindow window = {world->time, world->time + def->dt, h, def->gravity, world};
	bsResult r = bs_ok;
	for (int e = 0; r == bs_ok && e < world->emitterCount; ++e)
	{
		bsWorldEmitter* em = world->emitters + e;
		if (em->def.shape.type != bs_emitterTrail || em->def.shape.trail.onContact)
		{
			continue;
		}
		size_t before = particles->count;
		r = bsWorldEmitter_EmitTrail(em, &window, &world->rng, particles, &world->failedIndex);
		stats->emitted += particles->count - before;
		world->failedEmitter = r != bs_ok ? e : world->failedEmitter;
		r = r == bs_ok ? bsWorld_Joined(world, &em->def, before, particles) : r;
	}
	return r;
}

// The world has a splash (a trail on contact: emitter.h, bsTrail.onContact).
static bool bsWorld_HasSplash(const bsWorld* world)
{
	for (int e = 0; e < world->emitterCount; ++e)
	{
		const bsEmitterDef* def = &world->emitters[e].def;
		if (def->shape.type == bs_emitterTrail && def->shape.trail.onContact)
		{
			return true;
		}
	}
	return false;
}

// With a splash, a contact record for every particle of the step, none yet (bsSplash); else NULL.
static bsResult bsWorld_ClearSplashes(bsWorld* world, size_t count, bsSplash** splashes)
{
	*splashes = NULL;
	if (!bsWorld_HasSplash(world))
	{
		return bs_ok;
	}
	if (!BS_ARRAY_RESERVE(world->splashes, world->splashCapacity, count))
	{
		return bs_errOutOfMemory;
	}
	for (size_t i = 0; i < count; ++i)
	{
		world->splashes[i].time = NAN;
	}
	*splashes = world->splashes;
	return bs_ok;
}

// After the step's move phase, the splashes' particles from the contacts of the step's first count
// particles (bsSplash), splash after splash in the order added, from the same stream.
static bsResult bsWorld_EmitSplashes(bsWorld* world, const bsStepDef* def, double h, size_t count,
	bsParticles* particles, bsStepStats* stats)
{
	bsTrailWindow window = {world->time, world->time + def->dt, h, def->gravity, world};
	bsResult r = bs_ok;
	world->failedEmitter = -1;
	for (int e = 0; r == bs_ok && e < world->emitterCount; ++e)
	{
		bsWorldEmitter* em = world->emitters + e;
		if (em->def.shape.type != bs_emitterTrail || !em->def.shape.trail.onContact)
		{
			continue;
		}
		size_t before = particles->count;
		r = bsWorldEmitter_EmitSplash(em, &window, world->splashes, count, &world->rng, particles, &world->failedIndex);
		stats->emitted += particles->count - before;
		world->failedEmitter = r != bs_ok ? e : world->failedEmitter;
		r = r == bs_ok ? bsWorld_Joined(world, &em->def, before, particles) : r;
	}
	return r;
}

// Appends the particles of every emitter born before `until`, emitter after emitter in the order
// added, each emitter's in birth order, all from the world's one stream: the particles depend on the
// seed and the steps' times only. The trails are not among them: they need the step's substeps
// (bsWorld_EmitTrails).
static bsResult bsWorld_EmitUntil(bsWorld* world, double until, bsParticles* particles, bsStepStats* stats)
{
	world->failedEmitter = -1;
	uint64_t pending = bsWorld_PendingParticles(world);
	if (pending > SIZE_MAX - particles->count)
	{
		return bs_errTooLarge;
	}
	bsResult r = bsParticles_Reserve(particles, particles->count + (size_t)pending);
	for (int e = 0; r == bs_ok && e < world->emitterCount; ++e)
	{
		bsWorldEmitter* em = world->emitters + e;
		uint64_t born = bsEmitterDef_Born(&em->def, until);
		if (born <= em->born)
		{
			continue;
		}
		size_t before = particles->count;
		// All at once through bsEmitterDef_Emit, whose order of draws the at-once emitters have always had.
		r = em->body != NULL
			? bsWorldEmitter_EmitOnBody(em, world->time, em->born, born - em->born, &world->rng, particles, &world->failedIndex)
			: bsEmitterDef_OverTime(&em->def)
			? bsEmitterDef_EmitRange(&em->def, em->born, born - em->born, &world->rng, particles, &world->failedIndex)
			: bsEmitterDef_Emit(&em->def, &world->rng, particles, &world->failedIndex);
		if (stats != NULL)
		{
			stats->emitted += particles->count - before;
		}
		if (r != bs_ok)
		{
			world->failedEmitter = e;
			world->failedIndex += (size_t)em->born;
			break;
		}
		bsWorld_BackDate(world, em, em->born, until, particles, before);
		em->born = born;
		r = bsWorld_Joined(world, &em->def, before, particles);
	}
	return r;
}

bsResult bsWorld_Emit(bsWorld* world, bsParticles* particles, bsStepStats* stats)
{
	return bsWorld_EmitUntil(world, INFINITY, particles, stats);
}

// --- expire: particles at the end of their lifetime leave, as escaped ones do ---

// At the end of the step that ends at `end`, every batch whose time is up (to a tolerance of 1e-9 dt,
// so that the rounding of a sum of steps does not keep a particle one step longer) leaves; the
// batches that stay keep their order.
static void bsWorld_Expire(bsWorld* world, double end, double dt, bsParticles* p, bsStepStats* stats)
{
	size_t kept = 0;
	for (size_t b = 0; b < world->birthCount; ++b)
	{
		bsBirth birth = world->births[b];
		if (birth.expires > end + 1e-9 * dt)
		{
			world->births[kept++] = birth;
			continue;
		}
		for (size_t i = birth.first; i < birth.first + birth.count && i < p->count; ++i)
		{
			if (p->state[i] != bs_particleEscaped)
			{
				p->state[i] = bs_particleEscaped;
				stats->expired += 1;
			}
		}
	}
	world->birthCount = kept;
}

// --- forces ---

typedef struct bsForcesJob
{
	bsForces forces;
	bsForceContext context;   // its particles, read only; the job's own pointer writes
	bsParticles* particles;
} bsForcesJob;

static void bsForces_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsForcesJob* job = context;
	bsForces_Apply(&job->forces, &job->context, job->particles, begin, end);
}

// --- move: integrate and sweep against the colliders ---

enum
{
	bs_stepGrain = 256,                // particles per chunk of a parallel phase
	bs_mortonMeshBytes = 8 << 20,      // BVH bytes from which the move phase sorts (bsMoveOrder)
};

typedef struct bsMoveJob
{
	const bsWorld* world;
	const bsStepDef* def;
	double h;
	bsParticles* particles;
	const uint32_t* order;  // particles in the order they move; NULL for 0, 1, 2, ...
	double restSpeed;       // approach speeds up to this are inelastic (bsRespond)
	double wakeSpeed;       // a sleeper hit faster than this wakes: wakeSpeed, and faster than a resting contact
	bool rotation;          // the particles spin (granular with rotation: particles->spin is there)
	float* wallAge;         // with bonds to walls (step.h: wall_bond): the world's, else NULL
	double start;           // the substep's start, seconds
	bsSplash* splashes;     // with a splash: each particle's first impact of the step (bsSplash), else NULL
} bsMoveJob;

static bool bsOutside(const bsStepDef* def, bsVec3 x)
{
	return x.x < def->boundsMin.x || x.y < def->boundsMin.y || x.z < def->boundsMin.z ||
		x.x > def->boundsMax.x || x.y > def->boundsMax.y || x.z > def->boundsMax.z;
}

// The response to one contact of a sliding or bouncing particle: its new velocity. Restitution applies
// only to an approach faster than restSpeed (the speed gravity adds in two substeps): a slower contact
// is inelastic, so a particle resting on a surface gets no normal speed back and stays at rest, where
// it would otherwise bounce by e g h forever. grip: a wall bond's impulse (step.h: wall_bond), added to
// the normal impulse in the friction bound.
static bsVec3 bsRespond(const bsStepDef* def, double restSpeed, bsVec3 v, bsVec3 n, double grip)
{
	double vn = bsDot(v, n);
	if (!(vn < 0.0))
	{
		return v;
	}
	bsVec3 vt = bsMulSub(v, vn, n);
	double e = def->response == bs_responseBounce && -vn > restSpeed ? def->restitution : 0.0;
	// Coulomb: the tangential speed drops by friction x the normal impulse (per unit mass).
	double lost = def->friction * ((1.0 + e) * -vn + grip);
	double speed = bsLength(vt);
	vt = speed > lost ? bsScale(1.0 - lost / speed, vt) : bsV3(0.0, 0.0, 0.0);
	return bsMulSub(vt, e * vn, n);
}

// With rolling resistance, the static response: the friction impulse that stops the tangential
// velocity v_t (at most friction x J_n) and the rolling torque impulse that then stops the spin across n
// (at most mu_r r J_n), when both bounds allow them: the particle then rests (true, *spin keeps its
// part along n). Applied one after the other, the two impulses of the moving response leave a grain
// pressed sideways creeping (friction stops the slip, not the motion: a rolling grain keeps 5/7).
static bool bsRespondStatic(const bsStepDef* def, bsVec3 vt, bsVec3 n, double r, double impulse, bsVec3* spin)
{
	double turn = 2.5 * def->interaction.rollingFriction * impulse / r;
	bsVec3 stuck = bsMulAdd(*spin, 2.5 / r, bsCross(n, vt));  // the spin once the friction stops v_t
	bsVec3 rolling = bsMulSub(stuck, bsDot(stuck, n), n);
	if (!(turn > 0.0 && bsLength(vt) <= def->friction * impulse && bsLength(rolling) <= turn))
	{
		return false;
	}
	*spin = bsSub(stuck, rolling);
	return true;
}

// The response with rotation (step.h: bsStepDef.friction) of a sphere of radius r and spin *spin: the
// normal as bsRespond's; at rest when bsRespondStatic can hold it; else the friction impulse stops the
// contact point's slip v_t + spin x (-r n) (2/7 of it a unit mass for a solid sphere), at most
// friction x the normal impulse J_n, and turns the spin by its torque; then rolling resistance turns
// the spin across n by mu_r r J_n / I against spin / |spin| (LIGGGHTS's wall torque: the normal part
// left out), at most stopping that part. grip as bsRespond's: a wall bond's impulse counts as normal
// impulse in both bounds.
static bsVec3 bsRespondSpin(const bsStepDef* def, double restSpeed, bsVec3 v, bsVec3 n, double r, bsVec3* spin,
	double grip)
{
	double vn = bsDot(v, n);
	if (!(vn < 0.0))
	{
		return v;
	}
	double e = def->response == bs_responseBounce && -vn > restSpeed ? def->restitution : 0.0;
	double impulse = (1.0 + e) * -vn + grip;
	bsVec3 vt = bsMulSub(v, vn, n);
	if (bsRespondStatic(def, vt, n, r, impulse, spin))
	{
		return bsScale(-e * vn, n);
	}
	bsVec3 slip = bsMulSub(vt, r, bsCross(*spin, n));
	bsVec3 dv = bsScale(-2.0 / 7.0, slip);
	double size = bsLength(dv);
	double bound = def->friction * impulse;
	dv = size > bound ? bsScale(bound / size, dv) : dv;
	vt = bsAdd(vt, dv);
	*spin = bsMulSub(*spin, 2.5 / r, bsCross(n, dv));
	bsVec3 rolling = bsMulSub(*spin, bsDot(*spin, n), n);
	double turn = 2.5 * def->interaction.rollingFriction * impulse / r;
	double spinSize = bsLength(*spin);
	if (turn > 0.0 && spinSize > 0.0)
	{
		*spin = bsMulSub(*spin, fmin(turn / spinSize, 1.0), rolling);
	}
	return bsMulSub(vt, e * vn, n);
}

// The response of a particle of radius r (with spin, when the particles spin) to a contact of normal n,
// with a wall bond's grip (bsRespond).
static bsVec3 bsMoveRespond(const bsMoveJob* job, bsVec3 v, bsVec3 n, double r, bsVec3* spin, double grip)
{
	return job->rotation ? bsRespondSpin(job->def, job->restSpeed, v, n, r, spin, grip) :
		bsRespond(job->def, job->restSpeed, v, n, grip);
}

// Bonds to walls (step.h: wall_bond): a substep's contacts with the static walls (meshes, planes) and
// whether each left the particle at rest along its wall: moving along it no faster than the move
// phase's resting speed (2 g h, what gravity adds in two substeps), so that a grain held in a snow
// layer that creeps counts as at rest, one that slides or rolls away does not.
typedef struct bsWallRest
{
	int touched;  // contacts with a static wall
	bool slid;    // after one of them the particle moved along the wall faster than that
} bsWallRest;

// The grip of particle i's bond to the walls this substep: h w (1 - exp(-t / tau)) for its age t; 0
// for a contact with any other collider or without bonds to walls.
static double bsWallGrip(const bsMoveJob* job, size_t i, bsColliderKind kind)
{
	const bsInteractionDef* d = &job->def->interaction;
	if (job->wallAge == NULL || (kind != bs_colliderMesh && kind != bs_colliderPlane))
	{
		return 0.0;
	}
	return job->h * d->wallBond * -expm1(-(double)job->wallAge[i] / d->sinteringTime);
}

// Particle i's age on the walls after the substep: grown by h (held at 40 tau, where the grip is w to
// 4e-18) when it touched a wall and every wall held it, else 0 (it slid, or left the walls).
static void bsWallRest_Age(const bsMoveJob* job, size_t i, const bsWallRest* rest)
{
	if (job->wallAge == NULL)
	{
		return;
	}
	double cap = 40.0 * job->def->interaction.sinteringTime;
	double age = rest->touched > 0 && !rest->slid ? fmin((double)job->wallAge[i] + job->h, cap) : 0.0;
	job->wallAge[i] = (float)age;
}

// The surfaces a particle touched in one substep, by their normals, so that the motion after a
// contact never heads back into an earlier one: in a crease the particle slides along the crease line
// (the motion projected onto it), in a corner it stops. Without this, a sphere in a V bounces between
// the two walls and spends every contact of the substep.
typedef struct bsContactPlanes
{
	bsVec3 n[BS_MAX_CONTACTS];
	int count;
} bsContactPlanes;

// Adds n unless an earlier normal is (nearly) the same surface.
static void bsContactPlanes_Add(bsContactPlanes* planes, bsVec3 n)
{
	for (int k = 0; k < planes->count; ++k)
	{
		if (bsDot(planes->n[k], n) > 1.0 - 1e-9)
		{
			return;
		}
	}
	if (planes->count < BS_MAX_CONTACTS)
	{
		planes->n[planes->count++] = n;
	}
}

// v, after the response to the contact of normal n, kept out of every earlier surface.
static bsVec3 bsContactPlanes_Clip(const bsContactPlanes* planes, bsVec3 n, bsVec3 v)
{
	for (int k = 0; k < planes->count; ++k)
	{
		bsVec3 m = planes->n[k];
		if (!(bsDot(v, m) < 0.0) || bsDot(m, n) > 1.0 - 1e-9)
		{
			continue;
		}
		// Into an earlier surface: along the crease of the two, or nowhere when that still enters a
		// third one (a corner).
		bsVec3 crease = bsCross(n, m);
		double length = bsLength(crease);
		if (!(length > 1e-12))
		{
			return bsV3(0.0, 0.0, 0.0);  // opposite walls: nowhere to go
		}
		crease = bsScale(1.0 / length, crease);
		v = bsScale(bsDot(v, crease), crease);
		for (int j = 0; j < planes->count; ++j)
		{
			if (bsDot(v, planes->n[j]) < -1e-12 * bsLength(v))
			{
				return bsV3(0.0, 0.0, 0.0);
			}
		}
		return v;
	}
	return v;
}

// Where a slide or bounce leaves a point particle (the ray method) that was at `from`, on the clear
// side of every surface, when its segment met `contact`: on the surface, out along the normal by the
// skin. Near a crease that push can cross the neighbouring wall, so the straight way from `from` is
// checked with the segment test: a surface on the way stops it there instead, and after three such
// surfaces it stays at `from`.
static bsVec3 bsSettlePoint(const bsMoveJob* job, bsVec3 from, const bsSweepOutput* contact, double radius,
	double u, bsQueryStats* qs)
{
	bsVec3 target = bsClearOf(contact, 0.0, radius);
	for (int k = 0; k < 3; ++k)
	{
		bsSweepInput in = {from, target, radius};
		bsSweep s;
		bsSweepOutput out;
		if (bsMakeSweep(&in, &s) != bs_ok)
		{
			return from;
		}
		bsWorld_SweepWindow(job->world, bs_methodRay, &s, u, u, &out, qs);
		if (!out.hit)
		{
			return target;
		}
		target = bsClearOf(&out, 0.0, radius);
	}
	return from;
}

// The push out of a stuck or sleeping particle that the moving one overlaps from the start (they can
// overlap: a particle falls asleep where it is, a body pushes a sleeper onto others, the particles may
// not interact) is up to the two radii long and not a sweep: it could cross a wall or a body into the
// solid behind it. So it is swept against every collider but the spheres, at the substep's fraction u,
// and stops just clear of a surface on its way.
static bsVec3 bsSettleOverlap(const bsMoveJob* job, const bsSweepOutput* contact, bsVec3 target, double radius,
	double u, bsQueryStats* qs)
{
	if (contact->kind != bs_colliderStuck || contact->branch != bs_branchStart)
	{
		return target;
	}
	bsSweepInput in = {contact->center, target, radius};
	bsSweep s;
	if (bsMakeSweep(&in, &s) != bs_ok)
	{
		return contact->center;
	}
	bsSweepOutput out;
	bsSweep_Miss(&s, &out);
	const bsWorld* world = job->world;
	for (int k = 0; k < world->colliderCount; ++k)
	{
		const bsCollider* c = world->colliders + k;
		const bsColliderClass* class = bs_colliderClasses[c->kind];
		if (c->kind != bs_colliderStuck && class->sweepMoving != NULL)
		{
			class->sweepMoving(c, bs_methodExact, &s, u, u, &out, qs);
		}
		else if (c->kind != bs_colliderStuck)
		{
			class->sweep(c, bs_methodExact, &s, &out, qs);
		}
	}
	return out.hit ? bsClearOf(&out, radius, radius) : target;
}

// Where a slide or bounce contact leaves the particle (at *x when the sweep s began): just clear of the
// surface (the paper's section 3.2: "a displacement depending on the triangle's normal and the
// sphere's radius, so that the two objects would merely be in touch"), plus a skin so the next sweep
// does not start in contact with the same surface. Returns the contact the response is to use.
static bsSweepOutput bsPlace(const bsMoveJob* job, const bsSweep* s, const bsSweepOutput* contact, double u0,
	bsVec3* x, bsQueryStats* qs)
{
	bsSweepOutput out = *contact;
	double radius = s->radius;
	switch (job->def->method)
	{
		case bs_methodKarabassi:
		{
			// karabassi found the contact (the same hit or miss as exact); its stop point is an
			// estimate inside the contact, sunk into the surface as the paper's blobs are. Sliding or
			// bouncing on from there would start behind a neighbouring wall near a corner, so the
			// particle is placed where exact stops it: touching every surface.
			bsSweepOutput touch;
			bsWorld_SweepWindow(job->world, bs_methodExact, s, u0, 1.0, &touch, qs);
			if (touch.hit)
			{
				out = touch;
			}
			*x = bsSettleOverlap(job, &out, bsClearOf(&out, radius, radius), radius, u0 + out.t * (1.0 - u0), qs);
			return out;
		}
		case bs_methodRay:
			*x = bsSettlePoint(job, *x, &out, radius, u0 + out.t * (1.0 - u0), qs);
			return out;
		default:
			*x = bsSettleOverlap(job, &out, bsClearOf(&out, radius, radius), radius, u0 + out.t * (1.0 - u0), qs);
			return out;
	}
}

// With a splash, particle i's first impact of the step (with a mesh, a plane or a body, faster than
// restSpeed along the normal: a resting contact, which the response treats as inelastic, is none) at
// contact out of its sweep from fraction u0 of the substep, coming in at v: only its own worker writes
// its record.
static void bsMove_RecordSplash(const bsMoveJob* job, size_t i, const bsSweepOutput* out, bsVec3 v, double u0,
	double radius)
{
	bsSplash* s = job->splashes != NULL ? job->splashes + i : NULL;
	if (s == NULL || !isnan(s->time) || out->kind == bs_colliderStuck)
	{
		return;
	}
	double u = u0 + out->t * (1.0 - u0);
	const bsColliderClass* class = bs_colliderClasses[out->kind];
	bsVec3 surface = class->surfaceVelocity != NULL ?
		class->surfaceVelocity(job->world->colliders + out->collider, out->point, u) : bsV3(0.0, 0.0, 0.0);
	double speed = -bsDot(bsSub(v, surface), out->normal);
	if (!(speed > job->restSpeed))
	{
		return;
	}
	s->time = job->start + u * job->h;
	s->point = bsMulAdd(out->point, radius, out->normal);
	s->normal = out->normal;
	s->velocity = v;
	s->speed = speed;
}

// One particle through one substep of h seconds, its velocity already set by the forces.
static bsResult bsMoveParticle(const bsMoveJob* job, size_t i, bsStepWorker* worker)
{
	bsStepStats* stats = &worker->stats;
	const bsStepDef* def = job->def;
	bsParticles* p = job->particles;
	bsVec3 v = p->velocity[i];
	bsVec3 x = p->position[i];
	bsVec3 spin = job->rotation ? p->spin[i] : bsV3(0.0, 0.0, 0.0);
	double radius = p->radius[i];
	double remaining = job->h;
	bsQueryStats qs = {0, 0, 0, 0};
	bsContactPlanes planes;
	planes.count = 0;
	bsContactContext context = {job->world, worker, p, job->wakeSpeed};
	const bsCollider* last = NULL;  // the collider of the last contact, and its class
	const bsColliderClass* lastClass = NULL;
	bsWallRest rest = {0, false};

	for (int contact = 0;; ++contact)
	{
		if (contact == def->maxContacts)
		{
			// Every contact of this substep used (a particle wedged in a corner): it waits here for
			// the next one rather than tunnelling; pressed on by a moving surface, it rides with it
			// for the rest of the substep instead, so the surface does not run it over.
			stats->contactLimit += 1;
			x = last != NULL && lastClass->ride != NULL ? lastClass->ride(last, x, 1.0 - remaining / job->h) : x;
			break;
		}
		bsSweepInput in = {x, bsMulAdd(x, remaining, v), radius};
		if (bsMeshCache_Clear(job->world, def->method, i, in.c1, in.c2, radius, &qs))
		{
			x = in.c2;  // far from every triangle: the miss the sweep would answer (mesh_candidates.h)
			break;
		}
		bsSweep s;
		bsResult r = bsMakeSweep(&in, &s);
		if (r != bs_ok)
		{
			return r;
		}
		bsSweepOutput out;
		double u0 = 1.0 - remaining / job->h;  // the part of the substep done (moving bodies)
		bsMeshCache_Sweep(job->world, def->method, &s, u0, i, &out, &qs);
		if (!out.hit)
		{
			x = in.c2;
			break;
		}
		stats->contacts[out.test][out.branch] += 1;
		// The collider's own response first (waking a sleeper hit hard: collider_stuck.c).
		const bsColliderClass* class = bs_colliderClasses[out.kind];
		if (class->touch != NULL && !class->touch(&context, &out, v))
		{
			return bs_errOutOfMemory;
		}
		bsMove_RecordSplash(job, i, &out, v, u0, radius);

		if (def->response == bs_responseStick)
		{
			// Where the method stops it: karabassi's estimate (overlapping, as the paper leaves its
			// blobs), exact's touching position, the ray's point on the surface.
			x = out.center;
			if (class->push != NULL && !class->push(&context, &out, (uint32_t)i, contact, x, bsNeg(v)))
			{
				return bs_errOutOfMemory;
			}
			v = bsV3(0.0, 0.0, 0.0);
			spin = v;
			p->state[i] = bs_particleStuck;
			stats->stuck += 1;
			// Stuck to a collider that keeps it (a moving body: it rides with it from the next substep).
			if (class->stick != NULL && !class->stick(&context, &out, (uint32_t)i, x, u0 + out.t * (1.0 - u0)))
			{
				return bs_errOutOfMemory;
			}
			break;
		}

		// Slide or bounce: just clear of the surface, then on with the rest of the substep.
		// (The placed contact may be another collider's: exact's touching one, bsPlace.)
		out = bsPlace(job, &s, &out, u0, &x, &qs);
		bsVec3 n = out.normal;
		remaining *= 1.0 - out.t;
		last = job->world->colliders + out.collider;
		lastClass = bs_colliderClasses[out.kind];
		bsVec3 before = v;
		double grip = bsWallGrip(job, i, out.kind);
		if (lastClass->surfaceVelocity != NULL)
		{
			// A moving surface: the response to the velocity relative to it (it pushes and carries).
			bsVec3 surface = lastClass->surfaceVelocity(last, out.point, u0 + out.t * (1.0 - u0));
			v = bsAdd(surface, bsContactPlanes_Clip(&planes, n,
				bsMoveRespond(job, bsSub(v, surface), n, radius, &spin, grip)));
		}
		else
		{
			v = bsContactPlanes_Clip(&planes, n, bsMoveRespond(job, v, n, radius, &spin, grip));
		}
		if (out.kind == bs_colliderMesh || out.kind == bs_colliderPlane)
		{
			rest.touched += 1;
			rest.slid = rest.slid || !(bsLength(bsMulSub(v, bsDot(v, n), n)) <= job->restSpeed);
		}
		bsContactPlanes_Add(&planes, n);
		// A surface the particles push back takes the reaction (two-way coupling).
		if (lastClass->push != NULL && !lastClass->push(&context, &out, (uint32_t)i, contact, x, bsSub(v, before)))
		{
			return bs_errOutOfMemory;
		}
		if (!(remaining > 0.0))
		{
			break;
		}
	}

	stats->queries += qs.queries;
	stats->nodesVisited += qs.nodesVisited;
	stats->trianglesTested += qs.trianglesTested;
	if (def->bounded && p->state[i] == bs_particleFree && bsOutside(def, x))
	{
		p->state[i] = bs_particleEscaped;
		stats->escaped += 1;
	}
	p->position[i] = x;
	p->velocity[i] = v;
	bsWallRest_Age(job, i, &rest);
	if (job->rotation)
	{
		p->spin[i] = spin;
	}
	if (job->rotation && p->orientation != NULL)
	{
		// The substep's turn by its spin (the one after its contacts): exact for a constant spin.
		p->orientation[i] = bsQuat_Integrate(p->orientation[i], spin, job->h);
	}
	return bs_ok;
}

// A stuck (not riding) or sleeping particle that a moving body reaches this substep: the body's
// surface pushes it free (slide, bounce: the response to the surface's velocity, placed just clear of
// it) or it sticks to the body (stick) and rides with it.
static bsResult bsPushResting(const bsMoveJob* job, size_t i, bsStepWorker* worker)
{
	bsParticles* p = job->particles;
	bsVec3 x = p->position[i];
	double radius = p->radius[i];
	if ((p->state[i] != bs_particleStuck && p->state[i] != bs_particleSleeping) ||
		bsWorldBodies_IsCarried(job->world, (uint32_t)i) || !bsWorldBodies_Near(job->world, x, radius))
	{
		return bs_ok;
	}
	bsSweepInput in = {x, x, radius};
	bsSweep s;
	bsSweepOutput out;
	bsQueryStats qs = {1, 0, 0, 0};
	bsResult r = bsMakeSweep(&in, &s);
	if (r != bs_ok || !bsWorldBodies_SweepResting(job->world, job->def->method, &s, &out, &qs))
	{
		worker->stats.queries += qs.queries;
		return r;
	}
	bsStepStats* stats = &worker->stats;
	stats->queries += qs.queries;
	stats->nodesVisited += qs.nodesVisited;
	stats->trianglesTested += qs.trianglesTested;
	stats->contacts[out.test][out.branch] += 1;
	// A body's contact: its class has every hook a moving surface needs.
	const bsCollider* body = job->world->colliders + out.collider;
	const bsColliderClass* class = bs_colliderClasses[out.kind];
	bsContactContext context = {job->world, worker, p, job->wakeSpeed};
	bsVec3 before = p->velocity[i];
	if (job->def->response == bs_responseStick)
	{
		p->state[i] = bs_particleStuck;
		p->position[i] = out.center;
		p->velocity[i] = bsV3(0.0, 0.0, 0.0);
		if (!class->push(&context, &out, (uint32_t)i, 0, out.center, bsNeg(before)))
		{
			return bs_errOutOfMemory;
		}
		return class->stick(&context, &out, (uint32_t)i, out.center, out.t) ? bs_ok : bs_errOutOfMemory;
	}
	bsVec3 surface = class->surfaceVelocity(body, out.point, out.t);
	p->state[i] = bs_particleFree;
	p->position[i] = bsClearOf(&out, job->def->method == bs_methodRay ? 0.0 : radius, radius);
	p->velocity[i] = bsAdd(surface, bsRespond(job->def, job->restSpeed, bsNeg(surface), out.normal, 0.0));
	return class->push(&context, &out, (uint32_t)i, 0, p->position[i], bsSub(p->velocity[i], before)) ? bs_ok :
		bs_errOutOfMemory;
}

static void bsMove_Range(void* context, size_t begin, size_t end, int worker)
{
	bsMoveJob* job = context;
	bsStepWorker* w = job->world->workers + worker;
	for (size_t k = begin; k < end; ++k)
	{
		size_t i = job->order != NULL ? job->order[k] : k;
#if defined(__GNUC__)
		// In Morton order the particles' slots are scattered: fetch a few ahead so their cache misses
		// overlap with this particle's sweep. A hint only; it changes no result.
		if (job->order != NULL && k + 8 < end)
		{
			size_t ahead = job->order[k + 8];
			__builtin_prefetch(job->particles->position + ahead, 1);
			__builtin_prefetch(job->particles->velocity + ahead, 1);
			__builtin_prefetch(job->particles->radius + ahead, 0);
			__builtin_prefetch(job->particles->state + ahead, 1);
		}
#endif
		if (job->particles->state[i] != bs_particleFree)
		{
			bsResult r = job->world->bodies != NULL ? bsPushResting(job, i, w) : bs_ok;
			if (r != bs_ok && w->error == bs_ok)
			{
				w->error = r;
			}
			continue;
		}
		bsResult r = bsMoveParticle(job, i, w);
		if (r != bs_ok && w->error == bs_ok)
		{
			w->error = r;
		}
	}
}

// The order of the move phase: Morton order of the free particles' positions (morton.h), so that
// particles moving one after another walk the same BVH nodes; each particle's result depends on its
// own state only, so the order changes no answer. It pays only when the meshes' BVHs are larger than
// the caches: then a random particle order costs cache misses on every walk, and the sort (a radix
// sort of 30-bit codes) is cheap beside them. On the figures' small scenes the BVH stays in cache and
// the scattered access to the particle arrays made the snow step slower, so there the particles move
// in index order. NULL (index order) for few particles, small meshes, or when memory is short.
static const uint32_t* bsMoveOrder(bsWorld* world, const bsParticles* p)
{
	if (p->count < 1024 || world->meshBytes < bs_mortonMeshBytes)
	{
		return NULL;
	}
	if (!BS_ARRAY_RESERVE(world->order, world->orderCapacity, p->count))
	{
		return NULL;
	}
	bsVec3 lo = bsV3(INFINITY, INFINITY, INFINITY);
	bsVec3 hi = bsNeg(lo);
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] == bs_particleFree)
		{
			lo = bsMin(lo, p->position[i]);
			hi = bsMax(hi, p->position[i]);
		}
	}
	return bsMortonOrder(lo, hi, p->position, sizeof(bsVec3), p->count, world->order) ? world->order : NULL;
}

// --- the step ---


// Sums the workers' statistics in worker order and returns the first worker's error.
static bsResult bsGatherWorkers(bsWorld* world, bsStepStats* stats)
{
	bsResult result = bs_ok;
	int n = bsPool_ThreadCount(world->pool);
	for (int w = 0; w < n; ++w)
	{
		bsStepStats_Add(stats, &world->workers[w].stats);
		if (result == bs_ok)
		{
			result = world->workers[w].error;
		}
	}
	for (int w = 0; w < n; ++w)
	{
		memset(&world->workers[w].stats, 0, sizeof(bsStepStats));
		world->workers[w].error = bs_ok;
	}
	return result;
}

typedef struct bsSleepJob
{
	bsWorld* world;
	const bsStepDef* def;
	bsParticles* particles;
} bsSleepJob;

static void bsSleep_Range(void* context, size_t begin, size_t end, int worker)
{
	bsSleepJob* job = context;
	bsSleep_Check(job->world, job->def, job->particles, begin, end, &job->world->workers[worker].stats);
}

// The interaction's phase of a substep, through its class (none has no phase). The wake rule of the
// move phase (collider_stuck.c's touch): faster than wakeSpeed and than a resting contact; the phase
// raises the latter to a settling spring's speed.
static bsResult bsStep_Interact(bsWorld* world, const bsStepDef* def, const bsInteractionClass* interaction,
	const bsMoveJob* move, bsParticles* particles, bsStepStats* local, double* clock)
{
	if (interaction->run == NULL)
	{
		return bs_ok;
	}
	bsResult result = interaction->run(world, def, move->h, move->wakeSpeed, particles);
	if (result != bs_ok)
	{
		bsGatherWorkers(world, local);  // clears the workers' slots for the next step
		return result;
	}
	bsSleep_Wake(world, particles, local);
	bsLap(clock, &world->profile.interaction);
	return bs_ok;
}

// With bonds to walls (step.h: wall_bond), the world's ages with room for every particle, new ones 0;
// else NULL.
static bsResult bsWallAge_Reserve(bsWorld* world, const bsStepDef* def, size_t count, float** ages)
{
	*ages = NULL;
	if (def->interaction.type != bs_interactionGranular || !(def->interaction.wallBond > 0.0))
	{
		return bs_ok;
	}
	size_t old = world->wallAgeCapacity;
	if (!BS_ARRAY_RESERVE(world->wallAge, world->wallAgeCapacity, count))
	{
		return bs_errOutOfMemory;
	}
	memset(world->wallAge + old, 0, (world->wallAgeCapacity - old) * sizeof(float));
	*ages = world->wallAge;
	return bs_ok;
}

bsResult bsWorld_Step(bsWorld* world, const bsStepDef* def, bsParticles* particles, bsStepStats* stats)
{
	if (!bsStepDef_IsValid(def))
	{
		return bs_errInvalidArgument;
	}
	bsStepProfile* profile = &world->profile;
	memset(profile, 0, sizeof(*profile));
	double clock = bsNow();
	bsStepStats local;
	memset(&local, 0, sizeof(local));
	bsResult result = bsWorld_EmitUntil(world, world->time + def->dt, particles, &local);
	// The substeps, planned from the particles before the trails' births, whose starting points
	// depend on them; planned again with those births, more of them stand (the births then cross
	// their birth points within g h s of them: emitter_trail.c).
	int substeps = 1;
	result = result == bs_ok ? bsStepSubsteps(world, def, particles, &substeps) : result;
	size_t beforeTrails = particles->count;
	result = result == bs_ok ? bsWorld_EmitTrails(world, def, def->dt / substeps, particles, &local) : result;
	int replanned = substeps;
	if (result == bs_ok && particles->count > beforeTrails && def->substeps < 1)
	{
		result = bsStepSubsteps(world, def, particles, &replanned);
		substeps = replanned > substeps ? replanned : substeps;
	}
	if (result == bs_ok && def->sleepSteps > 0)
	{
		result = bsSleep_Begin(world, particles);
	}
	bool rotation = def->interaction.type == bs_interactionGranular && def->interaction.rotation;
	if (result == bs_ok && rotation)
	{
		result = bsParticles_EnableSpin(particles);  // after the emit phase: every particle there has room
	}
	size_t sources = particles->count;  // the step's particles, whose contacts the splashes record
	bsSplash* splashes = NULL;
	result = result == bs_ok ? bsWorld_ClearSplashes(world, sources, &splashes) : result;
	bsLap(&clock, &profile->emit);
	double h = def->dt / substeps;
	bsForcesJob forces = {.context = {def, particles, world->time, h, world}, .particles = particles};
	bsMoveJob move = {world, def, h, particles, NULL, 2.0 * bsLength(def->gravity) * h, 0.0, rotation, NULL,
		world->time, splashes};
	move.wakeSpeed = fmax(def->wakeSpeed, move.restSpeed);
	result = result == bs_ok ? bsWallAge_Reserve(world, def, particles->count, &move.wallAge) : result;
	// The interaction's phase, through its class (a valid def has one): none has no phase.
	const bsInteractionClass* interaction = bsInteractionClass_Of(def->interaction.type);
	BS_ASSERT(interaction != NULL);
	bsLap(&clock, &profile->plan);
	if (result == bs_ok && world->observer != NULL)
	{
		world->observer(world->observerContext, 0, substeps, particles);
	}
	for (int k = 0; result == bs_ok && k < substeps; ++k)
	{
		if (!interaction->afterForces)
		{
			result = bsStep_Interact(world, def, interaction, &move, particles, &local, &clock);
		}
		// Which forces act depends on the substep's time (the radial force's window).
		forces.context.time = world->time + k * h;
		bsForces_Prepare(&forces.context, &forces.forces);
		if (result == bs_ok)
		{
			bsPool_For(world->pool, particles->count, bs_stepGrain, bsForces_Range, &forces);
			bsLap(&clock, &profile->forces);
		}
		if (result == bs_ok && interaction->afterForces)
		{
			result = bsStep_Interact(world, def, interaction, &move, particles, &local, &clock);
		}
		if (result != bs_ok)
		{
			break;
		}
		// The moving bodies, the dynamic ones first: their contacts at t0 and the rigid step give their
		// chords over the substep, along which bsWorldBodies_Begin then moves every body.
		// The last substep ends at the step's end exactly (k h sums need not reach dt in floating
		// point), so the bodies' shapes after a step are at bsWorld_Time (bsWorld_BodyShape).
		double t0 = world->time + k * h;
		double t1 = k + 1 == substeps ? world->time + def->dt : world->time + (k + 1) * h;
		result = world->bodies != NULL ? bsWorldDynamics_Step(world, t0, t1) : bs_ok;
		result = result == bs_ok && world->bodies != NULL ? bsWorldBodies_Begin(world, t0, t1, particles) : result;
		// The colliders of stuck and sleeping particles: the grid gathers, in index order, those that
		// stuck or fell asleep since the last move phase (and lets go of woken and expired ones).
		result = result == bs_ok && world->stuck != NULL ? bsStuckGrid_Sync(world->stuck, particles) : result;
		bsLap(&clock, &profile->colliders);
		if (result != bs_ok)
		{
			bsGatherWorkers(world, &local);  // clears the workers' slots for the next step
			break;
		}
		move.order = bsMoveOrder(world, particles);
		move.start = t0;
		// Candidate triangles kept with an interaction (mesh_candidates.h); off when memory is short.
		bsMeshCache_Prepare(&world->meshCache, world, particles->count, interaction->run != NULL);
		bsPool_For(world->pool, particles->count, bs_stepGrain, bsMove_Range, &move);
		result = bsGatherWorkers(world, &local);
		result = result == bs_ok && world->bodies != NULL ? bsWorldBodies_Gather(world) : result;
		// The reactions of the move phase's contacts on the two-way bodies, in particle order.
		result = result == bs_ok && world->bodies != NULL ? bsWorldDynamics_ApplyPushes(world, def, particles) : result;
		local.substeps += 1;
		bsSleep_Wake(world, particles, &local);
		bsLap(&clock, &profile->move);
		if (result == bs_ok && world->observer != NULL)
		{
			world->observer(world->observerContext, k + 1, substeps, particles);
		}
	}
	if (result == bs_ok && def->sleepSteps > 0)
	{
		bsSleepJob sleep = {world, def, particles};
		bsPool_For(world->pool, particles->count, bs_stepGrain, bsSleep_Range, &sleep);
		result = bsGatherWorkers(world, &local);
		bsLap(&clock, &profile->sleep);
	}
	// The splashes after the move (and the sleep phase, whose arrays hold the step's particles only).
	result = result == bs_ok && splashes != NULL ?
		bsWorld_EmitSplashes(world, def, h, sources, particles, &local) : result;
	if (result == bs_ok)
	{
		bsWorld_Expire(world, world->time + def->dt, def->dt, particles, &local);
		world->time += def->dt;
		bsLap(&clock, &profile->expire);
	}
	if (stats != NULL)
	{
		bsStepStats_Add(stats, &local);
	}
	return result;
}
