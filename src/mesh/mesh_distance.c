// mesh_distance.c — triangle-triangle distance and the BVH-BVH closest pair (mesh_distance.h).
#include "mesh_distance.h"

#include <string.h>

static double bsClamp01(double x)
{
	return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

// Closest points of segments p1q1 and p2q2 (Ericson, Real-Time Collision Detection §5.1.9); returns
// the squared distance. Degenerate segments are points.
static double bsSegmentSegment(bsVec3 p1, bsVec3 q1, bsVec3 p2, bsVec3 q2, bsVec3* c1, bsVec3* c2)
{
	bsVec3 d1 = bsSub(q1, p1), d2 = bsSub(q2, p2), r = bsSub(p1, p2);
	double a = bsDot(d1, d1), e = bsDot(d2, d2), f = bsDot(d2, r);
	double s = 0.0, t = 0.0;
	const double tiny = 1e-300;
	if (a <= tiny && e <= tiny)
	{
		s = t = 0.0;
	}
	else if (a <= tiny)
	{
		t = bsClamp01(f / e);
	}
	else
	{
		double c = bsDot(d1, r);
		if (e <= tiny)
		{
			s = bsClamp01(-c / a);
		}
		else
		{
			double b = bsDot(d1, d2), denom = a * e - b * b;
			s = denom > 0.0 ? bsClamp01((b * f - c * e) / denom) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0)
			{
				t = 0.0;
				s = bsClamp01(-c / a);
			}
			else if (t > 1.0)
			{
				t = 1.0;
				s = bsClamp01((b - c) / a);
			}
		}
	}
	*c1 = bsMulAdd(p1, s, d1);
	*c2 = bsMulAdd(p2, t, d2);
	return bsDistanceSquared(*c1, *c2);
}

// Does segment pq cross the closed triangle (not in its plane)? The crossing point in *at.
static bool bsSegmentPierces(bsVec3 p, bsVec3 q, const bsTriangle* t, bsVec3* at)
{
	double dp = bsTriangle_PlaneDistance(t, p), dq = bsTriangle_PlaneDistance(t, q);
	if ((dp > 0.0 && dq > 0.0) || (dp < 0.0 && dq < 0.0) || dp == dq)
	{
		return false;  // one side, or in the plane (edge-edge and vertex tests cover coplanar pairs)
	}
	bsVec3 x = bsLerp(p, q, dp / (dp - dq));
	if (!bsTriangle_Contains(t, x))
	{
		return false;
	}
	*at = x;
	return true;
}

static bsVec3 bsCorner(const bsTriangle* t, int k)
{
	return k == 0 ? t->p1 : (k == 1 ? t->p2 : t->p3);
}

// One triangle's edges piercing the other: distance 0.
static bool bsEdgesPierce(const bsTriangle* edges, const bsTriangle* face, bsVec3* at)
{
	for (int k = 0; k < 3; ++k)
	{
		if (bsSegmentPierces(bsCorner(edges, k), bsCorner(edges, (k + 1) % 3), face, at))
		{
			return true;
		}
	}
	return false;
}

double bsTriangle_TriangleDistance2(const bsTriangle* a, const bsTriangle* b, bsVec3* pointA,
	bsVec3* pointB)
{
	bsVec3 pa = a->p1, pb = b->p1, at;
	if (bsEdgesPierce(a, b, &at) || bsEdgesPierce(b, a, &at))
	{
		pa = pb = at;
		goto done;
	}
	double best = HUGE_VAL;
	for (int k = 0; k < 3; ++k)
	{
		bsVec3 va = bsCorner(a, k), vb = bsCorner(b, k);
		bsVec3 onB = bsTriangle_ClosestPoint(b, va, NULL, NULL);
		double d2 = bsDistanceSquared(va, onB);
		if (d2 < best)
		{
			best = d2, pa = va, pb = onB;
		}
		bsVec3 onA = bsTriangle_ClosestPoint(a, vb, NULL, NULL);
		d2 = bsDistanceSquared(vb, onA);
		if (d2 < best)
		{
			best = d2, pa = onA, pb = vb;
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			bsVec3 c1, c2;
			double d2 = bsSegmentSegment(bsCorner(a, i), bsCorner(a, (i + 1) % 3), bsCorner(b, j),
				bsCorner(b, (j + 1) % 3), &c1, &c2);
			if (d2 < best)
			{
				best = d2, pa = c1, pb = c2;
			}
		}
	}
done:
	if (pointA != NULL)
	{
		*pointA = pa;
	}
	if (pointB != NULL)
	{
		*pointB = pb;
	}
	return bsDistanceSquared(pa, pb);
}

// --- BVH against BVH ---

typedef struct bsMat3
{
	double m[3][3];  // rows
} bsMat3;

static bsMat3 bsQuat_Matrix(bsQuat q)
{
	bsMat3 r;
	bsVec3 ex = bsQuat_Rotate(q, bsV3(1.0, 0.0, 0.0));
	bsVec3 ey = bsQuat_Rotate(q, bsV3(0.0, 1.0, 0.0));
	bsVec3 ez = bsQuat_Rotate(q, bsV3(0.0, 0.0, 1.0));
	double cols[3][3] = {{ex.x, ex.y, ex.z}, {ey.x, ey.y, ey.z}, {ez.x, ez.y, ez.z}};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			r.m[i][j] = cols[j][i];
		}
	}
	return r;
}

