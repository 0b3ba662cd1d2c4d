// rigid.c — rigid body state, integration, Senin's section 4 response and the contact solver.
//
// The response. For one contact the paper's formulas are applied as written (bsRigid_SeninResponse):
// each body's effective mass at the contact, m_e = m / (1 + m l_x^2/I_x + m l_y^2/I_y + m l_z^2/I_z)
// with l = r_c x n_c in the principal frame, is the mass a point at the contact appears to have when
// pushed along n, so the collision of two bodies is the head-on collision of two point masses m_e1,
// m_e2 moving along n at their contact points' normal speeds. With restitution e the 1D collision is
// p1' = ((m_e1 - e m_e2) p1 + (1 + e) m_e1 p2) / (m_e1 + m_e2), which is the paper's at e = 1.
//
// Several contacts at once (a box on a floor touches at four corners) are solved by sequential
// impulses: each pass visits the contacts in order and gives each the pulse that brings its normal
// speed to its target, with the total pulse of a contact kept >= 0 (contacts push, never pull). The
// mass in that pulse is the pair's m_e1 m_e2 / (m_e1 + m_e2), so a contact alone reaches the paper's
// answer in one pass and later passes add nothing. See docs/bodies_dynamics.md.
#include "rigid_internal.h"
#include "weld.h"

#include <stdlib.h>
#include <string.h>

bsRigidBodyDef bsDefaultRigidBodyDef(void)
{
	bsRigidBodyDef def = {1000.0, bsTransform_Identity(), bsV3(0.0, 0.0, 0.0), bsV3(0.0, 0.0, 0.0)};
	return def;
}

bsRigidStepDef bsDefaultRigidStepDef(void)
{
	bsRigidStepDef def = {
		.gravity = bsV3(0.0, -9.81, 0.0),
		.restitution = 0.5,
		.friction = 0.5,
		.restThreshold = 0.2,
		.slop = 0.001,
		.positionFactor = 0.2,
		.iterations = 10,
		.sleepSpeed = 0.05,
		.sleepDelay = 0.5,
	};
	return def;
}

// The mesh's distinct vertices (shared corners of a triangle soup are the same doubles), in the
// principal frame. Sorting makes the list, and so the order of the contacts, independent of the
// triangle order.
static bsResult bsCollectVertices(bsRigidBody* body, const bsTriangle* tris, uint32_t count)
{
	bsWeld weld;
	bsResult r = bsWeld_Build(&weld, tris, count);
	if (r != bs_ok)
	{
		return r;
	}
	if (!bsWeld_SortByPosition(&weld))
	{
		bsWeld_Destroy(&weld);
		return bs_errOutOfMemory;
	}
	bsVec3* v = weld.positions;
	uint32_t n = weld.vertexCount;
	free(weld.cornerVertex);
	double radius = 0.0;
	for (uint32_t i = 0; i < n; ++i)
	{
		v[i] = bsTransform_ApplyInverse(body->bodyToMesh, v[i]);
		radius = fmax(radius, bsLength(v[i]));
	}
	body->vertices = v;
	body->vertexCount = n;
	body->radius = radius;
	return bs_ok;
}

