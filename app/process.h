// process.h — run another program as a child process and wait for it: posix_spawn with an argument
// vector, stdout to a file or /dev/null, stderr captured (its last bytes kept in memory), and the exit
// status or the signal that ended it. `blobsim batch` runs each `blobsim run` through it, so one
// failing or crashing run never takes the batch down with it.
//
// Usage:
//     bsProcess p;
//     bsProcessInput in = {exe, argv, NULL};
//     if (!bsProcess_Start(&in, &p, err, sizeof(err))) { report err; }
//     forward signals to p.pid while it runs ...
//     bsProcessOutput out;
//     bsProcess_Wait(&p, &out);   // out.state, out.exitCode or out.signal, out.stderrTail
//
// Thread-safe: several threads may start and wait for children at the same time. The spawn is done
// under a process-wide lock, and the capture pipe is close-on-exec, so no child inherits another
// child's pipe (which would delay the end of file its parent waits for). The child gets an empty
// signal mask and default SIGINT/SIGTERM/SIGPIPE actions. Do not reap children elsewhere (no SIGCHLD
// handler that calls wait): Wait needs the status.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum
{
	bs_processTailSize = 8192,  // bytes of stderr kept (the last ones)
};

typedef struct bsProcessInput
{
	const char* program;       // the executable's path (no PATH search)
	char* const* argv;         // argv[0] .. argv[n-1], then NULL
	const char* stdoutPath;    // the child's stdout goes to this file (created or truncated); NULL:
	                           // /dev/null
} bsProcessInput;

typedef struct bsProcess
{
	pid_t pid;     // the running child; -1 when none
	int stderrFd;  // read end of the capture pipe; -1 when closed
} bsProcess;

typedef enum bsProcessState
{
	bs_processExited,    // exitCode holds its status
	bs_processSignaled,  // signal holds the signal that ended it
} bsProcessState;

typedef struct bsProcessOutput
{
	bsProcessState state;
	int exitCode;                       // 0..255 when exited; -1 otherwise
	int signal;                         // when signaled; 0 otherwise
	char stderrTail[bs_processTailSize]; // the last bytes of its stderr, NUL-terminated
	bool stderrTruncated;               // earlier bytes were dropped
} bsProcessOutput;

// Starts the child. False, with a message naming the program (into err), when it cannot: *p is then
// closed (pid -1) and Wait must not be called.
bool bsProcess_Start(const bsProcessInput* in, bsProcess* p, char* err, size_t errlen);

// Reads the child's stderr to its end, then waits for it (retrying on EINTR, so a signal handler
// in the parent may run meanwhile). Closes *p.
void bsProcess_Wait(bsProcess* p, bsProcessOutput* out);

// The last `lines` non-empty lines of text (joined by "; ", trailing newline dropped) into out:
// a failed child's message. Empty when text has none.
void bsProcess_LastLines(const char* text, int lines, char* out, size_t size);

// "exit 3", "signal 11 (SIGSEGV)": one line describing how the child ended.
void bsProcess_Describe(const bsProcessOutput* out, char* text, size_t size);

// The running executable's path: /proc/self/exe, else argv0 when it holds a '/' (NULL allowed).
// False when neither works.
bool bsProcess_SelfPath(const char* argv0, char* out, size_t size);
