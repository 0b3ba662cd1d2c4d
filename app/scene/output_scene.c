// output_scene.c — the POV-Ray scene of a snapshot, scene.pov or frame_NNNN.pov (pov_writer.h); in
// mesh mode (render.surface) its surface files first (scene_surface.h).
#include "output_writers.h"

#include "array.h"
#include "over_life.h"

#include <stdio.h>
#include <stdlib.h>

// The objects turn by the particles' orientations (render.instances.orient "rotation"; the run gave
// the set its orientation array).
static bool bsSceneOutput_Turns(const bsOutputContext* o)
{
	return o->scene->particles.instances.object != NULL && o->config->render.instances.rotation &&
		o->particles->orientation != NULL;
}

// Room in the drawn arrays for n particles (velocities, colours, render.gas's densities and
// orientations only when asked for).
static bool bsSceneOutput_Reserve(bsOutputContext* o, size_t n, bool velocities, bool colors, bool densities)
{
	bool turns = bsSceneOutput_Turns(o);
	if (n <= o->drawnCapacity && (!velocities || o->velocities != NULL) && (!colors || o->colors != NULL) &&
		(!densities || o->densities != NULL) && (!turns || o->orientations != NULL))
	{
		return true;
	}
	size_t capacity = n > 2 * o->drawnCapacity ? n : 2 * o->drawnCapacity;
	return BS_ARRAY_RESIZE(o->centers, capacity) && BS_ARRAY_RESIZE(o->radii, capacity) &&
		(!velocities || BS_ARRAY_RESIZE(o->velocities, capacity)) &&
		(!turns || BS_ARRAY_RESIZE(o->orientations, capacity)) &&
		(!colors || BS_ARRAY_RESIZE(o->colors, 4 * capacity)) &&
		(!densities || BS_ARRAY_RESIZE(o->densities, capacity)) && (o->drawnCapacity = capacity, true);
}

// at[s + 1] the drawn particles of species s in, first[s] .. first[s + 1] (and at[s]) out: where each
// species' run of the drawn arrays begins.
static void bsSceneOutput_Firsts(size_t* at, int species, size_t* first)
{
	for (int s = 0; s < species; ++s)
	{
		at[s + 1] += at[s];
		first[s] = at[s];
	}
	first[species] = at[species];
}

// Drawn particle n: its centre, its radius and colour from its ramps at its age (and its velocity when
// asked for).
static void bsSceneOutput_Put(bsOutputContext* o, size_t n, bsVec3 center, double radius, const bsVec3* velocity,
	const bsOverLifeConfig* life, double age, bool colors)
{
	o->centers[n] = center;
	o->radii[n] = radius * bsOverLife_RadiusScale(life, age);
	if (velocity != NULL)
	{
		o->velocities[n] = *velocity;
	}
	if (colors)
	{
		bsOverLife_Color(life, age, o->colors + 4 * n);
	}
}

// The drawn particles (not escaped) of each species, species after species, into the context's arrays:
// first[s] .. first[s + 1] are species s's. Each one's drawn radius and colour from its species' ramps
// at its age.
static void bsSceneOutput_Compact(bsOutputContext* o, bool velocities, bool colors, int species, size_t* first)
{
	const bsParticles* p = o->particles;
	const bsParticlesConfig* pc = &o->config->particles;
	bool ages = bsOverLife_AnySpecies(pc);
	size_t at[BS_MAX_SPECIES + 1] = {0};
	for (size_t i = 0; i < p->count; ++i)
	{
		at[bsSpecies_Of(pc, p, i) + 1] += p->state[i] != bs_particleEscaped;
	}
	bsSceneOutput_Firsts(at, species, first);
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] == bs_particleEscaped)
		{
			continue;
		}
		size_t n = at[bsSpecies_Of(pc, p, i)]++;
		bsSceneOutput_Put(o, n, p->position[i], p->radius[i], velocities ? p->velocity + i : NULL,
			bsOverLife_Of(pc, p, i), ages ? o->ages[i] : 0.0, colors);
		if (bsSceneOutput_Turns(o))
		{
			o->orientations[n] = p->orientation[i];
		}
	}
}

