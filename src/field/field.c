// field.c — the paper's spring, impact, drag and surface-flow rules over a distance/normal grid or its
// compressed tree (see field.h).
//
// Every entry point goes through one lookup (bsFieldLookup, the grid's scale worked out once) and one
// set of rules (bsFieldRules, the def's constants worked out once), so a particle's result is the
// same bit for bit whether it is asked alone (bsField_Apply) or in a range (the step's forces phase).
#include "grid_tree_internal.h"

#include "blobsim/field.h"

#include <math.h>
#include <string.h>

bsFieldDef bsDefaultFieldDef(void)
{
	bsFieldDef def;
	memset(&def, 0, sizeof(def));
	def.threshold = -1.0;
	def.restitution = 0.0;
	return def;
}

bool bsFieldDef_IsValid(const bsFieldDef* def)
{
	// Every value finite (a threshold below 0 is "off"), and each rule that is on with its reach.
	bool finite = isfinite(def->spring) && isfinite(def->springDistance) && isfinite(def->threshold) &&
		isfinite(def->restitution) && isfinite(def->drag) && isfinite(def->contactDistance) &&
		isfinite(def->flowIn) && isfinite(def->flowOut) && isfinite(def->flowDistance);
	return finite && def->spring >= 0.0 && def->springDistance >= 0.0 && (def->spring == 0.0 || def->springDistance > 0.0) &&
		def->restitution >= 0.0 && def->restitution <= 1.0 && def->drag >= 0.0 && def->contactDistance >= 0.0 &&
		(def->drag == 0.0 || def->contactDistance > 0.0) && def->flowDistance >= 0.0 &&
		((def->flowIn == 0.0 && def->flowOut == 0.0) || def->flowDistance > 0.0);
}

// ---- lookups ----

typedef struct bsFieldLookup
{
	const bsGridCell* cells;  // the dense grid's (NULL with a tree)
	const bsGridTree* tree;
	bool trilinear;
	const bsDistanceGrid* grid;
	double ox, oy, oz;
	double inv;               // 1 / cell size: the cell index is a product, not a division
	double nx, ny, nz;        // the cell counts, for the bounds test
	int ix, iy;               // the counts as strides
} bsFieldLookup;

static void bsFieldLookup_Init(bsFieldLookup* l, const bsDistanceGrid* grid, const bsGridTree* tree, bool trilinear)
{
	memset(l, 0, sizeof *l);
	l->tree = tree;
	l->grid = grid;
	l->trilinear = trilinear;
	l->cells = tree == NULL ? grid->cells : NULL;
	int nx = tree != NULL ? tree->nx : grid->nx, ny = tree != NULL ? tree->ny : grid->ny;
	int nz = tree != NULL ? tree->nz : grid->nz;
	double h = tree != NULL ? tree->cellSize : grid->cellSize;
	bsVec3 o = tree != NULL ? tree->origin : grid->origin;
	l->ox = o.x;
	l->oy = o.y;
	l->oz = o.z;
	l->inv = 1.0 / h;
	l->nx = nx;
	l->ny = ny;
	l->nz = nz;
	l->ix = nx;
	l->iy = ny;
}

// The cell containing x, its indices into i, j, k; false outside the grid (or NaN). The bounds are
// tested on the doubles: converting an out-of-range double to int is undefined.
static inline bool bsFieldLookup_Index(const bsFieldLookup* l, bsVec3 x, int* i, int* j, int* k)
{
	double fx = (x.x - l->ox) * l->inv, fy = (x.y - l->oy) * l->inv, fz = (x.z - l->oz) * l->inv;
	if (!(fx >= 0.0 && fx < l->nx && fy >= 0.0 && fy < l->ny && fz >= 0.0 && fz < l->nz))
	{
		return false;
	}
	*i = (int)fx;
	*j = (int)fy;
	*k = (int)fz;
	return true;
}

