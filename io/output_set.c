// output_set.c — the list of a folder's outputs (outputs.txt) and the commit that replaces them.
#include "output_set.h"

#include "array.h"
#include "atomic_file.h"
#include "core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum
{
	bs_outputListMaxBytes = 64 << 20,  // a list of more than a million frames is not ours
	bs_outputNameMax = 255,            // NAME_MAX
};

static const char bs_outputListHeader[] = "# blobsim outputs";

// ---- The list ----

void bsOutputList_Free(bsOutputList* list)
{
	for (size_t i = 0; i < list->count; ++i)
	{
		free(list->names[i]);
	}
	free(list->names);
	list->names = NULL;
	list->count = 0;
	list->complete = true;
}

bool bsOutputList_ValidName(const char* name, size_t n)
{
	// The per-frame logs' and caches' folders: "logs/NAME" and "cache/NAME", one level.
	size_t logs = sizeof(BS_OUTPUT_LOGS_NAME "/") - 1, cache = sizeof(BS_OUTPUT_CACHE_NAME "/") - 1;
	if (n > logs && memcmp(name, BS_OUTPUT_LOGS_NAME "/", logs) == 0)
	{
		name += logs;
		n -= logs;
	}
	else if (n > cache && memcmp(name, BS_OUTPUT_CACHE_NAME "/", cache) == 0)
	{
		name += cache;
		n -= cache;
	}
	if (n == 0 || n > bs_outputNameMax || (n == 1 && name[0] == '.') || (n == 2 && name[0] == '.' && name[1] == '.'))
	{
		return false;
	}
	if (n == sizeof(BS_OUTPUT_LIST_NAME) - 1 && memcmp(name, BS_OUTPUT_LIST_NAME, n) == 0)
	{
		return false;
	}
	for (size_t k = 0; k < n; ++k)
	{
		if (name[k] == '/' || name[k] == '\n' || name[k] == '\r' || name[k] == '\0')
		{
			return false;
		}
	}
	return true;
}

static bool bsOutputList_Contains(const bsOutputList* list, const char* name)
{
	for (size_t i = 0; i < list->count; ++i)
	{
		if (strcmp(list->names[i], name) == 0)
		{
			return true;
		}
	}
	return false;
}

// Appends a copy of name[0..n) unless the list has it. False on out of memory.
static bool bsOutputList_Add(bsOutputList* list, const char* name, size_t n)
{
	char* copy = malloc(n + 1);
	if (copy == NULL)
	{
		return false;
	}
	memcpy(copy, name, n);
	copy[n] = '\0';
	if (bsOutputList_Contains(list, copy))
	{
		free(copy);
		return true;
	}
	if (!BS_ARRAY_RESERVE(list->names, list->capacity, list->count + 1))
	{
		free(copy);
		return false;
	}
	list->names[list->count++] = copy;
	return true;
}

bool bsOutputList_Parse(const char* text, size_t n, const char* where, bsOutputList* list, char* err,
	size_t errlen)
{
	memset(list, 0, sizeof(*list));
	list->complete = true;
	size_t at = 0;
	for (int line = 1; at < n; ++line)
	{
		const char* end = memchr(text + at, '\n', n - at);
		size_t len = end != NULL ? (size_t)(end - (text + at)) : n - at;
		const char* s = text + at;
		at += len + (end != NULL);
		if (line == 1)
		{
			if (len != sizeof(bs_outputListHeader) - 1 || memcmp(s, bs_outputListHeader, len) != 0)
			{
				snprintf(err, errlen, "%s:1: not a list of blobsim's outputs (the first line is not '%s'); move "
					"the file away, blobsim does not replace it", where, bs_outputListHeader);
				bsOutputList_Free(list);
				return false;
			}
			continue;
		}
		if (len == 0)
		{
			continue;
		}
		if (s[0] == '#')
		{
			static const char replacing[] = "# state: replacing";
			if (len == sizeof(replacing) - 1 && memcmp(s, replacing, len) == 0)
			{
				list->complete = false;
			}
			continue;
		}
		if (!bsOutputList_ValidName(s, len))
		{
			snprintf(err, errlen, "%s:%d: not a file name in the folder: '%.*s'", where, line, (int)(len > 80 ? 80 : len), s);
			bsOutputList_Free(list);
			return false;
		}
		if (!bsOutputList_Add(list, s, len))
		{
			snprintf(err, errlen, "%s: out of memory", where);
			bsOutputList_Free(list);
			return false;
		}
	}
	if (n == 0)
	{
		snprintf(err, errlen, "%s: empty, not a list of blobsim's outputs; move the file away, blobsim does not "
			"replace it", where);
		return false;
	}
	return true;
}

