// surface_simplify.c — a polygonized blob surface decimated under an error bound (surface.h): half-edge
// collapses onto the mesh's own vertices, checked for topology and folds, in passes of independent
// collapses; and the closed-and-oriented check that guards it.
//
// Why our own collapse and not meshoptimizer's simplifier (Debian's 0.18, measured on the slime and
// snow figures): its collapses do not test the link condition, so a thin neck is pinched into an
// edge of four triangles (30 such edges on the slime figure's surface, 228 on the snow figure's, at
// h/4), and 0.18 cannot lock chosen vertices, so re-running it with the undecimated mesh kept around
// the pinches made new ones at the kept region's edge (snow never converged); and its error is an
// area-weighted mean of squared plane distances, not a bound.
//
// The collapse u -> v removes u and gives its triangles to v (a vertex kept is a polygonizer's vertex:
// a root of the exact field with its analytic normal). It is taken when
//   - the error: v lies within maxError of the plane of every triangle of the undecimated mesh merged
//     into u or v. Each vertex keeps the quadric sum of those planes, unweighted (a distance^2 each),
//     and the sum at v must be <= maxError^2: a bound on each plane's distance, not a mean;
//   - the link condition: u and v have exactly two common neighbours (the edge's two opposite
//     vertices), and each of those keeps three or more neighbours: the mesh stays a closed manifold
//     of the same topology (no pinch, no tetrahedron flattened into two triangles);
//   - no fold: every triangle that u's move changes keeps a normal within 78 degrees (cos 0.2) of its
//     own before and of each of its vertices' analytic normals, and a non-zero area;
//   - the shading: u's analytic normal is lost, so every neighbour's must lie within maxNormalAngle
//     of it (the new triangles interpolate those around where u was). The figures' surfaces are bumpy
//     at the scale of the grid, and this rule, not the distance, is what keeps their images
//     (docs/rendering.md, "Decimation").
// A pass finds each vertex's cheapest valid collapse on the pass's mesh (on the threads: each vertex
// writes its own slot), sorts them by (error, u), and applies those whose tests read nothing an
// earlier collapse of the pass changed (u, v, their common neighbours: so every test made on the
// pass's mesh still holds); passes repeat until one applies nothing. Deterministic: the
// search reads the pass's mesh only, and the collapses are applied on one thread in a total order, so
// the result is the same for any thread count. The result is checked once more (bsSurfaceMesh_CheckClosed) before it
// replaces the mesh.
#include "blobsim/surface.h"

#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int bsCompareU64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

// Binary search of a sorted array.
static bool bsHasKey(const uint64_t* keys, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (keys[mid] < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo < n && keys[lo] == key;
}

// Counts the directed edges of indices[0 .. 3 triangles) that break closed-and-oriented (surface.h:
// bsSurfaceMesh_CheckClosed) into *bad and, when mark is not NULL, sets mark[v] for their vertices.
static bsResult bsCheckEdges(const uint32_t* indices, size_t triangles, size_t vertexCount, uint8_t* mark,
	size_t* bad)
{
	*bad = 0;
	size_t n = 3 * triangles;
	uint64_t* directed = malloc((n + 1) * sizeof(uint64_t));
	if (directed == NULL)
	{
		return bs_errOutOfMemory;
	}
	for (size_t t = 0; t < triangles; ++t)
	{
		const uint32_t* v = indices + 3 * t;
		for (int k = 0; k < 3; ++k)
		{
			uint32_t a = v[k], b = v[(k + 1) % 3];
			bool wrong = a == b || a >= vertexCount || b >= vertexCount;
			*bad += wrong;
			directed[3 * t + (size_t)k] = wrong ? UINT64_MAX : (uint64_t)a << 32 | b;
		}
	}
	qsort(directed, n, sizeof(uint64_t), bsCompareU64);
	for (size_t i = 0; i < n && directed[i] != UINT64_MAX; ++i)
	{
		uint64_t reverse = directed[i] << 32 | directed[i] >> 32;
		bool repeated = i + 1 < n && directed[i + 1] == directed[i];
		bool wrong = repeated || !bsHasKey(directed, n, reverse);
		*bad += wrong;
		if (wrong && mark != NULL)
		{
			mark[directed[i] >> 32] = 1;
			mark[directed[i] & UINT32_MAX] = 1;
		}
	}
	free(directed);
	return bs_ok;
}

bsResult bsSurfaceMesh_CheckClosed(const bsSurfaceMesh* mesh, size_t* badEdges)
{
	return bsCheckEdges(mesh->indices, mesh->triangleCount, mesh->vertexCount, NULL, badEdges);
}

// Keeps the vertices the indices name, in their order, renumbering the indices; recomputes the bounds.
static bsResult bsCompactVertices(bsSurfaceMesh* mesh)
{
	uint32_t* remap = malloc((mesh->vertexCount + 1) * sizeof(uint32_t));
	if (remap == NULL)
	{
		return bs_errOutOfMemory;
	}
	memset(remap, 0xff, (mesh->vertexCount + 1) * sizeof(uint32_t));
	size_t n = 3 * mesh->triangleCount;
	for (size_t i = 0; i < n; ++i)
	{
		remap[mesh->indices[i]] = 0;
	}
	size_t kept = 0;
	for (size_t v = 0; v < mesh->vertexCount; ++v)
	{
		if (remap[v] == 0)
		{
			remap[v] = (uint32_t)kept;
			mesh->positions[kept] = mesh->positions[v];
			mesh->normals[kept] = mesh->normals[v];
			kept += 1;
		}
	}
	for (size_t i = 0; i < n; ++i)
	{
		mesh->indices[i] = remap[mesh->indices[i]];
	}
	free(remap);
	mesh->vertexCount = kept;
	memset(mesh->bounds, 0, sizeof(mesh->bounds));
	for (size_t v = 0; v < kept; ++v)
	{
		double p[3] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z};
		for (int a = 0; a < 3; ++a)
		{
			mesh->bounds[0][a] = v == 0 || p[a] < mesh->bounds[0][a] ? p[a] : mesh->bounds[0][a];
			mesh->bounds[1][a] = v == 0 || p[a] > mesh->bounds[1][a] ? p[a] : mesh->bounds[1][a];
		}
	}
	return bs_ok;
}

