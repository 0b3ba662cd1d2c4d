// rigid_solver.c — one substep of the dynamic bodies: gravity, the contact response (Senin's
// effective masses, solved by sequential impulses over all contacts), positions, sleep.
//
// Each contact's target normal speed after the step (docs/bodies_dynamics.md, "resting"):
// - an overlap (separation s <= 0): 0, so the bodies stop approaching; the overlap beyond `slop` is
//   removed by a separate pseudo-velocity solve (split impulse) that moves the positions only, so
//   pushing bodies apart adds no kinetic energy and a resting body cannot be made to bounce;
// - a gap (s > 0): -s / dt, the speed that just closes it (a speculative contact: bodies meet
//   without passing through, whatever their speed);
// - a collision (approaching faster than restThreshold and meeting within the substep): -e v_n,
//   the restitution target; with one contact this is exactly bsRigid_SeninResponse's answer.
// Those are the surfaces' speeds: a contact whose surfaces close by `closing` on their own (a
// deforming body's, rigid.h) asks the rigid motion for that much more (a foot pushing down on the
// floor lifts its body), and its collision is judged by the surfaces' approach.
#include "rigid_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct bsConstraint
{
	int32_t a, b;           // body indices; b = -1: static (or asleep: treated as static)
	const bsRigidContact* contact;  // the input (its a, b and key name the cached pulse)
	double sign;            // -1 when a and b were swapped: the pulse on the input's a is -pulse
	bsVec3 point, normal, tangent1, tangent2;
	double separation;
	double massNormal;      // the pair's effective mass along the normal
	double target;          // normal speed after the solve
	double positionTarget;  // pseudo-velocity that removes the overlap beyond slop
	double lambda, lambdaT1, lambdaT2, lambdaP;  // accumulated pulses
} bsConstraint;

typedef struct bsSolver
{
	bsRigidBody* bodies;
	bsVec3* pv;  // pseudo-velocities of the position correction, per body
	bsVec3* pw;
	bsConstraint* c;
	int32_t count;
} bsSolver;

static bsResult bsCheckInputs(const bsRigidBody* bodies, int32_t count, const bsRigidContact* contacts,
	int32_t contactCount, const bsRigidStepDef* d, double dt)
{
	if ((bodies == NULL && count > 0) || count < 0 || (contacts == NULL && contactCount > 0) ||
		contactCount < 0 || !(dt > 0.0) || !isfinite(dt))
	{
		return bs_errInvalidArgument;
	}
	if (!bsIsValidVec3(d->gravity) || !(d->restitution >= 0.0 && d->restitution <= 1.0) ||
		!(d->friction >= 0.0) || !isfinite(d->friction) || !(d->restThreshold >= 0.0) ||
		!isfinite(d->restThreshold) || !(d->slop >= 0.0) || !isfinite(d->slop) ||
		!(d->positionFactor >= 0.0 && d->positionFactor <= 1.0) || d->iterations < 1 ||
		d->iterations > 1000 || !(d->sleepSpeed >= 0.0) || !isfinite(d->sleepSpeed) ||
		!(d->sleepDelay >= 0.0) || !isfinite(d->sleepDelay))
	{
		return bs_errInvalidArgument;
	}
	for (int32_t i = 0; i < contactCount; ++i)
	{
		const bsRigidContact* k = contacts + i;
		bool aOk = k->a >= 0 && k->a < count, bOk = k->b >= 0 && k->b < count;
		if (!(aOk || k->a == BS_RIGID_STATIC) || !(bOk || k->b == BS_RIGID_STATIC) || !(aOk || bOk) ||
			k->a == k->b)
		{
			return bs_errInvalidArgument;
		}
		if (!bsIsValidVec3(k->point) || !bsIsValidVec3(k->normal) || !isfinite(k->separation) ||
			!isfinite(k->closing) || fabs(bsLength(k->normal) - 1.0) > 1e-6)
		{
			return bs_errInvalidArgument;
		}
	}
	return bs_ok;
}

// A sleeping body touched by a moving one wakes (a sleeping body meets the world as if static).
// Moving means awake and not slow in the last substep (sleepTime 0): a slow body resting on a
// sleeping one does not wake it, it falls asleep on it, or two bodies at rest that fell asleep a few
// substeps apart would wake each other for ever.
static void bsWakeTouched(bsRigidBody* bodies, const bsRigidContact* contacts, int32_t contactCount)
{
	for (int32_t i = 0; i < contactCount; ++i)
	{
		int32_t a = contacts[i].a, b = contacts[i].b;
		if (a < 0 || b < 0 || bodies[a].awake == bodies[b].awake)
		{
			continue;
		}
		bsRigidBody* moving = bodies[a].awake ? bodies + a : bodies + b;
		bsRigidBody* sleeping = bodies[a].awake ? bodies + b : bodies + a;
		if (moving->sleepTime == 0.0)
		{
			sleeping->awake = true;
			sleeping->sleepTime = 0.0;
		}
	}
}

