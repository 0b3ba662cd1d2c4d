// instances.c — render.instances in a run (instances.h).
#include "instances.h"

#include "atomic_file.h"
#include "files.h"
#include "obj.h"
#include "output_set.h"
#include "blobsim/base.h"
#include "blobsim/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char bsInstanceDeclared[] = "BlobsimInstance";

bool bsSceneInstances_Load(bsSceneInstances* s, const bsConfig* config, char* err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	const bsInstancesConfig* in = &config->render.instances;
	s->enabled = in->enabled;
	if (!in->enabled || in->obj == NULL)
	{
		return true;
	}
	s->path = in->obj;
	bsObjMesh mesh;
	bsObjError error;
	if (bsObj_Load(in->obj, &mesh, &error) != bs_ok)
	{
		snprintf(err, errlen, "%s: render.instances.obj: %s", config->path, error.message);
		return false;
	}
	s->triangles = malloc(((size_t)mesh.triangleCount + 1) * sizeof *s->triangles);
	if (s->triangles == NULL)
	{
		bsObj_Free(&mesh);
		snprintf(err, errlen, "%s: out of memory", in->obj);
		return false;
	}
	uint64_t h = bsFnv1a(BS_FNV1A_BASIS, BLOBSIM_VERSION, strlen(BLOBSIM_VERSION));
	for (uint32_t t = 0; t < mesh.triangleCount; ++t)
	{
		const uint32_t* v = mesh.triangles[t];
		bsMakeTriangle(mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]], s->triangles + t);
		h = bsFnv1a(h, mesh.vertices + v[0], sizeof(bsVec3));
		h = bsFnv1a(h, mesh.vertices + v[1], sizeof(bsVec3));
		h = bsFnv1a(h, mesh.vertices + v[2], sizeof(bsVec3));
	}
	s->triangleCount = mesh.triangleCount;
	snprintf(s->include, sizeof s->include, "instance_%016llx.inc", (unsigned long long)h);
	bsObj_Free(&mesh);
	return true;
}

bool bsSceneInstances_WriteInclude(const bsSceneInstances* s, const char* dir, char* err, size_t errlen)
{
	if (s->triangles == NULL)
	{
		return true;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, s->include);
	if (bsIsRegularFile(path))
	{
		return bsAtomicFile_DeferKeep(path, err, errlen);
	}
	bsPovMesh mesh = {s->path, s->triangles, s->triangleCount, NULL, NULL};
	return bsOutputSet_ListNow(dir, s->include, err, errlen) &&
		bsPov_WriteMeshInclude(path, bsInstanceDeclared, &mesh, bs_atomicFileNow, err, errlen) &&
		bsAtomicFile_DeferKeep(path, err, errlen);
}

bsPovInstances bsSceneInstances_Pov(const bsSceneInstances* s, const bsRenderConfig* rc)
{
	const bsInstancesConfig* in = &rc->instances;
	bsPovInstances pov;
	memset(&pov, 0, sizeof pov);
	if (!s->enabled)
	{
		return pov;
	}
	pov.object = s->triangles != NULL ? bsInstanceDeclared : in->object;
	pov.include = s->triangles != NULL ? s->include : in->include;
	pov.declaration = in->declaration;
	pov.axis = in->axis;
	pov.scale = in->scale;
	return pov;
}

void bsSceneInstances_Free(bsSceneInstances* s)
{
	free(s->triangles);
	memset(s, 0, sizeof *s);
}
