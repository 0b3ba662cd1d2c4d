// force_radial.c — the radial forces (radial.h, step.h: bsStepDef.radial): pushes away from centres
// (explosions), in time windows, from fixed, keyed or body-borne centres; the falloffs and windows, and
// the force class that adds them up.
#include "forces.h"
#include "radial.h"

#include "collider_body.h"

#include <math.h>

const char* bsFalloffName(bsFalloff falloff)
{
	static const char* const names[bs_falloffCount] = {"constant", "linear", "inverse_square"};
	return (unsigned)falloff < (unsigned)bs_falloffCount ? names[falloff] : "?";
}

bsRadialDef bsDefaultRadialDef(void)
{
	bsRadialDef def = {
		.center = {0.0, 0.0, 0.0},
		.strength = 0.0,
		.falloff = bs_falloffConstant,
		.radius = (double)INFINITY,
		.softening = 1.0,
		.start = 0.0,
		.duration = (double)INFINITY,
	};
	return def;
}

static bool bsRadialKeys_AreValid(const bsTrack* keys)
{
	return keys->count == 0 || bsTrack_IsValid(keys);
}

bool bsRadialDef_IsValid(const bsRadialDef* def)
{
	return bsRadialKeys_AreValid(&def->centerKeys) && bsRadialKeys_AreValid(&def->strengthKeys) && isfinite(def->center.x) && isfinite(def->center.y) && isfinite(def->center.z) &&
		isfinite(def->strength) && (unsigned)def->falloff < (unsigned)bs_falloffCount && def->radius > 0.0 &&
		(def->falloff != bs_falloffLinear || isfinite(def->radius)) && def->softening > 0.0 &&
		isfinite(def->softening) && isfinite(def->start) && def->duration > 0.0 &&
		(!def->follow || (def->body >= 0 && def->centerKeys.count == 0));
}

// The share of the substep [t, t + h) inside the window [start, start + duration): 1 for a substep
// wholly inside (exactly, not (t + h) - t over h, which rounds), else the overlap's length over h.
// With an infinite duration the window's end is infinite: no inf - inf.
static double bsRadial_Share(const bsRadialDef* def, double t, double h)
{
	double stop = def->start + def->duration;
	if (t >= def->start && t + h <= stop)
	{
		return 1.0;
	}
	double begin = fmax(t, def->start);
	double end = fmin(t + h, stop);
	return end > begin ? (end - begin) / h : 0.0;
}

// The strength is not 0 at some time: keyed, some key's is not.
static bool bsRadial_HasStrength(const bsRadialDef* def)
{
	if (def->strengthKeys.count == 0)
	{
		return def->strength != 0.0;
	}
	for (int k = 0; k < def->strengthKeys.count; ++k)
	{
		if (def->strengthKeys.value[k].x != 0.0)
		{
			return true;
		}
	}
	return false;
}

bool bsRadial_Acts(const bsRadialDef* def, double t, double h)
{
	return bsRadial_HasStrength(def) && bsRadial_Share(def, t, h) > 0.0;
}

bsVec3 bsRadial_Center(const bsRadialDef* def, double t)
{
	return def->centerKeys.count == 0 ? def->center : bsTrack_At(&def->centerKeys, t);
}

double bsRadial_Strength(const bsRadialDef* def, double t)
{
	return def->strengthKeys.count == 0 ? def->strength : bsTrack_At(&def->strengthKeys, t).x;
}

// The push's magnitude at distance r > 0 from the centre, r <= radius, for the strength s.
static double bsRadial_Magnitude(const bsRadialDef* def, double s, double r)
{
	switch (def->falloff)
	{
		case bs_falloffLinear:
			return s * (1.0 - r / def->radius);
		case bs_falloffInverseSquare:
		{
			double q = r / def->softening;
			return s / (1.0 + q * q);
		}
		default:
			return s;
	}
}