static inline void bsFieldLookup_Dense(const bsFieldLookup* l, int i, int j, int k, float* d, float n[3])
{
	const bsGridCell* c = l->cells + (size_t)i + (size_t)l->ix * ((size_t)j + (size_t)l->iy * (size_t)k);
	*d = c->distance;
	memcpy(n, c->normal, 3 * sizeof(float));
}

// Cell (i, j, k) as the tree stores it (bsGridTree_Cell, inlined).
static inline void bsFieldLookup_Tree(const bsFieldLookup* l, int i, int j, int k, float* d, float n[3])
{
	bsGridCell c = bsGridTree_CellAt(l->tree, i, j, k);
	*d = c.distance;
	memcpy(n, c.normal, sizeof c.normal);
}

// The cell containing x: its distance into *d and normal into *n; false outside the grid (or NaN).
static inline bool bsFieldLookup_Nearest(const bsFieldLookup* l, bsVec3 x, float* d, float n[3])
{
	int i, j, k;
	if (!bsFieldLookup_Index(l, x, &i, &j, &k))
	{
		return false;
	}
	if (l->cells != NULL)
	{
		bsFieldLookup_Dense(l, i, j, k, d, n);
	}
	else
	{
		bsFieldLookup_Tree(l, i, j, k, d, n);
	}
	return true;
}

static inline bool bsFieldLookup_Find(const bsFieldLookup* l, bsVec3 x, double* d, bsVec3* n)
{
	bsGridCell cell;
	if (l->trilinear)
	{
		bool in = l->tree != NULL ? bsGridTree_Trilinear(l->tree, x, &cell) : bsDistanceGrid_Trilinear(l->grid, x, &cell);
		if (!in)
		{
			return false;
		}
	}
	else if (!bsFieldLookup_Nearest(l, x, &cell.distance, cell.normal))
	{
		return false;
	}
	*d = cell.distance;
	*n = bsV3(cell.normal[0], cell.normal[1], cell.normal[2]);
	return true;
}

// ---- rules ----

typedef struct bsFieldRules
{
	const bsFieldDef* def;
	double dt;
	bool spring, flow, drag, impact;
	double dragFactor;  // exp(-drag dt)
	double bounce;      // -(1 + beta)
	double threshold;   // L
} bsFieldRules;

static void bsFieldRules_Init(bsFieldRules* r, const bsFieldDef* def, double dt)
{
	r->def = def;
	r->dt = dt;
	r->spring = def->spring != 0.0;
	r->flow = def->flowIn != 0.0 || def->flowOut != 0.0;
	r->drag = def->drag > 0.0;
	r->impact = def->threshold >= 0.0;
	r->dragFactor = r->drag ? exp(-def->drag * dt) : 1.0;
	r->bounce = -(1.0 + def->restitution);
	r->threshold = def->threshold;
}

// The surface flow's acceleration (the paper's pseudocode).
static bsVec3 bsField_Flow(const bsFieldDef* def, bsVec3 n, bsVec3 v)
{
	double gamma = bsDot(n, v);
	bsVec3 e = bsCross(bsCross(v, n), v);
	double len = bsLength(e);
	if (!(len > 1e-300))
	{
		return bsV3(0.0, 0.0, 0.0);  // moving straight along the normal: no tangent to turn to
	}
	return bsScale((gamma < 0.0 ? def->flowIn : def->flowOut) / len, e);
}

// Spring, flow and drag: the rules other than impact, rarely all on.
static bsVec3 bsField_Smooth(const bsFieldRules* r, double d, bsVec3 n, bsVec3 v)
{
	const bsFieldDef* def = r->def;
	bsVec3 w = v;
	if (r->spring && d < def->springDistance)
	{
		w = bsMulAdd(w, r->dt, bsScale(def->spring * (def->springDistance - d), n));
	}
	if (r->flow && d < def->flowDistance)
	{
		// The flow only turns the velocity: it keeps the speed the other accelerations give, so the
		// explicit step does not add |F dt|^2 / 2|v| to it each time.
		bsVec3 flow = bsField_Flow(def, n, v);
		double speed = bsLength(w);
		bsVec3 turned = bsMulAdd(w, r->dt, flow);
		double len = bsLength(turned);
		w = len > 0.0 ? bsScale(speed / len, turned) : w;
	}
	if (r->drag && d < def->contactDistance)
	{
		w = bsScale(r->dragFactor, w);
	}
	return w;
}

