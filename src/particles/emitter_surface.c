// emitter_surface.c — the surface emitter (bs_emitterSurface, bsSurface): count[0] particles on
// triangles by area, off the face, moving along its normal.
#include "emitter_class.h"
#include "core.h"

#include <math.h>

double bsSurface_Accumulate(const bsTriangle* t, size_t count, const uint8_t* selected, double* cumulative)
{
	double total = 0.0;
	for (size_t k = 0; k < count; ++k)
	{
		if (selected == NULL || selected[k] != 0)
		{
			total += 0.5 * bsLength(bsCross(bsSub(t[k].p2, t[k].p1), bsSub(t[k].p3, t[k].p1)));
		}
		cumulative[k] = total;
	}
	return total;
}

size_t bsSurface_Pick(const bsSurface* s, double u)
{
	double x = u * s->cumulative[s->count - 1];
	size_t lo = 0, hi = s->count - 1;  // the answer is in [lo, hi]: cumulative[last] > x
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (s->cumulative[mid] > x)
		{
			hi = mid;
		}
		else
		{
			lo = mid + 1;
		}
	}
	return lo;
}

bool bsSurface_IsValid(const bsSurface* s)
{
	double total = s->count > 0 && s->cumulative != NULL ? s->cumulative[s->count - 1] : 0.0;
	return s->triangles != NULL && total > 0.0 && isfinite(total) && s->gap >= 0.0 && isfinite(s->gap) &&
		s->coneAngle >= 0.0 && s->coneAngle <= 0.5 * BS_PI && s->speedMin >= 0.0 &&
		s->speedMax >= s->speedMin && isfinite(s->speedMax);
}

// One surface particle on its face: the triangle (one draw), a point uniform in it (two draws: a
// point of the parallelogram, folded back into the triangle when it falls in the other half), a
// direction in the cone about the normal and a speed (three draws). *normal is the face's, for the
// offset that needs the particle's radius.
size_t bsSurface_DrawPoint(const bsSurface* s, bsRng* rng, double* a, double* b)
{
	size_t i = bsSurface_Pick(s, bsRng_Uniform(rng));
	*a = bsRng_Uniform(rng);
	*b = bsRng_Uniform(rng);
	if (*a + *b > 1.0)
	{
		*a = 1.0 - *a;
		*b = 1.0 - *b;
	}
	return i;
}

bsVec3 bsSurface_DrawVelocity(const bsSurface* s, size_t i, bsVec3 faceNormal, bsRng* rng, bsVec3* normal)
{
	bool back = s->back != (s->turn != NULL && s->turn[i] != 0);
	*normal = back ? bsScale(-1.0, faceNormal) : faceNormal;
	bsVec3 u, w;
	bsEmitter_Basis(*normal, &u, &w);
	bsVec3 dir = bsEmitter_ConeDirection(*normal, u, w, s->coneAngle, rng);
	double speed = s->speedMin + bsRng_Uniform(rng) * (s->speedMax - s->speedMin);
	return bsScale(speed, dir);
}

static void bsSurface_Emit(const bsSurface* s, bsRng* rng, bsVec3* position, bsVec3* velocity, bsVec3* normal)
{
	double a, b;
	size_t i = bsSurface_DrawPoint(s, rng, &a, &b);
	const bsTriangle* t = s->triangles + i;
	*position = bsMulAdd(bsMulAdd(t->p1, a, bsSub(t->p2, t->p1)), b, bsSub(t->p3, t->p1));
	*velocity = bsSurface_DrawVelocity(s, i, t->n, rng, normal);
}

// Particle k: its face, point, direction and speed (bsSurface_Emit), its radius, then the move off the
// face by the radius + gap.
static void bsSurfaceEmitter_EmitOne(const bsEmitterDef* def, uint64_t k, bsRng* rng, bsParticleDef* particle)
{
	(void)k;
	bsVec3 position, velocity, normal;
	bsSurface_Emit(&def->shape.surface, rng, &position, &velocity, &normal);
	*particle = bsEmitterDef_Particle(def, rng, position, velocity);
	particle->position = bsMulAdd(particle->position, particle->radius + def->shape.surface.gap, normal);
}

static bool bsSurfaceEmitter_IsValid(const bsEmitterDef* def)
{
	return bsSurface_IsValid(&def->shape.surface);
}

const bsEmitterClass bs_surfaceEmitter = {
	.name = "surface",
	.count = bsEmitterDef_CountGiven,
	.emitOne = bsSurfaceEmitter_EmitOne,
	.emit = bsEmitterDef_EmitEach,
	.isValid = bsSurfaceEmitter_IsValid,
};
