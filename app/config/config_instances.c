// config_instances.c — render.instances: the object (a built-in, an identifier an include file
// declares, or an OBJ mesh), its scale per radius and how it is turned (docs/rendering.md).
#define _XOPEN_SOURCE 700  // realpath (the build asks for POSIX 2008 alone)
#include "config_instances.h"

#include "files.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const bsSchemaKey bsInstancesKeys[] = {
	BS_KEY("object", BS_VALUE),
	BS_KEY("include", BS_VALUE),
	BS_KEY("obj", BS_VALUE),
	BS_NUMBER("scale", bsInstancesConfig, scale, &bsPositive, 1),
	BS_KEY("orient", BS_VALUE),
	BS_KEY("axis", BS_VALUE)};
const bsSchema bsInstancesSchema = BS_OBJECT(bsInstancesKeys);

// The built-in objects, each a unit-radius shape declared in the scene. The leaf is a flattened
// ellipsoid, long along +z (the axis turned along the velocity by default) and thin along y.
typedef struct bsBuiltinObject
{
	const char* name;
	const char* identifier;
	const char* declaration;
} bsBuiltinObject;

static const bsBuiltinObject bsBuiltinObjects[] = {
	{"sphere", "BlobsimSphere", "#declare BlobsimSphere = sphere { 0, 1 }"},
	{"leaf", "BlobsimLeaf", "#declare BlobsimLeaf = sphere { 0, 1 scale <0.55, 0.08, 1> }"},
	{"cube", "BlobsimCube", "#declare BlobsimCube = box { -0.57735, 0.57735 }"},
};

static const char* const bsBuiltinNames[] = {"sphere", "leaf", "cube"};

