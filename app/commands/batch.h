// batch.h — `blobsim batch`: many runs from configs, folders of configs and batch files (JSON lists
// of configs with parameter sweeps), each run a `blobsim run` child in its own output folder, several
// at once, up-to-date runs skipped, a failed run reported without stopping the others, and a slice
// of the batch per machine (--shard). docs/batch.md describes the command and the batch file.
#pragma once

// `blobsim batch INPUT... [options]`. argv[0] is "batch". Returns an exit status (cli.h), or 130/143
// when interrupted by SIGINT/SIGTERM.
int bsBatchMain(int argc, char** argv);