static inline bsVec3 bsField_Rules(const bsFieldRules* r, double d, bsVec3 n, bsVec3 v)
{
	bsVec3 w = r->spring || r->flow || r->drag ? bsField_Smooth(r, d, n, v) : v;
	if (r->impact)
	{
		// The reflection's size is 0 unless the particle approaches and would end within L. Both
		// tests are evaluated (&, not &&): whether a particle approaches is as good as random in
		// random order and must not be a branch of its own; ending within L is rare.
		double vn = bsDot(w, n);
		bool hit = (vn < 0.0) & (d + vn * r->dt <= r->threshold);
		double k = hit ? r->bounce * vn : 0.0;
		w = hit ? bsMulAdd(w, k, n) : w;
	}
	return w;
}

// ---- entry points ----

static bool bsField_ApplyOne(const bsFieldLookup* l, const bsFieldRules* r, bsVec3 x, bsVec3* v)
{
	double d;
	bsVec3 n;
	if (!bsFieldLookup_Find(l, x, &d, &n))
	{
		return false;
	}
	*v = bsField_Rules(r, d, n, *v);
	return true;
}

bool bsField_Apply(const bsDistanceGrid* grid, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v)
{
	bsFieldLookup l;
	bsFieldRules r;
	bsFieldLookup_Init(&l, grid, NULL, def->trilinear);
	bsFieldRules_Init(&r, def, dt);
	return bsField_ApplyOne(&l, &r, x, v);
}

bool bsField_ApplyTree(const bsGridTree* tree, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v)
{
	bsFieldLookup l;
	bsFieldRules r;
	bsFieldLookup_Init(&l, NULL, tree, def->trilinear);
	bsFieldRules_Init(&r, def, dt);
	return bsField_ApplyOne(&l, &r, x, v);
}

bool bsField_PosedLookup(const bsDistanceGrid* grid, bsGridPose pose, bool trilinear, bsVec3 x, double* d,
	bsVec3* n)
{
	if (!(pose.scale > 0.0))
	{
		return false;
	}
	bsVec3 rest = bsScale(1.0 / pose.scale, bsQuat_InvRotate(pose.rotation, bsSub(x, pose.position)));
	bsFieldLookup l;
	bsFieldLookup_Init(&l, grid, NULL, trilinear);
	bsVec3 restNormal;
	if (!bsFieldLookup_Find(&l, rest, d, &restNormal))
	{
		return false;
	}
	*d *= pose.scale;
	*n = bsQuat_Rotate(pose.rotation, restNormal);
	return true;
}

bool bsField_ApplyPosed(const bsDistanceGrid* grid, bsGridPose pose, const bsFieldDef* def, bsVec3 x,
	bsVec3 surfaceVelocity, double dt, bsVec3* v)
{
	double d;
	bsVec3 n;
	if (!bsField_PosedLookup(grid, pose, def->trilinear, x, &d, &n))
	{
		return false;
	}
	bsFieldRules r;
	bsFieldRules_Init(&r, def, dt);
	*v = bsAdd(bsField_Rules(&r, d, n, bsSub(*v, surfaceVelocity)), surfaceVelocity);
	return true;
}

// The range loop takes the particles a batch at a time: it works out the batch's cells and
// prefetches them, then looks them up, so that in random order a lookup finds its cell on its way
// from memory (the dense grid's 16-byte cells outgrow the cache; the tree's nodes do not, its dense
// blocks may) instead of waiting for it. The values are the same: only when memory is read changes.
enum
{
	bs_fieldBatch = 32,
	bs_fieldNearNodes = 1 << 19,  // bytes of nodes beyond which the tree's batch prefetches them
};