// Whether text declares name: "#declare NAME =" (blanks allowed around), outside // comments.
static bool bsDeclares(const char* text, const char* name)
{
	size_t n = strlen(name);
	for (const char* p = strstr(text, "#declare"); p != NULL; p = strstr(p + 1, "#declare"))
	{
		const char* line = p;
		while (line > text && line[-1] != '\n')
		{
			--line;
		}
		const char* comment = strstr(line, "//");
		if (comment != NULL && comment < p)
		{
			continue;
		}
		const char* q = p + 8;
		while (*q == ' ' || *q == '\t')
		{
			++q;
		}
		if (strncmp(q, name, n) != 0 || isalnum((unsigned char)q[n]) || q[n] == '_')
		{
			continue;
		}
		for (q += n; *q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'; ++q)
		{
		}
		if (*q == '=')
		{
			return true;
		}
	}
	return false;
}

// render.instances.include: read, absolute, and declaring object (the path is render.instances').
static bool bsReadInstanceInclude(bsCtx* c, const cJSON* o, bsInstancesConfig* in)
{
	char* path = NULL;
	if (!bsReadFile(c, o, "include", false, NULL, &path) || path == NULL)
	{
		return path == NULL && c->result == bs_ok;
	}
	size_t mark = bsPushKey(c, "include");
	char* text = NULL;
	size_t length = 0;
	FILE* f = fopen(path, "rb");
	bool ok = f != NULL && bsIsRegularFile(path);
	if (ok)
	{
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		rewind(f);
		text = size >= 0 && size < (1L << 24) ? malloc((size_t)size + 1) : NULL;
		length = text != NULL ? fread(text, 1, (size_t)size, f) : 0;
		ok = text != NULL && length == (size_t)size;
	}
	int error = errno;
	if (f != NULL)
	{
		fclose(f);
	}
	char resolved[PATH_MAX];
	if (!ok || realpath(path, resolved) == NULL)
	{
		bsFail(c, "%s: cannot read%s%s", path, f == NULL ? ": " : " (not a file under 16 MiB)",
			f == NULL ? strerror(error) : "");
		free(path);
		free(text);
		return false;
	}
	text[length] = '\0';
	bool declared = bsDeclares(text, in->object);
	free(text);
	bsPop(c, mark);
	if (!declared)
	{
		mark = bsPushKey(c, "object");
		bsFail(c, "unknown object \"%s\": %s does not #declare it", in->object, path);
		free(path);
		return false;
	}
	free(path);
	in->include = bsStrDup(resolved);
	return in->include != NULL || bsOutOfMemory(c);
}

// render.instances.object: a built-in, or (with include) an identifier the include declares.
static bool bsReadInstanceObject(bsCtx* c, const cJSON* o, bsInstancesConfig* in)
{
	const cJSON* v = bsMember(o, "object");
	size_t mark = bsPushKey(c, "object");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
	{
		return bsFailExpected(c, "a non-empty string (a built-in object or an identifier the include declares)", v);
	}
	const char* name = v->valuestring;
	bool hasInclude = bsMember(o, "include") != NULL;
	for (int i = 0; !hasInclude && i < BS_COUNT(bsBuiltinObjects); ++i)
	{
		if (strcmp(name, bsBuiltinObjects[i].name) == 0)
		{
			in->object = bsStrDup(bsBuiltinObjects[i].identifier);
			in->declaration = bsBuiltinObjects[i].declaration;
			bsPop(c, mark);
			return in->object != NULL || bsOutOfMemory(c);
		}
	}
	if (!hasInclude)
	{
		char list[128];
		bsJoinNames(list, sizeof list, bsBuiltinNames, BS_COUNT(bsBuiltinNames), true);
		return bsFail(c, "unknown object \"%s\": expected one of %s, or an identifier that "
			"render.instances.include declares", name, list);
	}
	bool identifier = isalpha((unsigned char)name[0]);
	for (const char* p = name; identifier && *p != '\0'; ++p)
	{
		identifier = isalnum((unsigned char)*p) || *p == '_';
	}
	if (!identifier)
	{
		return bsFail(c, "\"%s\" is not a POV-Ray identifier (a letter, then letters, digits and '_')", name);
	}
	in->object = bsStrDup(name);
	if (in->object == NULL)
	{
		return bsOutOfMemory(c);
	}
	bsPop(c, mark);
	return bsReadInstanceInclude(c, o, in);
}

// render.instances.obj: an OBJ file that exists (loaded with the other inputs, app/scene/instances.c).
static bool bsReadInstanceObj(bsCtx* c, const cJSON* o, bsInstancesConfig* in)
{
	if (bsMember(o, "include") != NULL)
	{
		bsPushKey(c, "include");
		return bsFail(c, "an include declares an object: give it with \"object\", not with \"obj\"");
	}
	if (!bsReadFile(c, o, "obj", true, NULL, &in->obj))
	{
		return false;
	}
	if (!bsIsRegularFile(in->obj))
	{
		bsPushKey(c, "obj");
		return bsFail(c, "%s: no such file", in->obj);
	}
	return true;
}

static const double bsAxes[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};

bool bsReadInstances(bsCtx* c, const cJSON* render, int surface, bsInstancesConfig* in)
{
	const cJSON* o;
	if (!bsReadObject(c, render, "instances", &bsInstancesSchema, &o) || o == NULL)
	{
		return o == NULL && c->result == bs_ok;
	}
	size_t mark = bsPushKey(c, "instances");
	in->enabled = true;
	bool hasObject = bsMember(o, "object") != NULL, hasObj = bsMember(o, "obj") != NULL;
	if (hasObject == hasObj)
	{
		return bsFail(c, hasObject ? "give \"object\" or \"obj\", not both" :
			"expected \"object\" (sphere, leaf, cube, or one an include declares) or \"obj\" (an OBJ file)");
	}
	static const char* const orients[] = {"velocity", "none", "rotation"};
	static const char* const axes[] = {"+x", "-x", "+y", "-y", "+z", "-z"};
	int orient, axis;
	if (!(hasObject ? bsReadInstanceObject(c, o, in) : bsReadInstanceObj(c, o, in)) ||
		!bsReadFields(c, o, &bsInstancesSchema, in) ||
		!bsReadChoice(c, o, "orient", false, orients, BS_COUNT(orients), 0, &orient) ||
		!bsReadChoice(c, o, "axis", false, axes, BS_COUNT(axes), 4, &axis))
	{
		return false;
	}
	in->velocity = orient == 0;
	in->rotation = orient == 2;
	in->axis = bsV3(bsAxes[axis][0], bsAxes[axis][1], bsAxes[axis][2]);
	if (surface != bs_surfaceBlobs)
	{
		return bsFail(c, "instances replace the blobs: render.surface \"mesh\" or \"auto\" cannot be used with them");
	}
	bsPop(c, mark);
	return true;
}
