// bench_embree.h — `blobsim bench --vs embree`: blobsim against Embree 3 on the same scenes and the
// same queries, side by side (docs/performance.md, "Side by side with Embree").
//
// Built only with Embree (the meson option `embree`, Debian's libembree-dev); without it the
// comparison says it was skipped and why. The engine never sees Embree: only this part of the app.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The query sets of the comparison, in the order it runs them: the heightfield's three, then the
// figures' (--vs-sets names a subset).
#define BS_VS_SET_COUNT 5
extern const char* const bs_vsSetNames[BS_VS_SET_COUNT];

// Its methods, in the order each round runs them (--vs-methods names a subset).
#define BS_VS_METHOD_COUNT 5
extern const char* const bs_vsMethodNames[BS_VS_METHOD_COUNT];

typedef struct bsVsEmbreeDef
{
	uint64_t seed;
	int resolution;          // heightfield cells per side: 2 resolution^2 triangles plus the boxes'
	int boxes;               // boxes on the heightfield, 12 triangles each
	long long queries;       // queries per heightfield query set
	long long figureQueries; // the figure sets (snow, slime): 0 all their particles, else at most
	                         // this many, evenly spaced through the emission order
	int rounds;              // timed rounds per variant, alternated; the median counts
	int threads;             // threads of the parallel runs; 0: all cores
	const char* configDir;   // where snow.json and slime.json are
	bool buildOnly;          // the builds alone, no query sets (--vs-only build)
	unsigned sets;           // bit i: bs_vsSetNames[i] runs (default all)
	unsigned methods;        // bit i: bs_vsMethodNames[i] runs (default all)
	bool selected;           // --vs-sets or --vs-methods: no builds; one line per method with its
	                         // process CPU time, for callgrind and CPU-time comparisons
	bool counts;             // --vs-counts: per query, Embree's callbacks and blobsim's triangles
	                         // tested and wide nodes visited (a pass apart from the timed rounds)
} bsVsEmbreeDef;

bsVsEmbreeDef bsDefaultVsEmbreeDef(void);

// Reads a comma-separated list of names (each one of names[0..count)) into a bit mask, bit i for
// names[i]. Returns false on an empty list, an empty item or an unknown name, with that item (or the
// whole list when it is empty) copied to bad.
bool bsVsParseNames(const char* list, const char* const* names, int count, unsigned* mask, char* bad,
	size_t badSize);

// True when this blobsim was built with Embree.
bool bsVsEmbree_Available(void);

// Runs the comparison and prints its tables. Returns an exit status: bs_exitOk (also when built
// without Embree: it prints that the comparison was skipped), bs_exitFailure when a scene cannot be
// made or blobsim's answers depend on the thread count. Disagreements between Embree and blobsim
// are reported, not failed: they measure Embree's traversal, not blobsim.
int bsBenchVsEmbree(const bsVsEmbreeDef* def);
