// config.c — the config reader's entry points: text or file in, a validated bsConfig out.
//
// The text goes through four passes, each with its own kind of message:
//   1. encoding and 2. strict JSON syntax (json.c)                       file:line:column: ...
//   3. --set overrides on the tree (config_override.c)                   --set OVERRIDE: ...
//   4. validation of the tree into bsConfig, section by section (config_read.c and each section's
//      config_*.c, on the typed readers of config_value.c)               file: json.path: ...
// and the tree is hashed for bsConfig.hash.
#include "config.h"

#include "config_bodies.h"
#include "config_material.h"
#include "config_override.h"
#include "config_read.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- Hash: FNV-1a 64 over a canonical encoding of the tree ---

typedef struct bsHasher
{
	uint64_t h;
	bool outOfMemory;
} bsHasher;

static void bsHashBytes(bsHasher* hs, const void* data, size_t n)
{
	const unsigned char* p = data;
	for (size_t i = 0; i < n; ++i)
	{
		hs->h ^= p[i];
		hs->h *= 1099511628211ull;
	}
}

static void bsHashU64(bsHasher* hs, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; ++i)
	{
		b[i] = (unsigned char)(v >> (8 * i));
	}
	bsHashBytes(hs, b, 8);
}

static void bsHashString(bsHasher* hs, const char* s)
{
	size_t n = strlen(s);
	bsHashBytes(hs, "s", 1);
	bsHashU64(hs, (uint64_t)n);
	bsHashBytes(hs, s, n);
}

static int bsCompareKeys(const void* pa, const void* pb)
{
	const cJSON* a = *(const cJSON* const*)pa;
	const cJSON* b = *(const cJSON* const*)pb;
	return strcmp(a->string, b->string);
}

static void bsHashValue(bsHasher* hs, const cJSON* v);

static void bsHashArray(bsHasher* hs, const cJSON* v)
{
	uint64_t n = 0;
	for (const cJSON* e = v->child; e != NULL; e = e->next)
	{
		++n;
	}
	bsHashBytes(hs, "[", 1);
	bsHashU64(hs, n);
	for (const cJSON* e = v->child; e != NULL; e = e->next)
	{
		bsHashValue(hs, e);
	}
}

// Members in key order, so that the order in the file does not matter.
static void bsHashObject(bsHasher* hs, const cJSON* v)
{
	size_t n = 0;
	for (const cJSON* e = v->child; e != NULL; e = e->next)
	{
		++n;
	}
	const cJSON** members = n > 0 ? malloc(n * sizeof *members) : NULL;
	if (n > 0 && members == NULL)
	{
		hs->outOfMemory = true;
		return;
	}
	size_t i = 0;
	for (const cJSON* e = v->child; e != NULL; e = e->next)
	{
		members[i++] = e;
	}
	if (n > 1)
	{
		qsort(members, n, sizeof *members, bsCompareKeys);
	}
	bsHashBytes(hs, "{", 1);
	bsHashU64(hs, (uint64_t)n);
	for (i = 0; i < n; ++i)
	{
		bsHashString(hs, members[i]->string);
		bsHashValue(hs, members[i]);
	}
	free(members);
}

// Recursion is bounded: the tree passed the depth check and the schema, which is a few levels deep.
static void bsHashValue(bsHasher* hs, const cJSON* v)
{
	if (cJSON_IsNumber(v))
	{
		double d = v->valuedouble == 0.0 ? 0.0 : v->valuedouble;  // -0 is 0
		uint64_t bits;
		memcpy(&bits, &d, sizeof bits);
		bsHashBytes(hs, "d", 1);
		bsHashU64(hs, bits);
	}
	else if (cJSON_IsString(v))
	{
		bsHashString(hs, v->valuestring);
	}
	else if (cJSON_IsTrue(v))
	{
		bsHashBytes(hs, "t", 1);
	}
	else if (cJSON_IsFalse(v))
	{
		bsHashBytes(hs, "f", 1);
	}
	else if (cJSON_IsArray(v))
	{
		bsHashArray(hs, v);
	}
	else if (cJSON_IsObject(v))
	{
		bsHashObject(hs, v);
	}
	else
	{
		bsHashBytes(hs, "n", 1);
	}
}

// --- Entry points ---

