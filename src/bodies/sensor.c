// sensor.c — Senin et al.'s sensor particles (sensor.h).
#include "sensor.h"

#include "mesh_distance.h"

#include "blobsim/rng.h"

#include <stdlib.h>
#include <string.h>

enum
{
	bs_siteVertex = 0,
	bs_siteEdge,
	bs_siteFace,
	bs_sensorMaxParticles = 32,
	bs_sensorMaxExactFaces = 4096,
	bs_sensorCachedMoves = 2,
};

// Where a particle sits: vertex a; the midpoint of edge (a, b), a < b; or the centroid of face f.
typedef struct bsSite
{
	uint32_t kind;
	uint32_t a, b;
	uint32_t face;
} bsSite;

typedef struct bsSensorBody
{
	const bsMeshTopology* topo;
	const bsVec3* local;    // this query's local vertex positions
	bsTransform pose;
	uint32_t count;         // particles
	bsSite site[bs_sensorMaxParticles];
	uint32_t* faceStamp;    // triangleCount marks for the exact check's face sets
	uint32_t stamp;
	uint32_t* faceList;     // bs_sensorMaxExactFaces
	bsTriangle* faceTris;   // the listed faces in world space
	bsTriangleBox* faceBoxes;  // and their boxes
} bsSensorBody;

// A particle's frozen far field: potential and gradient at its start position.
typedef struct bsFarField
{
	bsVec3 origin;
	double potential;
	bsVec3 gradient;
	uint64_t far;  // bit j: particle j is in the cache (global index, A's first)
	int moves;     // moves this query
} bsFarField;

// The guard's certificate (sensor.h): the exact distance at the last confirmation and where the
// bodies were then.
typedef struct bsSensorGuard
{
	bool valid;
	double distance;       // the exact distance then
	bsTransform pose[2];   // A's and B's poses then
	bsVec3* local[2];      // a body's vertices then, when they were not its rest ones (NULL: rest)
	bool rest[2];          // the body had its rest vertices then
	bsVec3 centre[2];      // the box centre of its vertices then (local) and their largest distance
	double radius[2];      // from it
	uint32_t hintA, hintB; // the exact query's last leaves (warm start)
} bsSensorGuard;

struct bsSensorPair
{
	bsSensorDef def;  // resolved
	bsSensorGuard guard;
	bsSensorBody body[2];
	uint32_t total;
	bsVec3 pos[2 * bs_sensorMaxParticles];  // world positions, A's then B's
	bsFarField cache[2 * bs_sensorMaxParticles];
	bsSite* candidates;
	uint32_t candidateCapacity;
};

bsSensorDef bsDefaultSensorDef(void)
{
	bsSensorDef def;
	memset(&def, 0, sizeof(def));
	def.exactRings = 1;
	def.seed = 1;
	return def;
}

// --- Sites ---

static bsVec3 bsVertexWorld(const bsSensorBody* body, uint32_t v)
{
	return bsTransform_Apply(body->pose, body->local[v]);
}

// A site's position in its body's frame (the potential is evaluated there: no rotation per candidate).
static bsVec3 bsSiteLocal(const bsSensorBody* body, bsSite s)
{
	const bsVec3* x = body->local;
	if (s.kind == bs_siteVertex)
	{
		return x[s.a];
	}
	if (s.kind == bs_siteEdge)
	{
		return bsScale(0.5, bsAdd(x[s.a], x[s.b]));
	}
	const uint32_t* t = body->topo->triangles + 3 * s.face;
	return bsScale(1.0 / 3.0, bsAdd(x[t[0]], bsAdd(x[t[1]], x[t[2]])));
}

static bsVec3 bsSitePosition(const bsSensorBody* body, bsSite s)
{
	return bsTransform_Apply(body->pose, bsSiteLocal(body, s));
}

static bsSite bsVertexSite(uint32_t v)
{
	return (bsSite){bs_siteVertex, v, v, BS_NO_FACE};
}

static bsSite bsEdgeSite(uint32_t a, uint32_t b)
{
	return (bsSite){bs_siteEdge, a < b ? a : b, a < b ? b : a, BS_NO_FACE};
}

static bsSite bsFaceSite(uint32_t face)
{
	return (bsSite){bs_siteFace, 0, 0, face};
}

static bool bsFaceHas(const bsMeshTopology* m, uint32_t face, uint32_t v)
{
	const uint32_t* t = m->triangles + 3 * face;
	return t[0] == v || t[1] == v || t[2] == v;
}

