// test_posed_grid.c — a distance/normal grid that moves with its object (field.h, bsGridPose; Ilmonen
// et al. section 3.1): the rest grid looked up through a pose (rotation, translation, uniform scale)
// against the grid built around the posed mesh, and the rules in the moving object's frame.
#include "test.h"

#include "procedural.h"

#include "blobsim/body.h"
#include "blobsim/collide.h"
#include "blobsim/field.h"
#include "blobsim/rng.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdlib.h>
#include <string.h>

// An ellipsoid of three different axes off the origin: no rotation or mirror maps it onto itself, so a
// pose applied the wrong way round shows.
static int Ellipsoid(bsTriangle** tris, uint32_t* count)
{
	ENSURE(bsMakeIcosphere(4, 1.0, 0.0, false, tris, count) == bs_ok);
	for (uint32_t t = 0; t < *count; ++t)
	{
		bsTriangle* k = *tris + t;
		bsVec3 p[3] = {k->p1, k->p2, k->p3};
		for (int c = 0; c < 3; ++c)
		{
			p[c] = bsV3(0.5 * p[c].x + 0.2, 0.8 * p[c].y - 0.1, 1.2 * p[c].z + 0.3);
		}
		ENSURE(bsMakeTriangle(p[0], p[1], p[2], k) == bs_ok);
	}
	return 0;
}

static bsVec3 PosePoint(bsGridPose pose, bsVec3 p)
{
	return bsAdd(pose.position, bsQuat_Rotate(pose.rotation, bsScale(pose.scale, p)));
}

static int PosedMesh(const bsTriangle* tris, uint32_t count, bsGridPose pose, bsTriangle** out)
{
	*out = malloc((size_t)count * sizeof **out);
	ENSURE(*out != NULL);
	for (uint32_t t = 0; t < count; ++t)
	{
		const bsTriangle* k = tris + t;
		ENSURE(bsMakeTriangle(PosePoint(pose, k->p1), PosePoint(pose, k->p2), PosePoint(pose, k->p3), *out + t) ==
			bs_ok);
	}
	return 0;
}

static double Angle(bsVec3 a, bsVec3 b)
{
	double c = bsDot(a, b) / (bsLength(a) * bsLength(b));
	return acos(c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c));
}

