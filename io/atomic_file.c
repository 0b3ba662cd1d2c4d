#include "atomic_file.h"

#include "array.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// ---- The signal-cleanup registry ------------------------------------------------------------------
//
// A fixed table: no allocation, no locks. A slot's state moves
//     free -> filling (owner copies the path) -> armed (published)
//     armed -> free                             (owner: Commit/Abort)
//     armed -> unlinking -> cleaned             (signal handler)
//     cleaned -> free                           (owner, later)
// Only the owner writes the path, and only while the slot is 'filling'; the handler reads it only
// after winning armed -> unlinking, so it never sees a half-written path. All transitions are
// compare-exchanges on lock-free atomics, which C11 (7.14.1) allows in a signal handler.

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal-cleanup registry needs lock-free atomic int");

enum
{
	bsSlotFree = 0,
	bsSlotFilling,
	bsSlotArmed,
	bsSlotUnlinking,
	bsSlotCleaned,
};

enum
{
	bsRegistrySize = 64,
	bsRegistryPathMax = 4096,
};

typedef struct bsTempSlot
{
	atomic_int state;
	char path[bsRegistryPathMax];
} bsTempSlot;

static bsTempSlot bsTempSlots[bsRegistrySize];

static int bsRegistry_Add(const char* path)
{
	size_t len = strlen(path);
	if (len >= bsRegistryPathMax)
	{
		return -1;
	}
	for (int i = 0; i < bsRegistrySize; ++i)
	{
		int expected = bsSlotFree;
		if (atomic_compare_exchange_strong(&bsTempSlots[i].state, &expected, bsSlotFilling))
		{
			memcpy(bsTempSlots[i].path, path, len + 1);
			atomic_store(&bsTempSlots[i].state, bsSlotArmed);
			return i;
		}
	}
	return -1;
}

static void bsRegistry_Remove(int slot)
{
	if (slot < 0 || slot >= bsRegistrySize)
	{
		return;
	}
	atomic_int* state = &bsTempSlots[slot].state;
	for (;;)
	{
		int expected = bsSlotArmed;
		if (atomic_compare_exchange_strong(state, &expected, bsSlotFree))
		{
			return;
		}
		if (expected == bsSlotCleaned)
		{
			atomic_store(state, bsSlotFree);
			return;
		}
		// bsSlotUnlinking: a handler on another thread is inside unlink(); it finishes promptly.
	}
}

// Files committed in a deferred group (closed, waiting for their rename) move to a second, larger
// table (a run may defer thousands of frames): same states and protocol, but the slot points at the
// path (a string owned by the group's list, never changed or freed while the slot is armed) instead
// of holding a copy.
enum
{
	bsDeferredSlotCount = 16384,
};

typedef struct bsDeferredSlot
{
	atomic_int state;
	const char* path;
} bsDeferredSlot;

static bsDeferredSlot bsDeferredSlots[bsDeferredSlotCount];

static int bsDeferredSlot_Add(const char* path)
{
	for (int i = 0; i < bsDeferredSlotCount; ++i)
	{
		int expected = bsSlotFree;
		if (atomic_compare_exchange_strong(&bsDeferredSlots[i].state, &expected, bsSlotFilling))
		{
			bsDeferredSlots[i].path = path;
			atomic_store(&bsDeferredSlots[i].state, bsSlotArmed);
			return i;
		}
	}
	return -1;
}

static void bsDeferredSlot_Remove(int slot)
{
	if (slot < 0 || slot >= bsDeferredSlotCount)
	{
		return;
	}
	atomic_int* state = &bsDeferredSlots[slot].state;
	for (;;)
	{
		int expected = bsSlotArmed;
		if (atomic_compare_exchange_strong(state, &expected, bsSlotFree))
		{
			return;
		}
		if (expected == bsSlotCleaned)
		{
			atomic_store(state, bsSlotFree);
			return;
		}
	}
}

// Removes the deferred slots' files; with folders, the folders (private folders, emptied by the
// first pass) instead: a folder's slot stays armed through the first pass.
static void bsDeferredSlots_Clean(bool folders)
{
	for (int i = 0; i < bsDeferredSlotCount; ++i)
	{
		int expected = bsSlotArmed;
		if (atomic_compare_exchange_strong(&bsDeferredSlots[i].state, &expected, bsSlotUnlinking))
		{
			bool done = folders ? (rmdir(bsDeferredSlots[i].path), true)
				: unlink(bsDeferredSlots[i].path) == 0 || errno != EISDIR;
			atomic_store(&bsDeferredSlots[i].state, done ? bsSlotCleaned : bsSlotArmed);
		}
	}
}