static inline bool bsField_Free(const uint8_t* state, size_t p)
{
	return state == NULL || state[p] == 0;
}

static inline void bsField_Apply1(const bsFieldRules* r, bsGridCell c, bsVec3* v)
{
	*v = bsField_Rules(r, c.distance, bsV3(c.normal[0], c.normal[1], c.normal[2]), *v);
}

// One batch over the dense grid: particles x[0..n) (state and v from the same offset).
static inline void bsField_DenseBatch(bsFieldLookup lookup, bsFieldRules rules, const bsVec3* x, bsVec3* v,
	const uint8_t* state, size_t n)
{
	const bsFieldLookup* l = &lookup;
	const bsFieldRules* r = &rules;
	size_t cell[bs_fieldBatch];
	bool in[bs_fieldBatch];
	for (size_t q = 0; q < n; ++q)
	{
		int i = 0, j = 0, k = 0;
		in[q] = bsField_Free(state, q) && bsFieldLookup_Index(l, x[q], &i, &j, &k);
		cell[q] = (size_t)i + (size_t)l->ix * ((size_t)j + (size_t)l->iy * (size_t)k);
		__builtin_prefetch(l->cells + cell[q]);
	}
	for (size_t q = 0; q < n; ++q)
	{
		if (in[q])
		{
			bsField_Apply1(r, l->cells[cell[q]], v + q);
		}
	}
}

// The lookups of a batch over the tree, `kinds` the kinds of block its particles are in (a constant
// where it is inlined): all in plane blocks (1), the plane at the cell and the node's normal; all
// in dense blocks (2), the subgrid cell as stored; both (3), plane + subgrid cell for each (the
// same bits without a branch on the kind, which is as good as random when the particles are). No
// stored value is -0 (grid_tree_internal.h), so the first two need not add the other part's zeros
// to give the bits of bsGridTree_Cell.
static inline void bsField_TreeLookups(const bsGridTree* t, bsFieldRules rules, int kinds,
	const bsGridTreeNode* const* node, const bsGridCell* const* cell, const int (*ijk)[3], const bool* in, bsVec3* v,
	size_t n)
{
	const bsFieldRules* r = &rules;  // a copy: the writes to v cannot alias it (as below)
	for (size_t q = 0; q < n; ++q)
	{
		if (in[q])
		{
			float plane = kinds == 2 ? 0.0f : bsGridTree_PlaneAt(t, node[q], ijk[q][0], ijk[q][1], ijk[q][2]);
			bsGridCell c = kinds == 1 ? bsGridTreeNode_Plane(node[q], plane)
				: kinds == 2 ? *cell[q]
				: bsGridTreeNode_Sum(node[q], plane, cell[q]);
			bsField_Apply1(r, c, v + q);
		}
	}
}

// A free particle's cell in the tree: its key (grid_tree_internal.h), its indices into ijk and
// whether it is in the grid into *in (cell 0's key and indices when not).
static inline uint64_t bsField_TreeLocate(const bsFieldLookup* l, bsVec3 x, bool free, int ijk[3], bool* in)
{
	int i = 0, j = 0, k = 0;
	*in = free && bsFieldLookup_Index(l, x, &i, &j, &k);
	ijk[0] = i;
	ijk[1] = j;
	ijk[2] = k;
	return bsGridTree_Key(l->tree, i, j, k);
}