enum
{
	bsMaxPasses = 200,
	bsMaxRing = 64,  // neighbours looked at around a vertex; a vertex with more is not collapsed
};

static const double bsCosFold = 0.2;

// The quadric of a set of planes n.x + d = 0: sum (n.x + d)^2 = x'Ax + 2 b.x + c, kept as
// a00 a01 a02 a11 a12 a22 b0 b1 b2 c.
typedef struct bsQuadric
{
	double q[10];
} bsQuadric;

static void bsQuadric_AddPlane(bsQuadric* Q, bsVec3 n, double d)
{
	double v[4] = {n.x, n.y, n.z, d};
	Q->q[0] += v[0] * v[0];
	Q->q[1] += v[0] * v[1];
	Q->q[2] += v[0] * v[2];
	Q->q[3] += v[1] * v[1];
	Q->q[4] += v[1] * v[2];
	Q->q[5] += v[2] * v[2];
	Q->q[6] += v[0] * v[3];
	Q->q[7] += v[1] * v[3];
	Q->q[8] += v[2] * v[3];
	Q->q[9] += v[3] * v[3];
}

// Q1 + Q2 at p.
static double bsQuadric_Sum(const bsQuadric* Q1, const bsQuadric* Q2, bsVec3 p)
{
	double q[10];
	for (int i = 0; i < 10; ++i)
	{
		q[i] = Q1->q[i] + Q2->q[i];
	}
	double x = p.x, y = p.y, z = p.z;
	return q[0] * x * x + q[3] * y * y + q[5] * z * z + 2.0 * (q[1] * x * y + q[2] * x * z + q[4] * y * z) +
		2.0 * (q[6] * x + q[7] * y + q[8] * z) + q[9];
}

static bsVec3 bsTriangleCross(bsVec3 a, bsVec3 b, bsVec3 c)
{
	return bsCross(bsSub(b, a), bsSub(c, a));
}

// The pass's mesh: every vertex's triangles (CSR).
typedef struct bsAdjacency
{
	uint32_t* first;  // vertexCount + 1
	uint32_t* tris;   // 3 per triangle
} bsAdjacency;

