// config_material.c — surface looks: the material presets, and materials as a config gives them (a
// preset name, or an object of raw POV-Ray text for pigment, finish and normal).
#include "config_material.h"

#include <stdlib.h>
#include <string.h>

static const bsSchemaKey bsMaterialKeys[] = {BS_KEY("pigment", BS_VALUE), BS_KEY("finish", BS_VALUE),
	BS_KEY("normal", BS_VALUE), BS_KEY("vertex_colors", BS_VALUE)};
const bsSchema bsMaterialSchema = {bs_kindMaterial, bsMaterialKeys, BS_COUNT(bsMaterialKeys), NULL,
	NULL};
const bsSchema bsMaterialMapSchema = {bs_kindMap, NULL, 0, &bsMaterialSchema, NULL};

// --- Presets ---

typedef struct bsPreset
{
	const char* name;
	const char* texture;  // inside texture { }
} bsPreset;

static const bsPreset bsPresets[] = {
	{"white", "pigment { color rgb <0.92, 0.92, 0.92> } finish { ambient 0.05 diffuse 0.85 }"},
	{"plaster", "pigment { color rgb <0.93, 0.9, 0.84> } finish { ambient 0.05 diffuse 0.9 } "
		"normal { granite 0.05 scale 0.2 }"},
	{"wood", "pigment { wood turbulence 0.1 color_map { [0 color rgb <0.55, 0.35, 0.17>] "
		"[0.7 color rgb <0.45, 0.27, 0.12>] [1 color rgb <0.35, 0.2, 0.08>] } scale 0.1 } "
		"finish { ambient 0.05 diffuse 0.75 specular 0.15 roughness 0.05 }"},
	{"metal", "pigment { color rgb <0.75, 0.76, 0.78> } "
		"finish { ambient 0.02 diffuse 0.35 specular 0.8 roughness 0.02 metallic reflection 0.4 }"},
	{"glass", "pigment { color rgbf <0.95, 0.97, 1, 0.9> } "
		"finish { ambient 0 diffuse 0.05 specular 0.9 roughness 0.001 reflection 0.1 }"},
	{"grass", "pigment { color rgb <0.25, 0.5, 0.15> } finish { ambient 0.05 diffuse 0.8 } "
		"normal { bumps 0.4 scale 0.05 }"},
	{"stone", "pigment { granite color_map { [0 color rgb <0.45, 0.45, 0.43>] "
		"[1 color rgb <0.6, 0.58, 0.55>] } scale 0.5 } finish { ambient 0.05 diffuse 0.8 } "
		"normal { granite 0.2 scale 0.3 }"},
	{"roof", "pigment { color rgb <0.55, 0.2, 0.15> } finish { ambient 0.05 diffuse 0.8 } "
		"normal { bumps 0.15 scale 0.1 }"},
	{"snow", "pigment { color rgb <0.97, 0.98, 1> } "
		"finish { ambient 0.12 diffuse 0.85 specular 0.25 roughness 0.08 }"},
	{"slime", "pigment { color rgbf <0.4, 0.85, 0.2, 0.3> } "
		"finish { ambient 0.1 diffuse 0.6 specular 0.9 roughness 0.005 reflection 0.05 }"},
	{"mud", "pigment { color rgb <0.35, 0.25, 0.15> } "
		"finish { ambient 0.04 diffuse 0.7 specular 0.3 roughness 0.03 } normal { wrinkles 0.3 scale 0.1 }"},
	{"oil", "pigment { color rgb <0.05, 0.04, 0.03> } "
		"finish { ambient 0.02 diffuse 0.3 specular 1 roughness 0.002 reflection 0.2 }"},
	{"honey", "pigment { color rgbf <0.85, 0.5, 0.08, 0.5> } "
		"finish { ambient 0.08 diffuse 0.55 specular 0.9 roughness 0.004 reflection 0.06 }"},
};