void bsAtomicFile_CleanupOnSignal(void)
{
	int saved = errno;
	bsDeferredSlots_Clean(false);
	bsDeferredSlots_Clean(true);
	for (int i = 0; i < bsRegistrySize; ++i)
	{
		int expected = bsSlotArmed;
		if (atomic_compare_exchange_strong(&bsTempSlots[i].state, &expected, bsSlotUnlinking))
		{
			unlink(bsTempSlots[i].path);
			atomic_store(&bsTempSlots[i].state, bsSlotCleaned);
		}
	}
	errno = saved;
}

int bsAtomicFile_PendingCount(void)
{
	int count = 0;
	for (int i = 0; i < bsRegistrySize; ++i)
	{
		count += atomic_load(&bsTempSlots[i].state) != bsSlotFree;
	}
	for (int i = 0; i < bsDeferredSlotCount; ++i)
	{
		count += atomic_load(&bsDeferredSlots[i].state) != bsSlotFree;
	}
	return count;
}

// ---- Deferred commits ----------------------------------------------------------------------------

typedef struct bsDeferredFile
{
	char* path;     // the target; NULL for a scratch file (bsAtomicFile_DeferRemoval)
	char* tmpPath;  // NULL for a kept file (bsAtomicFile_DeferKeep)
	int slot;       // -1 for a kept file
} bsDeferredFile;

static pthread_mutex_t bsDeferredLock = PTHREAD_MUTEX_INITIALIZER;
static bool bsDeferredOpen;
static bsDeferredFile* bsDeferredFiles;
static size_t bsDeferredCount, bsDeferredCapacity;

// Arms a deferred slot for tmpPath; -1 for a kept file (no temporary file).
static int bsDeferred_Arm(const char* tmpPath)
{
	return tmpPath != NULL ? bsDeferredSlot_Add(tmpPath) : -1;
}

// Takes ownership of path (NULL: a scratch file) and tmpPath (NULL: a kept file) and arms a deferred
// slot for tmpPath (when one is free: beyond 16384 files the rest are not covered by the signal
// cleanup). Returns false (owning nothing) on out of memory or when no group is open. Called with
// the lock held.
static bool bsDeferred_AddLocked(char* path, char* tmpPath)
{
	if (!bsDeferredOpen)
	{
		return false;
	}
	for (size_t i = 0; i < bsDeferredCount && path != NULL; ++i)
	{
		bsDeferredFile* d = bsDeferredFiles + i;
		if (d->path != NULL && strcmp(d->path, path) == 0)
		{
			if (tmpPath == NULL)
			{
				// Keeping the file as it is never replaces new content for it.
				free(path);
				return true;
			}
			// The later file wins; the earlier one goes.
			if (d->tmpPath != NULL)
			{
				unlink(d->tmpPath);
			}
			bsDeferredSlot_Remove(d->slot);
			free(d->path);
			free(d->tmpPath);
			d->path = path;
			d->tmpPath = tmpPath;
			d->slot = bsDeferred_Arm(tmpPath);
			return true;
		}
	}
	if (!BS_ARRAY_RESERVE(bsDeferredFiles, bsDeferredCapacity, bsDeferredCount + 1))
	{
		return false;
	}
	bsDeferredFiles[bsDeferredCount].path = path;
	bsDeferredFiles[bsDeferredCount].tmpPath = tmpPath;
	bsDeferredFiles[bsDeferredCount].slot = bsDeferred_Arm(tmpPath);
	++bsDeferredCount;
	return true;
}

static void bsDeferred_Drop(bsDeferredFile* d, bool remove)
{
	if (remove && d->tmpPath != NULL && unlink(d->tmpPath) != 0 && errno == EISDIR)
	{
		rmdir(d->tmpPath);  // a private folder: its files are listed after it, so the abort (which
		                    // goes backwards) has removed them
	}
	bsDeferredSlot_Remove(d->slot);
	free(d->path);
	free(d->tmpPath);
	memset(d, 0, sizeof(*d));
}

