// process.h — run another program as a child process and wait for it: fork and exec with an argument
// vector, stdout to a file or /dev/null, stderr captured (its last bytes kept in memory) or sent to
// the stdout file, and the exit status or the signal that ended it. `blobsim batch` and `regress` run
// each `blobsim run` through it (run_child.h), so one failing or crashing run never takes them down,
// and `run --render` runs POV-Ray through it (render.h).
//
// Usage:
//     bsProcess p;
//     bsProcessInput in = {.program = exe, .argv = argv};
//     if (!bsProcess_Start(&in, &p, err, sizeof(err))) { report err; }
//     bsProcessOutput out;
//     bsProcess_Wait(&p, &out);   // out.state, out.exitCode or out.signal, out.stderrTail
//
// Signals: every child between Start and the end of Wait is listed in a fixed process-wide table that
// a SIGINT/SIGTERM handler may use (bsProcess_SignalAll, bsProcess_StopAllOnSignal). A child is in
// the table from the moment it exists (Start blocks SIGINT and SIGTERM in its thread while it spawns,
// and the handlers wait for a spawn in flight on another thread) until it has ended: Wait takes it
// out of the table only once it is a zombie, before reaping it, so a handler never signals a pid that
// the system may have given to another process.
//
// Thread-safe: several threads may start and wait for children at the same time. The spawn is done
// under a process-wide lock, and the capture pipe is close-on-exec, so no child inherits another
// child's pipe (which would delay the end of file its parent waits for). The child gets an empty
// signal mask and default SIGINT/SIGTERM/SIGPIPE actions, and on Linux dies with its parent
// (PR_SET_PDEATHSIG, SIGKILL: sent when the thread that started it ends, so Start and Wait belong on
// one thread, as every caller does): a SIGKILLed blobsim leaves no POV-Ray or run running. Do not reap children elsewhere (no SIGCHLD
// handler that calls wait): Wait needs the status, and reports bs_processLost without it.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum
{
	bs_processTailSize = 8192,  // bytes of stderr kept (the last ones)
	bs_processMaxChildren = 512,  // children at once (the signal table); batch runs at most 256
};

typedef struct bsProcessInput
{
	const char* program;       // the executable's path (no PATH search)
	char* const* argv;         // argv[0] .. argv[n-1], then NULL
	const char* stdoutPath;    // the child's stdout goes to this file (created or truncated); NULL:
	                           // /dev/null
	bool stderrToStdout;       // stderr goes where stdout goes (a log of both); nothing is captured
	bool stdoutToPipe;         // stdout goes into the stderr capture pipe too (stdoutPath ignored):
	                           // one stream of both, in order, for a reader (bsProcess_WaitRead)
	const char* directory;     // the child's working directory (after stdoutPath is opened, so a
	                           // relative stdoutPath is the parent's); NULL: the parent's
	bool useDirectoryFd;       // the child's working directory is the folder open at directoryFd
	int directoryFd;           // (fchdir: the folder itself, even if its name is replaced meanwhile)
} bsProcessInput;

typedef struct bsProcess
{
	pid_t pid;     // the running child; -1 when none
	int stderrFd;  // read end of the capture pipe; -1 when closed (or never opened)
	int slot;      // its entry in the signal table; -1 when none
} bsProcess;

typedef enum bsProcessState
{
	bs_processExited,    // exitCode holds its status
	bs_processSignaled,  // signal holds the signal that ended it
	bs_processLost,      // waiting failed (waitError holds errno): someone else reaped the child, so
	                     // how it ended is unknown; a failure
} bsProcessState;

typedef struct bsProcessOutput
{
	bsProcessState state;
	int exitCode;                       // 0..255 when exited; -1 otherwise
	int signal;                         // when signaled; 0 otherwise
	int waitError;                      // when lost: the errno of waitid; 0 otherwise
	char stderrTail[bs_processTailSize]; // the last bytes of its stderr, NUL-terminated
	bool stderrTruncated;               // earlier bytes were dropped
} bsProcessOutput;

// Starts the child and lists it in the signal table. False, with a message naming the program (into
// err), when it cannot (also when bs_processMaxChildren run already): *p is then closed (pid -1) and
// Wait must not be called.
bool bsProcess_Start(const bsProcessInput* in, bsProcess* p, char* err, size_t errlen);

// Reads the child's stderr to its end, waits for it to end (retrying on EINTR, so a signal handler in
// the parent may run meanwhile), takes it out of the signal table, then reaps it. Closes *p. Only a
// child that ended by exit status 0 succeeded; bs_processLost is a failure too.
void bsProcess_Wait(bsProcess* p, bsProcessOutput* out);

// Wait, and every piece of the captured stream goes to onOutput(context, bytes, n) as it comes (the
// bytes are not NUL-terminated), besides the tail: a parent that logs the child's output or follows
// its progress. onOutput runs on the waiting thread; NULL is plain Wait.
typedef void bsProcessReadFn(void* context, const char* data, size_t n);
void bsProcess_WaitRead(bsProcess* p, bsProcessOutput* out, bsProcessReadFn* onOutput, void* context);

// For a SIGINT/SIGTERM handler that goes on afterwards (batch, regress): sends sig to every child in
// the table. Async-signal-safe (lock-free atomics, kill, poll); call it only from a handler of SIGINT
// or SIGTERM, the signals Start blocks while it spawns.
// Returns the number of children signalled (kill succeeded); sig 0 only checks that they exist.
int bsProcess_SignalAll(int sig);

// For a SIGINT/SIGTERM handler that then calls _exit (run): kills every child in the table with
// SIGKILL and reaps it, so none outlives the process or writes to a file after the handler removed
// it. SIGKILL because the children's work is thrown away and it cannot be caught or delayed: the
// handler's wait is short. Async-signal-safe (lock-free atomics, kill, waitpid, poll); after it the
// process must not wait for these children (the table entries stay claimed).
void bsProcess_StopAllOnSignal(void);

// The number of children in the signal table: tests.
int bsProcess_RunningCount(void);

// The last `lines` non-empty lines of text (joined by "; ", trailing newline dropped) into out:
// a failed child's message. Empty when text has none.
void bsProcess_LastLines(const char* text, int lines, char* out, size_t size);

// "exit 3", "signal 11 (SIGSEGV)", "lost (cannot wait for it: No child processes)": one line
// describing how the child ended.
void bsProcess_Describe(const bsProcessOutput* out, char* text, size_t size);

// The running executable's path: /proc/self/exe, else argv0 when it holds a '/' (NULL allowed).
// False when neither works.
bool bsProcess_SelfPath(const char* argv0, char* out, size_t size);