// A motion-blur sample's particles (escaped ones already left out) the same way, each with its species
// and its age at the sample's time (motion_blur.h: the sample keeps them with looks).
static void bsSceneOutput_CompactSample(bsOutputContext* o, const bsBlurSample* s, bool velocities, bool colors,
	int species, size_t* first)
{
	const bsParticlesConfig* pc = &o->config->particles;
	size_t at[BS_MAX_SPECIES + 1] = {0};
	for (size_t i = 0; i < s->count; ++i)
	{
		at[s->species[i] + 1] += 1;
	}
	bsSceneOutput_Firsts(at, species, first);
	for (size_t i = 0; i < s->count; ++i)
	{
		int k = s->species[i];
		const bsOverLifeConfig* life = pc->speciesCount > 0 ? &pc->species[k].overLife : &pc->overLife;
		size_t n = at[k]++;
		bsSceneOutput_Put(o, n, s->centers[i], s->radii[i], velocities ? s->velocities + i : NULL, life,
			s->ages[i], colors);
		if (bsSceneOutput_Turns(o))
		{
			o->orientations[n] = s->orientations[i];
		}
	}
}

// render.gas in a motion-blur sample: each particle's puff at its age at the sample's time, and the
// sample's own density grid.
static bool bsSceneOutput_WriteGasSample(bsOutputContext* o, const bsBlurSample* s, const char* path, char* err,
	size_t errlen)
{
	bsPovScene* scene = o->scene;
	if (!bsSceneOutput_Reserve(o, s->count + 1, false, false, true))
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	for (size_t i = 0; i < s->count; ++i)
	{
		o->centers[i] = s->centers[i];
		bsOutputGas_Puff(&o->config->render.gas, s->radii[i], s->ages[i], o->radii + i, o->densities + i);
	}
	scene->particles.centers = o->centers;
	scene->particles.radii = o->radii;
	scene->particles.instances.velocities = NULL;
	scene->particles.count = s->count;
	return bsOutputGas_WriteGrid(o, o->densities, err, errlen) &&
		bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
}

// render.gas (output_gas.c): the puffs' radii and densities instead of the collision radii, escaped
// particles left out. One species and no over-life ramps (config_render.c refuses them with the gas).
static bool bsSceneOutput_WriteGas(bsOutputContext* o, const char* path, bool escaped, bool velocities, char* err,
	size_t errlen)
{
	const bsParticles* p = o->particles;
	bsPovScene* scene = o->scene;
	if (!bsOutputGas_Update(o, err, errlen) || o->gasCount != p->count)
	{
		if (o->gasCount == p->count)
		{
			return false;
		}
		snprintf(err, errlen, "%s: render.gas: the particles' ages are not known", path);
		return false;
	}
	scene->particles.colors = NULL;
	scene->particles.instances.velocities = velocities ? p->velocity : NULL;
	scene->particles.centers = p->position;
	scene->particles.radii = o->gasRadii;
	scene->particles.count = p->count;
	if (!escaped)
	{
		return bsOutputGas_WriteGrid(o, o->gasDensities, err, errlen) &&
			bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
	}
	if (!bsSceneOutput_Reserve(o, p->count + 1, velocities, false, true))
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->count; ++i)
	{
		if (p->state[i] != bs_particleEscaped)
		{
			o->centers[n] = p->position[i];
			o->radii[n] = o->gasRadii[i];
			if (velocities)
			{
				o->velocities[n] = p->velocity[i];
			}
			o->densities[n] = o->gasDensities[i];
			++n;
		}
	}
	scene->particles.centers = o->centers;
	scene->particles.radii = o->radii;
	scene->particles.instances.velocities = velocities ? o->velocities : NULL;
	scene->particles.count = n;
	return bsOutputGas_WriteGrid(o, o->densities, err, errlen) &&
		bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
}