// Velocity of body i's material point at p (zero for the static side), or of its pseudo-velocity.
static bsVec3 PointVelocity(const bsSolver* s, int32_t i, bsVec3 p, bool pseudo)
{
	if (i < 0)
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	const bsRigidBody* b = s->bodies + i;
	bsVec3 v = pseudo ? s->pv[i] : b->velocity;
	bsVec3 w = pseudo ? s->pw[i] : b->angularVelocity;
	return bsAdd(v, bsCross(w, bsSub(p, b->position)));
}

static double bsRelativeSpeed(const bsSolver* s, const bsConstraint* c, bsVec3 dir, bool pseudo)
{
	return bsDot(bsSub(PointVelocity(s, c->a, c->point, pseudo), PointVelocity(s, c->b, c->point, pseudo)),
		dir);
}

// 1 / (1/m_e1 + 1/m_e2): the effective mass of the pair along dir (m_e2 infinite when static).
static double bsPairMass(const bsSolver* s, const bsConstraint* c, bsVec3 dir)
{
	double w = 1.0 / bsRigidBody_EffectiveMass(s->bodies + c->a, c->point, dir);
	if (c->b >= 0)
	{
		w += 1.0 / bsRigidBody_EffectiveMass(s->bodies + c->b, c->point, dir);
	}
	return 1.0 / w;
}

static void bsApply(bsSolver* s, const bsConstraint* c, bsVec3 j, bool pseudo)
{
	bsRigidBody* a = s->bodies + c->a;
	bsRigidBody_ImpulseTo(a, c->point, j, pseudo ? s->pv + c->a : &a->velocity,
		pseudo ? s->pw + c->a : &a->angularVelocity);
	if (c->b >= 0)
	{
		bsRigidBody* b = s->bodies + c->b;
		bsRigidBody_ImpulseTo(b, c->point, bsNeg(j), pseudo ? s->pv + c->b : &b->velocity,
			pseudo ? s->pw + c->b : &b->angularVelocity);
	}
}