// The neighbouring sites of s (sensor.h), each once; returns how many were written.
static uint32_t bsNeighbourSites(const bsMeshTopology* m, bsSite s, bsSite* out)
{
	uint32_t n = 0;
	if (s.kind == bs_siteVertex)
	{
		for (uint32_t r = m->ringStart[s.a]; r < m->ringStart[s.a + 1]; ++r)
		{
			out[n++] = bsVertexSite(m->ring[r]);
			out[n++] = bsEdgeSite(s.a, m->ring[r]);
		}
		for (uint32_t i = m->faceStart[s.a]; i < m->faceStart[s.a + 1]; ++i)
		{
			out[n++] = bsFaceSite(m->faces[i]);
		}
	}
	else if (s.kind == bs_siteEdge)
	{
		out[n++] = bsVertexSite(s.a);
		out[n++] = bsVertexSite(s.b);
		for (uint32_t i = m->faceStart[s.a]; i < m->faceStart[s.a + 1]; ++i)
		{
			if (bsFaceHas(m, m->faces[i], s.b))
			{
				out[n++] = bsFaceSite(m->faces[i]);
			}
		}
	}
	else
	{
		const uint32_t* t = m->triangles + 3 * s.face;
		for (int k = 0; k < 3; ++k)
		{
			out[n++] = bsVertexSite(t[k]);
			out[n++] = bsEdgeSite(t[k], t[(k + 1) % 3]);
			uint32_t across = m->neighbours[3 * s.face + (uint32_t)k];
			if (across != BS_NO_FACE)
			{
				out[n++] = bsFaceSite(across);
			}
		}
	}
	return n;
}

// --- Potential ---

// Potential at x from a particle at y: +1/r from its own type, -(1/r - 1/R_eff) within R_eff from
// the other.
static double bsPairPotential(bsVec3 x, bsVec3 y, bool sameType, double rEff)
{
	double r = fmax(bsDistance(x, y), 1e-9 * rEff);
	if (sameType)
	{
		return 1.0 / r;
	}
	return r < rEff ? -(1.0 / r - 1.0 / rEff) : 0.0;
}

// Its gradient with respect to x.
static bsVec3 bsPairGradient(bsVec3 x, bsVec3 y, bool sameType, double rEff)
{
	bsVec3 d = bsSub(x, y);
	double r = fmax(bsLength(d), 1e-9 * rEff);
	double s = 1.0 / (r * r * r);
	if (sameType)
	{
		return bsScale(-s, d);
	}
	return r < rEff ? bsScale(s, d) : bsV3(0.0, 0.0, 0.0);
}

static uint32_t bsBodyOf(const bsSensorPair* p, uint32_t i)
{
	return i < p->body[0].count ? 0u : 1u;
}

static bsSensorBody* bsParticleBody(bsSensorPair* p, uint32_t i, uint32_t* k)
{
	uint32_t b = bsBodyOf(p, i);
	*k = b == 0 ? i : i - p->body[0].count;
	return p->body + b;
}

// Freezes particle i's far field (section 3.5's cache) at its current position, in its own body's
// frame: the potential and gradient of the particles farther than cacheDistance.
static void bsCacheFarField(bsSensorPair* p, uint32_t i)
{
	double rEff = p->def.effectiveRadius;
	bsFarField* c = p->cache + i;
	memset(c, 0, sizeof(*c));
	bsTransform pose = p->body[bsBodyOf(p, i)].pose;
	c->origin = bsTransform_ApplyInverse(pose, p->pos[i]);
	if (p->def.cacheDistance < 0.0)
	{
		return;
	}
	bsVec3 g = bsV3(0.0, 0.0, 0.0);
	for (uint32_t j = 0; j < p->total; ++j)
	{
		if (j != i && bsDistance(p->pos[i], p->pos[j]) > p->def.cacheDistance)
		{
			bool same = bsBodyOf(p, i) == bsBodyOf(p, j);
			c->far |= (uint64_t)1 << j;
			c->potential += bsPairPotential(p->pos[i], p->pos[j], same, rEff);
			g = bsAdd(g, bsPairGradient(p->pos[i], p->pos[j], same, rEff));
		}
	}
	c->gradient = bsQuat_InvRotate(pose.rotation, g);
}