// The scene at path, the image's or (sample) a motion-blur sample's: in mesh or auto mode a sample has
// its own surface, in the image's look (bsSceneSurface_WriteSample).
static bool bsSceneOutput_WriteScene(bsOutputContext* o, const char* path, bool sample, char* err, size_t errlen)
{
	return sample ? bsSceneSurface_WriteSample(o->surface, path, o->scene, err, errlen)
	              : bsSceneSurface_WriteScene(o->surface, path, o->scene, err, errlen);
}

// The compacted particles (first[s] .. first[s + 1] species s's) as the scene's sets: species 0 is the
// scene's particles, each other species a set of its own with its look; then the scene, written to path.
static bool bsSceneOutput_WriteSets(bsOutputContext* o, const char* path, bool sample, int species,
	const size_t* first, bool velocities, char* err, size_t errlen)
{
	const bsParticlesConfig* pc = &o->config->particles;
	bsPovScene* scene = o->scene;
	bsPovParticles sets[BS_MAX_SPECIES];
	const char* material = scene->particles.material;
	for (int s = 0; s < species; ++s)
	{
		bsPovParticles* set = s == 0 ? &scene->particles : sets + s - 1;
		*set = scene->particles;
		const bsSpeciesConfig* sp = pc->speciesCount > 0 ? pc->species + s : NULL;
		const bsOverLifeConfig* life = sp != NULL ? &sp->overLife : &pc->overLife;
		set->material = sp != NULL && sp->hasLook ? sp->look.texture : material;
		set->centers = o->centers + first[s];
		set->radii = o->radii + first[s];
		set->instances.velocities = velocities ? o->velocities + first[s] : NULL;
		set->instances.orientations = bsSceneOutput_Turns(o) ? o->orientations + first[s] : NULL;
		set->colors = life->hasColor || life->hasOpacity ? o->colors + 4 * first[s] : NULL;
		set->count = first[s + 1] - first[s];
	}
	scene->moreParticles = sets;
	scene->moreParticleCount = (size_t)species - 1;
	bool ok = bsSceneOutput_WriteScene(o, path, sample, err, errlen);
	scene->particles.material = material;
	scene->moreParticles = NULL;
	scene->moreParticleCount = 0;
	return ok;
}

// Escaped particles have left the scene: they are in particles.ply but not drawn. The writer reads
// the particle arrays directly; compacted copies are made (once, then grown and reused) only when some
// particle has escaped, particles.over_life changes their looks (drawn radii and colours from their
// ages, made for the write) or there are several species (each its own blob objects and material), so a
// run without any of these needs no memory per particle beyond the particles.
static bool bsSceneOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	char name[32], path[bs_outputPathMax];
	bsOutput_SceneName(name, sizeof(name), frame);
	bsOutput_Path(path, o->dir, name);
	const bsParticles* p = o->particles;
	const bsParticlesConfig* pc = &o->config->particles;
	bsPovScene* scene = o->scene;
	uint64_t counts[bs_particleStateCount];
	bsParticles_CountStates(p, counts);
	bool velocities = scene->particles.instances.object != NULL && o->config->render.instances.velocity;
	if (o->config->render.gas.enabled)
	{
		return bsSceneOutput_WriteGas(o, path, counts[bs_particleEscaped] > 0, velocities, err, errlen);
	}
	bool colors = bsOverLife_AnyColor(pc);
	int species = pc->speciesCount > 1 ? pc->speciesCount : 1;
	scene->particles.colors = NULL;
	if (counts[bs_particleEscaped] == 0 && !bsOverLife_AnySpecies(pc) && species == 1)
	{
		scene->particles.instances.velocities = velocities ? p->velocity : NULL;
		scene->particles.instances.orientations = bsSceneOutput_Turns(o) ? p->orientation : NULL;
		scene->particles.centers = p->position;
		scene->particles.radii = p->radius;
		scene->particles.count = p->count;
		return bsSceneSurface_WriteScene(o->surface, path, scene, err, errlen);
	}
	if (!bsSceneOutput_Reserve(o, p->count + 1, velocities, colors, false))
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	if (bsOverLife_AnySpecies(pc) && !bsOutput_Ages(o, err, errlen))
	{
		return false;
	}
	size_t first[BS_MAX_SPECIES + 1];
	bsSceneOutput_Compact(o, velocities, colors, species, first);
	return bsSceneOutput_WriteSets(o, path, false, species, first, velocities, err, errlen);
}

