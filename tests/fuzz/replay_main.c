// replay_main.c — a plain main for the fuzz targets when no fuzzing engine is linked: runs
// LLVMFuzzerTestOneInput once over every file named on the command line and every regular file in the
// directories named there (not recursive), in sorted order, and prints how many it ran. Exits non-zero
// when an argument cannot be read or nothing ran; a crashing input crashes this program, which is the
// test's failure (under ASan and UBSan in the sanitize build).
#include "array.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Reads a whole file into a malloc'd buffer of exactly its size (so ASan sees reads past the end).
static int bsReplayFile(const char* path, long* ran)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	size_t size = 0;
	size_t capacity = 0;
	uint8_t* data = NULL;
	for (;;)
	{
		if (!BS_ARRAY_RESERVE(data, capacity, size + 4096))
		{
			fprintf(stderr, "%s: out of memory\n", path);
			free(data);
			fclose(f);
			return 1;
		}
		size_t n = fread(data + size, 1, capacity - size, f);
		size += n;
		if (n == 0)
		{
			break;
		}
	}
	int failed = ferror(f);
	fclose(f);
	if (failed)
	{
		fprintf(stderr, "%s: cannot read\n", path);
		free(data);
		return 1;
	}
	// An exact-size copy: the input buffer ends where the file does, as under libFuzzer.
	uint8_t* exact = malloc(size > 0 ? size : 1);
	if (exact == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", path);
		free(data);
		return 1;
	}
	if (size > 0)
	{
		memcpy(exact, data, size);
	}
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	++*ran;
	return 0;
}

static int bsCompareNames(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

static int bsReplayDirectory(const char* path, long* ran)
{
	DIR* dir = opendir(path);
	if (dir == NULL)
	{
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	char** names = NULL;
	size_t count = 0;
	size_t capacity = 0;
	int status = 0;
	struct dirent* entry;
	while ((entry = readdir(dir)) != NULL)
	{
		if (entry->d_name[0] == '.')
		{
			continue;  // ., .. and hidden files
		}
		size_t length = strlen(path) + 1 + strlen(entry->d_name) + 1;
		char* full = malloc(length);
		if (full == NULL)
		{
			status = 1;
			break;
		}
		snprintf(full, length, "%s/%s", path, entry->d_name);
		struct stat st;
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
		{
			free(full);
			continue;
		}
		if (!BS_ARRAY_RESERVE(names, capacity, count + 1))
		{
			free(full);
			status = 1;
			break;
		}
		names[count++] = full;
	}
	closedir(dir);
	if (count > 0)
	{
		qsort(names, count, sizeof *names, bsCompareNames);
	}
	for (size_t i = 0; i < count; ++i)
	{
		if (status == 0)
		{
			status = bsReplayFile(names[i], ran);
		}
		free(names[i]);
	}
	free(names);
	if (status != 0)
	{
		fprintf(stderr, "%s: replay failed\n", path);
	}
	return status;
}

int main(int argc, char** argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
		return 2;
	}
	long ran = 0;
	int status = 0;
	for (int i = 1; i < argc; ++i)
	{
		struct stat st;
		if (stat(argv[i], &st) != 0)
		{
			fprintf(stderr, "%s: cannot open: %s\n", argv[i], strerror(errno));
			status = 1;
		}
		else if (S_ISDIR(st.st_mode))
		{
			status |= bsReplayDirectory(argv[i], &ran);
		}
		else
		{
			status |= bsReplayFile(argv[i], &ran);
		}
	}
	printf("%s: ran %ld inputs\n", argv[0], ran);
	if (ran == 0)
	{
		fprintf(stderr, "%s: no inputs\n", argv[0]);
		return 1;
	}
	return status;
}
