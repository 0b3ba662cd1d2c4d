#include "surface_cost.h"

#include "core.h"

#include <math.h>
#include <string.h>

// The fit (docs/performance.md, "Auto surface: the cost model"; tools/fit_surface_cost): POV-Ray
// 3.7.0's CPU seconds per unit on this project's 2-core machine, 2026-11-28. The intercepts and the
// opaque coverage terms came out 0 (non-negative least squares) and are left out.
static const double bsBlobParsePerComponent = 2.413e-6;
static const double bsBlobTracePerPixel = 9.423e-6;
static const double bsBlobTracePerTransparentCoverage = 6.906e-6;
static const double bsMeshParsePerTriangle = 3.575e-6;
static const double bsMeshTracePerPixel = 8.787e-6;
static const double bsMeshTracePerTransparentCoverage = 2.372e-6;
// blobsim's polygonizing, CPU seconds per component (the slime figure on one thread, quiet machine:
// 0.8 s for 121,200 components); a lower bound for scattered particles, which visit more bricks.
static const double bsPolygonizePerComponent = 7e-6;

static bsVec3 bsUnit(bsVec3 v)
{
	double l = bsLength(v);
	return l > 0.0 ? bsScale(1.0 / l, v) : v;
}

// POV-Ray's words for a colour or finish that lets light through.
static bool bsTransparent(const char* material)
{
	static const char* const words[] = {"rgbf", "rgbt", "filter", "transmit"};
	for (int i = 0; material != NULL && i < BS_COUNT(words); ++i)
	{
		if (strstr(material, words[i]) != NULL)
		{
			return true;
		}
	}
	return false;
}

bsSurfaceCostInput bsSurfaceCost_Inputs(const bsPovScene* scene)
{
	const bsPovCamera* cam = &scene->camera;
	const bsPovParticles* ps = &scene->particles;
	double w = cam->width, h = cam->height, pixels = w * h;
	bsSurfaceCostInput in = {(double)ps->count, pixels, 0.0, -1.0, bsTransparent(ps->material)};
	bsVec3 forward = bsUnit(bsSub(cam->lookAt, cam->location));
	bsVec3 sky = bsLengthSquared(cam->sky) > 0.0 ? cam->sky : bsV3(0.0, 1.0, 0.0);
	bsVec3 right = bsUnit(bsCross(sky, forward));
	bsVec3 up = bsCross(forward, right);
	double focal = 0.5 * w / tan(0.5 * cam->angle * (BS_PI / 180.0));  // pixels
	for (size_t i = 0; i < ps->count; ++i)
	{
		double reach = (ps->radii != NULL ? ps->radii[i] : ps->radius) * ps->radiusScale;
		bsVec3 d = bsSub(ps->centers[i], cam->location);
		double z = bsDot(d, forward);
		if (z <= reach)
		{
			// Around or behind the camera: the whole image when the camera is inside the sphere.
			in.coverage += bsLengthSquared(d) < reach * reach ? pixels : 0.0;
			continue;
		}
		double r = reach * focal / z;
		double x = fabs(bsDot(d, right)) * focal / z, y = fabs(bsDot(d, up)) * focal / z;
		if (x > 0.5 * w + r || y > 0.5 * h + r)
		{
			continue;  // outside the image
		}
		double area = BS_PI * r * r;
		in.coverage += area < pixels ? area : pixels;
	}
	return in;
}

bsSurfaceCost bsSurfaceCost_Predict(const bsSurfaceCostInput* in)
{
	double seen = in->transparent ? in->coverage : 0.0;
	bsSurfaceCost c;
	c.blobParse = bsBlobParsePerComponent * in->components;
	c.blobTrace = bsBlobTracePerPixel * in->pixels + bsBlobTracePerTransparentCoverage * seen;
	c.meshParse = in->triangles >= 0.0 ? bsMeshParsePerTriangle * in->triangles : -1.0;
	c.meshTrace = bsMeshTracePerPixel * in->pixels + bsMeshTracePerTransparentCoverage * seen;
	c.polygonize = bsPolygonizePerComponent * in->components;
	return c;
}

bool bsSurfaceCost_BlobBeforeMesh(const bsSurfaceCost* cost)
{
	return cost->blobParse + cost->blobTrace <= cost->polygonize + cost->meshTrace;
}

bool bsSurfaceCost_MeshAfter(const bsSurfaceCost* cost)
{
	return cost->meshParse >= 0.0 && cost->meshParse + cost->meshTrace < cost->blobParse + cost->blobTrace;
}
