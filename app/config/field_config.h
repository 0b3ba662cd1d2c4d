// field_config.h — the config's `field` block: the distance/normal grid's effects (the paper's spring,
// impact, drag and surface flow, include/blobsim/field.h) and where the grid comes from, a .dng file
// or a grid built from the config's meshes (docs/config.md, docs/dngrid.md).
#pragma once

#include "blobsim/field.h"

#include <stdbool.h>

typedef struct bsFieldConfig
{
	bool enabled;                // the config has a field block
	char* grid;                  // field.grid: the .dng file, resolved against the config's directory;
	                             // NULL when built
	bsDistanceGridDef build;     // field.build: the grid's settings (bsDefaultDistanceGridDef() for
	                             // what it leaves out; threads: all cores, the grid is the same)
	bsFieldDef def;              // the rules (bsDefaultFieldDef(): all off, nearest cell)
	bool compress;               // field.compress given: the rules look up the grid's compressed tree
	bsGridTreeDef compressDef;   // its settings (bsDefaultGridTreeDef() for what it leaves out)
	bool sweep;                  // field.sweep: the meshes stay swept-sphere colliders [true]; false:
	                             // the field alone stands for them (the planes still collide)
} bsFieldConfig;