void bsConfig_Free(bsConfig* config)
{
	if (config == NULL)
	{
		return;
	}
	free(config->path);
	for (int i = 0; i < config->environment.meshCount; ++i)
	{
		bsMeshConfig* m = config->environment.meshes + i;
		free(m->file);
		bsMaterial_Free(&m->material);
		for (int g = 0; g < m->groupCount; ++g)
		{
			free(m->groups[g].group);
			bsMaterial_Free(&m->groups[g].material);
		}
		free(m->groups);
	}
	free(config->environment.meshes);
	for (int i = 0; i < config->environment.planeCount; ++i)
	{
		bsMaterial_Free(&config->environment.planes[i].material);
	}
	free(config->environment.planes);
	bsBodiesConfig_Free(&config->environment);
	for (int i = 0; i < config->particles.emitterCount; ++i)
	{
		free(config->particles.emitters[i].file);
		free(config->particles.emitters[i].group);
		free(config->particles.emitters[i].trailSource);
	}
	free(config->particles.emitters);
	for (int i = 0; i < config->particles.speciesCount; ++i)
	{
		free(config->particles.species[i].name);
		bsMaterial_Free(&config->particles.species[i].look);
	}
	free(config->particles.species);
	free(config->speciesPairs);
	free(config->speciesDensity);
	free(config->speciesBuoyancy);
	free(config->render.lights);
	bsMaterial_Free(&config->render.particleMaterial);
	free(config->render.instances.object);
	free(config->render.instances.include);
	free(config->render.instances.obj);
	free(config->output.directory);
	free(config->field.grid);
	memset(config, 0, sizeof *config);
}

// Reads the tree into config, overrides first; hashes it. Returns false with the message in c.
static bool bsConfigFromTree(bsCtx* c, cJSON* root, const char* const* overrides, int overrideCount,
	bsConfig* config)
{
	if (!bsApplyOverrides(c, root, overrides, overrideCount) || !bsReadConfig(c, root, config))
	{
		return false;
	}
	config->path = bsStrDup(c->label);
	bsHasher hs = {14695981039346656037ull, false};
	bsHashValue(&hs, root);
	config->hash = hs.h;
	return config->path != NULL && !hs.outOfMemory ? true : bsOutOfMemory(c);
}

bsResult bsConfig_ParseWithOverrides(const char* text, size_t length, const char* path,
	const char* const* overrides, int overrideCount, bsConfig* config, bsConfigError* error)
{
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	if (config == NULL || (text == NULL && length > 0) || overrideCount < 0 ||
		(overrides == NULL && overrideCount > 0))
	{
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "bsConfig_Parse: invalid argument");
		}
		return bs_errInvalidArgument;
	}
	memset(config, 0, sizeof *config);
	bsCtx c;
	bsCtx_Init(&c, path, error);
	cJSON* root = NULL;
	bsResult parsed = bsJson_Parse(text, length, c.label, &root, error);
	if (parsed != bs_ok)
	{
		return parsed;
	}
	bool ok = bsConfigFromTree(&c, root, overrides, overrideCount, config);
	cJSON_Delete(root);
	bsCtx_Free(&c);
	if (!ok)
	{
		bsConfig_Free(config);
		return c.result != bs_ok ? c.result : bs_errInvalidArgument;
	}
	return bs_ok;
}

bsResult bsConfig_Parse(const char* text, size_t length, const char* path, bsConfig* config,
	bsConfigError* error)
{
	return bsConfig_ParseWithOverrides(text, length, path, NULL, 0, config, error);
}

bsResult bsConfig_LoadWithOverrides(const char* path, const char* const* overrides,
	int overrideCount, bsConfig* config, bsConfigError* error)
{
	if (error != NULL)
	{
		error->message[0] = '\0';
	}
	if (config != NULL)
	{
		memset(config, 0, sizeof *config);
	}
	if (path == NULL || config == NULL)
	{
		if (error != NULL)
		{
			snprintf(error->message, sizeof error->message, "bsConfig_Load: invalid argument");
		}
		return bs_errInvalidArgument;
	}
	char* text = NULL;
	size_t length = 0;
	bsResult result = bsJson_ReadFile(path, &text, &length, error);
	if (result == bs_ok)
	{
		result = bsConfig_ParseWithOverrides(text, length, path, overrides, overrideCount, config,
			error);
	}
	free(text);
	return result;
}

bsResult bsConfig_Load(const char* path, bsConfig* config, bsConfigError* error)
{
	return bsConfig_LoadWithOverrides(path, NULL, 0, config, error);
}

void bsEmitterConfig_Path(const bsParticlesConfig* pc, int k, char* out, size_t size)
{
	if (!pc->speciesList || k < 0 || k >= pc->emitterCount)
	{
		snprintf(out, size, "particles.emitters[%d]", k);
		return;
	}
	int s = pc->emitters[k].species, j = 0;
	for (int e = 0; e < k; ++e)
	{
		j += pc->emitters[e].species == s;
	}
	snprintf(out, size, "particles[%d].emitters[%d]", s, j);
}
