// ray_test.h — the segment/triangle test of the ray method as inline code, for ray.c's bsRayTriangle
// (the list loop) and the BVH's ray walk (bvh.c) alike: one test, so the same answers bit for bit.
//
// The signed distances d1, d2 of the end points from the plane; no crossing when they share a sign;
// otherwise the crossing at t = d1 / (d1 - d2). Whether the crossing is inside the triangle is
// decided watertight (Woop, Benthin & Wald, "Watertight ray/triangle intersection", JCGT 2013): the
// vertices are projected along the segment onto a 2D frame in which the segment's line is the
// origin, and the origin is tested against the three projected edges with exact signs and one
// tie rule for all triangles. A segment lying in the plane is clipped against the three edge
// half-planes.
#ifndef BLOBSIM_RAY_TEST_H
#define BLOBSIM_RAY_TEST_H

#include "collide_internal.h"
#include "dispatch.h"

#include "blobsim/collide.h"

// The segment C1 -> C2 and its 2D frame: z the axis of the largest |d|, x and y the next two in
// cyclic order, and the shear d_x / d_z, d_y / d_z (Woop et al.). The shear depends on the segment
// only, so a walk over many triangles makes it once, and only when a triangle first needs it (a
// segment that crosses no triangle's plane never divides).
typedef struct bsRayFrame
{
	bsVec3 c1, c2;
	bsVec3 d;        // C2 - C1, as bsMakeSweep computes it
	int kx, ky, kz;  // kz < 0: the shear is not made yet
	double sx, sy;
} bsRayFrame;

static inline void bsMakeRayFrame(bsRayFrame* f, bsVec3 c1, bsVec3 c2)
{
	f->c1 = c1;
	f->c2 = c2;
	f->d = bsSub(c2, c1);
	f->kz = -1;
}

// Makes the shear (ray.c).
void bsRayFrame_Shear(bsRayFrame* f);

// A vertex in the segment's frame: x, y across the segment, the segment's line at (0, 0).
typedef struct bsRayPoint
{
	double x, y;
} bsRayPoint;

// The segment in the plane of the triangle (ray.c): clipped against the three edge half-planes.
bool bsRay_Coplanar(const bsTriangle* tri, const bsRayFrame* s, double tmax, bsTriangleHit* hit);

// The sign of a.x b.y - a.y b.x where the plain evaluation cannot tell it (ray.c); r = a.y b.x.
int bsRay_OrientClose(bsRayPoint a, bsRayPoint b, double r);

// A point P maps to (P - C1) minus the multiple of the direction that brings its z to 0. The map depends only on the segment and the vertex, so a vertex shared by several
// triangles lands on the same 2D point, bit for bit, in each of them: that is what makes the test
// watertight.
static BS_ALWAYS_INLINE bsRayPoint bsRay_Project(const bsRayFrame* f, bsVec3 p)
{
	double a[3] = {p.x - f->c1.x, p.y - f->c1.y, p.z - f->c1.z};
	bsRayPoint q;
	q.x = a[f->kx] - f->sx * a[f->kz];
	q.y = a[f->ky] - f->sy * a[f->kz];
	return q;
}

// The exact sign of a.x b.y - a.y b.x (twice the signed area of 0, a, b). A plain evaluation decides
// when it is clear of its rounding bound (Shewchuk's orient2d filter); otherwise
// bsRay_OrientClose.
static BS_ALWAYS_INLINE int bsRay_Orient(bsRayPoint a, bsRayPoint b)
{
	double l = a.x * b.y;
	double r = a.y * b.x;
	double det = l - r;
	double bound = 3.3306690738754716e-16 * (fabs(l) + fabs(r));  // (3 + 16 eps) eps
	if (!(fabs(det) <= bound))
	{
		return det > 0.0 ? 1 : -1;
	}
	return bsRay_OrientClose(a, b, r);
}

// Which side of the edge a -> b the segment's line passes: the sign of the edge function at the
// origin, cross(a, b). When the line passes exactly through the edge's line (sign 0), the origin is
// moved by (e, e^2) for an infinitesimal e (simulation of simplicity): the sign becomes that of
// -(b.y - a.y), or of b.x - a.x when the edge is horizontal. The same moved point for every triangle
// gives one consistent rule: an edge shared by two triangles on its two sides, or a vertex shared by
// a fan around it, belongs to exactly one of them. Differences of doubles have exact signs.
static BS_ALWAYS_INLINE int bsRay_EdgeSide(bsRayPoint a, bsRayPoint b)
{
	int side = bsRay_Orient(a, b);
	if (side != 0)
	{
		return side;
	}
	if (b.y != a.y)
	{
		return b.y < a.y ? 1 : -1;
	}
	return b.x > a.x ? 1 : (b.x < a.x ? -1 : 0);
}

// The crossing test again when the rule above said no and the triangle has open edges (bit k: edge
// k, p1p2, p2p3, p3p1, has no neighbour): an open edge whose line the segment's line meets within the
// rounding of the projection takes the tie, whatever side it falls on (ray.c).
bool bsRay_CrossesOpen(const bsTriangle* tri, const bsRayFrame* f, const bsRayPoint p[3],
	unsigned open);

// Does the segment's line pass through the closed triangle (ties by the rule above, an open edge's
// ties to its triangle)? Either orientation counts: the three sides must agree.
static BS_ALWAYS_INLINE bool bsRay_Crosses(const bsTriangle* tri, const bsRayFrame* f, unsigned open)
{
	bsRayPoint p[3] = {bsRay_Project(f, tri->p1), bsRay_Project(f, tri->p2), bsRay_Project(f, tri->p3)};
	int ab = bsRay_EdgeSide(p[0], p[1]);
	if (ab != 0)
	{
		int bc = bsRay_EdgeSide(p[1], p[2]);
		if (ab == bc && bc == bsRay_EdgeSide(p[2], p[0]))
		{
			return true;
		}
	}
	return open != 0 && bsRay_CrossesOpen(tri, f, p, open);
}

// bsRayTriangle on a frame: only contacts with t < tmax; open: the triangle's edges without a
// neighbour (bsBvh.openEdges; 0 for the list loop). Makes the frame's shear when it needs it.
static BS_ALWAYS_INLINE bool bsRay_Triangle(const bsTriangle* tri, bsRayFrame* s, double tmax,
	unsigned open, bsTriangleHit* hit)
{
	double d1 = bsTriangle_PlaneDistance(tri, s->c1);
	double d2 = bsTriangle_PlaneDistance(tri, s->c2);
	if ((d1 > 0.0 && d2 > 0.0) || (d1 < 0.0 && d2 < 0.0))
	{
		return false;
	}
	if (d1 == d2)
	{
		return bsRay_Coplanar(tri, s, tmax, hit);  // both zero: the segment lies in the plane
	}
	double t = d1 == 0.0 ? 0.0 : d1 / (d1 - d2);  // no -0.0 when starting on the plane
	if (!(t < tmax))
	{
		return false;
	}
	if (s->kz < 0)
	{
		bsRayFrame_Shear(s);
	}
	if (!bsRay_Crosses(tri, s, open))
	{
		return false;
	}
	hit->t = t;
	hit->test = bs_testRay;
	hit->branch = t == 0.0 ? bs_branchStart : bs_branchFace;
	hit->feature = 0;
	return true;
}

#endif
