// test_surface_cost.c — render.surface "auto": the cost model's inputs against closed forms (one
// sphere's projected disc, a sphere behind the camera, the camera inside a sphere), and its choice on
// two scenes where the answer is clear: many opaque particles far off in a small image (blobs, found
// without polygonizing) and a close, transparent pour filling a large image (the mesh).
#include "surface_cost.h"
#include "core.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static bsPovScene Scene(int width, int height, const bsVec3* centers, size_t count, double radius,
	const char* material)
{
	bsPovScene s = bsPovScene_Default();
	s.camera.location = bsV3(0.0, 0.0, -10.0);
	s.camera.lookAt = bsV3(0.0, 0.0, 0.0);
	s.camera.angle = 60.0;
	s.camera.width = width;
	s.camera.height = height;
	s.particles.centers = centers;
	s.particles.count = count;
	s.particles.radius = radius;
	s.particles.radiusScale = 1.5;
	s.particles.material = material;
	return s;
}

static int Inputs(void)
{
	bsVec3 c[3] = {{1.0, 0.5, 0.0}, {0.0, 0.0, -20.0}, {0.0, 0.0, -9.9}};
	bsPovScene s = Scene(640, 480, c, 1, 0.2, "pigment { color rgb 1 }");
	bsSurfaceCostInput in = bsSurfaceCost_Inputs(&s);
	double focal = 320.0 / tan(30.0 * (BS_PI / 180.0));
	double r = 0.3 * focal / 10.0;  // reach 0.2 x 1.5 at depth 10
	ENSURE(in.components == 1.0 && in.pixels == 640.0 * 480.0 && in.triangles < 0.0 && !in.transparent);
	ENSURE_SMALL(in.coverage - BS_PI * r * r, 1e-9 * in.coverage);
	s.particles.centers = c + 1;  // behind the camera
	in = bsSurfaceCost_Inputs(&s);
	ENSURE(in.coverage == 0.0);
	s.particles.centers = c + 2;  // the camera inside its sphere
	in = bsSurfaceCost_Inputs(&s);
	ENSURE(in.coverage == in.pixels);
	s.particles.material = "pigment { color rgbf <0.4, 0.85, 0.2, 0.3> }";
	ENSURE(bsSurfaceCost_Inputs(&s).transparent);
	return 0;
}

// 150,000 opaque particles 60 units off in a 160x120 image (the snow figure's kind of scene): blobs,
// decided before polygonizing (the mesh's polygonizing alone costs more). 150,000
// transparent particles filling a 1920x1080 view from close by (the slime figure's kind of scene,
// bigger): the mesh of 1.2 million triangles, after polygonizing. Each by a clear margin (2x).
static int Choice(void)
{
	bsVec3* c = malloc(150000 * sizeof(bsVec3));
	ENSURE(c != NULL);
	for (size_t i = 0; i < 150000; ++i)
	{
		c[i] = bsV3(0.01 * (double)(i % 400), 0.01 * (double)(i / 400), 50.0);
	}
	bsPovScene far = Scene(160, 120, c, 150000, 0.005, "pigment { color rgb 1 }");
	bsSurfaceCostInput in = bsSurfaceCost_Inputs(&far);
	bsSurfaceCost cost = bsSurfaceCost_Predict(&in);
	ENSURE(bsSurfaceCost_BlobBeforeMesh(&cost));
	ENSURE(2.0 * (cost.blobParse + cost.blobTrace) <= cost.polygonize + cost.meshTrace);
	for (size_t i = 0; i < 150000; ++i)
	{
		c[i] = bsV3(-3.0 + 0.05 * (double)(i % 120), -2.0 + 0.05 * (double)(i / 120 % 80), -4.0 + 0.05 * (double)(i / 9600));
	}
	bsPovScene close = Scene(1920, 1080, c, 150000, 0.03, "pigment { color rgbf <0.4, 0.85, 0.2, 0.3> }");
	in = bsSurfaceCost_Inputs(&close);
	cost = bsSurfaceCost_Predict(&in);
	ENSURE(!bsSurfaceCost_BlobBeforeMesh(&cost));
	in.triangles = 1.2e6;
	cost = bsSurfaceCost_Predict(&in);
	ENSURE(bsSurfaceCost_MeshAfter(&cost));
	ENSURE(2.0 * (cost.meshParse + cost.meshTrace) <= cost.blobParse + cost.blobTrace);
	// Deterministic: the same inputs, the same bits.
	bsSurfaceCost again = bsSurfaceCost_Predict(&in);
	ENSURE(again.blobTrace == cost.blobTrace && again.meshParse == cost.meshParse);
	free(c);
	return 0;
}

int SurfaceCostTest(void)
{
	RUN_SUBTEST(Inputs());
	RUN_SUBTEST(Choice());
	return 0;
}