static void bsDeferred_EndLocked(void)
{
	free(bsDeferredFiles);
	bsDeferredFiles = NULL;
	bsDeferredCount = 0;
	bsDeferredCapacity = 0;
	bsDeferredOpen = false;
}

void bsAtomicFile_BeginDeferred(void)
{
	pthread_mutex_lock(&bsDeferredLock);
	bsDeferredOpen = true;
	pthread_mutex_unlock(&bsDeferredLock);
}

bool bsAtomicFile_CommitDeferred(char* errbuf, size_t errlen)
{
	pthread_mutex_lock(&bsDeferredLock);
	bool ok = true;
	for (size_t i = 0; i < bsDeferredCount; ++i)
	{
		bsDeferredFile* d = bsDeferredFiles + i;
		if (d->path == NULL)
		{
			bsDeferred_Drop(d, true);  // a scratch file goes either way
			continue;
		}
		if (ok && d->tmpPath != NULL && rename(d->tmpPath, d->path) != 0)
		{
			int e = errno;
			if (errbuf != NULL && errlen > 0)
			{
				snprintf(errbuf, errlen, "%s: cannot replace: %s", d->path, strerror(e));
			}
			ok = false;
		}
		// After a successful rename the slot's path names nothing; a signal in between unlinks nothing.
		bsDeferred_Drop(d, !ok);
	}
	bsDeferred_EndLocked();
	pthread_mutex_unlock(&bsDeferredLock);
	return ok;
}

void bsAtomicFile_AbortDeferred(void)
{
	pthread_mutex_lock(&bsDeferredLock);
	for (size_t i = bsDeferredCount; i-- > 0;)
	{
		bsDeferred_Drop(bsDeferredFiles + i, true);
	}
	bsDeferred_EndLocked();
	pthread_mutex_unlock(&bsDeferredLock);
}

const char* bsAtomicFile_DeferredPath(const char* path)
{
	const char* found = NULL;
	pthread_mutex_lock(&bsDeferredLock);
	for (size_t i = 0; i < bsDeferredCount && found == NULL; ++i)
	{
		if (bsDeferredFiles[i].path != NULL && strcmp(bsDeferredFiles[i].path, path) == 0)
		{
			found = bsDeferredFiles[i].tmpPath;
		}
	}
	pthread_mutex_unlock(&bsDeferredLock);
	return found;
}

// DeferFile (path: the target), DeferRemoval (path NULL) and DeferKeep (tmpPath NULL): copies the
// names into the open group.
static bool bsDeferred_AddCopies(const char* tmpPath, const char* path, char* errbuf, size_t errlen)
{
	char* p = path != NULL ? strdup(path) : NULL;
	char* t = tmpPath != NULL ? strdup(tmpPath) : NULL;
	pthread_mutex_lock(&bsDeferredLock);
	bool open = bsDeferredOpen;
	bool ok = (p != NULL || path == NULL) && (t != NULL || tmpPath == NULL) && bsDeferred_AddLocked(p, t);
	pthread_mutex_unlock(&bsDeferredLock);
	if (!ok)
	{
		free(p);
		free(t);
		if (errbuf != NULL && errlen > 0)
		{
			snprintf(errbuf, errlen, "%s: cannot create: %s", path != NULL ? path : tmpPath,
				open ? strerror(ENOMEM) : "no deferred group open");
		}
	}
	return ok;
}

bool bsAtomicFile_DeferKeep(const char* path, char* errbuf, size_t errlen)
{
	return bsDeferred_AddCopies(NULL, path, errbuf, errlen);
}

bool bsAtomicFile_DeferredTargets(char*** targets, size_t* count)
{
	*targets = NULL;
	*count = 0;
	pthread_mutex_lock(&bsDeferredLock);
	char** list = malloc((bsDeferredCount + 1) * sizeof(char*));
	size_t n = 0;
	bool ok = list != NULL;
	for (size_t i = 0; ok && i < bsDeferredCount; ++i)
	{
		if (bsDeferredFiles[i].path != NULL)
		{
			list[n] = strdup(bsDeferredFiles[i].path);
			ok = list[n] != NULL;
			n += ok;
		}
	}
	pthread_mutex_unlock(&bsDeferredLock);
	if (!ok)
	{
		for (size_t i = 0; i < n; ++i)
		{
			free(list[i]);
		}
		free(list);
		return false;
	}
	*targets = list;
	*count = n;
	return true;
}