static void bsAdjacency_Build(bsAdjacency* a, const uint32_t* indices, size_t triangles, size_t vertexCount)
{
	memset(a->first, 0, (vertexCount + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < 3 * triangles; ++i)
	{
		a->first[indices[i] + 1] += 1;
	}
	for (size_t v = 0; v < vertexCount; ++v)
	{
		a->first[v + 1] += a->first[v];
	}
	for (size_t i = 0; i < 3 * triangles; ++i)
	{
		a->tris[a->first[indices[i]]++] = (uint32_t)(i / 3);
	}
	for (size_t v = vertexCount; v > 0; --v)
	{
		a->first[v] = a->first[v - 1];
	}
	a->first[0] = 0;
}

// The vertices after u in its triangles: its neighbours, each once on a closed manifold. Returns the
// count, or 0 when there are more than bsMaxRing.
static int bsRing(const bsAdjacency* a, const uint32_t* indices, uint32_t u, uint32_t* ring)
{
	int n = 0;
	for (uint32_t k = a->first[u]; k < a->first[u + 1]; ++k)
	{
		const uint32_t* t = indices + 3 * a->tris[k];
		int c = t[0] == u ? 0 : (t[1] == u ? 1 : 2);
		if (n == bsMaxRing)
		{
			return 0;
		}
		ring[n++] = t[(c + 1) % 3];
	}
	return n;
}

static bool bsInRing(const uint32_t* ring, int n, uint32_t v)
{
	for (int i = 0; i < n; ++i)
	{
		if (ring[i] == v)
		{
			return true;
		}
	}
	return false;
}

typedef struct bsCollapse
{
	double cost;
	uint32_t u, v;
	uint32_t w[2];  // the edge's opposite vertices (u's and v's common neighbours)
} bsCollapse;

typedef struct bsSimplifier
{
	const bsSurfaceMesh* mesh;
	uint32_t* indices;  // the current triangles
	size_t triangles;
	bsQuadric* quadrics;
	bsAdjacency adj;
	double limit;       // maxError^2
	double cosShade;    // cos of maxNormalAngle
	uint8_t* live;      // per vertex: look for its collapse this pass (bsPass)
	bsCollapse* best;   // per vertex: its best collapse this pass, cost INFINITY for none
	bsPool* pool;
} bsSimplifier;

// Link condition: u and v share exactly two neighbours (into w), each with more than three.
static bool bsLinkHolds(const bsSimplifier* s, const uint32_t* ringU, int nu, uint32_t v, uint32_t* w)
{
	uint32_t ringV[bsMaxRing], ringW[bsMaxRing];
	int nv = bsRing(&s->adj, s->indices, v, ringV);
	if (nv == 0)
	{
		return false;
	}
	int common = 0;
	for (int i = 0; i < nu; ++i)
	{
		if (!bsInRing(ringV, nv, ringU[i]))
		{
			continue;
		}
		if (common < 2)
		{
			w[common] = ringU[i];
		}
		common += 1;
		if (bsRing(&s->adj, s->indices, ringU[i], ringW) <= 3)
		{
			return false;
		}
	}
	return common == 2;
}

// No fold: each triangle of u that does not hold v, with u moved to v, keeps its normal within the
// fold angle of its old one and of its vertices' normals.
static bool bsNoFold(const bsSimplifier* s, uint32_t u, uint32_t v)
{
	const bsVec3* p = s->mesh->positions;
	const bsVec3* nrm = s->mesh->normals;
	for (uint32_t k = s->adj.first[u]; k < s->adj.first[u + 1]; ++k)
	{
		const uint32_t* t = s->indices + 3 * s->adj.tris[k];
		if (t[0] == v || t[1] == v || t[2] == v)
		{
			continue;
		}
		bsVec3 before = bsTriangleCross(p[t[0]], p[t[1]], p[t[2]]);
		bsVec3 q[3];
		for (int c = 0; c < 3; ++c)
		{
			q[c] = p[t[c] == u ? v : t[c]];
		}
		bsVec3 after = bsTriangleCross(q[0], q[1], q[2]);
		double la = bsLength(after), lb = bsLength(before);
		if (!(la > 0.0 && lb > 0.0) || bsDot(after, before) < bsCosFold * la * lb)
		{
			return false;
		}
		for (int c = 0; c < 3; ++c)
		{
			if (bsDot(after, nrm[t[c] == u ? v : t[c]]) < bsCosFold * la)
			{
				return false;
			}
		}
	}
	return true;
}

static int bsCompareCollapse(const void* a, const void* b)
{
	const bsCollapse* x = a;
	const bsCollapse* y = b;
	if (x->cost != y->cost)
	{
		return x->cost < y->cost ? -1 : 1;
	}
	return x->u < y->u ? -1 : (x->u > y->u ? 1 : 0);
}

// u's cheapest valid collapse into *out; false when it has none.
static bool bsBestCollapse(const bsSimplifier* s, uint32_t u, bsCollapse* out)
{
	uint32_t ring[bsMaxRing];
	int n = bsRing(&s->adj, s->indices, u, ring);
	out->cost = INFINITY;
	out->v = UINT32_MAX;
	// The shading: u's normal is dropped, so its neighbours' (which the new triangles interpolate
	// around where u was) must all lie within maxNormalAngle of it.
	const bsVec3* nrm = s->mesh->normals;
	for (int i = 0; i < n; ++i)
	{
		if (bsDot(nrm[u], nrm[ring[i]]) < s->cosShade)
		{
			return false;
		}
	}
	for (int i = 0; i < n; ++i)
	{
		uint32_t v = ring[i];
		double cost = bsQuadric_Sum(&s->quadrics[u], &s->quadrics[v], s->mesh->positions[v]);
		bool better = cost < out->cost || (cost == out->cost && v < out->v);
		uint32_t w[2];
		if (cost <= s->limit && better && bsLinkHolds(s, ring, n, v, w) && bsNoFold(s, u, v))
		{
			out->cost = cost;
			out->u = u;
			out->v = v;
			out->w[0] = w[0];
			out->w[1] = w[1];
		}
	}
	return out->cost <= s->limit;
}

// Marks u, v and u's neighbours: every vertex whose triangles or ring the collapse u -> v changes
// (and v's quadric).
static void bsMarkChanged(const bsSimplifier* s, uint32_t u, uint32_t v, uint8_t* changed)
{
	changed[v] = 1;
	for (uint32_t k = s->adj.first[u]; k < s->adj.first[u + 1]; ++k)
	{
		const uint32_t* t = s->indices + 3 * s->adj.tris[k];
		changed[t[0]] = changed[t[1]] = changed[t[2]] = 1;
	}
}

// Does v's closed ring hold a changed vertex?
static bool bsNearChange(const bsSimplifier* s, uint32_t v, const uint8_t* changed)
{
	for (uint32_t k = s->adj.first[v]; k < s->adj.first[v + 1]; ++k)
	{
		const uint32_t* t = s->indices + 3 * s->adj.tris[k];
		if (changed[t[0]] | changed[t[1]] | changed[t[2]])
		{
			return true;
		}
	}
	return false;
}

static void bsFindCollapses(void* context, size_t begin, size_t end, int worker)
{
	bsSimplifier* s = context;
	for (size_t u = begin; u < end; ++u)
	{
		bsCollapse* c = &s->best[u];
		c->cost = INFINITY;
		if (s->live[u] && s->adj.first[u + 1] > s->adj.first[u])
		{
			bsBestCollapse(s, (uint32_t)u, c);
		}
	}
}

static size_t bsPass(bsSimplifier* s, bsCollapse* candidates, uint32_t* remap, uint8_t* touched)
{
	size_t vertexCount = s->mesh->vertexCount, n = 0;
	uint8_t* live = s->live;
	bsAdjacency_Build(&s->adj, s->indices, s->triangles, vertexCount);
	bsPool_For(s->pool, vertexCount, 4096, bsFindCollapses, s);
	for (uint32_t u = 0; u < vertexCount; ++u)
	{
		live[u] = s->best[u].cost <= s->limit;
		if (live[u])
		{
			candidates[n++] = s->best[u];
		}
	}
	qsort(candidates, n, sizeof(bsCollapse), bsCompareCollapse);
	memset(touched, 0, vertexCount);
	for (size_t v = 0; v < vertexCount; ++v)
	{
		remap[v] = (uint32_t)v;
	}
	size_t applied = 0;
	for (size_t i = 0; i < n; ++i)
	{
		uint32_t u = candidates[i].u, v = candidates[i].v;
		// Its tests read the rings of u, v and the w's, u's triangles and v's quadric: still valid
		// when no collapse of the pass changed any of them.
		const uint32_t* w = candidates[i].w;
		if (touched[u] | touched[v] | touched[w[0]] | touched[w[1]])
		{
			continue;
		}
		bsMarkChanged(s, u, v, touched);
		remap[u] = v;
		for (int k = 0; k < 10; ++k)
		{
			s->quadrics[v].q[k] += s->quadrics[u].q[k];
		}
		applied += 1;
	}
	for (uint32_t u = 0; u < vertexCount; ++u)
	{
		live[u] = live[u] || bsNearChange(s, u, touched);
	}
	size_t kept = 0;
	for (size_t t = 0; t < s->triangles; ++t)
	{
		uint32_t a = remap[s->indices[3 * t]], b = remap[s->indices[3 * t + 1]], c = remap[s->indices[3 * t + 2]];
		if (a != b && b != c && c != a)
		{
			s->indices[3 * kept] = a;
			s->indices[3 * kept + 1] = b;
			s->indices[3 * kept + 2] = c;
			kept += 1;
		}
	}
	s->triangles = kept;
	return applied;
}

// Every vertex's quadric: the planes of its triangles.
static void bsInitQuadrics(const bsSurfaceMesh* mesh, bsQuadric* quadrics)
{
	memset(quadrics, 0, mesh->vertexCount * sizeof(bsQuadric));
	for (size_t t = 0; t < mesh->triangleCount; ++t)
	{
		const uint32_t* v = mesh->indices + 3 * t;
		bsVec3 n = bsTriangleCross(mesh->positions[v[0]], mesh->positions[v[1]], mesh->positions[v[2]]);
		double l = bsLength(n);
		if (!(l > 0.0))
		{
			continue;
		}
		n = bsScale(1.0 / l, n);
		double d = -bsDot(n, mesh->positions[v[0]]);
		for (int c = 0; c < 3; ++c)
		{
			bsQuadric_AddPlane(&quadrics[v[c]], n, d);
		}
	}
}

bsSurfaceSimplifyDef bsDefaultSurfaceSimplifyDef(void)
{
	return (bsSurfaceSimplifyDef){.maxError = 0.0, .maxNormalAngle = 10.0 * (BS_PI / 180.0), .threads = 0};
}

bsResult bsSurfaceMesh_Simplify(bsSurfaceMesh* mesh, const bsSurfaceSimplifyDef* def, bsSurfaceSimplifyStats* stats)
{
	double maxError = def->maxError;
	memset(stats, 0, sizeof(*stats));
	stats->trianglesBefore = mesh->triangleCount;
	stats->trianglesAfter = mesh->triangleCount;
	stats->closed = true;
	if (!(maxError > 0.0 && isfinite(maxError)) || !(def->maxNormalAngle > 0.0 && def->maxNormalAngle <= BS_PI))
	{
		return bs_errInvalidArgument;
	}
	if (mesh->triangleCount == 0)
	{
		return bs_ok;
	}
	size_t nv = mesh->vertexCount, n = 3 * mesh->triangleCount;
	bsSimplifier s = {.mesh = mesh, .triangles = mesh->triangleCount, .limit = maxError * maxError,
		.cosShade = cos(def->maxNormalAngle)};
	s.indices = malloc(n * sizeof(uint32_t));
	s.quadrics = malloc(nv * sizeof(bsQuadric));
	s.adj.first = malloc((nv + 1) * sizeof(uint32_t));
	s.adj.tris = malloc(n * sizeof(uint32_t));
	bsCollapse* candidates = malloc(nv * sizeof(bsCollapse));
	uint32_t* remap = malloc(nv * sizeof(uint32_t));
	uint8_t* touched = malloc(nv);
	s.live = malloc(nv);
	s.best = malloc(nv * sizeof(bsCollapse));
	s.pool = bsPool_Create(bsResolveThreads(def->threads, nv / 4096 + 1));
	bsResult r = s.indices != NULL && s.quadrics != NULL && s.adj.first != NULL && s.adj.tris != NULL &&
			candidates != NULL && remap != NULL && touched != NULL && s.live != NULL && s.best != NULL && s.pool != NULL
		? bs_ok
		: bs_errOutOfMemory;
	if (r == bs_ok)
	{
		memcpy(s.indices, mesh->indices, n * sizeof(uint32_t));
		bsInitQuadrics(mesh, s.quadrics);
		memset(s.live, 1, nv);
		while (stats->passes < bsMaxPasses && bsPass(&s, candidates, remap, touched) > 0)
		{
			stats->passes += 1;
		}
	}
	free(s.quadrics);
	free(s.adj.first);
	free(s.adj.tris);
	free(candidates);
	free(remap);
	free(touched);
	free(s.live);
	free(s.best);
	bsPool_Destroy(s.pool);
	size_t bad = 0;
	r = r == bs_ok ? bsCheckEdges(s.indices, s.triangles, nv, NULL, &bad) : r;
	if (r != bs_ok || bad > 0)
	{
		free(s.indices);
		stats->closed = r != bs_ok;
		return r;
	}
	free(mesh->indices);
	mesh->indices = s.indices;
	mesh->triangleCount = s.triangles;
	stats->trianglesAfter = s.triangles;
	stats->error = maxError;
	return bsCompactVertices(mesh);
}
