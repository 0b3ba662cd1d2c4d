// process.c — child processes: fork and exec, a stderr capture pipe, waitid/waitpid, and the table of
// running children that signal handlers use.
// prctl's PR_SET_PDEATHSIG (Linux): the child dies with the thread that started it, even when this
// process is SIGKILLed (no handler runs then).
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

extern char** environ;

// Held from pipe() to the end of the spawn, so no other thread's child inherits the pipe between
// its creation and the close-on-exec flag.
static pthread_mutex_t bs_spawnLock = PTHREAD_MUTEX_INITIALIZER;

// ---- The signal table ------------------------------------------------------------------------------
//
// One lock-free atomic per child (C11 7.14.1 allows them in a signal handler). An entry moves
//     0 (free) -> reserved (Start, before the spawn) -> pid (armed, after it)
//     pid -> 0                       (Wait, once the child is a zombie: it cannot be reused yet)
//     pid -> -pid -> pid             (a handler signalling it: SignalAll)
//     pid -> -pid                    (a handler killing and reaping it: StopAllOnSignal, then _exit)
// Wait spins while an entry is -pid: a handler on another thread is inside kill(); it is done
// promptly. bs_spawning counts Starts between blocking signals and arming their entry, so a handler
// on another thread can wait until every child that exists is in the table.

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal table needs lock-free atomic int");

enum
{
	bs_entryFree = 0,
	bs_entryReserved = INT_MIN,
};

static atomic_int bs_children[bs_processMaxChildren];
static atomic_int bs_spawning;

static int bsChildTable_Reserve(void)
{
	for (int i = 0; i < bs_processMaxChildren; ++i)
	{
		int expected = bs_entryFree;
		if (atomic_compare_exchange_strong(&bs_children[i], &expected, bs_entryReserved))
		{
			return i;
		}
	}
	return -1;
}

// A millisecond's pause that is async-signal-safe (poll is on POSIX's list; nanosleep is not on all).
static void bsPause(void)
{
	poll(NULL, 0, 1);
}

// Frees entry slot holding value (a pid, or the reservation).
static void bsChildTable_Release(int slot, int value)
{
	if (slot < 0)
	{
		return;
	}
	for (;;)
	{
		int expected = value;
		if (atomic_compare_exchange_strong(&bs_children[slot], &expected, bs_entryFree))
		{
			return;
		}
		bsPause();  // expected == -value: a handler holds the entry
	}
}

// Returns once no other thread is between blocking signals in Start and arming its entry.
static void bsChildTable_AwaitSpawns(void)
{
	while (atomic_load(&bs_spawning) != 0)
	{
		bsPause();
	}
}

int bsProcess_SignalAll(int sig)
{
	bsChildTable_AwaitSpawns();
	int count = 0;
	for (int i = 0; i < bs_processMaxChildren; ++i)
	{
		int pid = atomic_load(&bs_children[i]);
		if (pid > 0 && atomic_compare_exchange_strong(&bs_children[i], &pid, -pid))
		{
			count += kill((pid_t)pid, sig) == 0;
			atomic_store(&bs_children[i], pid);
		}
	}
	return count;
}

void bsProcess_StopAllOnSignal(void)
{
	bsChildTable_AwaitSpawns();
	for (int i = 0; i < bs_processMaxChildren; ++i)
	{
		int pid = atomic_load(&bs_children[i]);
		if (pid > 0 && atomic_compare_exchange_strong(&bs_children[i], &pid, -pid))
		{
			kill((pid_t)pid, SIGKILL);
			while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
			{
			}
		}
	}
}

int bsProcess_RunningCount(void)
{
	int count = 0;
	for (int i = 0; i < bs_processMaxChildren; ++i)
	{
		count += atomic_load(&bs_children[i]) != bs_entryFree;
	}
	return count;
}

// ---- Start and wait --------------------------------------------------------------------------------