bool bsAtomicFile_DeferFile(const char* tmpPath, const char* path, char* errbuf, size_t errlen)
{
	return bsDeferred_AddCopies(tmpPath, path, errbuf, errlen);
}

bool bsAtomicFile_DeferRemoval(const char* tmpPath, char* errbuf, size_t errlen)
{
	return bsDeferred_AddCopies(tmpPath, NULL, errbuf, errlen);
}

// ---- Errors --------------------------------------------------------------------------------------

static bool bsAtomicFile_Fail(bsAtomicFile* f, const char* what, int err)
{
	if (!f->failed && f->errbuf != NULL && f->errlen > 0)
	{
		char reason[256];
		if (strerror_r(err, reason, sizeof(reason)) != 0)
		{
			snprintf(reason, sizeof(reason), "error %d", err);
		}
		snprintf(f->errbuf, f->errlen, "%s: %s: %s", f->path != NULL ? f->path : "(null)", what, reason);
	}
	f->failed = true;
	return false;
}

// ---- Open ----------------------------------------------------------------------------------------

static void bsAtomicFile_Release(bsAtomicFile* f)
{
	bsRegistry_Remove(f->slot);
	f->slot = -1;
	free(f->path);
	free(f->tmpPath);
	free(f->buffer);
	f->path = NULL;
	f->tmpPath = NULL;
	f->buffer = NULL;
	f->used = 0;
}

static uint64_t bsMix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Six characters of [A-Za-z0-9] from a process-wide counter mixed with the pid and the time: unique
// enough for O_EXCL to settle the rest.
static void bsTempSuffix(char* out)
{
	static atomic_uint_fast64_t counter;
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = (uint64_t)atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
	seed ^= (uint64_t)getpid() << 32;
	seed ^= (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20);
	uint64_t r = bsMix64(seed);
	for (int i = 0; i < 6; ++i)
	{
		out[i] = alphabet[r % 62];
		r /= 62;
	}
	out[6] = '\0';
}