// One batch over the tree. The first pass reads each particle's node and prefetches its subgrid cell
// (subgrid 0's in a plane block, always in cache); the cell's node and subgrid offset come from the
// axes' tables (field.h), without shifts or masks by the block size. The plane is worked out in
// the second pass: in the first its chain of products and sums from the node's load held back the
// next particles' loads (the same batch was 10% slower in cell order). The nodes are 32 bytes for
// B^3 cells and mostly stay in cache; when farNodes (a constant where it is inlined) they do not, and
// a pass before prefetches each particle's node as the dense batch does its cell (at 256^3, blocks
// of 4: twice the rate in random order; at 64^3 it would cost 10%).
static inline void bsField_TreeBatch(bsFieldLookup lookup, bsFieldRules rules, const bsVec3* x, bsVec3* v,
	const uint8_t* state, size_t n, bool farNodes)
{
	const bsFieldLookup* l = &lookup;
	const bsFieldRules* r = &rules;
	const bsGridTree* t = l->tree;
	int kinds = 0;
	const bsGridTreeNode* node[bs_fieldBatch];
	const bsGridCell* cell[bs_fieldBatch];
	int ijk[bs_fieldBatch][3];
	uint64_t key[bs_fieldBatch];
	bool in[bs_fieldBatch];
	for (size_t q = 0; farNodes && q < n; ++q)
	{
		key[q] = bsField_TreeLocate(l, x[q], bsField_Free(state, q), ijk[q], in + q);
		__builtin_prefetch(bsGridTree_KeyNode(t, key[q]));
	}
	for (size_t q = 0; q < n; ++q)
	{
		if (!farNodes)
		{
			key[q] = bsField_TreeLocate(l, x[q], bsField_Free(state, q), ijk[q], in + q);
		}
		node[q] = bsGridTree_KeyNode(t, key[q]);
		cell[q] = bsGridTree_KeySub(t, node[q], key[q]);
		__builtin_prefetch(cell[q]);
		kinds |= (int)in[q] << (node[q]->first != 0);
	}
	switch (kinds)
	{
		case 1:
			bsField_TreeLookups(t, *r, 1, node, cell, ijk, in, v, n);
			break;
		case 2:
			bsField_TreeLookups(t, *r, 2, node, cell, ijk, in, v, n);
			break;
		default:
			bsField_TreeLookups(t, *r, 3, node, cell, ijk, in, v, n);
			break;
	}
}

// The nearest-cell loop, a batch at a time. The batches take the lookup and the rules by value: as
// copies, the writes to v cannot alias them, so they stay in registers.
static void bsField_RangeNearest(const bsFieldLookup* l, const bsFieldRules* r, const bsVec3* x, bsVec3* v,
	const uint8_t* state, size_t begin, size_t end)
{
	// Nodes beyond half a core's second-level cache (1 MB on the machine measured) are prefetched.
	const bsGridTree* t = l->tree;
	bool farNodes = t != NULL && (size_t)t->bx * (size_t)t->by * (size_t)t->bz * sizeof(bsGridTreeNode) > bs_fieldNearNodes;
	for (size_t p = begin; p < end; p += bs_fieldBatch)
	{
		size_t n = end - p < bs_fieldBatch ? end - p : bs_fieldBatch;
		const uint8_t* st = state != NULL ? state + p : NULL;
		if (farNodes)
		{
			bsField_TreeBatch(*l, *r, x + p, v + p, st, n, true);
		}
		else if (t != NULL)
		{
			bsField_TreeBatch(*l, *r, x + p, v + p, st, n, false);
		}
		else
		{
			bsField_DenseBatch(*l, *r, x + p, v + p, st, n);
		}
	}
}

void bsField_ApplyRange(const bsDistanceGrid* grid, const bsGridTree* tree, const bsFieldDef* def, double dt,
	const bsVec3* x, bsVec3* v, const uint8_t* state, size_t begin, size_t end)
{
	bsFieldLookup l;
	bsFieldRules r;
	bsFieldLookup_Init(&l, tree != NULL ? NULL : grid, tree, def->trilinear);
	bsFieldRules_Init(&r, def, dt);
	if (def->trilinear)
	{
		for (size_t i = begin; i < end; ++i)
		{
			if (state == NULL || state[i] == 0)
			{
				bsField_ApplyOne(&l, &r, x[i], &v[i]);
			}
		}
	}
	else
	{
		bsField_RangeNearest(&l, &r, x, v, state, begin, end);
	}
}