bsResult bsRigidBody_Create(bsRigidBody* body, const bsTriangle* tris, uint32_t count,
	const bsRigidBodyDef* def)
{
	if (body == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(body, 0, sizeof(*body));
	bsRigidBodyDef d = def != NULL ? *def : bsDefaultRigidBodyDef();
	if (!bsIsValidVec3(d.pose.translation) || !bsIsValidVec3(d.velocity) ||
		!bsIsValidVec3(d.angularVelocity) || !isfinite(bsQuat_Dot(d.pose.rotation, d.pose.rotation)))
	{
		return bs_errNonFinite;
	}
	bsResult r = bsComputeMassProperties(tris, count, d.density, &body->mass);
	if (r != bs_ok)
	{
		return r;
	}
	body->invMass = 1.0 / body->mass.mass;
	bsVec3 I = body->mass.principal;
	body->invInertia = bsV3(1.0 / I.x, 1.0 / I.y, 1.0 / I.z);
	body->bodyToMesh = (bsTransform){body->mass.axes, body->mass.centre};
	r = bsCollectVertices(body, tris, count);
	if (r != bs_ok)
	{
		memset(body, 0, sizeof(*body));
		return r;
	}
	bsTransform pose = {bsQuat_Normalize(d.pose.rotation), d.pose.translation};
	bsTransform world = bsTransform_Mul(pose, body->bodyToMesh);
	body->position = world.translation;
	body->orientation = bsQuat_Normalize(world.rotation);
	body->velocity = d.velocity;
	body->angularVelocity = d.angularVelocity;
	body->awake = true;
	return bs_ok;
}

void bsRigidBody_Destroy(bsRigidBody* body)
{
	if (body != NULL)
	{
		free(body->vertices);
		memset(body, 0, sizeof(*body));
	}
}

// World angular momentum about the centre (below).
static bsVec3 SpinMomentum(const bsRigidBody* body);

bsResult bsRigidBody_Reshape(bsRigidBody* body, const bsTriangle* tris, uint32_t count, const bsVec3* vertices,
	uint32_t vertexCount)
{
	bsMassProperties mass;
	bsResult r = bsComputeMassProperties(tris, count, 1.0, &mass);
	bsVec3* v = r == bs_ok ? malloc((vertexCount + 1) * sizeof(bsVec3)) : NULL;
	if (r != bs_ok || v == NULL)
	{
		return r != bs_ok ? r : bs_errOutOfMemory;
	}
	double density = body->mass.mass / mass.volume;
	mass.mass = body->mass.mass;
	mass.principal = bsScale(density, mass.principal);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			mass.inertia[i][j] *= density;
		}
	}
	bsVec3 L = SpinMomentum(body);
	bsQuat meshToWorld = bsRigidBody_MeshTransform(body).rotation;
	body->mass = mass;
	body->invInertia = bsV3(1.0 / mass.principal.x, 1.0 / mass.principal.y, 1.0 / mass.principal.z);
	body->bodyToMesh = (bsTransform){mass.axes, mass.centre};
	body->orientation = bsQuat_Normalize(bsQuat_Mul(meshToWorld, mass.axes));
	double radius = 0.0;
	for (uint32_t i = 0; i < vertexCount; ++i)
	{
		v[i] = bsTransform_ApplyInverse(body->bodyToMesh, vertices[i]);
		radius = fmax(radius, bsLength(v[i]));
	}
	free(body->vertices);
	body->vertices = v;
	body->vertexCount = vertexCount;
	body->radius = radius;
	bsVec3 Lc = bsQuat_InvRotate(body->orientation, L);
	body->angularVelocity = bsQuat_Rotate(body->orientation, bsV3(Lc.x * body->invInertia.x, Lc.y * body->invInertia.y,
		Lc.z * body->invInertia.z));
	return bs_ok;
}

bsTransform bsRigidBody_MeshTransform(const bsRigidBody* body)
{
	// world <- body <- mesh, with mesh -> body the inverse of bodyToMesh.
	bsQuat inv = bsQuat_Conjugate(body->bodyToMesh.rotation);
	bsTransform meshToBody = {inv, bsNeg(bsQuat_Rotate(inv, body->bodyToMesh.translation))};
	bsTransform bodyToWorld = {body->orientation, body->position};
	return bsTransform_Mul(bodyToWorld, meshToBody);
}

bsVec3 bsRigidBody_PointVelocity(const bsRigidBody* body, bsVec3 p)
{
	return bsAdd(body->velocity, bsCross(body->angularVelocity, bsSub(p, body->position)));
}

// Componentwise products with the principal moments (a vector in oxyz).
static bsVec3 MulDiag(bsVec3 d, bsVec3 v)
{
	return bsV3(d.x * v.x, d.y * v.y, d.z * v.z);
}

// World angular momentum about the centre: R I R^T w.
static bsVec3 SpinMomentum(const bsRigidBody* body)
{
	bsVec3 wc = bsQuat_InvRotate(body->orientation, body->angularVelocity);
	return bsQuat_Rotate(body->orientation, MulDiag(body->mass.principal, wc));
}

double bsRigidBody_KineticEnergy(const bsRigidBody* body)
{
	return 0.5 * body->mass.mass * bsLengthSquared(body->velocity) +
		0.5 * bsDot(body->angularVelocity, SpinMomentum(body));
}