// render.motion_blur: the snapshot's earlier samples, each a scene of its own (motion_blur.h), with
// the same camera and lights, the moving bodies where they were at the sample's time and the rest of
// the environment as it is; in mesh mode each its own surface polygonized from its particles (auto: the
// image's choice, bsSceneSurface_WriteSample).
static bool bsSceneOutput_WriteSample(bsOutputContext* o, int frame, int j, char* err, size_t errlen)
{
	const bsMotionBlur* b = o->blur;
	bsPovScene* scene = o->scene;
	char name[48], path[bs_outputPathMax];
	bsOutput_BlurSceneName(name, sizeof(name), frame, j);
	bsOutput_Path(path, o->dir, name);
	const bsBlurSample* s = b->earlier + j;
	if (b->povBodies != NULL && !bsEnvBodies_PoseSample(b->bodies, s->seconds, s->poses, b->povBodies))
	{
		snprintf(err, errlen, "%s: render.motion_blur: out of memory for the bodies' shapes", path);
		return false;
	}
	bool velocities = scene->particles.instances.object != NULL && o->config->render.instances.velocity;
	scene->particles.colors = NULL;
	if (o->config->render.gas.enabled)
	{
		return bsSceneOutput_WriteGasSample(o, s, path, err, errlen);
	}
	if (b->looks != NULL)
	{
		// Several species or over-life ramps: each species' set, its looks at the sample's time.
		const bsParticlesConfig* pc = &o->config->particles;
		bool colors = bsOverLife_AnyColor(pc);
		int species = pc->speciesCount > 1 ? pc->speciesCount : 1;
		size_t first[BS_MAX_SPECIES + 1];
		if (!bsSceneOutput_Reserve(o, s->count + 1, velocities, colors, false))
		{
			snprintf(err, errlen, "%s: out of memory", path);
			return false;
		}
		bsSceneOutput_CompactSample(o, s, velocities, colors, species, first);
		return bsSceneOutput_WriteSets(o, path, true, species, first, velocities, err, errlen);
	}
	scene->particles.centers = s->centers;
	scene->particles.radii = s->radii;
	scene->particles.instances.velocities = velocities ? s->velocities : NULL;
	scene->particles.instances.orientations = bsSceneOutput_Turns(o) ? s->orientations : NULL;
	scene->particles.count = s->count;
	return bsSceneOutput_WriteScene(o, path, true, err, errlen);
}

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
	// The image's bodies come back after the samples: the final scene is written with them again.
	const bsPovBody* bodies = o->scene->bodies;
	o->scene->bodies = b->povBodies != NULL ? b->povBodies : bodies;
	bool ok = true;
	for (int j = 0; ok && j < b->samples - 1; ++j)
	{
		ok = bsSceneOutput_WriteSample(o, frame, j, err, errlen);
	}
	o->scene->bodies = bodies;
	return ok;
}

static bool bsSceneOutput_WriteAll(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	return bsSceneOutput_Write(o, frame, err, errlen) && bsSceneOutput_WriteBlur(o, frame, err, errlen);
}

const bsOutputWriter bs_sceneOutput = {"scene", bs_outputScene | bs_outputFrame, bsSceneOutput_WriteAll};
