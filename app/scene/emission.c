#include "emission.h"

#include "bodies.h"
#include "ply.h"

#include "blobsim/body.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bsEmission_Free(bsEmission* e)
{
	for (int k = 0; k < e->count; ++k)
	{
		free(e->lists != NULL ? e->lists[k] : NULL);
		free(e->cumulative != NULL ? e->cumulative[k] : NULL);
		free(e->turn != NULL ? e->turn[k] : NULL);
	}
	free(e->turn);
	free(e->orientation);
	free(e->bodies);
	free(e->lists);
	free(e->listCounts);
	free(e->surfaces);
	free(e->cumulative);
	memset(e, 0, sizeof(*e));
}

// A file's particles as the engine takes them, each checked; false with `file: vertex K: ...`.
static bool bsListFromPly(const bsPlyData* d, const bsSpeciesConfig* pc, const char* file,
	bsParticleDef** out, char* err, size_t errlen)
{
	*out = malloc((d->count + 1) * sizeof(bsParticleDef));
	if (*out == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	for (size_t k = 0; k < d->count; ++k)
	{
		const bsPlyParticle* q = d->particles + k;
		bsParticleDef* p = *out + k;
		p->position = q->position;
		p->radius = (d->fields & bs_plyHasRadius) ? q->radius : pc->radius;
		p->velocity = (d->fields & bs_plyHasVelocity) ? q->velocity : pc->velocity;
		p->state = (d->fields & bs_plyHasState) ? q->state : (uint8_t)bs_particleFree;
		p->spin = (d->fields & bs_plyHasSpin) ? q->spin : bsV3(0.0, 0.0, 0.0);
		bsParticleFault fault = bsParticleDef_Check(p);
		if (fault != bs_particleOk)
		{
			char what[160];
			bsParticleFault_Describe(fault, p, what, sizeof(what));
			snprintf(err, errlen, "%s: vertex %zu: %s", file, k, what);
			return false;
		}
	}
	return true;
}

// The groups of mesh m: a run [*first, *end) of env->groups (its triangles a run of env->triangles).
static void bsMeshGroups(const bsEnvironment* env, int m, uint32_t* first, uint32_t* end)
{
	*first = 0;
	while (*first < env->groupCount && env->groups[*first].mesh < m)
	{
		*first += 1;
	}
	*end = *first;
	while (*end < env->groupCount && env->groups[*end].mesh == m)
	{
		*end += 1;
	}
}

// `config: particles.emitters[K].group: no group 'G' in FILE (groups: a, b)`. Returns false.
static bool bsNoGroup(const bsEnvironment* env, const bsConfig* c, int k, uint32_t first, uint32_t end,
	char* err, size_t errlen)
{
	const bsEmitterConfig* em = c->particles.emitters + k;
	char at[64];
	bsEmitterConfig_Path(&c->particles, k, at, sizeof(at));
	int n = snprintf(err, errlen, "%s: %s.group: no group '%s' in %s (groups:", c->path, at,
		em->group, c->environment.meshes[em->mesh].file);
	for (uint32_t g = first; g < end && n > 0 && (size_t)n < errlen; ++g)
	{
		n += snprintf(err + n, errlen - (size_t)n, "%s %s", g == first ? "" : ",", env->groups[g].key);
	}
	if (n > 0 && (size_t)n < errlen)
	{
		snprintf(err + n, errlen - (size_t)n, ")");
	}
	return false;
}

// The OBJ a surface emitter emits from: its body's (a sequence's first frame's) or its mesh's.
static const char* bsSurfaceFile(const bsConfig* c, const bsEmitterConfig* em)
{
	if (em->body < 0)
	{
		return c->environment.meshes[em->mesh].file;
	}
	const bsBodyConfig* b = c->environment.bodies + em->body;
	return b->file != NULL ? b->file : "the body's mesh sequence";
}

// Surface emitter k on count triangles of total weight area (its cumulative table made): its faces'
// outside, then the surface; false with a message when it has no area or its outside cannot be told.
static bool bsSurfaceOf(bsEmission* e, const bsConfig* c, int k, const bsTriangle* triangles, size_t count,
	double area, char* err, size_t errlen)
{
	const bsEmitterConfig* em = c->particles.emitters + k;
	char at[64];
	bsEmitterConfig_Path(&c->particles, k, at, sizeof(at));
	bsSurface* s = e->surfaces + k;
	*s = em->emitter.surface;
	s->triangles = triangles;
	s->cumulative = e->cumulative[k];
	s->count = count;
	bool ok = area > 0.0 && isfinite(area);
	e->turn[k] = ok ? malloc(count) : NULL;
	bsResult r = !ok ? bs_ok : e->turn[k] == NULL ? bs_errOutOfMemory :
		bsOrientation_Outside(s->triangles, (uint32_t)count, e->turn[k], e->orientation + k);
	if (r != bs_ok)
	{
		snprintf(err, errlen, "%s: %s: cannot tell the outside of %s: %s", c->path, at,
			bsSurfaceFile(c, em), bsResultString(r));
		return false;
	}
	s->turn = e->turn[k];
	if (!ok)
	{
		snprintf(err, errlen, "%s: %s.%s: no triangle to emit from (%s%s%s of %s: %s)",
			c->path, at, em->group != NULL ? "group" : em->body >= 0 ? "body" : "mesh", em->group != NULL ? "group '" : "every group",
			em->group != NULL ? em->group : "", em->group != NULL ? "'" : "", bsSurfaceFile(c, em),
			isfinite(area) ? "every triangle degenerate after the transform" : "an area beyond a double");
		return false;
	}
	return true;
}

// Surface emitter k: its mesh's run of triangles, weighted by area where a selected group holds them.
static bool bsSurfaceFromEnvironment(bsEmission* e, const bsEnvironment* env, const bsConfig* c, int k,
	char* err, size_t errlen)
{
	const bsEmitterConfig* em = c->particles.emitters + k;
	int meshes = c->environment.meshCount;
	char at[64];
	bsEmitterConfig_Path(&c->particles, k, at, sizeof(at));
	if (em->mesh >= meshes)
	{
		snprintf(err, errlen, "%s: %s.mesh: no mesh %d (the environment has %d mesh%s)",
			c->path, at, em->mesh, meshes, meshes == 1 ? "" : "es");
		return false;
	}
	uint32_t first, end;
	bsMeshGroups(env, em->mesh, &first, &end);
	int best = 0;
	for (uint32_t g = first; g < end && em->group != NULL; ++g)
	{
		int m = bsEnvGroup_Match(em->group, env->groups[g].key);
		best = m > best ? m : best;
	}
	if (em->group != NULL && best == 0)
	{
		return bsNoGroup(env, c, k, first, end, err, errlen);
	}
	uint32_t t0 = first < end ? env->groups[first].first : 0;
	uint32_t t1 = first < end ? env->groups[end - 1].first + env->groups[end - 1].count : 0;
	size_t count = t1 - t0;
	uint8_t* selected = calloc(count + 1, 1);
	e->cumulative[k] = malloc((count + 1) * sizeof(double));
	if (selected == NULL || e->cumulative[k] == NULL)
	{
		free(selected);
		snprintf(err, errlen, "%s: out of memory", c->path);
		return false;
	}
	for (uint32_t g = first; g < end; ++g)
	{
		const bsEnvGroup* group = env->groups + g;
		bool chosen = em->group == NULL || bsEnvGroup_Match(em->group, group->key) == best;
		memset(selected + (group->first - t0), chosen ? 1 : 0, group->count);
	}
	double area = bsSurface_Accumulate(env->triangles + t0, count, selected, e->cumulative[k]);
	free(selected);
	return bsSurfaceOf(e, c, k, env->triangles + t0, count, area, err, errlen);
}

// Surface emitter k on body em->body (environment.bodies): its rest mesh, every triangle by area.
static bool bsSurfaceOnBody(bsEmission* e, const bsEnvironment* env, const bsConfig* c, int k, char* err,
	size_t errlen)
{
	const bsEmitterConfig* em = c->particles.emitters + k;
	const bsBody* body = bsEnvBodies_Body(env->bodies, em->body);
	int bodies = c->environment.bodyCount;
	char at[64];
	bsEmitterConfig_Path(&c->particles, k, at, sizeof(at));
	if (body == NULL || bsBody_Kind(body) == bs_motionDynamic)
	{
		if (body == NULL)
		{
			snprintf(err, errlen, "%s: %s.body: no body %d (the environment has %d bod%s)", c->path,
				at, em->body, bodies, bodies == 1 ? "y" : "ies");
		}
		else
		{
			snprintf(err, errlen, "%s: %s.body: body %d is dynamic (an emitter rides a keyed or "
				"deforming body only)", c->path, at, em->body);
		}
		return false;
	}
	uint32_t count;
	const bsTriangle* rest = bsBody_Triangles(body, &count);
	e->bodies[k] = body;
	e->cumulative[k] = malloc(((size_t)count + 1) * sizeof(double));
	if (e->cumulative[k] == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", c->path);
		return false;
	}
	double area = bsSurface_Accumulate(rest, count, NULL, e->cumulative[k]);
	return bsSurfaceOf(e, c, k, rest, count, area, err, errlen);
}
bool bsEmission_Load(bsEmission* e, const bsConfig* c, const bsEnvironment* env, char* err, size_t errlen)
{
	const bsParticlesConfig* pc = &c->particles;
	memset(e, 0, sizeof(*e));
	e->count = pc->emitterCount;
	e->lists = calloc((size_t)pc->emitterCount + 1, sizeof(bsParticleDef*));
	e->listCounts = calloc((size_t)pc->emitterCount + 1, sizeof(size_t));
	e->surfaces = calloc((size_t)pc->emitterCount + 1, sizeof(bsSurface));
	e->cumulative = calloc((size_t)pc->emitterCount + 1, sizeof(double*));
	e->turn = calloc((size_t)pc->emitterCount + 1, sizeof(uint8_t*));
	e->orientation = calloc((size_t)pc->emitterCount + 1, sizeof(bsOrientation));
	e->bodies = calloc((size_t)pc->emitterCount + 1, sizeof(const bsBody*));
	if (e->lists == NULL || e->listCounts == NULL || e->surfaces == NULL || e->cumulative == NULL ||
		e->turn == NULL || e->orientation == NULL || e->bodies == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", c->path);
		bsEmission_Free(e);
		return false;
	}
	uint64_t n = (uint64_t)pc->particleCount;
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		const char* file = pc->emitters[k].file;
		if (file == NULL)
		{
			bool surface = pc->emitters[k].emitter.type == bs_emitterSurface;
			bool onBody = surface && pc->emitters[k].body >= 0;
			if (surface && !(onBody ? bsSurfaceOnBody(e, env, c, k, err, errlen)
						: bsSurfaceFromEnvironment(e, env, c, k, err, errlen)))
			{
				bsEmission_Free(e);
				return false;
			}
			continue;
		}
		bsPlyData d;
		bool ok = bsPly_Read(file, &d, err, errlen) && bsListFromPly(&d, pc->species + pc->emitters[k].species, file, e->lists + k, err, errlen);
		e->listCounts[k] = d.count;
		bool overTime = pc->emitters[k].rate > 0.0 || pc->emitters[k].rateKeys.count > 0;
		n += overTime ? 0 : d.count;  // a rate's count is in particleCount
		free(d.particles);
		if (!ok)
		{
			bsEmission_Free(e);
			return false;
		}
	}
	if (n > BS_CONFIG_MAX_PARTICLES)
	{
		snprintf(err, errlen, "%s: %" PRIu64 " particles, more than %d", c->path, n, BS_CONFIG_MAX_PARTICLES);
		bsEmission_Free(e);
		return false;
	}
	e->total = n;
	return true;
}