// At random points near the posed surface (within 3 world cells, where the grids are exact and the
// normals are the surface's): the posed rest grid and the grid of the posed mesh both within a quarter
// of a world cell of the exact signed distance (trilinear between exact cell centres; measured: 0.07),
// so within half a cell of each other; their normals within 12 degrees (measured: 6) of each other (each is blurred from voxels of its own
// orientation). Every lookup is repeated and gives the same bits.
static int PosedEqualsStatic(void)
{
	bsTriangle* rest = NULL;
	uint32_t count = 0;
	RUN_SUBTEST(Ellipsoid(&rest, &count));
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.cellSize = 0.06;
	def.exactFar = true;
	def.threads = 2;
	bsDistanceGrid restGrid;
	ENSURE(bsDistanceGrid_Build(&restGrid, rest, count, &def, NULL) == bs_ok);
	bsRng rng = bsMakeRng(5);
	for (int trial = 0; trial < 3; ++trial)
	{
		bsGridPose pose;
		pose.position = bsV3(bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3), bsRng_Range(&rng, -3, 3));
		bsVec3 axis = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1));
		pose.rotation = bsQuat_FromAxisAngle(axis, bsRng_Range(&rng, 0.3, 3.0));
		pose.scale = trial == 0 ? 1.0 : (trial == 1 ? 1.7 : 0.6);
		bsTriangle* posed = NULL;
		RUN_SUBTEST(PosedMesh(rest, count, pose, &posed));
		bsDistanceGridDef sdef = def;
		sdef.cellSize = def.cellSize * pose.scale;
		bsDistanceGrid staticGrid;
		ENSURE(bsDistanceGrid_Build(&staticGrid, posed, count, &sdef, NULL) == bs_ok);
		double h = sdef.cellSize, worstPosed = 0.0, worstStatic = 0.0, worstAngle = 0.0;
		int checked = 0;
		while (checked < 400)
		{
			// A point of the posed surface, moved up to 3 cells along a random direction.
			const bsTriangle* k = posed + bsRng_Below(&rng, count);
			bsVec3 dir = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 1));
			bsVec3 x = bsMulAdd(bsRandomPointOn(k, &rng), bsRng_Range(&rng, 0.0, 3.0 * h) / fmax(bsLength(dir), 1e-9), dir);
			bsClosestPointInput in = {x, HUGE_VAL};
			bsClosestPointOutput out;
			ENSURE(bsClosestPointList(posed, count, &in, &out) == bs_ok);
			if (out.onSurface || out.distance < 0.5 * h)
			{
				continue;  // the sign and normal of a point on the surface are either side's
			}
			double exact = bsWindingNumber(posed, count, x) > 0.5 ? -out.distance : out.distance;
			double dp, ds;
			bsVec3 np, ns;
			ENSURE(bsField_PosedLookup(&restGrid, pose, true, x, &dp, &np));
			ENSURE(bsField_PosedLookup(&staticGrid, bsGridPose_Identity(), true, x, &ds, &ns));
			double dp2;
			bsVec3 np2;
			ENSURE(bsField_PosedLookup(&restGrid, pose, true, x, &dp2, &np2));
			ENSURE(memcmp(&dp, &dp2, sizeof dp) == 0 && memcmp(&np, &np2, sizeof np) == 0);
			ENSURE_SMALL(bsLength(np) - 1.0, 1e-6);
			worstPosed = fmax(worstPosed, fabs(dp - exact));
			worstStatic = fmax(worstStatic, fabs(ds - exact));
			worstAngle = fmax(worstAngle, Angle(np, ns));
			checked += 1;
		}
		printf("  pose %d (scale %g): |posed - exact| <= %.3f cells, |static - exact| <= %.3f cells, normals "
			"within %.1f degrees\n", trial, pose.scale, worstPosed / h, worstStatic / h, worstAngle * 57.29577951308232);
		ENSURE(worstPosed <= 0.25 * h && worstStatic <= 0.25 * h);
		ENSURE(worstAngle <= 12.0 / 57.29577951308232);
		// The posed lookup is the rest grid's: at a rest cell's centre, its distance times the scale and
		// its normal rotated, exactly as stored.
		bsVec3 c = bsDistanceGrid_Centre(&restGrid, restGrid.nx / 3, restGrid.ny / 2, restGrid.nz / 4);
		const bsGridCell* cell = bsDistanceGrid_Nearest(&restGrid, c);
		double d;
		bsVec3 n;
		ENSURE(bsField_PosedLookup(&restGrid, pose, false, PosePoint(pose, c), &d, &n));
		ENSURE_SMALL(d - pose.scale * (double)cell->distance, 1e-12 * (1.0 + fabs(d)));
		bsVec3 want = bsQuat_Rotate(pose.rotation, bsV3((double)cell->normal[0], (double)cell->normal[1], (double)cell->normal[2]));
		ENSURE_SMALL(bsLength(bsSub(n, want)), 1e-12);
		// Outside the posed box: no answer.
		ENSURE(!bsField_PosedLookup(&restGrid, pose, true, bsAdd(pose.position, bsV3(100, 0, 0)), &d, &n));
		bsDistanceGrid_Free(&staticGrid);
		free(posed);
	}
	bsGridPose bad = bsGridPose_Identity();
	bad.scale = 0.0;
	double d;
	bsVec3 n;
	ENSURE(!bsField_PosedLookup(&restGrid, bad, true, bsV3(0.2, -0.1, 0.3), &d, &n));
	bsDistanceGrid_Free(&restGrid);
	free(rest);
	return 0;
}

// The unit icosphere (1,280 triangles) and its grid of 24 cells across.
static int UnitSphere(bsDistanceGrid* g, bsTriangle** tris, uint32_t* count)
{
	ENSURE(bsMakeIcosphere(3, 1.0, 0.0, false, tris, count) == bs_ok);
	bsDistanceGridDef def = bsDefaultDistanceGridDef();
	def.resolution = 24;
	def.threads = 2;
	ENSURE(bsDistanceGrid_Build(g, *tris, *count, &def, NULL) == bs_ok);
	return 0;
}

