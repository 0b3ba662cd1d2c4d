// run_child.h — a `blobsim run` in a child process, as `blobsim batch` and `blobsim regress` start
// them: its command line, SIGINT and SIGTERM passed on to it while it runs, how it ended, and one line
// saying why it failed.
//
// Usage:
//     bsRunChildSignals saved;
//     bsRunChild_InstallSignals(&saved);
//     bsRunChildDef def = bsDefaultRunChildDef();
//     def.exe = exe; def.config = config; def.output = dir; def.render = true;
//     bsRunChildOutput out;
//     if (!bsRunChild_Run(&def, &out, err, sizeof(err))) { could not start: err }
//     else if (!out.ok) { bsRunChild_Describe(&out, 1, text, sizeof(text)); }
//     if (bsRunChild_StopSignal() != 0) { start no more runs; exit 128 + that signal }
//     bsRunChild_RestoreSignals(&saved);
//
// The handler touches only lock-free atomics and passes the signal on through bsProcess_SignalAll
// (process.h), which lists each child from its spawn until it has ended (never a reaped pid). A run
// that receives the signal removes its temporary files, stops its POV-Ray and exits 130 or 143.
// Thread-safe: several threads may run children at once (batch --jobs).
#pragma once

#include "process.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct bsRunChildDef
{
	const char* exe;          // the blobsim executable (bsProcess_SelfPath)
	const char* config;       // CONFIG
	const char* output;       // -o
	bool render;              // --render
	int threads;              // --threads N; -1: not passed (the run's default)
	const char* const* sets;  // --set values ("key.path=JSON"), in order
	int setCount;
	// When set: the run gets --progress-lines, and each of its render progress reports comes here
	// (fraction 0..1 of its whole render), on the thread that waits for it.
	void (*onProgress)(void* context, double fraction);
	void* progressContext;
} bsRunChildDef;

// No output folder, no render, no --threads, no --set.
bsRunChildDef bsDefaultRunChildDef(void);

typedef struct bsRunChildOutput
{
	bsProcessOutput process;  // how it ended, the tail of its stderr
	bool ok;                  // it exited 0
	bool interrupted;         // it ended by the SIGINT/SIGTERM this process received and passed on
	double seconds;           // wall time from the start to its end
} bsRunChildOutput;

typedef struct bsRunChildSignals
{
	struct sigaction oldInt, oldTerm;
} bsRunChildSignals;

// SIGINT/SIGTERM handlers until Restore: the first signal is remembered (bsRunChild_StopSignal) and
// every signal is passed on to the running children.
void bsRunChild_InstallSignals(bsRunChildSignals* saved);
void bsRunChild_RestoreSignals(const bsRunChildSignals* saved);

// The first SIGINT or SIGTERM received since InstallSignals, or 0. The caller starts no run after it.
int bsRunChild_StopSignal(void);

// Runs `blobsim run CONFIG -o OUTPUT --quiet [--threads N] [--render] [--progress-lines] [--set X]...`
// and waits for it.
// False, with the reason in err, when it could not start (*out is then undefined); true when it ran,
// whatever its exit status. A run starting just as a signal arrives is stopped too.
bool bsRunChild_Run(const bsRunChildDef* def, bsRunChildOutput* out, char* err, size_t errlen);

// Why a child failed, in one line: its last `lines` stderr lines (joined by "; ", without the
// "blobsim: " its messages start with; its progress lines skipped), then how it ended in parentheses unless that was a plain exit
// 1: "x.json: nope: unknown key", "out of memory (signal 9 (SIGKILL))", "exit 3, no message".
void bsRunChild_Describe(const bsRunChildOutput* out, int lines, char* text, size_t size);
