// letters.c — implicit letters polygonized by blobsim's surface mesher (letters.h).
#include "letters.h"

#include "mesh_distance.h"

#include "blobsim/surface.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

#define BS_LETTER_RADIUS 0.25

typedef struct bsStroke
{
	double x0, y0, x1, y1;
} bsStroke;

static const bsStroke bs_strokesT[] = {{-0.4, 1.0, 0.4, 1.0}, {0.0, 1.0, 0.0, 0.0}};
static const bsStroke bs_strokesV[] = {{-0.4, 1.0, 0.0, 0.0}, {0.0, 0.0, 0.4, 1.0}};
static const bsStroke bs_strokesM[] = {
	{-0.4, 0.0, -0.4, 1.0}, {-0.4, 1.0, 0.0, 0.4}, {0.0, 0.4, 0.4, 1.0}, {0.4, 1.0, 0.4, 0.0}};
static const bsStroke bs_strokesW[] = {
	{-0.6, 1.0, -0.3, 0.0}, {-0.3, 0.0, 0.0, 0.7}, {0.0, 0.7, 0.3, 0.0}, {0.3, 0.0, 0.6, 1.0}};

uint32_t bsLetterPaperCount(char letter)
{
	switch (letter)
	{
		case 'T': return bs_letterT;
		case 'M': return bs_letterM;
		case 'V': return bs_letterV;
		case 'W': return bs_letterW;
		default: return 0;
	}
}

static const bsStroke* bsLetterStrokes(char letter, int* count)
{
	switch (letter)
	{
		case 'T': *count = 2; return bs_strokesT;
		case 'V': *count = 2; return bs_strokesV;
		case 'M': *count = 4; return bs_strokesM;
		case 'W': *count = 4; return bs_strokesW;
		default: *count = 0; return NULL;
	}
}

// Components every R / 4 along each stroke (both ends included; a joint gets one from each stroke).
static bsVec3* bsLetterComponents(const bsStroke* strokes, int count, size_t* outCount)
{
	size_t n = 0;
	int steps[8];
	for (int s = 0; s < count; ++s)
	{
		double length = hypot(strokes[s].x1 - strokes[s].x0, strokes[s].y1 - strokes[s].y0);
		steps[s] = (int)ceil(length / (0.25 * BS_LETTER_RADIUS));
		n += (size_t)steps[s] + 1;
	}
	bsVec3* c = malloc(sizeof(bsVec3) * n);
	if (c == NULL)
	{
		return NULL;
	}
	size_t k = 0;
	for (int s = 0; s < count; ++s)
	{
		for (int i = 0; i <= steps[s]; ++i)
		{
			double u = (double)i / steps[s];
			c[k++] = bsV3(strokes[s].x0 + u * (strokes[s].x1 - strokes[s].x0),
				strokes[s].y0 + u * (strokes[s].y1 - strokes[s].y0), 0.0);
		}
	}
	*outCount = n;
	return c;
}

static bsResult bsPolygonize(const bsVec3* centres, size_t count, double spacing, bsSurfaceMesh* mesh)
{
	bsSurfaceDef def = bsDefaultSurfaceDef();
	def.centers = centres;
	def.radius = BS_LETTER_RADIUS;
	def.count = count;
	def.strength = 1.0;
	def.threshold = 0.6;
	def.spacing = spacing;
	def.threads = 1;
	return bsSurface_Build(&def, mesh);
}

// The mesh's triangles as bsTriangles; degenerate ones (a vertex on a lattice corner can make a
// sliver of zero area) are dropped.
static bsResult bsMeshTriangles(const bsSurfaceMesh* mesh, bsTriangle** outTris, uint32_t* outCount)
{
	bsTriangle* tris = malloc(sizeof(bsTriangle) * (mesh->triangleCount > 0 ? mesh->triangleCount : 1));
	if (tris == NULL)
	{
		return bs_errOutOfMemory;
	}
	uint32_t n = 0;
	for (size_t i = 0; i < mesh->triangleCount; ++i)
	{
		const uint32_t* t = mesh->indices + 3 * i;
		n += bsMakeTriangle(mesh->positions[t[0]], mesh->positions[t[1]], mesh->positions[t[2]],
			tris + n) == bs_ok;
	}
	*outTris = tris;
	*outCount = n;
	return bs_ok;
}