// The rules act on the velocity relative to the moving surface: a particle carried along with the
// object is left as it is; one the object runs into is reflected in the object's frame.
static int RulesInTheObjectsFrame(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	bsDistanceGrid g;
	RUN_SUBTEST(UnitSphere(&g, &tris, &count));
	bsFieldDef field = bsDefaultFieldDef();
	field.threshold = 0.1;
	field.restitution = 0.5;
	field.trilinear = true;
	bsGridPose pose = {bsV3(4.0, 0.0, 0.0), bsQuat_FromAxisAngle(bsV3(0, 0, 1), 0.7), 2.0};
	bsVec3 u = bsV3(-3.0, 0.0, 0.0);  // the object's velocity
	bsVec3 x = bsV3(4.0 - 2.0 - 0.15, 0.0, 0.0);  // 0.15 in front of its surface, on the -x side
	// Carried along: unchanged.
	bsVec3 v = u;
	ENSURE(bsField_ApplyPosed(&g, pose, &field, x, u, 0.01, &v));
	ENSURE(v.x == u.x && v.y == u.y && v.z == u.z);
	// At rest in the world, the object coming at 3: relative velocity +3 along x into the surface
	// (normal -x), reflected with beta 0.5 to -1.5, so -4.5 in the world.
	v = bsV3(0.0, 0.0, 0.0);
	ENSURE(bsField_ApplyPosed(&g, pose, &field, x, u, 0.02, &v));
	ENSURE_SMALL(v.x + 4.5, 0.3);
	ENSURE(v.x < -3.0);
	// The still object (no surface velocity) leaves the particle at rest: nothing approaches.
	v = bsV3(0.0, 0.0, 0.0);
	ENSURE(bsField_ApplyPosed(&g, pose, &field, x, bsV3(0, 0, 0), 0.02, &v));
	ENSURE(v.x == 0.0 && v.y == 0.0 && v.z == 0.0);
	// Outside the grid: untouched, false.
	v = bsV3(1.0, 2.0, 3.0);
	ENSURE(!bsField_ApplyPosed(&g, pose, &field, bsV3(50, 0, 0), u, 0.02, &v));
	ENSURE(v.x == 1.0 && v.y == 2.0 && v.z == 3.0);
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

// One step of a world: a sphere body (rest radius 1, scale 2) keyframed along -x at 3 units/s, its
// grid built around its rest mesh, and a particle at rest about 0.13 in front of it (the icosphere's
// face there is inside the unit sphere), within the impact's reach (0.1 plus 3 x 0.02). With the body's grid
// the particle bounces off the moving surface as bsField_ApplyPosed says (about -4.5 with beta 0.5);
// without it, nothing touches it in this step. The same step twice gives the same bits.
static int StepAroundMovingBody(const bsDistanceGrid* g, const bsTriangle* tris, uint32_t count, bool withField,
	bsVec3* out)
{
	bsVec3Key translate[2] = {{0.0, {4.0, 0.0, 0.0}}, {1.0, {1.0, 0.0, 0.0}}};
	bsVec3Key scale[1] = {{0.0, {2.0, 2.0, 2.0}}};
	bsBodyDef bd = bsDefaultBodyDef();
	bd.triangles = tris;
	bd.triangleCount = count;
	bd.keys = (bsKeyframes){translate, 2, NULL, 0, scale, 1, false};
	bsBody* body = NULL;
	ENSURE(bsBody_Create(&bd, &body) == bs_ok);
	bsWorldDef wd = bsDefaultWorldDef();
	wd.threads = 2;
	bsWorld* w = bsWorld_Create(&wd);
	ENSURE(w != NULL && bsWorld_AddBody(w, body) == bs_ok);
	bsParticles p;
	memset(&p, 0, sizeof p);
	bsParticleDef d = {bsV3(1.88, 0.0, 0.0), bsV3(0.0, 0.0, 0.0), 0.01, bs_particleFree, {0, 0, 0}};
	ENSURE(bsParticles_Append(&p, &d) == bs_ok);
	bsStepDef st = bsDefaultStepDef();
	st.dt = 0.02;
	st.method = bs_methodExact;
	st.field.threshold = 0.1;
	st.field.restitution = 0.5;
	st.field.trilinear = true;
	bsBodyField bf = {0, g};
	st.bodyFields = withField ? &bf : NULL;
	st.bodyFieldCount = withField ? 1 : 0;
	ENSURE(bsWorld_Step(w, &st, &p, NULL) == bs_ok);
	*out = p.velocity[0];
	bsParticles_Free(&p);
	bsWorld_Destroy(w);
	bsBody_Destroy(body);
	return 0;
}

static int WorldAroundMovingBody(void)
{
	bsTriangle* tris = NULL;
	uint32_t count = 0;
	bsDistanceGrid g;
	RUN_SUBTEST(UnitSphere(&g, &tris, &count));
	bsVec3 v, again, without;
	RUN_SUBTEST(StepAroundMovingBody(&g, tris, count, true, &v));
	RUN_SUBTEST(StepAroundMovingBody(&g, tris, count, true, &again));
	RUN_SUBTEST(StepAroundMovingBody(&g, tris, count, false, &without));
	ENSURE(memcmp(&v, &again, sizeof v) == 0);
	ENSURE_SMALL(v.x + 4.5, 0.3);
	ENSURE(v.x < -3.0 && fabs(v.y) < 0.3 && fabs(v.z) < 0.3);
	ENSURE(without.x == 0.0 && without.y == 0.0 && without.z == 0.0);
	// A body field naming no grid is refused.
	bsStepDef st = bsDefaultStepDef();
	bsBodyField bad = {0, NULL};
	st.bodyFields = &bad;
	st.bodyFieldCount = 1;
	bsWorldDef wd = bsDefaultWorldDef();
	bsWorld* w = bsWorld_Create(&wd);
	bsParticles p;
	memset(&p, 0, sizeof p);
	ENSURE(w != NULL && bsWorld_Step(w, &st, &p, NULL) == bs_errInvalidArgument);
	bsWorld_Destroy(w);
	bsDistanceGrid_Free(&g);
	free(tris);
	return 0;
}

int PosedGridTest(void)
{
	RUN_SUBTEST(PosedEqualsStatic());
	RUN_SUBTEST(RulesInTheObjectsFrame());
	RUN_SUBTEST(WorldAroundMovingBody());
	return 0;
}