const char* bsMaterialPreset(const char* name)
{
	if (name == NULL)
	{
		return NULL;
	}
	for (int i = 0; i < BS_COUNT(bsPresets); ++i)
	{
		if (strcmp(name, bsPresets[i].name) == 0)
		{
			return bsPresets[i].texture;
		}
	}
	return NULL;
}

// An unknown preset name: suggests the nearest, else lists them all.
static bool bsUnknownPreset(bsCtx* c, const cJSON* v)
{
	const char* names[BS_COUNT(bsPresets)];
	for (int i = 0; i < BS_COUNT(bsPresets); ++i)
	{
		names[i] = bsPresets[i].name;
	}
	char got[80];
	bsDescribeValue(v, got);
	const char* near = bsClosest(v->valuestring, names, BS_COUNT(bsPresets));
	if (near != NULL)
	{
		return bsFail(c, "unknown material preset %s (did you mean \"%s\"?)", got, near);
	}
	char list[256];
	bsJoinNames(list, sizeof list, names, BS_COUNT(bsPresets), false);
	return bsFail(c, "unknown material preset %s (presets: %s)", got, list);
}

// --- Materials ---

// Braces balanced outside "..." strings, so raw text cannot close the block it is put in.
static bool bsBalancedBraces(const char* s)
{
	long depth = 0;
	bool quoted = false;
	for (; *s != '\0'; ++s)
	{
		if (*s == '"')
		{
			quoted = !quoted;
		}
		else if (!quoted && *s == '{')
		{
			++depth;
		}
		else if (!quoted && *s == '}' && --depth < 0)
		{
			return false;
		}
	}
	return depth == 0 && !quoted;
}

void bsMaterial_Free(bsMaterial* m)
{
	free(m->preset);
	free(m->pigment);
	free(m->finish);
	free(m->normal);
	free(m->texture);
	free(m->look);
	memset(m, 0, sizeof *m);
}

static bool bsPresetMaterial(bsCtx* c, const char* name, bsMaterial* out)
{
	out->preset = bsStrDup(name);
	out->texture = bsStrDup(bsMaterialPreset(name));
	return out->preset != NULL && out->texture != NULL ? true : bsOutOfMemory(c);
}

// "pigment { P } finish { F } normal { N }" of the parts given (NULL: left out), into out (size bytes).
static void bsComposeTexture(const char* pigment, const bsMaterial* m, char* out, size_t size)
{
	const char* parts[3] = {pigment, m->finish, m->normal};
	bsBuf b = {out, size, 0, false};
	for (int i = 0; i < 3; ++i)
	{
		if (parts[i] != NULL)
		{
			bsBuf_Str(&b, b.length > 0 ? " " : "");
			bsBuf_Str(&b, bsMaterialKeys[i].name);
			bsBuf_Str(&b, " { ");
			bsBuf_Str(&b, parts[i]);
			bsBuf_Str(&b, " }");
		}
	}
}

// What a vertex-coloured material shows where there are no vertex colours.
static const char bsWhitePigment[] = "color rgb <1, 1, 1>";

// The optional "vertex_colors": true or false; true leaves no room for a pigment.
static bool bsReadVertexColors(bsCtx* c, const cJSON* v, bsMaterial* out)
{
	const cJSON* p = bsMember(v, "vertex_colors");
	if (p == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "vertex_colors");
	if (!cJSON_IsBool(p))
	{
		return bsFailExpected(c, "true or false", p);
	}
	out->vertexColors = cJSON_IsTrue(p);
	if (out->vertexColors && out->pigment != NULL)
	{
		return bsFail(c, "the pigment comes from the OBJ's vertex colours: leave out \"pigment\"");
	}
	bsPop(c, mark);
	return true;
}

