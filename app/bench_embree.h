// bench_embree.h — `blobsim bench --vs embree`: blobsim against Embree 3 on the same scenes and the
// same queries, side by side (docs/performance.md, "Side by side with Embree").
//
// Built only with Embree (the meson option `embree`, Debian's libembree-dev); without it the
// comparison says it was skipped and why. The engine never sees Embree: only this part of the app.
#pragma once

#include <stdbool.h>
#include <stdint.h>

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
} bsVsEmbreeDef;

bsVsEmbreeDef bsDefaultVsEmbreeDef(void);

// True when this blobsim was built with Embree.
bool bsVsEmbree_Available(void);

// Runs the comparison and prints its tables. Returns an exit status: bs_exitOk (also when built
// without Embree: it prints that the comparison was skipped), bs_exitFailure when a scene cannot be
// made or blobsim's answers depend on the thread count. Disagreements between Embree and blobsim
// are reported, not failed: they measure Embree's traversal, not blobsim.
int bsBenchVsEmbree(const bsVsEmbreeDef* def);
