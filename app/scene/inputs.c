// inputs.c — the input files of a run and their content hashes.
#include "inputs.h"

#include "array.h"
#include "config_bodies.h"
#include "files.h"
#include "blobsim/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool bsHashFile(const char* path, uint64_t* size, uint64_t* hash)
{
	// Not a FIFO or /dev/zero: hashing one would never end (the readers refuse them with a message).
	int why;
	int fd = bsOpenRegularFile(path, &why);
	FILE* f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (f == NULL)
	{
		if (fd >= 0)
		{
			close(fd);
		}
		return false;
	}
	uint64_t h = BS_FNV1A_BASIS;
	uint64_t n = 0;
	unsigned char buffer[1 << 16];
	size_t got;
	while ((got = fread(buffer, 1, sizeof(buffer), f)) > 0)
	{
		h = bsFnv1a(h, buffer, got);
		n += got;
	}
	bool ok = !ferror(f);
	fclose(f);
	if (ok)
	{
		*size = n;
		*hash = h;
	}
	return ok;
}

// Appends path unless the list has it already.
static bool bsInputList_Add(bsInputList* list, const char* path, bool hash)
{
	for (int i = 0; i < list->count; ++i)
	{
		if (strcmp(list->files[i].path, path) == 0)
		{
			return true;
		}
	}
	if (!BS_ARRAY_RESERVE(list->files, list->capacity, (size_t)list->count + 1))
	{
		return false;
	}
	bsInputFile* f = list->files + list->count;
	memset(f, 0, sizeof(*f));
	size_t n = strlen(path);
	f->path = malloc(n + 1);
	if (f->path == NULL)
	{
		return false;
	}
	memcpy(f->path, path, n + 1);
	list->count += 1;
	f->hashed = hash && bsHashFile(path, &f->size, &f->hash);
	return true;
}

// The bodies' OBJ files and every frame of their sequences: a run reads them all.
static bool bsInputList_AddBodies(bsInputList* list, const bsEnvironmentConfig* env, bool hash)
{
	bool ok = true;
	for (int b = 0; ok && b < env->bodyCount; ++b)
	{
		const struct bsBodyConfig* body = env->bodies + b;
		ok = body->file == NULL || bsInputList_Add(list, body->file, hash);
		for (int k = 0; ok && k < body->frameCount; ++k)
		{
			ok = bsInputList_Add(list, body->frames[k], hash);
		}
	}
	return ok;
}

bool bsInputList_Make(const bsConfig* config, bool hash, bsInputList* list)
{
	memset(list, 0, sizeof(*list));
	bool ok = true;
	for (int m = 0; ok && m < config->environment.meshCount; ++m)
	{
		ok = bsInputList_Add(list, config->environment.meshes[m].file, hash);
	}
	for (int e = 0; ok && e < config->particles.emitterCount; ++e)
	{
		const char* file = config->particles.emitters[e].file;
		ok = file == NULL || bsInputList_Add(list, file, hash);
	}
	if (ok && config->field.grid != NULL)
	{
		ok = bsInputList_Add(list, config->field.grid, hash);
	}
	ok = ok && bsInputList_AddBodies(list, &config->environment, hash);
	const bsInstancesConfig* inst = &config->render.instances;
	if (ok && inst->obj != NULL)
	{
		ok = bsInputList_Add(list, inst->obj, hash);
	}
	if (ok && inst->include != NULL)
	{
		ok = bsInputList_Add(list, inst->include, hash);
	}
	if (!ok)
	{
		bsInputList_Free(list);
	}
	return ok;
}

void bsInputList_Free(bsInputList* list)
{
	for (int i = 0; i < list->count; ++i)
	{
		free(list->files[i].path);
	}
	free(list->files);
	memset(list, 0, sizeof(*list));
}

bool bsInputFile_MadeBy(const char* path, char* hint, size_t hintlen)
{
	if (hintlen > 0)
	{
		hint[0] = '\0';
	}
	const char* slash = strrchr(path, '/');
	const char* name = slash != NULL ? slash + 1 : path;
	size_t n = strlen(name);
	bool letter = strncmp(name, "letter_", 7) == 0 && n > 11 && strcmp(name + n - 4, ".obj") == 0;
	if (!letter || access(path, F_OK) == 0 || hintlen == 0)
	{
		return false;
	}
	// The folder the file should be in, as the config resolved it ("." for a bare name).
	int dirlen = slash == NULL ? 1 : slash == path ? 1 : (int)(slash - path);
	snprintf(hint, hintlen,
		" (the letter models are written by tools/letters/make: run `tools/letters/make %.*s` first)",
		dirlen, slash == NULL ? "." : path);
	return true;
}