// Two unit vectors completing n to an orthonormal frame (Frisvad / Duff et al. branchless basis).
static void bsTangents(bsVec3 n, bsVec3* t1, bsVec3* t2)
{
	double sign = copysign(1.0, n.z);
	double a = -1.0 / (sign + n.z);
	double b = n.x * n.y * a;
	*t1 = bsV3(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
	*t2 = bsV3(b, sign + n.y * n.y * a, -n.y);
}

// Builds the constraint of one contact; false when neither side moves (both static or asleep).
static bool bsPrepare(bsSolver* s, const bsRigidContact* k, const bsRigidStepDef* d, double dt,
	bsConstraint* c, bool* bounce)
{
	int32_t a = k->a >= 0 && s->bodies[k->a].awake ? k->a : -1;
	int32_t b = k->b >= 0 && s->bodies[k->b].awake ? k->b : -1;
	bsVec3 n = k->normal;
	if (a < 0)
	{
		if (b < 0)
		{
			return false;
		}
		a = b, b = -1, n = bsNeg(n);  // the moving body first; the normal still points towards it
	}
	memset(c, 0, sizeof(*c));
	c->a = a, c->b = b;
	c->contact = k;
	c->sign = a == k->a ? 1.0 : -1.0;
	c->point = k->point, c->normal = n, c->separation = k->separation;
	bsTangents(n, &c->tangent1, &c->tangent2);
	c->massNormal = bsPairMass(s, c, n);
	double closing = k->closing;  // an approach of the two surfaces: the same whichever is a
	double vn = bsRelativeSpeed(s, c, n, false) - closing;
	double sep = k->separation;
	c->target = (sep > 0.0 ? -sep / dt : 0.0) + closing;
	*bounce = vn < -d->restThreshold && vn * dt + sep < 0.0;
	if (*bounce)
	{
		c->target = -d->restitution * vn + closing;
	}
	c->positionTarget = d->positionFactor * fmax(0.0, -sep - d->slop) / dt;
	return true;
}

// Scales the tangential pulse (t1, t2) back into the friction cone of radius limit.
static void bsClampToCone(double* t1, double* t2, double limit)
{
	double length = sqrt(*t1 * *t1 + *t2 * *t2);
	if (length > limit)
	{
		double scale = length > 0.0 ? limit / length : 0.0;
		*t1 *= scale, *t2 *= scale;
	}
}

// Coulomb friction: the tangential pulse that stops sliding, kept within friction * normal pulse.
// The pulse that stops the sliding velocity u uses the pair's effective mass along u itself: with
// separate masses along the two tangents the pulse would point along M u, not u, and a sliding body
// would be braked at an angle to its motion (measured: 25 degrees and a quarter too little braking
// for a box sliding down an incline).
static void bsSolveFriction(bsSolver* s, bsConstraint* c, double friction)
{
	bsVec3 v = bsSub(PointVelocity(s, c->a, c->point, false), PointVelocity(s, c->b, c->point, false));
	bsVec3 u = bsMulSub(v, bsDot(v, c->normal), c->normal);
	double speed = bsLength(u);
	if (!(speed > 0.0))
	{
		return;
	}
	double mass = bsPairMass(s, c, bsScale(1.0 / speed, u));
	double t1 = c->lambdaT1 - mass * bsDot(u, c->tangent1);
	double t2 = c->lambdaT2 - mass * bsDot(u, c->tangent2);
	bsClampToCone(&t1, &t2, friction * c->lambda);
	bsVec3 j = bsAdd(bsScale(t1 - c->lambdaT1, c->tangent1), bsScale(t2 - c->lambdaT2, c->tangent2));
	c->lambdaT1 = t1, c->lambdaT2 = t2;
	bsApply(s, c, j, false);
}

// The normal pulse towards the target speed, the accumulated pulse kept >= 0.
static void bsSolveNormal(bsSolver* s, bsConstraint* c, bool pseudo)
{
	double* lambda = pseudo ? &c->lambdaP : &c->lambda;
	double target = pseudo ? c->positionTarget : c->target;
	double next = fmax(0.0, *lambda + c->massNormal * (target - bsRelativeSpeed(s, c, c->normal, pseudo)));
	double delta = next - *lambda;
	*lambda = next;
	if (delta != 0.0)
	{
		bsApply(s, c, bsScale(delta, c->normal), pseudo);
	}
}

void bsRigidContactCache_Destroy(bsRigidContactCache* cache)
{
	if (cache != NULL)
	{
		free(cache->items);
		memset(cache, 0, sizeof(*cache));
	}
}

static int bsCompareCached(const void* pa, const void* pb)
{
	const bsRigidCachedPulse* a = pa;
	const bsRigidCachedPulse* b = pb;
	if (a->a != b->a)
	{
		return a->a < b->a ? -1 : 1;
	}
	if (a->b != b->b)
	{
		return a->b < b->b ? -1 : 1;
	}
	return a->key < b->key ? -1 : (a->key > b->key);
}

// The contact's accumulated pulse on a as one world vector (normal and friction parts).
static bsVec3 TotalPulse(const bsConstraint* c)
{
	bsVec3 t = bsAdd(bsScale(c->lambdaT1, c->tangent1), bsScale(c->lambdaT2, c->tangent2));
	return bsMulAdd(t, c->lambda, c->normal);
}

static const bsRigidCachedPulse* bsFindCached(const bsRigidContactCache* cache, const bsRigidContact* k)
{
	if (cache == NULL || k->key == 0 || cache->count == 0)
	{
		return NULL;
	}
	bsRigidCachedPulse probe = {k->a, k->b, k->key, {0.0, 0.0, 0.0}};
	return bsearch(&probe, cache->items, (size_t)cache->count, sizeof(probe), bsCompareCached);
}

// Starts the contact from last substep's pulse (re-projected on this substep's normal and tangents,
// the normal part >= 0, the friction part within its cone), applied at once.
static void bsWarmStart(bsSolver* s, bsConstraint* c, const bsRigidContactCache* cache, double friction)
{
	const bsRigidCachedPulse* old = bsFindCached(cache, c->contact);
	if (old == NULL)
	{
		return;
	}
	bsVec3 j = bsScale(c->sign, old->pulse);
	c->lambda = fmax(0.0, bsDot(j, c->normal));
	double t1 = bsDot(j, c->tangent1), t2 = bsDot(j, c->tangent2);
	bsClampToCone(&t1, &t2, friction * c->lambda);
	c->lambdaT1 = t1, c->lambdaT2 = t2;
	bsApply(s, c, TotalPulse(c), false);
}

// The pulses of this substep's keyed contacts, sorted for the next one's lookups. items has room
// for every contact (allocated before anything changed).
static void bsStoreCache(const bsSolver* s, bsRigidContactCache* cache, bsRigidCachedPulse* items)
{
	int32_t n = 0;
	for (int32_t i = 0; i < s->count; ++i)
	{
		const bsConstraint* c = s->c + i;
		if (c->contact->key == 0)
		{
			continue;
		}
		bsRigidCachedPulse item = {c->contact->a, c->contact->b, c->contact->key,
			bsScale(c->sign, TotalPulse(c))};
		items[n++] = item;
	}
	qsort(items, (size_t)n, sizeof(*items), bsCompareCached);
	free(cache->items);
	cache->items = items;
	cache->count = n;
}

static void bsUpdateSleep(bsRigidBody* b, const bsRigidStepDef* d, double dt)
{
	if (d->sleepDelay <= 0.0)
	{
		return;
	}
	bool slow = bsLength(b->velocity) < d->sleepSpeed &&
		bsLength(b->angularVelocity) * b->radius < d->sleepSpeed;
	b->sleepTime = slow ? b->sleepTime + dt : 0.0;
	if (b->sleepTime >= d->sleepDelay)
	{
		b->awake = false;
		b->velocity = bsV3(0.0, 0.0, 0.0);
		b->angularVelocity = bsV3(0.0, 0.0, 0.0);
	}
}

bsResult bsRigid_Step(bsRigidBody* bodies, int32_t count, const bsRigidContact* contacts,
	int32_t contactCount, const bsRigidStepDef* def, double dt, bsRigidContactCache* cache,
	bsRigidStepStats* stats)
{
	bsRigidStepDef d = def != NULL ? *def : bsDefaultRigidStepDef();
	bsResult r = bsCheckInputs(bodies, count, contacts, contactCount, &d, dt);
	if (r != bs_ok)
	{
		return r;
	}
	bsSolver s = {bodies, NULL, NULL, NULL, 0};
	s.pv = calloc((size_t)count + 1, sizeof(bsVec3));
	s.pw = calloc((size_t)count + 1, sizeof(bsVec3));
	s.c = malloc(((size_t)contactCount + 1) * sizeof(bsConstraint));
	bsRigidCachedPulse* items = cache != NULL ? malloc(((size_t)contactCount + 1) * sizeof(*items)) : NULL;
	if (s.pv == NULL || s.pw == NULL || s.c == NULL || (cache != NULL && items == NULL))
	{
		free(s.pv), free(s.pw), free(s.c), free(items);
		return bs_errOutOfMemory;
	}
	bsRigidStepStats st = {0, 0, 0};
	bsWakeTouched(bodies, contacts, contactCount);
	// The collision speeds (and so the bounce targets) are taken before this substep's gravity: the
	// rise after a bounce at e = 1 then retraces the fall step for step (symplectic Euler is not
	// time-symmetric: from the speeds after gravity, every bounce would gain |v| dt of height).
	for (int32_t i = 0; i < contactCount; ++i)
	{
		bool bounce = false;
		if (bsPrepare(&s, contacts + i, &d, dt, s.c + s.count, &bounce))
		{
			s.count++;
			st.bounces += bounce;
		}
	}
	for (int32_t i = 0; i < count; ++i)
	{
		if (bodies[i].awake)
		{
			bodies[i].velocity = bsMulAdd(bodies[i].velocity, dt, d.gravity);
		}
	}
	for (int32_t i = 0; i < s.count; ++i)
	{
		bsWarmStart(&s, s.c + i, cache, d.friction);
	}
	for (int it = 0; it < d.iterations; ++it)
	{
		for (int32_t i = 0; i < s.count; ++i)
		{
			if (d.friction > 0.0)
			{
				bsSolveFriction(&s, s.c + i, d.friction);
			}
			bsSolveNormal(&s, s.c + i, false);
			bsSolveNormal(&s, s.c + i, true);
		}
	}
	for (int32_t i = 0; i < s.count; ++i)
	{
		st.activeContacts += s.c[i].lambda > 0.0;
	}
	if (cache != NULL)
	{
		bsStoreCache(&s, cache, items);
	}
	for (int32_t i = 0; i < count; ++i)
	{
		bsRigidBody* b = bodies + i;
		if (b->awake)
		{
			bsVec3 v = b->velocity, w = b->angularVelocity;
			bsRigidBody_Advance(b, bsAdd(v, s.pv[i]), bsAdd(w, s.pw[i]), dt);
			bsUpdateSleep(b, &d, dt);
		}
		st.sleeping += !b->awake;
	}
	free(s.pv), free(s.pw), free(s.c);
	if (stats != NULL)
	{
		*stats = st;
	}
	return bs_ok;
}