// At the start of a query every particle's cache is frozen for the whole query. Each particle then
// minimizes its near pairs exactly plus its own frozen linear far term, so the sum of the near pairs'
// potentials and every particle's far term falls with every move: the relaxation cannot cycle. A
// linear term has no minimum, so a particle with cached neighbours moves at most
// bs_sensorCachedMoves sites per query (a trust region counted in sites); the next query refreezes.
static void bsBuildCache(bsSensorPair* p)
{
	for (uint32_t i = 0; i < p->total; ++i)
	{
		bsCacheFarField(p, i);
	}
}

// Particle i's potential at x (its body's frame); others[j]: particle j in that frame.
static double bsPotential(const bsSensorPair* p, uint32_t i, bsVec3 x, const bsVec3* others)
{
	const bsFarField* c = p->cache + i;
	double u = c->potential + bsDot(c->gradient, bsSub(x, c->origin));
	for (uint32_t j = 0; j < p->total; ++j)
	{
		if (j != i && (c->far & ((uint64_t)1 << j)) == 0)
		{
			u += bsPairPotential(x, others[j], bsBodyOf(p, i) == bsBodyOf(p, j), p->def.effectiveRadius);
		}
	}
	return u;
}

// One interaction step: every particle in turn to its neighbouring site of least potential, if that
// is lower than where it is. Returns how many moved.
static int bsInteractionStep(bsSensorPair* p)
{
	int moved = 0;
	bsVec3 others[2 * bs_sensorMaxParticles];
	for (uint32_t i = 0; i < p->total; ++i)
	{
		uint32_t k;
		bsSensorBody* body = bsParticleBody(p, i, &k);
		for (uint32_t j = 0; j < p->total; ++j)
		{
			others[j] = bsTransform_ApplyInverse(body->pose, p->pos[j]);
		}
		if (p->cache[i].far != 0 && p->cache[i].moves >= bs_sensorCachedMoves)
		{
			continue;
		}
		double best = bsPotential(p, i, others[i], others);
		uint32_t n = bsNeighbourSites(body->topo, body->site[k], p->candidates);
		int chosen = -1;
		for (uint32_t c = 0; c < n; ++c)
		{
			bsVec3 x = bsSiteLocal(body, p->candidates[c]);
			double u = bsPotential(p, i, x, others);
			if (u < best)
			{
				best = u;
				chosen = (int)c;
			}
		}
		if (chosen >= 0)
		{
			body->site[k] = p->candidates[chosen];
			p->pos[i] = bsSitePosition(body, body->site[k]);
			++p->cache[i].moves;
			++moved;
		}
	}
	return moved;
}

// --- Exact check ---

// The faces of a site (ring 0).
static uint32_t bsSiteFaces(bsSensorBody* body, bsSite s)
{
	const bsMeshTopology* m = body->topo;
	uint32_t n = 0;
	if (++body->stamp == 0)  // wrapped after 2^32 checks: clear the marks
	{
		memset(body->faceStamp, 0, sizeof(uint32_t) * body->topo->triangleCount);
		body->stamp = 1;
	}
	if (s.kind == bs_siteFace)
	{
		body->faceList[n++] = s.face;
		body->faceStamp[s.face] = body->stamp;
		return n;
	}
	for (uint32_t i = m->faceStart[s.a]; i < m->faceStart[s.a + 1]; ++i)
	{
		uint32_t f = m->faces[i];
		if ((s.kind == bs_siteVertex || bsFaceHas(m, f, s.b)) && n < bs_sensorMaxExactFaces)
		{
			body->faceList[n++] = f;
			body->faceStamp[f] = body->stamp;
		}
	}
	return n;
}

// The faces within `rings` face rings (faces sharing a vertex) of a site, as world triangles.
static uint32_t bsExactFaces(bsSensorBody* body, bsSite s, int rings)
{
	const bsMeshTopology* m = body->topo;
	uint32_t n = bsSiteFaces(body, s);
	uint32_t begin = 0;
	for (int r = 0; r < rings; ++r)
	{
		uint32_t end = n;
		for (uint32_t i = begin; i < end; ++i)
		{
			const uint32_t* t = m->triangles + 3 * body->faceList[i];
			for (int k = 0; k < 3; ++k)
			{
				for (uint32_t j = m->faceStart[t[k]]; j < m->faceStart[t[k] + 1]; ++j)
				{
					uint32_t f = m->faces[j];
					if (body->faceStamp[f] != body->stamp && n < bs_sensorMaxExactFaces)
					{
						body->faceStamp[f] = body->stamp;
						body->faceList[n++] = f;
					}
				}
			}
		}
		begin = end;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; ++i)
	{
		const uint32_t* t = m->triangles + 3 * body->faceList[i];
		if (bsMakeTriangle(bsVertexWorld(body, t[0]), bsVertexWorld(body, t[1]), bsVertexWorld(body, t[2]),
			body->faceTris + kept) == bs_ok)
		{
			body->faceBoxes[kept] = bsTriangle_Box(body->faceTris + kept);
			body->faceList[kept++] = body->faceList[i];  // degenerate (deformed flat) faces are skipped
		}
	}
	return kept;
}