bool bsEmission_DescribeWinding(const bsEmission* e, const bsConfig* c, int k, char* out, size_t size)
{
	out[0] = '\0';
	const bsOrientation* o = e->orientation + k;
	if (e->turn[k] == NULL || o->inward == 0)
	{
		return false;
	}
	const char* file = bsSurfaceFile(c, c->particles.emitters + k);
	size_t faces = e->surfaces[k].count;
	char at[64];
	bsEmitterConfig_Path(&c->particles, k, at, sizeof(at));
	int n = snprintf(out, size, "%s: %" PRIu32 " of %zu faces of %s %s", at, o->inward, faces, file,
		o->inward == 1 ? "is wound inward" : "are wound inward");
	if (o->open > 0 && n > 0 && (size_t)n < size)
	{
		n += snprintf(out + n, size - (size_t)n, " or against most of their open piece (%" PRIu32 " faces "
			"on pieces with no inside)", o->open);
	}
	if (n > 0 && (size_t)n < size)
	{
		snprintf(out + n, size - (size_t)n, "; emitting off their outside");
	}
	return true;
}

bsResult bsEmission_AddToWorld(const bsEmission* e, const bsConfig* c, bsWorld* world)
{
	const bsParticlesConfig* pc = &c->particles;
	for (int k = 0; k < pc->emitterCount; ++k)
	{
		const bsSpeciesConfig* sp = pc->species + pc->emitters[k].species;  // its particles' kind
		bsEmitterDef def = bsDefaultEmitterDef();
		def.start = pc->emitters[k].start;
		def.stop = pc->emitters[k].stop;
		def.rate = pc->emitters[k].rate;
		def.rateKeys = pc->emitters[k].rateKeys;
		def.motion = pc->emitters[k].motion;
		def.lifetime = sp->lifetime;
		def.species = (uint8_t)pc->emitters[k].species;
		if (pc->emitters[k].file != NULL)
		{
			def.shape.type = bs_emitterList;
			def.list = e->lists[k];
			def.listCount = e->listCounts[k];
		}
		else
		{
			def.shape = pc->emitters[k].emitter;  // a nozzle or a surface gives its particles their velocity
			if (def.shape.type == bs_emitterSurface)
			{
				def.shape.surface = e->surfaces[k];
			}
			def.radius = sp->radius;
			def.radiusSpread = sp->radiusSpread;
			def.velocity = sp->velocity;
		}
		bsResult r = e->bodies[k] != NULL ? bsWorld_AddBodyEmitter(world, &def, e->bodies[k]) : bsWorld_AddEmitter(world, &def);
		if (r != bs_ok)
		{
			return r;
		}
	}
	// Cells of twice the largest diameter of any species: a particle's query visits a few cells.
	double largest = pc->radius * (1.0 + pc->radiusSpread);
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		double r = pc->species[k].radius * (1.0 + pc->species[k].radiusSpread);
		largest = r > largest ? r : largest;
	}
	return pc->accumulate ? bsWorld_AddStuckParticles(world, 4.0 * largest) : bs_ok;
}