// The walk's context: B's frame taken into A's.
typedef struct bsPairWalk
{
	const bsBvh* a;
	const bsBvh* b;
	bsTransform rel;   // B local -> A local
	double absRot[3][3];
	double best2;
	uint32_t bestA, bestB;  // leaf-order indices
	bsVec3 pointA, pointB;  // in A's frame
	bool found;
	uint64_t nodePairs, trianglePairs;
} bsPairWalk;

typedef struct bsBox
{
	double lo[3], hi[3];
	double radius;  // B's boxes: the radius of the rotated box's bounding sphere (padded)
} bsBox;

static bsBox bsNodeBoxA(const bsPairWalk* w, const bsBvhNode* n)
{
	bsBox box;
	box.radius = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		box.lo[i] = (double)n->min[i] - (double)w->a->pad;
		box.hi[i] = (double)n->max[i] + (double)w->a->pad;
	}
	return box;
}

// B's node box in A's frame: the box around the rotated box.
static bsBox bsNodeBoxB(const bsPairWalk* w, const bsBvhNode* n)
{
	double h[3], c[3];
	for (int i = 0; i < 3; ++i)
	{
		c[i] = 0.5 * ((double)n->min[i] + (double)n->max[i]);
		h[i] = 0.5 * ((double)n->max[i] - (double)n->min[i]) + (double)w->b->pad;
	}
	bsVec3 centre = bsTransform_Apply(w->rel, bsV3(c[0], c[1], c[2]));
	double cc[3] = {centre.x, centre.y, centre.z};
	bsBox box;
	box.radius = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) * (1.0 + 1e-12) + 1e-12 * bsMaxAbs(centre);
	for (int i = 0; i < 3; ++i)
	{
		double e = w->absRot[i][0] * h[0] + w->absRot[i][1] * h[1] + w->absRot[i][2] * h[2];
		e += 1e-12 * (fabs(cc[i]) + e);  // the rounding of the transform itself
		box.lo[i] = cc[i] - e;
		box.hi[i] = cc[i] + e;
	}
	return box;
}

// The larger of two lower bounds of the distance between the boxes' contents, squared: the boxes'
// own distance and their bounding spheres' distance (A's box is exact in A's frame, B's is loosened
// by the rotation; B's sphere is not).
static double bsBoxDistance2(const bsBox* p, const bsBox* q, double radiusQ)
{
	double centre2 = 0.0, radiusP2 = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		double c = 0.5 * (p->lo[i] + p->hi[i]) - 0.5 * (q->lo[i] + q->hi[i]);
		double h = 0.5 * (p->hi[i] - p->lo[i]);
		centre2 += c * c;
		radiusP2 += h * h;
	}
	double sphere = sqrt(centre2) - sqrt(radiusP2) - radiusQ;
	double d2 = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		double gap = fmax(p->lo[i] - q->hi[i], q->lo[i] - p->hi[i]);
		if (gap > 0.0)
		{
			d2 += gap * gap;
		}
	}
	return sphere > 0.0 ? fmax(d2, sphere * sphere) : d2;
}

static bsTriangle bsTransformTriangle(bsTransform t, const bsTriangle* in)
{
	bsTriangle out;
	out.p1 = bsTransform_Apply(t, in->p1);
	out.p2 = bsTransform_Apply(t, in->p2);
	out.p3 = bsTransform_Apply(t, in->p3);
	out.n = bsQuat_Rotate(t.rotation, in->n);
	out.delta = -bsDot(out.n, out.p1);
	return out;
}

static void bsTrianglePair(bsPairWalk* w, uint32_t i, uint32_t j, const bsTriangle* tb,
	const bsTriangleBox* boxB)
{
	const bsTriangle* ta = w->a->tris + i;
	bsTriangleBox boxA = bsTriangle_Box(ta);
	if (w->found && bsTriangleBox_Distance2(&boxA, boxB) >= w->best2)
	{
		return;
	}
	bsVec3 pa, pb;
	++w->trianglePairs;
	double d2 = bsTriangle_TriangleDistance2(ta, tb, &pa, &pb);
	if (d2 < w->best2 || (!w->found && d2 <= w->best2))
	{
		w->best2 = d2, w->found = true;
		w->bestA = i, w->bestB = j;
		w->pointA = pa, w->pointB = pb;
	}
}

static void bsLeafPair(bsPairWalk* w, const bsBvhNode* na, const bsBvhNode* nb)
{
	for (uint32_t j = nb->leftFirst; j < nb->leftFirst + nb->count; ++j)
	{
		bsTriangle tb = bsTransformTriangle(w->rel, w->b->tris + j);
		bsTriangleBox boxB = bsTriangle_Box(&tb);
		for (uint32_t i = na->leftFirst; i < na->leftFirst + na->count; ++i)
		{
			bsTrianglePair(w, i, j, &tb, &boxB);
		}
	}
}