static void bsExactCheck(bsSensorPair* p, bsSensorQueryOutput* out)
{
	bsSensorBody* a = p->body;
	bsSensorBody* b = p->body + 1;
	uint32_t na = bsExactFaces(a, a->site[out->particleA], p->def.exactRings);
	uint32_t nb = bsExactFaces(b, b->site[out->particleB], p->def.exactRings);
	double best = HUGE_VAL;
	uint32_t bi = 0, bj = 0;
	for (uint32_t i = 0; i < na && best > 0.0; ++i)  // intersecting faces: nothing can be nearer
	{
		for (uint32_t j = 0; j < nb && best > 0.0; ++j)
		{
			if (bsTriangleBox_Distance2(a->faceBoxes + i, b->faceBoxes + j) >= best)
			{
				continue;  // the faces' boxes are already farther apart than the best pair
			}
			bsVec3 pa, pb;
			++out->facePairs;
			double d2 = bsTriangle_TriangleDistance2(a->faceTris + i, b->faceTris + j, &pa, &pb);
			if (d2 < best)
			{
				best = d2, bi = i, bj = j;
				out->pointA = pa;
				out->pointB = pb;
			}
		}
	}
	if (best == HUGE_VAL)
	{
		return;
	}
	out->exactChecked = 1;
	out->separation = sqrt(best);
	out->triangleA = a->faceList[bi];
	out->triangleB = b->faceList[bj];
	bsVec3 d = bsSub(out->pointB, out->pointA);
	if (out->separation > 1e-12 * p->def.effectiveRadius)
	{
		out->normal = bsScale(1.0 / out->separation, d);
	}
	else
	{
		// Touching or intersecting faces: no direction between the points; the faces' normals say
		// which way B lies (A's outward normal, against B's).
		out->touching = 1;
		out->normal = bsNormalize(bsSub(a->faceTris[bi].n, b->faceTris[bj].n));
	}
}

// --- Query ---

static void bsClosestParticles(const bsSensorPair* p, bsSensorQueryOutput* out)
{
	uint32_t na = p->body[0].count;
	double best = HUGE_VAL;
	for (uint32_t i = 0; i < na; ++i)
	{
		for (uint32_t j = na; j < p->total; ++j)
		{
			double d = bsDistance(p->pos[i], p->pos[j]);
			if (d < best)
			{
				best = d;
				out->particleA = i;
				out->particleB = j - na;
			}
		}
	}
	out->particleDistance = best;
	out->separation = best;
	out->pointA = p->pos[out->particleA];
	out->pointB = p->pos[na + out->particleB];
}

static bool bsPoseValid(bsTransform t)
{
	return bsIsValidVec3(t.translation) && isfinite(t.rotation.x) && isfinite(t.rotation.y) &&
		isfinite(t.rotation.z) && isfinite(t.rotation.w);
}

static void bsUpdatePositions(bsSensorPair* p)
{
	for (uint32_t i = 0; i < p->total; ++i)
	{
		uint32_t k;
		const bsSensorBody* body = bsParticleBody(p, i, &k);
		p->pos[i] = bsSitePosition(body, body->site[k]);
	}
}

// --- The guard (sensor.h) ---