static void bsListPath(char* out, size_t size, const char* dir)
{
	snprintf(out, size, "%s/%s", dir, BS_OUTPUT_LIST_NAME);
}

bool bsOutputList_Read(const char* dir, bsOutputList* list, char* err, size_t errlen)
{
	memset(list, 0, sizeof(*list));
	list->complete = true;
	char path[4096 + 32];
	bsListPath(path, sizeof(path), dir);
	// O_NONBLOCK: a FIFO in its place must not hang the run; fstat then refuses it.
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
	{
		if (errno == ENOENT)
		{
			return true;
		}
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
	{
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > bs_outputListMaxBytes)
	{
		snprintf(err, errlen, "%s: not a list of blobsim's outputs (%s); move it away, blobsim does not replace it",
			path, S_ISREG(st.st_mode) ? "too large" : "not a regular file");
		close(fd);
		return false;
	}
	size_t size = (size_t)st.st_size;
	char* text = malloc(size + 1);
	size_t got = 0;
	while (text != NULL && got < size)
	{
		ssize_t r = read(fd, text + got, size - got);
		if (r < 0 && errno == EINTR)
		{
			continue;
		}
		if (r <= 0)
		{
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (text == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	bool ok = bsOutputList_Parse(text, got, path, list, err, errlen);
	free(text);
	return ok;
}

// Writes the list now (even while the group is open), replacing DIR/outputs.txt whole.
static bool bsOutputList_Write(const char* dir, const bsOutputList* list, bool complete, char* err, size_t errlen)
{
	char path[4096 + 32];
	bsListPath(path, sizeof(path), dir);
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, err, errlen))
	{
		return false;
	}
	bsAtomicFile_Printf(&f,
		"%s\n"
		"# The files the last blobsim run wrote in this folder. The next run into it removes those it does\n"
		"# not write again; it never touches a file that is not listed here.\n"
		"# state: %s\n",
		bs_outputListHeader, complete ? "complete" : "replacing");
	if (!complete)
	{
		bsAtomicFile_Printf(&f, "# (a run was stopped while it replaced the outputs: the files may come from two "
			"runs; the next run tidies them)\n");
	}
	for (size_t i = 0; i < list->count; ++i)
	{
		bsAtomicFile_Printf(&f, "%s\n", list->names[i]);
	}
	return bsAtomicFile_Commit(&f, bs_atomicFileNow);
}

// ---- Leftovers of killed runs ----

static bool bsIsAlnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The endings blobsim gives its temporary files after "<name>.tmp.<node>.<pid>.": atomic_file.c's "bs"
// and six random characters (files and private folders), or the older renders' and movies' extensions.
static bool bsTempEnding(const char* s)
{
	static const char* const endings[] = {"png", "log", "pov", "pov-state", "mp4", "gif"};
	for (int i = 0; i < BS_COUNT(endings); ++i)
	{
		if (strcmp(s, endings[i]) == 0)
		{
			return true;
		}
	}
	if (s[0] != 'b' || s[1] != 's')
	{
		return false;
	}
	size_t n = 0;
	while (bsIsAlnum(s[2 + n]))
	{
		++n;
	}
	return n == 6 && s[8] == '\0';
}

static bool bsNodeChar(char c)
{
	return bsIsAlnum(c) || c == '-' || c == '_';
}

// "<pid>.<ending>" at d: the pid, or 0.
static pid_t bsTempPidEnding(const char* d)
{
	long pid = 0;
	size_t digits = 0;
	while (d[digits] >= '0' && d[digits] <= '9' && digits < 10)
	{
		pid = pid * 10 + (d[digits] - '0');
		++digits;
	}
	bool ok = digits > 0 && d[0] != '0' && d[digits] == '.' && pid <= INT_MAX && bsTempEnding(d + digits + 1);
	return ok ? (pid_t)pid : 0;
}

bool bsOutputSet_TempOwner(const char* name, bsTempOwner* owner)
{
	memset(owner, 0, sizeof(*owner));
	// The last ".tmp." that parses: a target's own name may hold ".tmp." too.
	for (const char* at = strstr(name, ".tmp."); at != NULL; at = strstr(at + 1, ".tmp."))
	{
		const char* d = at + 5;
		if (at == name)
		{
			continue;
		}
		pid_t pid = bsTempPidEnding(d);
		if (pid > 0)
		{
			*owner = (bsTempOwner){.pid = pid};  // an older blobsim's name: no node
			continue;
		}
		size_t n = 0;
		while (bsNodeChar(d[n]) && n + 1 < sizeof(owner->node))
		{
			++n;
		}
		pid = n > 0 && d[n] == '.' ? bsTempPidEnding(d + n + 1) : 0;
		if (pid > 0)
		{
			*owner = (bsTempOwner){.pid = pid};
			memcpy(owner->node, d, n);
		}
	}
	return owner->pid > 0;
}

pid_t bsOutputSet_TempPid(const char* name)
{
	bsTempOwner owner;
	return bsOutputSet_TempOwner(name, &owner) ? owner.pid : 0;
}

// Only ESRCH says the writer is gone: EPERM is a live process of another user.
static bool bsProcessGone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

bool bsOutputSet_OwnerDead(const char* node, pid_t pid, time_t touched, int staleSeconds)
{
	if (node[0] != '\0' && strcmp(node, bsAtomicFile_Node()) == 0)
	{
		return pid != getpid() && bsProcessGone(pid);
	}
	return time(NULL) - touched > staleSeconds;
}

// The last change in a private folder: its own time or its newest file's (a live POV-Ray's log grows).
static time_t bsFolderTouched(int fd, time_t own)
{
	int dup = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR* d = dup >= 0 ? fdopendir(dup) : NULL;
	if (d == NULL)
	{
		if (dup >= 0)
		{
			close(dup);
		}
		return own;
	}
	struct dirent* e;
	struct stat st;
	while ((e = readdir(d)) != NULL)
	{
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime > own)
		{
			own = st.st_mtime;
		}
	}
	closedir(d);
	return own;
}

// Removes dir's entry NAME, a dead run's temporary file or private folder; false when it is neither
// (a link, a device) or is not gone.
static bool bsRemoveTemp(int dirFd, const char* name, const bsTempOwner* owner)
{
	struct stat st;
	if (fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		return false;
	}
	if (S_ISREG(st.st_mode))
	{
		return bsOutputSet_OwnerDead(owner->node, owner->pid, st.st_mtime, BS_TEMP_STALE_SECONDS) &&
			unlinkat(dirFd, name, 0) == 0;
	}
	if (!S_ISDIR(st.st_mode) || owner->node[0] == '\0')
	{
		return false;  // only a node's private folders, never a link or an older name's folder
	}
	int fd = openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
	{
		return false;
	}
	bool dead = bsOutputSet_OwnerDead(owner->node, owner->pid, bsFolderTouched(fd, st.st_mtime), BS_TEMP_STALE_SECONDS);
	if (dead)
	{
		bsRemoveFolderFiles(fd);
	}
	close(fd);
	return dead && unlinkat(dirFd, name, AT_REMOVEDIR) == 0;
}

// bsOutputSet_RemoveDeadTemps in the folder dirFd (closed here), shown as `shown` in the notices.
static int bsRemoveDeadTempsIn(int dirFd, const char* shown, FILE* notices)
{
	DIR* d = dirFd >= 0 ? fdopendir(dirFd) : NULL;
	if (d == NULL)
	{
		if (dirFd >= 0)
		{
			close(dirFd);
		}
		return 0;
	}
	int removed = 0;
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		bsTempOwner owner;
		if (!bsOutputSet_TempOwner(e->d_name, &owner) || !bsRemoveTemp(dirfd(d), e->d_name, &owner))
		{
			continue;
		}
		++removed;
		if (notices != NULL)
		{
			fprintf(notices, "blobsim: removed %s/%s, a temporary file left by run %ld%s%s, which %s\n", shown,
				e->d_name, (long)owner.pid, owner.node[0] != '\0' ? " on " : "", owner.node,
				owner.node[0] != '\0' && strcmp(owner.node, bsAtomicFile_Node()) == 0
					? "was killed before it finished" : "has not touched it for a day");
		}
	}
	closedir(d);
	return removed;
}

