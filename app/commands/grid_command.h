// grid_command.h — `blobsim grid build|info|slice`: the distance/normal grid file of a mesh
// (app/commands/grid_command.c), and a slice of a grid as an image (grid_slice_command.c).
#pragma once

#include "blobsim/field.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

// argv[0] is "grid". Returns the exit status (cli.h).
int bsGridMain(int argc, char** argv);

// argv[0] is "slice" (grid_slice_command.c).
int bsGridSliceMain(int argc, char** argv);

// The grid of a .dng file, of a config (its field block's grid, as a run would load or build it; a
// config without one: built with def around its meshes) or of an OBJ mesh (built with def). False with
// a message naming the file.
bool bsGridLoadInput(const char* path, const bsDistanceGridDef* def, bsDistanceGrid* grid, char* err, size_t errlen);

// One option of a grid subcommand at argv[*i] (advancing *i past it): 1 matched, 0 not an option of
// the command, -1 a usage error (printed).
typedef int (*bsGridOptionFn)(int argc, char** argv, int* i, void* context);

// A grid subcommand's arguments (argv[0] is its name): -h/--help (usage on stdout), its options, and
// one input into *input (NULL before the call). Returns -1 to go on, else the exit status: 0 after the
// help, 2 for a usage error (unknown option, a second input, or option's -1).
int bsGridParseArgs(const char* command, int argc, char** argv, bsGridOptionFn option, void* context,
	void (*usage)(FILE*), const char** input);
