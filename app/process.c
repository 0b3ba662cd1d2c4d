// process.c — child processes: posix_spawn, a stderr capture pipe, waitpid.
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

// Held from pipe() to the end of posix_spawn, so no other thread's child inherits the pipe between
// its creation and the close-on-exec flag.
static pthread_mutex_t bs_spawnLock = PTHREAD_MUTEX_INITIALIZER;

static bool bsSetCloseOnExec(int fd)
{
	int flags = fcntl(fd, F_GETFD);
	return flags >= 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

bool bsProcess_Start(const bsProcessInput* in, bsProcess* p, char* err, size_t errlen)
{
	p->pid = -1;
	p->stderrFd = -1;
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	if (posix_spawn_file_actions_init(&actions) != 0)
	{
		snprintf(err, errlen, "cannot start %s: out of memory", in->program);
		return false;
	}
	if (posix_spawnattr_init(&attr) != 0)
	{
		posix_spawn_file_actions_destroy(&actions);
		snprintf(err, errlen, "cannot start %s: out of memory", in->program);
		return false;
	}
	sigset_t none, defaults;
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

	pthread_mutex_lock(&bs_spawnLock);
	int fds[2];
	int rc = 0;
	if (pipe(fds) != 0)
	{
		rc = errno;
	}
	else if (!bsSetCloseOnExec(fds[0]) || !bsSetCloseOnExec(fds[1]))
	{
		rc = errno;
		close(fds[0]);
		close(fds[1]);
	}
	if (rc == 0)
	{
		// dup2 onto 2 clears close-on-exec on the child's copy only.
		posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
		posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&actions, 1, in->stdoutPath != NULL ? in->stdoutPath : "/dev/null",
			O_WRONLY | O_CREAT | O_TRUNC, 0666);
		pid_t pid;
		rc = posix_spawn(&pid, in->program, &actions, &attr, in->argv, environ);
		close(fds[1]);
		if (rc == 0)
		{
			p->pid = pid;
			p->stderrFd = fds[0];
		}
		else
		{
			close(fds[0]);
		}
	}
	pthread_mutex_unlock(&bs_spawnLock);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0)
	{
		snprintf(err, errlen, "cannot start %s: %s", in->program, strerror(rc));
		return false;
	}
	return true;
}

void bsProcess_Wait(bsProcess* p, bsProcessOutput* out)
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
	int status = 0;
	pid_t r;
	while ((r = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
	{
	}
	p->pid = -1;
	if (r < 0)
	{
		// Reaped elsewhere (against the rules in process.h): report an unknown failure.
		out->state = bs_processExited;
		out->exitCode = 255;
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
