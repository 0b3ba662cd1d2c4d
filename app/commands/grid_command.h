// grid_command.h — `blobsim grid build|info`: the distance/normal grid file of a mesh (app/commands/grid_command.c).
#pragma once

// argv[0] is "grid". Returns the exit status (cli.h).
int bsGridMain(int argc, char** argv);