// An object of POV-Ray text: copies the parts given and composes the texture from them. The current
// path is the object's.
static bool bsCustomMaterial(bsCtx* c, const cJSON* v, bsMaterial* out)
{
	if (!bsCheckKeys(c, v, bsMaterialKeys, BS_COUNT(bsMaterialKeys)))
	{
		return false;
	}
	char** parts[3] = {&out->pigment, &out->finish, &out->normal};
	size_t total = 1;
	for (int i = 0; i < 3; ++i)
	{
		const cJSON* p = bsMember(v, bsMaterialKeys[i].name);
		if (p == NULL)
		{
			continue;
		}
		size_t mark = bsPushKey(c, bsMaterialKeys[i].name);
		if (!cJSON_IsString(p) || p->valuestring[0] == '\0')
		{
			return bsFailExpected(c, "a non-empty string of POV-Ray text", p);
		}
		if (!bsBalancedBraces(p->valuestring))
		{
			return bsFail(c, "unbalanced braces or quotes in the POV-Ray text");
		}
		*parts[i] = bsStrDup(p->valuestring);
		if (*parts[i] == NULL)
		{
			return bsOutOfMemory(c);
		}
		total += strlen(bsMaterialKeys[i].name) + strlen(p->valuestring) + 7;
		bsPop(c, mark);
	}
	if (!bsReadVertexColors(c, v, out))
	{
		return false;
	}
	if (total == 1 && !out->vertexColors)
	{
		return bsFail(c, "expected at least one of pigment, finish, normal (or vertex_colors)");
	}
	total += strlen(bsWhitePigment) + 16;
	out->texture = malloc(total);
	out->look = out->vertexColors ? malloc(total) : NULL;
	if (out->texture == NULL || (out->vertexColors && out->look == NULL))
	{
		return bsOutOfMemory(c);
	}
	bsComposeTexture(out->vertexColors ? bsWhitePigment : out->pigment, out, out->texture, total);
	if (out->vertexColors)
	{
		bsComposeTexture(NULL, out, out->look, total);
	}
	return true;
}

// A material value; the current path is its own.
static bool bsMaterialFromValue(bsCtx* c, const cJSON* v, bsMaterial* out)
{
	if (cJSON_IsString(v))
	{
		if (bsMaterialPreset(v->valuestring) == NULL)
		{
			return bsUnknownPreset(c, v);
		}
		return bsPresetMaterial(c, v->valuestring, out);
	}
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, "a preset name or an object with pigment, finish, normal", v);
	}
	return bsCustomMaterial(c, v, out);
}

bool bsReadMaterial(bsCtx* c, const cJSON* parent, const char* key, const char* def,
	bsMaterial* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		return bsPresetMaterial(c, def, out);
	}
	size_t mark = bsPushKey(c, key);
	if (!bsMaterialFromValue(c, v, out))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

bool bsReadGroupMaterials(bsCtx* c, const cJSON* mesh, bsMeshConfig* out)
{
	const cJSON* groups = bsMember(mesh, "materials");
	if (groups == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "materials");
	if (!cJSON_IsObject(groups))
	{
		return bsFailExpected(c, "an object mapping OBJ group names to materials", groups);
	}
	if (!bsCheckKeys(c, groups, NULL, 0))
	{
		return false;
	}
	int n = 0;
	for (const cJSON* g = groups->child; g != NULL; g = g->next)
	{
		++n;
	}
	out->groups = n > 0 ? calloc((size_t)n, sizeof *out->groups) : NULL;
	if (n > 0 && out->groups == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (const cJSON* g = groups->child; g != NULL; g = g->next)
	{
		bsGroupMaterial* gm = out->groups + out->groupCount++;
		gm->group = bsStrDup(g->string);
		if (gm->group == NULL)
		{
			return bsOutOfMemory(c);
		}
		size_t gmark = bsPushKey(c, g->string);
		if (!bsMaterialFromValue(c, g, &gm->material))
		{
			return false;
		}
		bsPop(c, gmark);
	}
	bsPop(c, mark);
	return true;
}
