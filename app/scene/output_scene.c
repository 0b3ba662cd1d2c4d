// output_scene.c — the POV-Ray scene of a snapshot, scene.pov or frame_NNNN.pov (pov_writer.h); in
// mesh mode (render.surface) its surface files first (scene_surface.h).
#include "output_writers.h"

#include "array.h"
#include "over_life.h"

#include <stdio.h>
#include <stdlib.h>

// Room in the drawn arrays for n particles (colours and velocities only when asked for).
static bool bsSceneOutput_Reserve(bsOutputContext* o, size_t n, bool velocities, bool colors)
{
	if (n <= o->drawnCapacity && (!velocities || o->velocities != NULL) && (!colors || o->colors != NULL))
	{
		return true;
	}
	size_t capacity = n > 2 * o->drawnCapacity ? n : 2 * o->drawnCapacity;
	return BS_ARRAY_RESIZE(o->centers, capacity) && BS_ARRAY_RESIZE(o->radii, capacity) &&
		(!velocities || BS_ARRAY_RESIZE(o->velocities, capacity)) &&
		(!colors || BS_ARRAY_RESIZE(o->colors, 4 * capacity)) && (o->drawnCapacity = capacity, true);
}

// Escaped particles have left the scene: they are in particles.ply but not drawn. The writer reads
// the particle arrays directly; compacted copies are made (once, then grown and reused) only when some
// particle has escaped or particles.over_life changes their looks (drawn radii and colours from their
// ages, made for the write), so a run without either needs no memory per particle beyond the particles.
static bool bsSceneOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	char name[32], path[bs_outputPathMax];
	bsOutput_SceneName(name, sizeof(name), frame);
	bsOutput_Path(path, o->dir, name);
	const bsParticles* p = o->particles;
	bsPovScene* scene = o->scene;
	const bsOverLifeConfig* life = &o->config->particles.overLife;
	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(p, counts);
	bool velocities = scene->particles.instances.object != NULL && o->config->render.instances.velocity;
	bool colors = life->hasColor || life->hasOpacity;
	scene->particles.colors = NULL;
	if (counts[bs_particleEscaped] == 0 && !bsOverLife_Any(life))
	{
		scene->particles.instances.velocities = velocities ? p->velocity : NULL;
		scene->particles.centers = p->position;
		scene->particles.radii = p->radius;
		scene->particles.count = p->count;
		return bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
	}
	if (!bsSceneOutput_Reserve(o, p->count + 1, velocities, colors))
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	if (bsOverLife_Any(life) && !bsOutput_Ages(o, err, errlen))
	{
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] == bs_particleEscaped)
		{
			continue;
		}
		double age = bsOverLife_Any(life) ? o->ages[i] : 0.0;
		o->centers[n] = p->position[i];
		o->radii[n] = p->radius[i] * bsOverLife_RadiusScale(life, age);
		if (velocities)
		{
			o->velocities[n] = p->velocity[i];
		}
		if (colors)
		{
			bsOverLife_Color(life, age, o->colors + 4 * n);
		}
		++n;
	}
	scene->particles.centers = o->centers;
	scene->particles.radii = o->radii;
	scene->particles.instances.velocities = velocities ? o->velocities : NULL;
	scene->particles.colors = colors ? o->colors : NULL;
	scene->particles.count = n;
	return bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
}

const bsOutputWriter bs_sceneOutput = {"scene", bs_outputScene | bs_outputFrame, bsSceneOutput_Write};