bool bsAtomicFile_Open(bsAtomicFile* f, const char* path, char* errbuf, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->slot = -1;
	f->errbuf = errbuf;
	f->errlen = errlen;
	if (errbuf != NULL && errlen > 0)
	{
		errbuf[0] = '\0';
	}
	if (path == NULL || path[0] == '\0')
	{
		if (errbuf != NULL && errlen > 0)
		{
			snprintf(errbuf, errlen, "%s: cannot create: %s", path == NULL ? "(null)" : "(empty path)",
				strerror(ENOENT));
		}
		f->failed = true;
		return false;
	}
	size_t len = strlen(path);
	f->path = malloc(len + 1);
	// "path.tmp.<node>.<pid>.bsXXXXXX": the node and pid let a later run tell a SIGKILLed writer's
	// leftover from a live writer's file, on this node or another (bsOutputSet_RemoveDeadTemps); "bs"
	// keeps a user's "notes.tmp.12.backup" apart.
	char pidPart[BS_TEMP_NODE_MAX + 48];
	int pidLen = snprintf(pidPart, sizeof(pidPart), ".tmp.%s.%ld.bs", bsAtomicFile_Node(), (long)getpid());
	f->tmpPath = malloc(len + (size_t)pidLen + sizeof("XXXXXX"));
	f->buffer = malloc(bs_atomicFileBufferSize);
	if (f->path == NULL || f->tmpPath == NULL || f->buffer == NULL)
	{
		if (f->path != NULL)
		{
			memcpy(f->path, path, len + 1);
		}
		bsAtomicFile_Fail(f, "cannot create", ENOMEM);
		bsAtomicFile_Release(f);
		return false;
	}
	memcpy(f->path, path, len + 1);

	// Refuse what rename() would refuse late, or should not do at all (replace a device node).
	struct stat st;
	if (stat(path, &st) == 0)
	{
		if (S_ISDIR(st.st_mode))
		{
			bsAtomicFile_Fail(f, "cannot create", EISDIR);
			bsAtomicFile_Release(f);
			return false;
		}
		if (!S_ISREG(st.st_mode))
		{
			if (errbuf != NULL && errlen > 0)
			{
				snprintf(errbuf, errlen, "%s: cannot create: not a regular file", path);
			}
			f->failed = true;
			bsAtomicFile_Release(f);
			return false;
		}
	}

	memcpy(f->tmpPath, path, len);
	memcpy(f->tmpPath + len, pidPart, (size_t)pidLen);
	int err = EEXIST;
	// The name is registered for the signal cleanup before the file exists: a signal between the
	// open() and a later registration would leave the file behind (a handler may run on any thread,
	// so blocking signals here would not close that window). The price: a signal between the
	// registration and an open() that fails with EEXIST unlinks the other file of that random name,
	// which only a concurrent writer of the same target can have made.
	for (int attempt = 0; attempt < 100 && err == EEXIST; ++attempt)
	{
		bsTempSuffix(f->tmpPath + len + pidLen);
		f->slot = bsRegistry_Add(f->tmpPath);
		f->fd = open(f->tmpPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		err = f->fd < 0 ? errno : 0;
		if (f->fd < 0)
		{
			bsRegistry_Remove(f->slot);
			f->slot = -1;
		}
		if (err == EINTR)
		{
			err = EEXIST;  // try again
		}
	}
	if (f->fd < 0)
	{
		bsAtomicFile_Fail(f, "cannot create", err);
		bsAtomicFile_Release(f);
		return false;
	}
	return true;
}

// ---- Writing -------------------------------------------------------------------------------------

static bool bsAtomicFile_WriteAll(bsAtomicFile* f, const char* data, size_t len)
{
	while (len > 0)
	{
		size_t chunk = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
		ssize_t n = write(f->fd, data, chunk);
		if (n < 0)
		{
			if (errno == EINTR)
			{
				continue;
			}
			return bsAtomicFile_Fail(f, "cannot write", errno);
		}
		if (n == 0)
		{
			return bsAtomicFile_Fail(f, "cannot write", EIO);
		}
		data += n;
		len -= (size_t)n;
		f->written += (size_t)n;
	}
	return true;
}

static bool bsAtomicFile_Flush(bsAtomicFile* f)
{
	if (f->failed || f->fd < 0)
	{
		return false;
	}
	size_t used = f->used;
	f->used = 0;
	return bsAtomicFile_WriteAll(f, f->buffer, used);
}

bool bsAtomicFile_Write(bsAtomicFile* f, const void* data, size_t len)
{
	if (f->failed || f->fd < 0)
	{
		return false;
	}
	if (len <= bs_atomicFileBufferSize - f->used)
	{
		memcpy(f->buffer + f->used, data, len);
		f->used += len;
		return true;
	}
	if (!bsAtomicFile_Flush(f))
	{
		return false;
	}
	if (len < bs_atomicFileBufferSize)
	{
		memcpy(f->buffer, data, len);
		f->used = len;
		return true;
	}
	return bsAtomicFile_WriteAll(f, data, len);
}

bool bsAtomicFile_Printf(bsAtomicFile* f, const char* fmt, ...)
{
	if (f->failed || f->fd < 0)
	{
		return false;
	}
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	size_t room = bs_atomicFileBufferSize - f->used;
	int n = vsnprintf(f->buffer + f->used, room, fmt, ap);
	va_end(ap);
	bool ok = true;
	if (n < 0)
	{
		ok = bsAtomicFile_Fail(f, "cannot format", errno != 0 ? errno : EINVAL);
	}
	else if ((size_t)n < room)
	{
		f->used += (size_t)n;
	}
	else if (!bsAtomicFile_Flush(f))
	{
		ok = false;
	}
	else if ((size_t)n < bs_atomicFileBufferSize)
	{
		vsnprintf(f->buffer, bs_atomicFileBufferSize, fmt, again);
		f->used = (size_t)n;
	}
	else
	{
		char* big = malloc((size_t)n + 1);
		if (big == NULL)
		{
			ok = bsAtomicFile_Fail(f, "cannot format", ENOMEM);
		}
		else
		{
			vsnprintf(big, (size_t)n + 1, fmt, again);
			ok = bsAtomicFile_WriteAll(f, big, (size_t)n);
			free(big);
		}
	}
	va_end(again);
	return ok;
}

char* bsAtomicFile_Reserve(bsAtomicFile* f, size_t n)
{
	if (f->failed || f->fd < 0 || n > bs_atomicFileReserveMax)
	{
		return NULL;
	}
	if (n > bs_atomicFileBufferSize - f->used && !bsAtomicFile_Flush(f))
	{
		return NULL;
	}
	return f->buffer + f->used;
}

// ---- Commit and abort ----------------------------------------------------------------------------

void bsAtomicFile_Abort(bsAtomicFile* f)
{
	if (f->fd >= 0)
	{
		close(f->fd);
		f->fd = -1;
	}
	if (f->tmpPath != NULL)
	{
		unlink(f->tmpPath);
	}
	bsAtomicFile_Release(f);
}

// fsync the directory holding path, so the rename itself survives a crash. Best effort: some file
// systems refuse fsync on directories.
static void bsSyncDirectory(const char* path)
{
	const char* slash = strrchr(path, '/');
	char* dir = NULL;
	if (slash == NULL)
	{
		dir = malloc(2);
		if (dir != NULL)
		{
			memcpy(dir, ".", 2);
		}
	}
	else
	{
		size_t len = slash == path ? 1 : (size_t)(slash - path);
		dir = malloc(len + 1);
		if (dir != NULL)
		{
			memcpy(dir, path, len);
			dir[len] = '\0';
		}
	}
	if (dir == NULL)
	{
		return;
	}
	int fd = open(dir, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
	{
		fsync(fd);
		close(fd);
	}
	free(dir);
}

bool bsAtomicFile_Commit(bsAtomicFile* f, unsigned flags)
{
	if (f->fd < 0 || f->failed || !bsAtomicFile_Flush(f))
	{
		bsAtomicFile_Abort(f);
		return false;
	}
	if ((flags & bs_atomicFileSync) != 0 && fsync(f->fd) != 0)
	{
		bsAtomicFile_Fail(f, "cannot sync", errno);
		bsAtomicFile_Abort(f);
		return false;
	}
	int fd = f->fd;
	f->fd = -1;
	if (close(fd) != 0 && errno != EINTR)  // Linux closes the descriptor even on EINTR
	{
		bsAtomicFile_Fail(f, "cannot close", errno);
		bsAtomicFile_Abort(f);
		return false;
	}
	pthread_mutex_lock(&bsDeferredLock);
	if (bsDeferredOpen && (flags & bs_atomicFileNow) == 0)
	{
		// The list takes the paths (and arms a deferred slot before this file's registry slot goes,
		// so a signal in between finds the file in one table or both); the rename waits for
		// CommitDeferred.
		if (!bsDeferred_AddLocked(f->path, f->tmpPath))
		{
			pthread_mutex_unlock(&bsDeferredLock);
			bsAtomicFile_Fail(f, "cannot replace", ENOMEM);
			bsAtomicFile_Abort(f);
			return false;
		}
		pthread_mutex_unlock(&bsDeferredLock);
		f->path = NULL;
		f->tmpPath = NULL;
		bsAtomicFile_Release(f);  // frees the registry slot
		return true;
	}
	pthread_mutex_unlock(&bsDeferredLock);
	if (rename(f->tmpPath, f->path) != 0)
	{
		bsAtomicFile_Fail(f, "cannot replace", errno);
		bsAtomicFile_Abort(f);
		return false;
	}
	if ((flags & bs_atomicFileSync) != 0)
	{
		bsSyncDirectory(f->path);
	}
	bsAtomicFile_Release(f);
	return true;
}

// ---- The node and private folders ----------------------------------------------------------------

static char bsNodeName[BS_TEMP_NODE_MAX];
static pthread_once_t bsNodeOnce = PTHREAD_ONCE_INIT;

// The host name, each character but [A-Za-z0-9-] as '-', and the pid namespace's inode: two
// containers (or `unshare --pid`) on one host see each other's pids no better than two hosts do.
static void bsNode_Init(void)
{
	char host[128] = "";
	if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0')
	{
		snprintf(host, sizeof(host), "localhost");
	}
	host[sizeof(host) - 1] = '\0';
	host[64] = '\0';
	for (char* c = host; *c != '\0'; ++c)
	{
		bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-';
		*c = keep ? *c : '-';
	}
	struct stat ns;
	unsigned long inode = stat("/proc/self/ns/pid", &ns) == 0 ? (unsigned long)ns.st_ino : 0;
	snprintf(bsNodeName, sizeof(bsNodeName), "%s_p%lu", host, inode);
}

const char* bsAtomicFile_Node(void)
{
	pthread_once(&bsNodeOnce, bsNode_Init);
	return bsNodeName;
}

// Takes the folder's scratch entries (the folder and the files in it) out of the open group, so that
// a render of thousands of frames does not fill the signal-cleanup table with names long gone.
static void bsDeferred_ForgetFolder(const char* folder)
{
	size_t n = strlen(folder), kept = 0;
	pthread_mutex_lock(&bsDeferredLock);
	for (size_t i = 0; i < bsDeferredCount; ++i)
	{
		bsDeferredFile* d = bsDeferredFiles + i;
		bool inside = d->path == NULL && d->tmpPath != NULL && strncmp(d->tmpPath, folder, n) == 0 &&
			(d->tmpPath[n] == '\0' || d->tmpPath[n] == '/');
		if (inside)
		{
			bsDeferred_Drop(d, false);
			continue;
		}
		bsDeferredFiles[kept++] = *d;
	}
	bsDeferredCount = kept;
	pthread_mutex_unlock(&bsDeferredLock);
}

bool bsPrivateFolder_Make(bsPrivateFolder* p, const char* dir, const char* stem, char* err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	int n = snprintf(p->path, sizeof(p->path), "%s/%s.tmp.%s.%ld.bs", dir, stem, bsAtomicFile_Node(), (long)getpid());
	if (n < 0 || (size_t)n + 7 > sizeof(p->path))
	{
		snprintf(err, errlen, "%s/%s: cannot create a private folder: %s", dir, stem, strerror(ENAMETOOLONG));
		return false;
	}
	int e = EEXIST;
	for (int attempt = 0; attempt < 100 && e == EEXIST; ++attempt)
	{
		bsTempSuffix(p->path + n);
		// Listed before it exists, so a signal from here on removes it (after the files in it).
		if (!bsAtomicFile_DeferRemoval(p->path, err, errlen))
		{
			return false;
		}
		e = mkdir(p->path, 0700) == 0 ? 0 : errno;
		if (e != 0)
		{
			bsDeferred_ForgetFolder(p->path);  // someone else's, or none
		}
	}
	p->fd = e == 0 ? open(p->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (p->fd < 0)
	{
		snprintf(err, errlen, "%s: cannot create a private folder: %s", p->path, strerror(e != 0 ? e : errno));
		return false;
	}
	return true;
}

bool bsPrivateFolder_File(const bsPrivateFolder* p, const char* name, char* path, size_t size, char* err,
	size_t errlen)
{
	snprintf(path, size, "%s/%s", p->path, name);
	return bsAtomicFile_DeferRemoval(path, err, errlen);
}

int bsPrivateFolder_Create(const bsPrivateFolder* p, const char* name)
{
	return openat(p->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

bool bsPrivateFolder_MoveOut(const bsPrivateFolder* p, const char* name, int toDir, const char* to, char* err,
	size_t errlen)
{
	if (renameat(p->fd, name, toDir, to) != 0)
	{
		snprintf(err, errlen, "%s/%s: cannot rename to %s: %s", p->path, name, to, strerror(errno));
		return false;
	}
	return true;
}

void bsRemoveFolderFiles(int fd)
{
	int dup = fd >= 0 ? openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR* d = dup >= 0 ? fdopendir(dup) : NULL;
	if (d == NULL)
	{
		if (dup >= 0)
		{
			close(dup);
		}
		return;
	}
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
		{
			unlinkat(fd, e->d_name, 0);  // a folder in it stays (and so does the private folder)
		}
	}
	closedir(d);
}

void bsPrivateFolder_Remove(bsPrivateFolder* p)
{
	if (p->fd >= 0)
	{
		bsRemoveFolderFiles(p->fd);
		close(p->fd);
		p->fd = -1;
		rmdir(p->path);
	}
	if (p->path[0] != '\0')
	{
		bsDeferred_ForgetFolder(p->path);
	}
}
