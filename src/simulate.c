#include "blobsim/simulate.h"

#include "blobsim/parallel.h"

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
	total->stuck += add->stuck;
	total->escaped += add->escaped;
	total->contactLimit += add->contactLimit;
}

bsResult bsWorld_Sweep(const bsWorld* world, bsMethod method, const bsSweepInput* input,
	bsSweepOutput* out, bsQueryStats* stats)
{
	bsSweep s;
	bsResult result = (unsigned)method < (unsigned)bs_methodCount ? bsMakeSweep(input, &s)
		: bs_errInvalidArgument;
	if (result != bs_ok)
	{
		memset(out, 0, sizeof(*out));
		out->t = 1.0;
		out->triangle = BS_NO_TRIANGLE;
		return result;
	}
	if (world->bvh != NULL)
	{
		bsBvh_SweepPrepared(world->bvh, method, &s, out, stats);
	}
	else
	{
		bsSweep_Miss(&s, out);
		if (stats != NULL)
		{
			stats->queries += 1;
		}
	}

	// The planes: a nearer contact replaces the triangle's.
	for (uint32_t k = 0; k < world->planeCount; ++k)
	{
		const bsPlane* plane = world->planes + k;
		bsTriangleHit hit;
		double tmax = out->hit ? out->t : 2.0;
		if (!bsPlaneSweep(plane, &s, method, tmax, &hit))
		{
			continue;
		}
		memset(out, 0, sizeof(*out));
		out->t = hit.t;
		out->center = hit.t >= 1.0 ? s.c2 : bsMulAdd(s.c1, hit.t, s.d);
		double side = bsDot(plane->n, out->center) + plane->d;
		out->point = bsMulSub(out->center, side, plane->n);
		if (side == 0.0)
		{
			// On the plane (the ray method): the normal faces where the motion comes from.
			side = -bsDot(plane->n, s.d);
		}
		out->normal = side >= 0.0 ? plane->n : bsNeg(plane->n);
		out->triangle = BS_NO_TRIANGLE;
		out->hit = 1;
		out->test = hit.test;
		out->branch = hit.branch;
		out->feature = (uint8_t)(k < 255 ? k : 255);
	}
	return bs_ok;
}

typedef struct bsStepWorker
{
	bsStepStats stats;
	bsResult error;
	char padding[64];
} bsStepWorker;

typedef struct bsStepContext
{
	const bsWorld* world;
	const bsStepSettings* settings;
	bsParticles* particles;
	bsStepWorker* workers;
} bsStepContext;

static bool bsOutside(const bsStepSettings* st, bsVec3 x)
{
	return x.x < st->boundsMin.x || x.y < st->boundsMin.y || x.z < st->boundsMin.z ||
		x.x > st->boundsMax.x || x.y > st->boundsMax.y || x.z > st->boundsMax.z;
}

