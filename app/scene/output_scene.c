// output_scene.c — the POV-Ray scene of a snapshot, scene.pov or frame_NNNN.pov (pov_writer.h); in
// mesh mode (render.surface) its surface files first (scene_surface.h).
#include "output_writers.h"

#include <stdio.h>
#include <stdlib.h>

// Escaped particles have left the scene: they are in particles.ply but not drawn. The writer reads
// the particle arrays directly; compacted copies are made (once, then reused) only when some particle
// has escaped, so a run needs no memory per particle beyond the particles themselves.
static bool bsSceneOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	char name[32], path[bs_outputPathMax];
	bsOutput_SceneName(name, sizeof(name), frame);
	bsOutput_Path(path, o->dir, name);
	const bsParticles* p = o->particles;
	bsPovScene* scene = o->scene;
	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(p, counts);
	bool velocities = scene->particles.instances.object != NULL && o->config->render.instances.velocity;
	// render.gas: the puffs' radii and densities instead of the collision radii (output_gas.c).
	bool gas = o->config->render.gas.enabled;
	if (gas && (!bsOutputGas_Update(o, err, errlen) || o->gasCount != p->count))
	{
		if (o->gasCount != p->count)
		{
			snprintf(err, errlen, "%s: render.gas: the particles' ages are not known", path);
		}
		return false;
	}
	const double* radii = gas ? o->gasRadii : p->radius;
	if (counts[bs_particleEscaped] == 0)
	{
		scene->particles.instances.velocities = velocities ? p->velocity : NULL;
		scene->particles.centers = p->position;
		scene->particles.radii = radii;
		scene->particles.count = p->count;
		return (!gas || bsOutputGas_WriteGrid(o, o->gasDensities, err, errlen)) &&
			bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
	}
	if (o->centers == NULL)
	{
		o->centers = malloc((p->count + 1) * sizeof(bsVec3));
		o->radii = malloc((p->count + 1) * sizeof(double));
		o->velocities = velocities ? malloc((p->count + 1) * sizeof(bsVec3)) : NULL;
		o->densities = gas ? malloc((p->count + 1) * sizeof(double)) : NULL;
		if (o->centers == NULL || o->radii == NULL || (velocities && o->velocities == NULL) ||
			(gas && o->densities == NULL))
		{
			snprintf(err, errlen, "%s: out of memory", path);
			return false;
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] != bs_particleEscaped)
		{
			o->centers[n] = p->position[i];
			o->radii[n] = radii[i];
			if (velocities)
			{
				o->velocities[n] = p->velocity[i];
			}
			if (gas)
			{
				o->densities[n] = o->gasDensities[i];
			}
			++n;
		}
	}
	scene->particles.centers = o->centers;
	scene->particles.radii = o->radii;
	scene->particles.instances.velocities = o->velocities;
	scene->particles.count = n;
	return (!gas || bsOutputGas_WriteGrid(o, o->densities, err, errlen)) &&
		bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
}

// render.motion_blur: the snapshot's earlier samples, each a scene of its own (motion_blur.h), with
// the same camera, lights and bodies (the bodies are drawn where they are at the image's time).
static bool bsSceneOutput_WriteBlur(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	const bsMotionBlur* b = o->blur;
	if (b == NULL || b->samples < 2)
	{
		return true;
	}
	if (!bsMotionBlur_Ready(b))
	{
		snprintf(err, errlen, "%s: render.motion_blur: out of memory for the sub-frame samples", o->dir);
		return false;
	}
	bsPovScene* scene = o->scene;
	bool velocities = scene->particles.instances.object != NULL && o->config->render.instances.velocity;
	for (int j = 0; j < b->samples - 1; ++j)
	{
		char name[48], path[bs_outputPathMax];
		bsOutput_BlurSceneName(name, sizeof(name), frame, j);
		bsOutput_Path(path, o->dir, name);
		const bsBlurSample* s = b->earlier + j;
		scene->particles.centers = s->centers;
		scene->particles.radii = s->radii;
		scene->particles.instances.velocities = velocities ? s->velocities : NULL;
		scene->particles.count = s->count;
		if (!bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen))
		{
			return false;
		}
	}
	return true;
}

static bool bsSceneOutput_WriteAll(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	return bsSceneOutput_Write(o, frame, err, errlen) && bsSceneOutput_WriteBlur(o, frame, err, errlen);
}

const bsOutputWriter bs_sceneOutput = {"scene", bs_outputScene | bs_outputFrame, bsSceneOutput_WriteAll};
