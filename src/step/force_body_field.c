// force_body_field.c — grids that move with their bodies (bsStepDef.bodyFields, field.h's bsGridPose):
// the field's rules around each body, in the body's frame.
#include "forces.h"

#include "collider_body.h"
#include "world_internal.h"

static bool bsBodyFieldForce_Active(const bsForceContext* c)
{
	return c->def->bodyFieldCount > 0 && c->world != NULL && c->world->bodies != NULL;
}

// The body's grid pose at time t (false for a body scaled unevenly then) and its transform at both
// ends of the substep.
static bool bsBodyFieldForce_Pose(const bsBody* body, const bsForceContext* c, bsGridPose* pose, bsGridPose* next)
{
	bsTransform t0, t1;
	bsVec3 s0, s1;
	bsBody_Pose(body, c->time, &t0, &s0);
	bsBody_Pose(body, c->time + c->h, &t1, &s1);
	*pose = (bsGridPose){t0.translation, t0.rotation, s0.x};
	*next = (bsGridPose){t1.translation, t1.rotation, s1.x};
	return s0.x == s0.y && s0.x == s0.z && s1.x == s1.y && s1.x == s1.z;
}

// Each free particle's own position and velocity, the bodies' poses and grids: the same for any thread
// count.
static void bsBodyFieldForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	const bsStepDef* def = c->def;
	int bodies = bsWorldBodies_Count(c->world->bodies);
	for (int k = 0; k < def->bodyFieldCount; ++k)
	{
		const bsBodyField* f = def->bodyFields + k;
		bsGridPose pose, next;
		if (f->body >= bodies || !bsBodyFieldForce_Pose(bsWorldBodies_Body(c->world->bodies, f->body), c, &pose,
			&next))
		{
			continue;
		}
		for (size_t i = begin; i < end; ++i)
		{
			if (p->state != NULL && p->state[i] != bs_particleFree)
			{
				continue;
			}
			bsVec3 x = p->position[i];
			// The surface point at x now, where the body carries it by the substep's end.
			bsVec3 rest = bsScale(1.0 / pose.scale, bsQuat_InvRotate(pose.rotation, bsSub(x, pose.position)));
			bsVec3 later = bsAdd(next.position, bsQuat_Rotate(next.rotation, bsScale(next.scale, rest)));
			bsVec3 surface = bsScale(1.0 / c->h, bsSub(later, x));
			bsField_ApplyPosed(f->grid, pose, &def->field, x, surface, c->h, &p->velocity[i]);
		}
	}
}

static bool bsBodyFieldForce_IsValid(const bsStepDef* def)
{
	if (def->bodyFieldCount < 0 || (def->bodyFieldCount > 0 && def->bodyFields == NULL))
	{
		return false;
	}
	for (int k = 0; k < def->bodyFieldCount; ++k)
	{
		if (def->bodyFields[k].body < 0 || def->bodyFields[k].grid == NULL)
		{
			return false;
		}
	}
	return true;
}

const bsForceClass bs_bodyFieldForce = {
	.name = "body field",
	.active = bsBodyFieldForce_Active,
	.adjust = bsBodyFieldForce_Adjust,
	.isValid = bsBodyFieldForce_IsValid,
};