// How far any point of body `moving` can have moved, in body `fixed`'s frame, since the certificate
// by its rigid motion there: |change of its centre| + 2 sin(turn / 2) x its radius about the centre.
static double bsGuardRigidMotion(const bsSensorGuard* g, const bsSensorQueryInput* in, int fixed)
{
	bsTransform now[2] = {in->poseA, in->poseB};
	int moving = 1 - fixed;
	bsQuat relNow = bsQuat_Mul(bsQuat_Conjugate(now[fixed].rotation), now[moving].rotation);
	bsQuat relThen = bsQuat_Mul(bsQuat_Conjugate(g->pose[fixed].rotation), g->pose[moving].rotation);
	bsQuat turn = bsQuat_Normalize(bsQuat_Mul(relNow, bsQuat_Conjugate(relThen)));
	double halfSine = bsLength(bsV3(turn.x, turn.y, turn.z));
	bsVec3 cNow = bsTransform_ApplyInverse(now[fixed], bsTransform_Apply(now[moving], g->centre[moving]));
	bsVec3 cThen = bsTransform_ApplyInverse(g->pose[fixed],
		bsTransform_Apply(g->pose[moving], g->centre[moving]));
	return bsDistance(cNow, cThen) + 2.0 * halfSine * g->radius[moving];
}

// The largest displacement of a body's vertices in its own frame since the certificate.
static double bsGuardShapeMotion(const bsSensorPair* p, int k)
{
	const bsSensorGuard* g = &p->guard;
	const bsSensorBody* body = p->body + k;
	const bsVec3* then = g->rest[k] ? body->topo->positions : g->local[k];
	if (then == body->local)
	{
		return 0.0;
	}
	double most = 0.0;
	for (uint32_t v = 0; v < body->topo->vertexCount; ++v)
	{
		most = fmax(most, bsDistanceSquared(then[v], body->local[v]));
	}
	return sqrt(most);
}

// The certified lower bound of the distance now (-HUGE_VAL without a certificate).
static double bsGuardLowerBound(const bsSensorPair* p, const bsSensorQueryInput* in)
{
	const bsSensorGuard* g = &p->guard;
	if (!g->valid)
	{
		return -HUGE_VAL;
	}
	double rigid = fmin(bsGuardRigidMotion(g, in, 0), bsGuardRigidMotion(g, in, 1));
	double shape = bsGuardShapeMotion(p, 0) + bsGuardShapeMotion(p, 1);
	// Rounding of the poses' products: far below any contact distance.
	return g->distance - rigid - shape - 1e-9 * p->def.effectiveRadius;
}

// Keeps where the bodies are now with the exact distance d.
static bsResult bsGuardCertify(bsSensorPair* p, const bsSensorQueryInput* in, double d)
{
	bsSensorGuard* g = &p->guard;
	g->valid = false;
	g->distance = d;
	g->pose[0] = in->poseA;
	g->pose[1] = in->poseB;
	for (int k = 0; k < 2; ++k)
	{
		const bsSensorBody* body = p->body + k;
		uint32_t n = body->topo->vertexCount;
		g->rest[k] = body->local == body->topo->positions;
		if (!g->rest[k])
		{
			if (g->local[k] == NULL && (g->local[k] = malloc(sizeof(bsVec3) * n)) == NULL)
			{
				return bs_errOutOfMemory;
			}
			memcpy(g->local[k], body->local, sizeof(bsVec3) * n);
		}
		bsVec3 lo = body->local[0], hi = body->local[0];
		for (uint32_t v = 1; v < n; ++v)
		{
			lo = bsMin(lo, body->local[v]);
			hi = bsMax(hi, body->local[v]);
		}
		g->centre[k] = bsScale(0.5, bsAdd(lo, hi));
		double most = 0.0;
		for (uint32_t v = 0; v < n; ++v)
		{
			most = fmax(most, bsDistanceSquared(body->local[v], g->centre[k]));
		}
		g->radius[k] = sqrt(most);
	}
	g->valid = true;
	return bs_ok;
}

