// letters.c — writes the paper's letter models (shared/letters.h: implicit strokes polygonized by
// blobsim's surface mesher at the paper's polygon counts) as OBJ files: letter_T.obj etc. in DIR.
// Built and run by tools/letters/make.
#include "letters.h"

#include <stdio.h>
#include <stdlib.h>

static int WriteObj(const char* path, const bsTriangle* tris, uint32_t count)
{
	FILE* f = fopen(path, "w");
	if (f == NULL)
	{
		return 1;
	}
	fprintf(f, "# %u triangles, from tools/letters (shared/letters.c)\n", count);
	for (uint32_t i = 0; i < count; ++i)
	{
		const bsVec3 p[3] = {tris[i].p1, tris[i].p2, tris[i].p3};
		for (int k = 0; k < 3; ++k)
		{
			fprintf(f, "v %.17g %.17g %.17g\n", p[k].x, p[k].y, p[k].z);
		}
	}
	for (uint32_t i = 0; i < count; ++i)
	{
		fprintf(f, "f %u %u %u\n", 3 * i + 1, 3 * i + 2, 3 * i + 3);
	}
	return fclose(f) != 0;
}

int main(int argc, char** argv)
{
	const char* dir = argc > 1 ? argv[1] : ".";
	const char letters[] = "TMVW";
	for (int i = 0; i < 4; ++i)
	{
		bsTriangle* tris;
		uint32_t count;
		if (bsMakeLetter(letters[i], 0, &tris, &count) != bs_ok)
		{
			fprintf(stderr, "letters: cannot make %c\n", letters[i]);
			return 1;
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/letter_%c.obj", dir, letters[i]);
		if (WriteObj(path, tris, count) != 0)
		{
			fprintf(stderr, "letters: cannot write %s\n", path);
			free(tris);
			return 1;
		}
		printf("%s: %u triangles (the paper's: %u)\n", path, count, bsLetterPaperCount(letters[i]));
		free(tris);
	}
	return 0;
}
