// fuzz_obj.c — libFuzzer target for bsObj_Parse (OBJ text from memory, io/obj.h).
//
// Each input is parsed twice: with the default limits, and with tight ones so that every "more than
// N ..." path is reachable with small inputs. On success the mesh's invariants are checked (indices in
// range, every triangle in a group, bsMakeTriangle succeeds on every triangle); on failure the mesh must be all zero
// and the message set. A broken invariant aborts, which the fuzzer reports as a crash.
#include "obj.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void bsFuzzCheck(int ok)
{
	if (!ok)
	{
		abort();
	}
}

static void bsFuzzObj(const uint8_t* data, size_t size, const bsObjOptions* options)
{
	bsObjMesh mesh;
	bsObjError error;
	bsResult result = bsObj_ParseWithOptions((const char*)data, size, "fuzz.obj", options, &mesh,
		&error);
	bsFuzzCheck(memchr(error.message, '\0', sizeof error.message) != NULL);
	if (result != bs_ok)
	{
		static const bsObjMesh zero;
		bsFuzzCheck(memcmp(&mesh, &zero, sizeof mesh) == 0);
		bsFuzzCheck(error.message[0] != '\0');
		return;
	}
	bsFuzzCheck(error.message[0] == '\0');
	bsFuzzCheck(mesh.triangleCount > 0 && mesh.groupCount > 0);
	for (uint32_t t = 0; t < mesh.triangleCount; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			bsFuzzCheck(mesh.triangles[t][k] < mesh.vertexCount);
		}
		bsFuzzCheck(mesh.triangleGroup[t] < mesh.groupCount);
	}
	bsFuzzCheck((mesh.colors != NULL) == (mesh.coloredVertexCount > 0));
	bsFuzzCheck(mesh.coloredVertexCount <= mesh.vertexCount);
	for (uint32_t g = 0; g < mesh.groupCount; ++g)
	{
		bsFuzzCheck(mesh.groups[g].name != NULL);
	}
	for (uint32_t t = 0; t < mesh.triangleCount; ++t)
	{
		// The parser dropped degenerate triangles with the collision core's own test.
		const uint32_t* v = mesh.triangles[t];
		bsTriangle triangle;
		bsFuzzCheck(bsMakeTriangle(mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]], &triangle) == bs_ok);
	}
	bsObj_Free(&mesh);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	bsFuzzObj(data, size, NULL);
	bsObjOptions tight = {
		.maxLineBytes = 64,
		.maxVertices = 16,
		.maxTriangles = 16,
		.maxGroups = 4,
		.maxNameBytes = 32,
	};
	bsFuzzObj(data, size, &tight);
	return 0;
}