// With the guard: the exact distance replaces the sensors' answer whenever the certificate cannot
// rule out a separation within the contact distance.
static bsResult bsGuard(bsSensorPair* p, const bsSensorQueryInput* in, bsSensorQueryOutput* out)
{
	out->lowerBound = bsGuardLowerBound(p, in);
	if (out->lowerBound > in->contactDistance)
	{
		return bs_ok;  // no two points can be that close: the sensors' separation (>= it) stands
	}
	bsSensorGuard* g = &p->guard;
	// The sensors' separation bounds the distance from above (sensor.h); a little more for rounding.
	double bound = out->separation + 1e-9 * p->def.effectiveRadius;
	bsMeshDistanceInput ein = {in->bvhA, in->poseA, in->bvhB, in->poseB, bound, g->hintA, g->hintB};
	bsMeshDistanceOutput e;
	bsResult r = bsMeshDistance(&ein, &e);
	if (r == bs_ok && !e.hit)
	{
		ein.maxDistance = HUGE_VAL;
		r = bsMeshDistance(&ein, &e);
	}
	if (r != bs_ok || !e.hit)
	{
		return r != bs_ok ? r : bs_errInvalidArgument;  // an empty BVH
	}
	g->hintA = e.leafA;
	g->hintB = e.leafB;
	out->guarded = 1;
	out->exactChecked = 1;
	out->separation = e.distance;
	out->pointA = e.pointA;
	out->pointB = e.pointB;
	out->triangleA = e.triangleA;
	out->triangleB = e.triangleB;
	out->touching = e.distance <= 1e-12 * p->def.effectiveRadius;
	if (!out->touching)
	{
		out->normal = bsScale(1.0 / e.distance, bsSub(e.pointB, e.pointA));
	}
	else
	{
		// As the exact check: A's outward normal against B's.
		bsVec3 na = bsQuat_Rotate(in->poseA.rotation, in->bvhA->tris[e.leafA].n);
		bsVec3 nb = bsQuat_Rotate(in->poseB.rotation, in->bvhB->tris[e.leafB].n);
		out->normal = bsNormalize(bsSub(na, nb));
	}
	return bsGuardCertify(p, in, e.distance);
}

bsResult bsSensorPair_Query(bsSensorPair* pair, const bsSensorQueryInput* input, bsSensorQueryOutput* out)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	memset(out, 0, sizeof(*out));
	out->separation = out->particleDistance = HUGE_VAL;
	out->triangleA = out->triangleB = BS_NO_TRIANGLE;
	if (pair == NULL || input == NULL)
	{
		return bs_errInvalidArgument;
	}
	bool guarded = input->bvhA != NULL && input->bvhB != NULL;
	if (guarded && !(input->contactDistance >= 0.0))
	{
		return bs_errInvalidArgument;
	}
	if (!bsPoseValid(input->poseA) || !bsPoseValid(input->poseB))
	{
		return bs_errNonFinite;
	}
	for (int b = 0; b < 2; ++b)
	{
		const bsVec3* positions = b == 0 ? input->positionsA : input->positionsB;
		pair->body[b].local = positions != NULL ? positions : pair->body[b].topo->positions;
		pair->body[b].pose = b == 0 ? input->poseA : input->poseB;
	}
	bsUpdatePositions(pair);
	bsBuildCache(pair);
	for (int step = 0; step < pair->def.maxSteps; ++step)
	{
		int moved = bsInteractionStep(pair);
		++out->steps;
		out->moves += moved;
		if (moved < pair->def.minMoved)
		{
			break;
		}
	}
	bsClosestParticles(pair, out);
	if (pair->def.tolerance >= 0.0 && out->particleDistance < pair->def.tolerance)
	{
		bsExactCheck(pair, out);
	}
	bsResult r = guarded ? bsGuard(pair, input, out) : bs_ok;
	out->contactPoint = bsScale(0.5, bsAdd(out->pointA, out->pointB));
	return r;
}

// --- Set-up ---

static double bsDiagonal(const bsMeshTopology* m)
{
	bsVec3 lo = m->positions[0], hi = m->positions[0];
	for (uint32_t v = 1; v < m->vertexCount; ++v)
	{
		lo = bsMin(lo, m->positions[v]);
		hi = bsMax(hi, m->positions[v]);
	}
	return bsDistance(lo, hi);
}

// Double-sweep breadth-first estimate of the edge-graph diameter (a lower bound, usually tight).
static uint32_t bsDiameter(const bsMeshTopology* m)
{
	uint32_t far = 0;
	bsMeshTopology_Eccentricity(m, 0, &far);
	return bsMeshTopology_Eccentricity(m, far, NULL);
}

static bsVec3 bsVertexNormal(const bsMeshTopology* m, const bsVec3* x, uint32_t v)
{
	bsVec3 n = bsV3(0.0, 0.0, 0.0);
	for (uint32_t i = m->faceStart[v]; i < m->faceStart[v + 1]; ++i)
	{
		const uint32_t* t = m->triangles + 3 * m->faces[i];
		n = bsAdd(n, bsCross(bsSub(x[t[1]], x[t[0]]), bsSub(x[t[2]], x[t[0]])));
	}
	return bsNormalize(n);
}