bsResult bsMakeLetter(char letter, uint32_t targetTriangles, bsTriangle** outTris, uint32_t* outCount)
{
	int strokeCount = 0;
	const bsStroke* strokes = bsLetterStrokes(letter, &strokeCount);
	if (strokes == NULL || outTris == NULL || outCount == NULL)
	{
		return bs_errInvalidArgument;
	}
	*outTris = NULL;
	*outCount = 0;
	uint32_t target = targetTriangles > 0 ? targetTriangles : bsLetterPaperCount(letter);
	size_t count = 0;
	bsVec3* centres = bsLetterComponents(strokes, strokeCount, &count);
	if (centres == NULL)
	{
		return bs_errOutOfMemory;
	}
	// Secant steps on spacing, assuming count ~ 1 / spacing^2; the best of 10 tries.
	double spacing = 0.05, bestSpacing = spacing, bestError = HUGE_VAL;
	bsResult result = bs_ok;
	for (int attempt = 0; attempt < 10 && result == bs_ok; ++attempt)
	{
		bsSurfaceMesh mesh;
		memset(&mesh, 0, sizeof(mesh));
		result = bsPolygonize(centres, count, spacing, &mesh);
		double n = (double)mesh.triangleCount;
		bsSurfaceMesh_Free(&mesh);
		if (result != bs_ok || n <= 0.0)
		{
			break;
		}
		double error = fabs(n - target);
		if (error < bestError)
		{
			bestError = error;
			bestSpacing = spacing;
		}
		// Small nudges once close: the count is a step function of the spacing.
		double ratio = sqrt(n / target);
		spacing *= ratio == 1.0 ? 1.0 : fmin(fmax(ratio, 0.5), 2.0) * (1.0 + 1e-3 * attempt);
	}
	bsSurfaceMesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	if (result == bs_ok)
	{
		result = bsPolygonize(centres, count, bestSpacing, &mesh);
	}
	if (result == bs_ok)
	{
		result = bsMeshTriangles(&mesh, outTris, outCount);
	}
	bsSurfaceMesh_Free(&mesh);
	free(centres);
	return result;
}

// --- Scripted approach ---

bsTransform bsLetterApproachPose(int frame, int frames, double closestX)
{
	double s = frames > 1 ? fabs(1.0 - 2.0 * frame / (double)(frames - 1)) : 0.0;
	bsQuat crosswise = bsQuat_FromAxisAngle(bsV3(0.0, 1.0, 0.0), 0.5 * BS_PI);
	bsQuat turn = bsQuat_FromAxisAngle(bsV3(0.3, 1.0, 0.2), 0.8 * s);
	bsTransform t = {bsQuat_Mul(turn, crosswise), bsV3(closestX + 1.2 * s, 0.25 * s, 0.3 * s)};
	return t;
}

static double bsApproachDistance(const bsBvh* a, const bsBvh* b, double x)
{
	bsMeshDistanceInput in = {a, bsTransform_Identity(), b, bsLetterApproachPose(0, 1, x), HUGE_VAL, BS_NO_TRIANGLE,
		BS_NO_TRIANGLE};
	bsMeshDistanceOutput out;
	bsMeshDistance(&in, &out);
	return out.distance;
}

bsResult bsLetterApproach_Fit(const bsBvh* a, const bsBvh* b, double depth, double* closestX)
{
	double lo = 0.0, hi = 4.0;  // lo: touching or overlapping (at x = 0 the letters overlap); hi: apart
	if (!(bsApproachDistance(a, b, hi) > 0.0) || bsApproachDistance(a, b, lo) > 0.0)
	{
		return bs_errInvalidArgument;
	}
	while (hi - lo > 1e-9)
	{
		double mid = 0.5 * (lo + hi);
		if (bsApproachDistance(a, b, mid) > 0.0)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	*closestX = hi - depth;
	return bs_ok;
}