static double bsBoxSize(const bsBvhNode* n)
{
	return ((double)n->max[0] - (double)n->min[0]) + ((double)n->max[1] - (double)n->min[1]) +
		((double)n->max[2] - (double)n->min[2]);
}

typedef struct bsNodePair
{
	uint32_t a, b;
	double d2;
} bsNodePair;

static void bsWalk(bsPairWalk* w)
{
	enum { stackSize = 4 * BS_BVH_MAX_DEPTH + 4 };
	bsNodePair stack[stackSize];
	int top = 0;
	stack[top++] = (bsNodePair){0, 0, 0.0};
	while (top > 0)
	{
		bsNodePair p = stack[--top];
		if (p.d2 > w->best2 || (w->found && p.d2 == w->best2))
		{
			continue;
		}
		++w->nodePairs;
		const bsBvhNode* na = w->a->nodes + p.a;
		const bsBvhNode* nb = w->b->nodes + p.b;
		if (na->count > 0 && nb->count > 0)
		{
			bsLeafPair(w, na, nb);
			continue;
		}
		// Open the larger node (by box size; a leaf is never opened).
		bool openA = nb->count > 0 || (na->count == 0 && bsBoxSize(na) >= bsBoxSize(nb));
		bsNodePair child[2];
		for (int c = 0; c < 2; ++c)
		{
			child[c].a = openA ? na->leftFirst + (uint32_t)c : p.a;
			child[c].b = openA ? p.b : nb->leftFirst + (uint32_t)c;
			bsBox boxA = bsNodeBoxA(w, w->a->nodes + child[c].a);
			bsBox boxB = bsNodeBoxB(w, w->b->nodes + child[c].b);
			child[c].d2 = bsBoxDistance2(&boxA, &boxB, boxB.radius);
		}
		int nearer = child[1].d2 < child[0].d2;
		if (top + 2 > stackSize)
		{
			continue;  // not reached: the depth of each tree is at most BS_BVH_MAX_DEPTH
		}
		stack[top++] = child[1 - nearer];
		stack[top++] = child[nearer];
	}
}

static bool bsPoseIsValid(bsTransform t)
{
	return bsIsValidVec3(t.translation) && isfinite(t.rotation.x) && isfinite(t.rotation.y) &&
		isfinite(t.rotation.z) && isfinite(t.rotation.w);
}

static void bsMeshDistance_Miss(bsMeshDistanceOutput* out)
{
	memset(out, 0, sizeof(*out));
	out->distance = HUGE_VAL;
	out->triangleA = out->triangleB = BS_NO_TRIANGLE;
	out->leafA = out->leafB = BS_NO_TRIANGLE;
}

bsResult bsMeshDistance(const bsMeshDistanceInput* input, bsMeshDistanceOutput* out)
{
	if (out == NULL)
	{
		return bs_errInvalidArgument;
	}
	bsMeshDistance_Miss(out);
	if (input == NULL || input->bvhA == NULL || input->bvhB == NULL || !(input->maxDistance >= 0.0))
	{
		return bs_errInvalidArgument;
	}
	if (!bsPoseIsValid(input->poseA) || !bsPoseIsValid(input->poseB))
	{
		return bs_errNonFinite;
	}
	if (input->bvhA->triCount == 0 || input->bvhB->triCount == 0)
	{
		return bs_ok;
	}
	bsPairWalk w;
	memset(&w, 0, sizeof(w));
	w.a = input->bvhA;
	w.b = input->bvhB;
	bsTransform invA = {bsQuat_Conjugate(input->poseA.rotation),
		bsQuat_InvRotate(input->poseA.rotation, bsNeg(input->poseA.translation))};
	w.rel = bsTransform_Mul(invA, input->poseB);
	bsMat3 r = bsQuat_Matrix(w.rel.rotation);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			w.absRot[i][j] = fabs(r.m[i][j]) + 1e-12;
		}
	}
	w.best2 = input->maxDistance == HUGE_VAL ? HUGE_VAL : input->maxDistance * input->maxDistance;
	if (input->hintA < w.a->triCount && input->hintB < w.b->triCount)
	{
		bsTriangle tb = bsTransformTriangle(w.rel, w.b->tris + input->hintB);
		bsTriangleBox boxB = bsTriangle_Box(&tb);
		bsTrianglePair(&w, input->hintA, input->hintB, &tb, &boxB);
	}
	bsWalk(&w);
	out->nodePairs = w.nodePairs;
	out->trianglePairs = w.trianglePairs;
	if (w.found)
	{
		out->hit = 1;
		out->distance = sqrt(w.best2);
		out->pointA = bsTransform_Apply(input->poseA, w.pointA);
		out->pointB = bsTransform_Apply(input->poseA, w.pointB);
		out->triangleA = w.a->triIndex[w.bestA];
		out->triangleB = w.b->triIndex[w.bestB];
		out->leafA = w.bestA;
		out->leafB = w.bestB;
	}
	return bs_ok;
}