bsVec3 bsRadial_BodyCenter(const bsRadialDef* def, const bsBody* body, double t)
{
	bsTransform pose;
	bsVec3 scale;
	bsBody_Pose(body, t, &pose, &scale);
	return bsTransform_Apply(pose, bsV3(scale.x * def->center.x, scale.y * def->center.y, scale.z * def->center.z));
}

// The body a force follows in the world (NULL: it has no such body, or the force follows none).
static const bsBody* bsRadial_Body(const bsRadialDef* def, const struct bsWorld* world)
{
	if (!def->follow || world == NULL || world->bodies == NULL || def->body >= bsWorldBodies_Count(world->bodies))
	{
		return NULL;
	}
	return bsWorldBodies_Body(world->bodies, def->body);
}

bool bsRadial_SubstepCenter(const bsRadialDef* def, const struct bsWorld* world, double t, double h, bsVec3* center)
{
	if (!def->follow)
	{
		*center = bsRadial_Center(def, t + 0.5 * h);
		return true;
	}
	const bsBody* body = bsRadial_Body(def, world);
	if (body != NULL)
	{
		*center = bsRadial_BodyCenter(def, body, t);
	}
	return body != NULL;
}

bsVec3 bsRadial_Acceleration(const bsRadialDef* def, bsVec3 position, double t, double h)
{
	return bsRadial_AccelerationFrom(def, bsRadial_Center(def, t + 0.5 * h), position, t, h);
}

bsVec3 bsRadial_AccelerationFrom(const bsRadialDef* def, bsVec3 center, bsVec3 position, double t, double h)
{
	double mid = t + 0.5 * h;
	bsVec3 d = bsSub(position, center);
	double r = bsLength(d);
	double share = bsRadial_Share(def, t, h);
	if (!(r > 0.0) || r > def->radius || share <= 0.0)
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	return bsScale(share * bsRadial_Magnitude(def, bsRadial_Strength(def, mid), r) / r, d);
}

// --- the force class ---

static bool bsRadialForce_Active(const bsForceContext* c)
{
	for (int k = 0; k < c->def->radialCount; ++k)
	{
		const bsRadialDef* def = c->def->radial + k;
		if (bsRadial_Acts(def, c->time, c->h) && (!def->follow || bsRadial_Body(def, c->world) != NULL))
		{
			return true;
		}
	}
	return false;
}

// Reads only the particle's own position and the bodies' poses, and adds the forces in their order:
// the same for any thread count. bsRadial_AccelerationFrom already gives zero outside a force's window
// (as beyond its reach), so the window is not tested again here; a lone force is asked only in
// substeps it acts in (bsRadialForce_Active), as before there were several.
static void bsRadialForce_Accelerate(const bsForceContext* c, size_t i, bsVec3* a)
{
	for (int k = 0; k < c->def->radialCount; ++k)
	{
		const bsRadialDef* def = c->def->radial + k;
		bsVec3 center;
		if (bsRadial_SubstepCenter(def, c->world, c->time, c->h, &center))
		{
			*a = bsAdd(*a, bsRadial_AccelerationFrom(def, center, c->particles->position[i], c->time, c->h));
		}
	}
}

static void bsRadialForce_SetDefaults(bsStepDef* def)
{
	for (int k = 0; k < BS_MAX_RADIALS; ++k)
	{
		def->radial[k] = bsDefaultRadialDef();
	}
	def->radialCount = 0;
}

static bool bsRadialForce_IsValid(const bsStepDef* def)
{
	if (def->radialCount < 0 || def->radialCount > BS_MAX_RADIALS)
	{
		return false;
	}
	for (int k = 0; k < def->radialCount; ++k)
	{
		if (!bsRadialDef_IsValid(def->radial + k))
		{
			return false;
		}
	}
	return true;
}

const bsForceClass bs_radialForce = {
	.name = "radial",
	.active = bsRadialForce_Active,
	.accelerate = bsRadialForce_Accelerate,
	.setDefaults = bsRadialForce_SetDefaults,
	.isValid = bsRadialForce_IsValid,
};
