// run.h — `blobsim run` and `blobsim check`: the whole data path, config -> environment -> BVH ->
// steps -> writers.
#pragma once

// `blobsim run CONFIG [-o DIR] [--threads N] [--set key.path=value ...] [--render] [--jobs N]
// [--movie] [--quiet]`.
// argv[0] is "run". Returns an exit status (cli.h).
int bsRunMain(int argc, char** argv);

// `blobsim check CONFIG [--set key.path=value ...]`: validates the config and everything it names
// (OBJ files, their groups, particle files) without simulating. argv[0] is "check".
int bsCheckMain(int argc, char** argv);

// SIGINT/SIGTERM: kill and reap the children (POV-Ray, ffmpeg), remove every temporary file, exit 130
// or 143. `run` and `render` install it.
void bsRun_InstallSignalHandlers(void);