static bool bsSetCloseOnExec(int fd)
{
	int flags = fcntl(fd, F_GETFD);
	return flags >= 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

// In the child, between fork and exec: only async-signal-safe calls. Writes errno to report (a
// close-on-exec pipe) and exits when a step fails; otherwise becomes the program.
static void bsProcess_Child(const bsProcessInput* in, int capture, int report, pid_t parent)
{
#ifdef __linux__
	// Killed with the parent (the thread that forked, which waits for it): a SIGKILLed blobsim leaves
	// no POV-Ray behind. A parent that died before this line is seen by getppid.
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
	{
		_exit(127);
	}
#endif
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	// The pipe goes first: its end may be descriptor 0 or 1 when the parent has closed those.
	bool ok = capture < 0 || (capture == 2 ? fcntl(2, F_SETFD, 0) == 0 : dup2(capture, 2) >= 0);
	int fd = ok ? open("/dev/null", O_RDONLY) : -1;
	ok = fd >= 0 && (fd == 0 || (dup2(fd, 0) >= 0 && close(fd) == 0));
	if (ok && in->stdoutToPipe)
	{
		ok = dup2(2, 1) >= 0;
	}
	else if (ok)
	{
		fd = open(in->stdoutPath != NULL ? in->stdoutPath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		ok = fd >= 0 && (fd == 1 || (dup2(fd, 1) >= 0 && close(fd) == 0));
	}
	if (ok && in->stderrToStdout && !in->stdoutToPipe)
	{
		ok = dup2(1, 2) >= 0;
	}
	if (ok && in->useDirectoryFd)
	{
		ok = fchdir(in->directoryFd) == 0;
	}
	else if (ok && in->directory != NULL)
	{
		ok = chdir(in->directory) == 0;
	}
	if (ok)
	{
		execve(in->program, in->argv, environ);
	}
	int e = errno;
	while (write(report, &e, sizeof(e)) < 0 && errno == EINTR)
	{
	}
	_exit(127);
}

// Forks and execs the child; 0, or the errno of the step that failed (the child is then reaped).
static int bsProcess_Spawn(const bsProcessInput* in, int capture, pid_t* pid)
{
	int report[2];
	if (pipe(report) != 0)
	{
		return errno;
	}
	if (!bsSetCloseOnExec(report[0]) || !bsSetCloseOnExec(report[1]))
	{
		int e = errno;
		close(report[0]);
		close(report[1]);
		return e;
	}
	pid_t parent = getpid();
	pid_t child = fork();
	if (child == 0)
	{
		close(report[0]);
		bsProcess_Child(in, capture, report[1], parent);
	}
	int e = child < 0 ? errno : 0;
	close(report[1]);
	if (child > 0)
	{
		// The report pipe closes at exec (or at _exit after writing why it failed).
		int why = 0;
		ssize_t got;
		while ((got = read(report[0], &why, sizeof(why))) < 0 && errno == EINTR)
		{
		}
		if (got == (ssize_t)sizeof(why))
		{
			e = why != 0 ? why : ENOEXEC;
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			{
			}
		}
	}
	close(report[0]);
	*pid = child;
	return e;
}

bool bsProcess_Start(const bsProcessInput* in, bsProcess* p, char* err, size_t errlen)
{
	p->pid = -1;
	p->stderrFd = -1;
	p->slot = -1;
	// A SIGINT/SIGTERM handler that runs on this thread between the spawn and the arming of the entry
	// would miss the child: block them here (the child resets its own mask). A handler on another
	// thread waits for bs_spawning to drop.
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	atomic_fetch_add(&bs_spawning, 1);
	pthread_mutex_lock(&bs_spawnLock);
	int fds[2] = {-1, -1};
	int rc = 0;
	int slot = bsChildTable_Reserve();
	if (slot < 0)
	{
		rc = EAGAIN;
	}
	else if (!in->stderrToStdout || in->stdoutToPipe)
	{
		if (pipe(fds) != 0)
		{
			rc = errno;
		}
		else if (!bsSetCloseOnExec(fds[0]) || !bsSetCloseOnExec(fds[1]))
		{
			rc = errno;
			close(fds[0]);
			close(fds[1]);
			fds[0] = fds[1] = -1;
		}
	}
	if (rc == 0)
	{
		pid_t pid;
		rc = bsProcess_Spawn(in, fds[1], &pid);
		if (fds[1] >= 0)
		{
			close(fds[1]);
		}
		if (rc == 0)
		{
			p->pid = pid;
			p->stderrFd = fds[0];
			p->slot = slot;
			atomic_store(&bs_children[slot], (int)pid);
		}
		else if (fds[0] >= 0)
		{
			close(fds[0]);
		}
	}
	if (rc != 0)
	{
		bsChildTable_Release(slot, bs_entryReserved);
	}
	pthread_mutex_unlock(&bs_spawnLock);
	atomic_fetch_sub(&bs_spawning, 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
	{
		if (slot < 0)
		{
			snprintf(err, errlen, "cannot start %s: %d children run already", in->program, bs_processMaxChildren);
		}
		else
		{
			snprintf(err, errlen, "cannot start %s: %s", in->program, strerror(rc));
		}
		return false;
	}
	return true;
}

void bsProcess_Wait(bsProcess* p, bsProcessOutput* out)
{
	bsProcess_WaitRead(p, out, NULL, NULL);
}

void bsProcess_WaitRead(bsProcess* p, bsProcessOutput* out, bsProcessReadFn* onOutput, void* context)
{
	memset(out, 0, sizeof(*out));
	out->exitCode = -1;
	size_t used = 0;
	const size_t cap = sizeof(out->stderrTail) - 1;
	char chunk[bs_processTailSize / 2];
	while (p->stderrFd >= 0)
	{
		ssize_t got = read(p->stderrFd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
		{
			continue;
		}
		if (got <= 0)
		{
			break;
		}
		size_t n = (size_t)got;  // < cap: chunk is smaller than the tail
		if (onOutput != NULL)
		{
			onOutput(context, chunk, n);
		}
		if (used + n > cap)
		{
			size_t drop = used + n - cap;
			memmove(out->stderrTail, out->stderrTail + drop, used - drop);
			used -= drop;
			out->stderrTruncated = true;
		}
		memcpy(out->stderrTail + used, chunk, n);
		used += n;
	}
	out->stderrTail[used] = '\0';
	if (p->stderrFd >= 0)
	{
		close(p->stderrFd);
		p->stderrFd = -1;
	}
	// Wait for the end without reaping (WNOWAIT): the zombie keeps the pid, so the signal table may
	// list it until the line after, and no handler can reach a process that reuses the pid.
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	int r;
	while ((r = waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOWAIT)) < 0 && errno == EINTR)
	{
	}
	int waitError = r < 0 ? errno : 0;
	bsChildTable_Release(p->slot, (int)p->pid);
	p->slot = -1;
	int status = 0;
	pid_t reaped = -1;
	if (r == 0)
	{
		while ((reaped = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
		{
		}
		waitError = reaped < 0 ? errno : 0;
	}
	p->pid = -1;
	if (reaped < 0)
	{
		// Reaped elsewhere (against the rules in process.h): how it ended is unknown, a failure.
		out->state = bs_processLost;
		out->waitError = waitError;
		return;
	}
	if (WIFSIGNALED(status))
	{
		out->state = bs_processSignaled;
		out->signal = WTERMSIG(status);
	}
	else
	{
		out->state = bs_processExited;
		out->exitCode = WEXITSTATUS(status);
	}
}

void bsProcess_LastLines(const char* text, int lines, char* out, size_t size)
{
	if (size == 0)
	{
		return;
	}
	out[0] = '\0';
	// Walk back over the lines, remembering where the wanted ones start.
	const char* begin[16];
	const char* end[16];
	int found = 0;
	if (lines > 16)
	{
		lines = 16;
	}
	const char* e = text + strlen(text);
	while (e > text && found < lines)
	{
		while (e > text && (e[-1] == '\n' || e[-1] == '\r'))
		{
			--e;
		}
		const char* b = e;
		while (b > text && b[-1] != '\n')
		{
			--b;
		}
		if (b < e)
		{
			begin[found] = b;
			end[found] = e;
			++found;
		}
		e = b;
	}
	size_t used = 0;
	for (int k = found - 1; k >= 0 && used + 1 < size; --k)
	{
		int n = snprintf(out + used, size - used, "%s%.*s", used > 0 ? "; " : "", (int)(end[k] - begin[k]),
			begin[k]);
		if (n < 0)
		{
			break;
		}
		used += (size_t)n < size - used ? (size_t)n : size - used - 1;
	}
}

static const char* bsSignalName(int sig)
{
	switch (sig)
	{
		case SIGINT: return "SIGINT";
		case SIGTERM: return "SIGTERM";
		case SIGKILL: return "SIGKILL";
		case SIGSEGV: return "SIGSEGV";
		case SIGABRT: return "SIGABRT";
		case SIGBUS: return "SIGBUS";
		case SIGFPE: return "SIGFPE";
		case SIGILL: return "SIGILL";
		case SIGPIPE: return "SIGPIPE";
		case SIGHUP: return "SIGHUP";
		default: return "?";
	}
}

void bsProcess_Describe(const bsProcessOutput* out, char* text, size_t size)
{
	if (out->state == bs_processSignaled)
	{
		snprintf(text, size, "signal %d (%s)", out->signal, bsSignalName(out->signal));
	}
	else if (out->state == bs_processLost)
	{
		snprintf(text, size, "lost (cannot wait for it: %s)", strerror(out->waitError));
	}
	else
	{
		snprintf(text, size, "exit %d", out->exitCode);
	}
}

bool bsProcess_SelfPath(const char* argv0, char* out, size_t size)
{
	if (size < 2)
	{
		return false;
	}
	ssize_t n = readlink("/proc/self/exe", out, size - 1);
	if (n > 0 && (size_t)n < size - 1)
	{
		out[n] = '\0';
		return true;
	}
	if (argv0 != NULL && strchr(argv0, '/') != NULL && strlen(argv0) < size)
	{
		memcpy(out, argv0, strlen(argv0) + 1);
		return true;
	}
	return false;
}