// Is v on a concave band? The normal curvature along each edge from v, 2 n.(p_j - p_v) / |p_j - p_v|^2
// (+1/rho across a concave fillet of radius rho, -1/rho around a convex tube): concave when its
// largest value exceeds 4 / diagonal, a concave radius under a quarter of the body's size.
static bool bsConcave(const bsMeshTopology* m, const bsVec3* x, uint32_t v, double diagonal)
{
	bsVec3 n = bsVertexNormal(m, x, v);
	double most = -HUGE_VAL;
	for (uint32_t r = m->ringStart[v]; r < m->ringStart[v + 1]; ++r)
	{
		bsVec3 e = bsSub(x[m->ring[r]], x[v]);
		double e2 = bsLengthSquared(e);
		if (e2 > 0.0)
		{
			most = fmax(most, 2.0 * bsDot(n, e) / e2);
		}
	}
	return most > 4.0 / diagonal;
}

uint32_t bsSensor_ConvexParts(const bsMeshTopology* topology, const bsVec3* positions)
{
	const bsMeshTopology* m = topology;
	const bsVec3* x = positions != NULL ? positions : m->positions;
	uint32_t nv = m->vertexCount;
	uint32_t* label = malloc(sizeof(uint32_t) * nv);  // 0: unvisited, 1: concave, 2: visited
	uint32_t* queue = malloc(sizeof(uint32_t) * nv);
	if (label == NULL || queue == NULL || nv == 0)
	{
		free(label);
		free(queue);
		return 1;
	}
	double diagonal = bsDiagonal(m);
	for (uint32_t v = 0; v < nv; ++v)
	{
		label[v] = bsConcave(m, x, v, diagonal) ? 1u : 0u;
	}
	uint32_t parts = 0;
	for (uint32_t seed = 0; seed < nv; ++seed)
	{
		if (label[seed] != 0)
		{
			continue;
		}
		uint32_t head = 0, tail = 0;
		queue[tail++] = seed;
		label[seed] = 2;
		while (head < tail)
		{
			uint32_t v = queue[head++];
			for (uint32_t r = m->ringStart[v]; r < m->ringStart[v + 1]; ++r)
			{
				uint32_t u = m->ring[r];
				if (label[u] == 0)
				{
					label[u] = 2;
					queue[tail++] = u;
				}
			}
		}
		parts += (double)tail >= 0.02 * (double)nv;
	}
	free(label);
	free(queue);
	return parts > 0 ? parts : 1;
}

static uint32_t bsMaxFacesPerVertex(const bsMeshTopology* m)
{
	uint32_t most = 0;
	for (uint32_t v = 0; v < m->vertexCount; ++v)
	{
		uint32_t n = m->faceStart[v + 1] - m->faceStart[v];
		most = n > most ? n : most;
	}
	return most;
}

static bool bsResolveDef(bsSensorPair* p, const bsSensorDef* def)
{
	bsSensorDef d = def != NULL ? *def : bsDefaultSensorDef();
	const bsMeshTopology* m[2] = {p->body[0].topo, p->body[1].topo};
	int* count[2] = {&d.particlesA, &d.particlesB};
	if (d.particlesA < 0 || d.particlesB < 0 || d.maxSteps < 0 || d.minMoved < 0 || d.exactRings < 0 ||
		d.exactRings > 8 || !(d.effectiveRadius >= 0.0) || isnan(d.tolerance) || isnan(d.cacheDistance))
	{
		return false;
	}
	for (int b = 0; b < 2; ++b)
	{
		if (*count[b] == 0)
		{
			uint32_t parts = bsSensor_ConvexParts(m[b], NULL);
			*count[b] = parts > bs_sensorMaxParticles / 2 ? bs_sensorMaxParticles : (int)(2 * parts);
		}
		if (*count[b] > bs_sensorMaxParticles || (uint32_t)*count[b] > m[b]->vertexCount)
		{
			return false;
		}
	}
	if (d.effectiveRadius == 0.0)
	{
		d.effectiveRadius = fmax(bsDiagonal(m[0]), bsDiagonal(m[1]));
	}
	if (d.maxSteps == 0)
	{
		uint32_t da = bsDiameter(m[0]), db = bsDiameter(m[1]);
		d.maxSteps = 2 * (int)(da > db ? da : db);
		d.maxSteps = d.maxSteps > 0 ? d.maxSteps : 1;
	}
	if (d.minMoved == 0)
	{
		d.minMoved = (d.particlesA + d.particlesB) / 10;
		d.minMoved = d.minMoved > 0 ? d.minMoved : 1;
	}
	if (d.tolerance == 0.0)
	{
		d.tolerance = 0.05 * d.effectiveRadius;
	}
	if (d.cacheDistance == 0.0)
	{
		d.cacheDistance = 0.25 * d.effectiveRadius;
	}
	p->def = d;
	return true;
}