bsVec3 bsRigidBody_Momentum(const bsRigidBody* body)
{
	return bsScale(body->mass.mass, body->velocity);
}

bsVec3 bsRigidBody_AngularMomentum(const bsRigidBody* body)
{
	return bsAdd(bsCross(body->position, bsRigidBody_Momentum(body)), SpinMomentum(body));
}

double bsRigidBody_EffectiveMass(const bsRigidBody* body, bsVec3 p, bsVec3 n)
{
	bsVec3 rc = bsQuat_InvRotate(body->orientation, bsSub(p, body->position));
	bsVec3 nc = bsQuat_InvRotate(body->orientation, n);
	bsVec3 l = bsCross(rc, nc);
	double m = body->mass.mass;
	bsVec3 I = body->mass.principal;
	return m / (1.0 + m * l.x * l.x / I.x + m * l.y * l.y / I.y + m * l.z * l.z / I.z);
}

void bsRigidBody_ImpulseTo(const bsRigidBody* body, bsVec3 p, bsVec3 j, bsVec3* v, bsVec3* w)
{
	*v = bsMulAdd(*v, body->invMass, j);
	bsVec3 rc = bsQuat_InvRotate(body->orientation, bsSub(p, body->position));
	bsVec3 jc = bsQuat_InvRotate(body->orientation, j);
	bsVec3 Lc = bsCross(rc, jc);
	bsVec3 wc = bsQuat_InvRotate(body->orientation, *w);
	wc = bsAdd(wc, MulDiag(body->invInertia, Lc));
	*w = bsQuat_Rotate(body->orientation, wc);
}

void bsRigidBody_ApplyImpulse(bsRigidBody* body, bsVec3 p, bsVec3 j)
{
	bsRigidBody_ImpulseTo(body, p, j, &body->velocity, &body->angularVelocity);
}

void bsRigidBody_ApplyImpulses(bsRigidBody* body, bsVec3 j, bsVec3 L)
{
	body->velocity = bsMulAdd(body->velocity, body->invMass, j);
	bsVec3 Lc = bsQuat_InvRotate(body->orientation, L);
	bsVec3 wc = bsQuat_InvRotate(body->orientation, body->angularVelocity);
	body->angularVelocity = bsQuat_Rotate(body->orientation, bsAdd(wc, MulDiag(body->invInertia, Lc)));
}

void bsRigidBody_Advance(bsRigidBody* body, bsVec3 v, bsVec3 w, double dt)
{
	// Free flight keeps the world angular momentum: take it before turning, and the angular
	// velocity it means after (for unequal moments w changes as the body turns).
	bsVec3 L = SpinMomentum(body);
	body->position = bsMulAdd(body->position, dt, v);
	body->orientation = bsQuat_Integrate(body->orientation, w, dt);
	bsVec3 Lc = bsQuat_InvRotate(body->orientation, L);
	body->angularVelocity = bsQuat_Rotate(body->orientation, MulDiag(body->invInertia, Lc));
}

bsVec3 bsRigid_SeninResponse(bsRigidBody* a, bsRigidBody* b, bsVec3 point, bsVec3 normal,
	double restitution)
{
	double e = restitution;
	double v1 = bsDot(bsRigidBody_PointVelocity(a, point), normal);
	double v2 = b != NULL ? bsDot(bsRigidBody_PointVelocity(b, point), normal) : 0.0;
	if (!(v1 < v2))
	{
		return bsV3(0.0, 0.0, 0.0);  // separating or resting: no collision
	}
	double me1 = bsRigidBody_EffectiveMass(a, point, normal);
	double p1 = me1 * v1;  // the effective pulses, as scalars along n
	double after;
	if (b == NULL)
	{
		after = -e * p1;  // m_e2 -> infinity with v2 = 0
	}
	else
	{
		double me2 = bsRigidBody_EffectiveMass(b, point, normal);
		double p2 = me2 * v2;
		after = ((me1 - e * me2) * p1 + (1.0 + e) * me1 * p2) / (me1 + me2);
	}
	bsVec3 j = bsScale(after - p1, normal);
	bsRigidBody_ApplyImpulse(a, point, j);
	if (b != NULL)
	{
		bsRigidBody_ApplyImpulse(b, point, bsNeg(j));
	}
	return j;
}