// One particle through one step.
static bsResult bsStepParticle(const bsWorld* world, const bsStepSettings* st, bsParticles* p,
	size_t i, bsStepStats* stats)
{
	bsVec3 v = bsMulAdd(p->velocity[i], st->dt, st->gravity);
	if (st->drag > 0.0)
	{
		v = bsScale(exp(-st->drag * st->dt), v);
	}
	bsVec3 x = p->position[i];
	double radius = p->radius[i];
	double placed = st->method == bs_methodRay ? 0.0 : radius;
	double remaining = st->dt;
	bsQueryStats qs = {0, 0, 0, 0};

	for (int contact = 0;; ++contact)
	{
		if (contact == st->maxContacts)
		{
			// Every contact of this step used (a particle wedged in a corner): it waits here for
			// the next step rather than tunnelling.
			stats->contactLimit += 1;
			break;
		}
		bsSweepInput in = {x, bsMulAdd(x, remaining, v), radius};
		bsSweepOutput out;
		bsResult r = bsWorld_Sweep(world, st->method, &in, &out, &qs);
		if (r != bs_ok)
		{
			return r;
		}
		if (!out.hit)
		{
			x = in.c2;
			break;
		}
		stats->contacts[out.test][out.branch] += 1;

		if (st->response == bs_responseStick)
		{
			// Where the method stops it: karabassi's estimate (overlapping, as the paper leaves its
			// blobs), exact's touching position, the ray's point on the surface.
			x = out.center;
			v = bsV3(0.0, 0.0, 0.0);
			p->state[i] = bs_particleStuck;
			stats->stuck += 1;
			break;
		}

		// Slide or bounce: put the sphere just clear of the surface (the paper's section 3.2: "a
		// displacement depending on the triangle's normal and the sphere's radius, so that the two
		// objects would merely be in touch"), plus a skin so the next sweep does not start in
		// contact with the same surface.
		bsVec3 n = out.normal;
		double skin = 1e-6 * radius + 1e-9 * (1.0 + bsMaxAbs(out.point));
		x = bsMulAdd(out.point, placed + skin, n);
		remaining *= 1.0 - out.t;

		double vn = bsDot(v, n);
		if (vn < 0.0)
		{
			bsVec3 vt = bsMulSub(v, vn, n);
			double e = st->response == bs_responseBounce ? st->restitution : 0.0;
			// Coulomb: the tangential speed drops by friction x the normal impulse (per unit mass).
			double lost = st->friction * (1.0 + e) * -vn;
			double speed = bsLength(vt);
			vt = speed > lost ? bsScale(1.0 - lost / speed, vt) : bsV3(0.0, 0.0, 0.0);
			v = bsMulSub(vt, e * vn, n);
		}
		if (!(remaining > 0.0))
		{
			break;
		}
	}

	stats->queries += qs.queries;
	stats->nodesVisited += qs.nodesVisited;
	stats->trianglesTested += qs.trianglesTested;
	if (st->bounded && p->state[i] == bs_particleFree && bsOutside(st, x))
	{
		p->state[i] = bs_particleEscaped;
		stats->escaped += 1;
	}
	p->position[i] = x;
	p->velocity[i] = v;
	return bs_ok;
}

static void bsStep_Range(void* context, size_t begin, size_t end, int worker)
{
	bsStepContext* c = context;
	bsStepWorker* w = c->workers + worker;
	for (size_t i = begin; i < end; ++i)
	{
		if (c->particles->state[i] != bs_particleFree)
		{
			continue;
		}
		bsResult r = bsStepParticle(c->world, c->settings, c->particles, i, &w->stats);
		if (r != bs_ok && w->error == bs_ok)
		{
			w->error = r;
		}
	}
}

bsResult bsSimulate_Step(const bsWorld* world, const bsStepSettings* settings,
	bsParticles* particles, bsStepStats* stats)
{
	if (settings->maxContacts < 1 || !(settings->dt > 0.0) ||
		(unsigned)settings->method >= (unsigned)bs_methodCount ||
		(unsigned)settings->response >= (unsigned)bs_responseCount)
	{
		return bs_errInvalidArgument;
	}
	int n = bsResolveThreads(settings->threads, particles->count);
	bsStepWorker single;
	bsStepWorker* workers = n > 1 ? calloc((size_t)n, sizeof(bsStepWorker)) : NULL;
	if (workers == NULL)
	{
		n = 1;
		workers = &single;
		memset(&single, 0, sizeof(single));
	}
	bsStepContext context = {world, settings, particles, workers};
	(void)bsParallelFor(n, particles->count, 256, bsStep_Range, &context);

	bsResult result = bs_ok;
	for (int w = 0; w < n; ++w)
	{
		if (stats != NULL)
		{
			bsStepStats_Add(stats, &workers[w].stats);
		}
		if (result == bs_ok)
		{
			result = workers[w].error;
		}
	}
	if (workers != &single)
	{
		free(workers);
	}
	return result;
}