// Random distinct vertices for the first query (3.3: the start only affects the first query's time).
static void bsPlaceParticles(bsSensorBody* body, bsRng* rng)
{
	for (uint32_t k = 0; k < body->count; ++k)
	{
		uint32_t v;
		bool taken;
		do
		{
			v = bsRng_Below(rng, body->topo->vertexCount);
			taken = false;
			for (uint32_t j = 0; j < k; ++j)
			{
				taken = taken || body->site[j].a == v;
			}
		} while (taken);
		body->site[k] = bsVertexSite(v);
	}
}

bsResult bsSensorPair_Create(bsSensorPair** pair, const bsMeshTopology* a, const bsMeshTopology* b,
	const bsSensorDef* def)
{
	if (pair == NULL)
	{
		return bs_errInvalidArgument;
	}
	*pair = NULL;
	if (a == NULL || b == NULL || a->vertexCount == 0 || b->vertexCount == 0)
	{
		return bs_errInvalidArgument;
	}
	bsSensorPair* p = calloc(1, sizeof(bsSensorPair));
	if (p == NULL)
	{
		return bs_errOutOfMemory;
	}
	p->body[0].topo = a;
	p->body[1].topo = b;
	p->guard.hintA = p->guard.hintB = BS_NO_TRIANGLE;
	if (!bsResolveDef(p, def))
	{
		free(p);
		return bs_errInvalidArgument;
	}
	p->body[0].count = (uint32_t)p->def.particlesA;
	p->body[1].count = (uint32_t)p->def.particlesB;
	p->total = p->body[0].count + p->body[1].count;
	uint32_t most = bsMaxFacesPerVertex(a);
	uint32_t mostB = bsMaxFacesPerVertex(b);
	p->candidateCapacity = 5 * (most > mostB ? most : mostB) + 16;  // a ring has at most 2 vertices a face
	p->candidates = malloc(sizeof(bsSite) * p->candidateCapacity);
	bool ok = p->candidates != NULL;
	bsRng rng = bsMakeRng(p->def.seed);
	for (int k = 0; k < 2 && ok; ++k)
	{
		bsSensorBody* body = p->body + k;
		body->faceStamp = calloc(body->topo->triangleCount, sizeof(uint32_t));
		body->faceList = malloc(sizeof(uint32_t) * bs_sensorMaxExactFaces);
		body->faceTris = malloc(sizeof(bsTriangle) * bs_sensorMaxExactFaces);
		body->faceBoxes = malloc(sizeof(bsTriangleBox) * bs_sensorMaxExactFaces);
		ok = body->faceStamp != NULL && body->faceList != NULL && body->faceTris != NULL &&
			body->faceBoxes != NULL;
		body->local = body->topo->positions;
		body->pose = bsTransform_Identity();
		bsPlaceParticles(body, &rng);
	}
	if (!ok)
	{
		bsSensorPair_Destroy(p);
		return bs_errOutOfMemory;
	}
	bsUpdatePositions(p);
	*pair = p;
	return bs_ok;
}

void bsSensorPair_Destroy(bsSensorPair* pair)
{
	if (pair == NULL)
	{
		return;
	}
	for (int k = 0; k < 2; ++k)
	{
		free(pair->guard.local[k]);
		free(pair->body[k].faceStamp);
		free(pair->body[k].faceList);
		free(pair->body[k].faceTris);
		free(pair->body[k].faceBoxes);
	}
	free(pair->candidates);
	free(pair);
}

bsSensorDef bsSensorPair_Settings(const bsSensorPair* pair)
{
	return pair->def;
}

uint32_t bsSensorPair_ParticleCount(const bsSensorPair* pair, int body)
{
	return pair->body[body != 0].count;
}

bsVec3 bsSensorPair_Particle(const bsSensorPair* pair, int body, uint32_t index)
{
	return pair->pos[(body != 0 ? pair->body[0].count : 0) + index];
}