int bsOutputSet_RemoveDeadTemps(const char* dir, FILE* notices)
{
	int removed = bsRemoveDeadTempsIn(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dir, notices);
	// The folders a run writes into besides the output folder itself (never through a link).
	static const char* const inner[] = {BS_OUTPUT_CACHE_NAME, BS_OUTPUT_LOGS_NAME};
	for (size_t k = 0; k < sizeof(inner) / sizeof(inner[0]); ++k)
	{
		char path[4096 + 32];
		snprintf(path, sizeof(path), "%s/%s", dir, inner[k]);
		removed += bsRemoveDeadTempsIn(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), path, notices);
	}
	return removed;
}

int bsOutputSet_OpenLogs(const char* dir, bool make)
{
	char path[4096 + 32];
	snprintf(path, sizeof(path), "%s/%s", dir, BS_OUTPUT_LOGS_NAME);
	if (make && mkdir(path, 0777) != 0 && errno != EEXIST)
	{
		return -1;
	}
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int bsOutputSet_OpenFolderOf(const char* dir, const char* name)
{
	size_t logs = sizeof(BS_OUTPUT_LOGS_NAME "/") - 1, cache = sizeof(BS_OUTPUT_CACHE_NAME "/") - 1;
	if (strncmp(name, BS_OUTPUT_LOGS_NAME "/", logs) == 0)
	{
		return bsOutputSet_OpenLogs(dir, false);
	}
	if (strncmp(name, BS_OUTPUT_CACHE_NAME "/", cache) != 0)
	{
		return -1;
	}
	char path[4096 + 32];
	snprintf(path, sizeof(path), "%s/%s", dir, BS_OUTPUT_CACHE_NAME);
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// ---- The folder's lock ----

int bsOutputSet_Lock(const char* dir, char* err, size_t errlen)
{
	char path[4096 + 32];
	snprintf(path, sizeof(path), "%s/%s", dir, BS_OUTPUT_LOCK_NAME);
	// Never through a link, never blocking on a FIFO: only a regular file is a lock.
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		snprintf(err, errlen, "%s: cannot use as the folder's lock: %s", path,
			fd < 0 ? strerror(errno) : "not a regular file; move it away");
		if (fd >= 0)
		{
			close(fd);
		}
		return -1;
	}
	int r;
	while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
	{
	}
	if (r != 0)
	{
		snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void bsOutputSet_Unlock(int fd)
{
	if (fd >= 0)
	{
		close(fd);  // releases the lock
	}
}

bool bsOutputSet_ListNow(const char* dir, const char* name, char* err, size_t errlen)
{
	return bsOutputSet_ListManyNow(dir, &name, 1, err, errlen);
}

bool bsOutputSet_ListManyNow(const char* dir, const char* const* names, size_t count, char* err, size_t errlen)
{
	int lock = bsOutputSet_Lock(dir, err, errlen);
	bsOutputList list;
	if (lock < 0 || !bsOutputList_Read(dir, &list, err, errlen))
	{
		bsOutputSet_Unlock(lock);
		return false;
	}
	size_t before = list.count;
	bool ok = true;
	for (size_t i = 0; ok && i < count; ++i)
	{
		ok = bsOutputList_Add(&list, names[i], strlen(names[i]));
	}
	if (!ok)
	{
		snprintf(err, errlen, "%s/%s: out of memory", dir, BS_OUTPUT_LIST_NAME);
	}
	ok = ok && (list.count == before || bsOutputList_Write(dir, &list, list.complete, err, errlen));
	bsOutputList_Free(&list);
	bsOutputSet_Unlock(lock);
	return ok;
}

// ---- The commit ----

bool bsOutputSet_Begin(const char* dir, char* err, size_t errlen)
{
	bsOutputList previous;
	bool ok = bsOutputList_Read(dir, &previous, err, errlen);
	bsOutputList_Free(&previous);
	if (ok)
	{
		bsOutputSet_RemoveDeadTemps(dir, stderr);
	}
	if (ok)
	{
		bsAtomicFile_BeginDeferred();
	}
	return ok;
}

// The names of the group's targets that are files directly in dir, in the group's order.
static bool bsOutputSet_GroupNames(const char* dir, bsOutputList* names)
{
	memset(names, 0, sizeof(*names));
	names->complete = true;
	char** targets;
	size_t count;
	if (!bsAtomicFile_DeferredTargets(&targets, &count))
	{
		return false;
	}
	size_t d = strlen(dir);
	bool ok = true;
	for (size_t i = 0; i < count; ++i)
	{
		const char* t = targets[i];
		if (ok && strncmp(t, dir, d) == 0 && t[d] == '/' && bsOutputList_ValidName(t + d + 1, strlen(t + d + 1)))
		{
			ok = bsOutputList_Add(names, t + d + 1, strlen(t + d + 1));
		}
		free(targets[i]);
	}
	free(targets);
	return ok;
}

// Removes the files of previous that the new set does not have. Those it cannot remove stay in the
// new set (still listed, for a later run) and the first failure goes to err.
static bool bsOutputSet_RemoveStale(const char* dir, const bsOutputList* previous, bsOutputList* next, char* err,
	size_t errlen)
{
	bool ok = true, removedLogs = false, removedCache = false;
	for (size_t i = 0; i < previous->count; ++i)
	{
		const char* name = previous->names[i];
		if (bsOutputList_Contains(next, name))
		{
			continue;
		}
		char path[4096 + 300];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		// A name in logs/ or cache/ through the folder opened without following a link: never a file
		// elsewhere.
		const char* slash = strchr(name, '/');
		int at = slash != NULL ? bsOutputSet_OpenFolderOf(dir, name) : AT_FDCWD;
		const char* leaf = slash != NULL ? slash + 1 : path;
		struct stat st;
		// Only files: a directory of that name is not one a run wrote.
		bool gone = at == -1 || fstatat(at, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode) ||
			unlinkat(at, leaf, 0) == 0 || errno == ENOENT;
		if (at >= 0)
		{
			close(at);
		}
		bool inCache = slash != NULL && strncmp(name, BS_OUTPUT_CACHE_NAME "/", sizeof(BS_OUTPUT_CACHE_NAME)) == 0;
		removedLogs = removedLogs || (slash != NULL && !inCache && gone);
		removedCache = removedCache || (inCache && gone);
		if (gone)
		{
			continue;
		}
		if (ok)
		{
			snprintf(err, errlen, "%s: cannot remove this output of the earlier run: %s", path, strerror(errno));
		}
		ok = false;
		bsOutputList_Add(next, name, strlen(name));
	}
	if (removedLogs)
	{
		char logs[4096 + 32];
		snprintf(logs, sizeof(logs), "%s/%s", dir, BS_OUTPUT_LOGS_NAME);
		rmdir(logs);  // the logs' folder once its last log is gone (not a link: rmdir refuses one)
	}
	if (removedCache)
	{
		char cache[4096 + 32];
		snprintf(cache, sizeof(cache), "%s/%s", dir, BS_OUTPUT_CACHE_NAME);
		rmdir(cache);  // likewise the caches' folder
	}
	return ok;
}

// Whether a regular file's first bytes are what blobsim writes at an output's name: "blobsim" among
// them (its scenes, includes, PLY files, summaries, animation files, lists), a PNG's signature (the
// images; the user's own renders of the folder's scenes too), or POV-Ray's banner (render logs).
static bool bsOutputSet_Ours(int fd)
{
	char head[512];
	ssize_t n = read(fd, head, sizeof(head) - 1);
	if (n <= 0)
	{
		return n == 0;  // an empty file holds nothing to lose
	}
	head[n] = '\0';
	static const char png[8] = {'\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n'};
	for (ssize_t i = 0; i < n; ++i)
	{
		head[i] = head[i] == '\0' ? ' ' : head[i];  // binary PLY bodies: search the text before them
	}
	return (n >= 8 && memcmp(head, png, 8) == 0) || strstr(head, "blobsim") != NULL ||
		strstr(head, "Persistence of Vision") != NULL;
}

// Whether DIR/name is a regular file of someone else's (not bsOutputSet_Ours), with the message in
// err. Nothing there, a link (a rename replaces it, never follows it) or no regular file: false.
static bool bsOutputSet_Foreign(const char* dir, const char* name, char* err, size_t errlen)
{
	char path[4096 + 256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool foreign = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !bsOutputSet_Ours(fd);
	if (fd >= 0)
	{
		close(fd);
	}
	if (foreign)
	{
		snprintf(err, errlen, "%s: not a file blobsim wrote (%s does not list it and its content is not "
			"blobsim's); move the file away, blobsim does not replace it", path, BS_OUTPUT_LIST_NAME);
	}
	return foreign;
}

// A target of the commit that the previous list does not name and that is someone else's file stops
// the commit before anything is renamed: a run never replaces a file it did not write.
static bool bsOutputSet_CheckForeign(const char* dir, const bsOutputList* previous, const bsOutputList* next,
	char* err, size_t errlen)
{
	for (size_t i = 0; i < next->count; ++i)
	{
		if (!bsOutputList_Contains(previous, next->names[i]) && bsOutputSet_Foreign(dir, next->names[i], err, errlen))
		{
			return false;
		}
	}
	return true;
}

bool bsOutputSet_Replaceable(const char* dir, const char* name, char* err, size_t errlen)
{
	// The file first: nearly always nothing is there, or blobsim's own image, and the list (read once
	// an image, for every image of a long animation) need not be read at all.
	char foreign[4096 + 512];
	if (!bsOutputSet_Foreign(dir, name, foreign, sizeof(foreign)))
	{
		return true;
	}
	bsOutputList list;
	if (!bsOutputList_Read(dir, &list, err, errlen))
	{
		return false;
	}
	bool ok = bsOutputList_Contains(&list, name);
	bsOutputList_Free(&list);
	if (!ok)
	{
		snprintf(err, errlen, "%s", foreign);
	}
	return ok;
}

bool bsOutputSet_Commit(const char* dir, bsOutputSetMode mode, char* err, size_t errlen)
{
	bsOutputList previous, next, all;
	memset(&all, 0, sizeof(all));
	// Read, changed and written back by one command at a time: runs and renders committing into one
	// folder at the same moment (a render farm's tasks) each keep every other's entries.
	int lock = bsOutputSet_Lock(dir, err, errlen);
	if (lock < 0 || !bsOutputList_Read(dir, &previous, err, errlen))
	{
		bsOutputSet_Unlock(lock);
		bsAtomicFile_AbortDeferred();
		return false;
	}
	bool named = bsOutputSet_GroupNames(dir, &next);
	if (!named)
	{
		snprintf(err, errlen, "%s/%s: out of memory", dir, BS_OUTPUT_LIST_NAME);
	}
	if (!named || !bsOutputSet_CheckForeign(dir, &previous, &next, err, errlen))
	{
		bsOutputList_Free(&previous);
		if (named)
		{
			bsOutputList_Free(&next);
		}
		bsOutputSet_Unlock(lock);
		bsAtomicFile_AbortDeferred();
		return false;
	}
	// The list during the renames: every file of either run.
	bool ok = true;
	for (size_t i = 0; ok && i < previous.count; ++i)
	{
		ok = bsOutputList_Add(&all, previous.names[i], strlen(previous.names[i]));
	}
	for (size_t i = 0; ok && i < next.count; ++i)
	{
		ok = bsOutputList_Add(&all, next.names[i], strlen(next.names[i]));
	}
	if (!ok)
	{
		snprintf(err, errlen, "%s/%s: out of memory", dir, BS_OUTPUT_LIST_NAME);
	}

	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ok = ok && bsOutputList_Write(dir, &all, false, err, errlen);
	if (!ok)
	{
		bsAtomicFile_AbortDeferred();  // nothing renamed: DIR as it was
	}
	else if (!bsAtomicFile_CommitDeferred(err, errlen))
	{
		ok = false;  // some files renamed, the rest removed; the list covers both runs
	}
	else if (mode == bs_outputSetAdd)
	{
		ok = bsOutputList_Write(dir, &all, previous.complete, err, errlen);
	}
	else
	{
		ok = bsOutputSet_RemoveStale(dir, &previous, &next, err, errlen);
		char ignored[512];
		bool written = bsOutputList_Write(dir, &next, true, ok ? err : ignored, ok ? errlen : sizeof(ignored));
		ok = ok && written;
	}
	bsOutputSet_Unlock(lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	bsOutputList_Free(&previous);
	bsOutputList_Free(&next);
	bsOutputList_Free(&all);
	return ok;
}
