// atomic_file.h — write a file so that it is either absent (or still the old file) or complete: the bytes
// go to a temporary file in the same directory ("path.tmp.<node>.<pid>.bsXXXXXX"), which Commit renames
// over the target. A reader never sees a half-written scene or particle dump, even when the writer is killed.
//
// Usage:
//     bsAtomicFile f;
//     if (!bsAtomicFile_Open(&f, path, errbuf, sizeof(errbuf))) { report errbuf; }
//     bsAtomicFile_Printf(&f, "#version 3.7;\n");  // ... any number of writes
//     if (!bsAtomicFile_Commit(&f, 0)) { report errbuf; }
//
// Errors are sticky: the first failure (an open, a write, the final rename) writes one message naming
// the path and strerror into the errbuf given to Open, marks the file failed, and every later call
// returns false without touching the disk. So a writer can issue many writes and check only Commit.
// A failed Commit removes the temporary file and leaves the target as it was.
//
// Ownership: every successful Open must be followed by exactly one Commit or Abort, which free
// everything; Abort after Commit (or twice, or after a failed Open) is harmless, so `Abort` fits a
// single cleanup path. A bsAtomicFile is used by one thread at a time; different files may be written
// from different threads.
//
// The new file gets mode 0666 minus the umask, like fopen(path, "w"). A symbolic link at path is
// replaced by the file, not followed; the temporary file is created exclusively (O_EXCL | O_NOFOLLOW),
// so a link planted at its name is never written through.
//
// Temporary names carry the node (bsAtomicFile_Node: the host and its pid namespace) and the pid:
// "path.tmp.<node>.<pid>.bsXXXXXX", so that a later command, on this node or another sharing the
// folder, can tell a dead writer's leftover from a live one's file (output_set.h).
#pragma once

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define BS_PRINTF_FORMAT(F, A) __attribute__((format(printf, F, A)))
#else
#define BS_PRINTF_FORMAT(F, A)
#endif

enum
{
	BS_TEMP_NODE_MAX = 96,  // bsAtomicFile_Node's length, its NUL included
	bs_atomicFileBufferSize = 1 << 20,  // bytes buffered before a write(2)
	bs_atomicFileReserveMax = 1 << 16,  // the largest Reserve
};

// Commit flags.
enum
{
	bs_atomicFileSync = 1,  // fsync the file before the rename, and its directory after (best effort)
	bs_atomicFileNow = 2,   // rename at once, even while a deferred group is open (output_set.h's list
	                        // of outputs, which must be in place before the group's files are)
};

typedef struct bsAtomicFile
{
	int fd;            // the temporary file; -1 when closed
	int slot;          // its slot in the signal-cleanup registry; -1 when not registered
	bool failed;       // an error happened; the message is in errbuf
	char* path;        // the target (owned copy)
	char* tmpPath;     // the temporary file (owned)
	char* buffer;      // bs_atomicFileBufferSize bytes
	size_t used;       // bytes in buffer
	size_t written;    // bytes handed to write(2) so far
	char* errbuf;      // the caller's error buffer (may be NULL)
	size_t errlen;
} bsAtomicFile;

// Creates the temporary file beside path. Fails, with a message, when path is a directory or another
// non-regular file, when its directory is missing or not a directory, or when the directory is not
// writable. On failure *f is left closed (Abort is a no-op).
bool bsAtomicFile_Open(bsAtomicFile* f, const char* path, char* errbuf, size_t errlen);

// Appends len bytes.
bool bsAtomicFile_Write(bsAtomicFile* f, const void* data, size_t len);

// Appends formatted text, formatted straight into the buffer (no FILE, no locking, no copy). Uses the
// thread's locale like snprintf; the program never calls setlocale, so the decimal point is '.'.
bool bsAtomicFile_Printf(bsAtomicFile* f, const char* fmt, ...) BS_PRINTF_FORMAT(2, 3);

// Zero-copy appends: returns room for at least n <= bs_atomicFileReserveMax bytes inside the buffer
// (flushing first when needed), or NULL after an error. Write into it, then call Advance with the
// number of bytes actually used (<= n).
char* bsAtomicFile_Reserve(bsAtomicFile* f, size_t n);

static inline void bsAtomicFile_Advance(bsAtomicFile* f, size_t n)
{
	f->used += n;
}

// Flushes, optionally fsyncs (bs_atomicFileSync), closes and renames the temporary file over the target.
// On any failure the temporary file is removed and the target is untouched.
bool bsAtomicFile_Commit(bsAtomicFile* f, unsigned flags);

// Closes and removes the temporary file; the target is untouched.
void bsAtomicFile_Abort(bsAtomicFile* f);

// For a SIGINT/SIGTERM handler: unlinks every temporary file still open in the process. It is
// async-signal-safe: it touches only a fixed table of lock-free atomics and path buffers filled before
// the slot is published, and calls only unlink(2). Intended use: the handler calls it, then _exit().
// If the program instead continues, the files it covered fail to Commit (the rename finds no temporary
// file) and Abort them as usual. The registry holds 64 files with paths below 4096 bytes; a file
// beyond that still works but is not covered. Paths are stored as given: a relative path is resolved
// against the working directory at the time of the signal.
void bsAtomicFile_CleanupOnSignal(void);

// ---- Deferred commits: several files replaced only when all of them are complete ----------------
//
// Between BeginDeferred and CommitDeferred/AbortDeferred, a successful bsAtomicFile_Commit flushes
// and closes the temporary file but does not rename it: the file joins a process-wide list (and stays
// in the signal-cleanup registry). CommitDeferred then renames every listed file into place, in the
// order they were committed; AbortDeferred removes them all, leaving every target as it was. So a
// caller whose writers each Open/Commit their own file (scene, particles, summary) can make a whole
// run's outputs appear only after the last one succeeded. Committing the same target twice keeps the
// later file. Thread-safe (a mutex guards the list); Begin while a group is open is a no-op. The
// listed files stay covered by bsAtomicFile_CleanupOnSignal (a separate table of 16384 entries,
// so a run's thousands of frames are covered too) and count in bsAtomicFile_PendingCount.
//
// The renames themselves are not one atomic step: a crash (or SIGKILL) in the middle of
// CommitDeferred can leave some targets new and some old, each file whole. When a rename fails, the
// files not yet renamed are removed and the error (naming the path) goes to errbuf.
void bsAtomicFile_BeginDeferred(void);
bool bsAtomicFile_CommitDeferred(char* errbuf, size_t errlen);
void bsAtomicFile_AbortDeferred(void);

// While a group is open: the temporary file holding the pending content of target path (as given to
// Open), or NULL when path has none. The pointer stays valid until the group ends.
const char* bsAtomicFile_DeferredPath(const char* path);

// Adds a file made by someone else (e.g. a child process) at tmpPath to the open group, to be renamed
// to path by CommitDeferred (or removed by AbortDeferred or a signal). The file need not exist yet.
// False, with a message, when no group is open or memory runs out.
bool bsAtomicFile_DeferFile(const char* tmpPath, const char* path, char* errbuf, size_t errlen);

// Adds a scratch file that someone else (e.g. a child process) may make at tmpPath to the open group:
// it is removed when the group ends, by CommitDeferred as by AbortDeferred, or by a signal; never
// renamed. It need not exist. False, with a message, when no group is open or memory runs out.
bool bsAtomicFile_DeferRemoval(const char* tmpPath, char* errbuf, size_t errlen);

// Adds path, an existing file that the run keeps as it is (e.g. a frame's image that is up to date),
// to the open group's set of targets: nothing is renamed or removed for it, but it counts as one of
// the run's outputs (bsAtomicFile_DeferredTargets, output_set.h). A file committed or deferred for
// the same path replaces it; it never replaces one. False, with a message, when no group is open or
// memory runs out.
bool bsAtomicFile_DeferKeep(const char* path, char* errbuf, size_t errlen);

// While a group is open: copies of every target in it (Commit, DeferFile, DeferKeep; not the scratch
// files), in the order they joined. The caller frees each string and the array. False when memory
// runs out (*targets NULL, *count 0).
bool bsAtomicFile_DeferredTargets(char*** targets, size_t* count);

// The number of temporary files in the registry (open, not yet committed or aborted): diagnostics and
// tests.
int bsAtomicFile_PendingCount(void);

// ---- The node, and private folders for the files of child processes -------------------------------

// This process's node in temporary names: its host name ([A-Za-z0-9-], others as '-'), '_p' and its
// pid namespace's inode ("gpu03_p4026531836"). Two nodes, or two pid namespaces on one host, cannot
// see each other's pids: a command never takes another node's temporary file for a dead one's.
const char* bsAtomicFile_Node(void);

// A folder of this process's own inside an output folder, for the files a child (POV-Ray, ffmpeg)
// writes by name: DIR/<stem>.tmp.<node>.<pid>.bsXXXXXX, made with mkdir (which never follows a link)
// mode 0700, so nobody else can plant a link or a file in it; the files are then renamed into place
// (renameat: a link at the target is replaced, never followed). The folder joins the open deferred
// group (which must be open) as a scratch file, before it exists, and each file in it through
// bsPrivateFolder_File: a signal removes the files, then the folder.
typedef struct bsPrivateFolder
{
	char path[4096];  // DIR/<stem>.tmp.<node>.<pid>.bsXXXXXX
	int fd;           // the folder, opened O_DIRECTORY | O_NOFOLLOW; -1 when none
} bsPrivateFolder;

bool bsPrivateFolder_Make(bsPrivateFolder* p, const char* dir, const char* stem, char* err, size_t errlen);

// The path of NAME in the folder, into path, listed in the group for a signal to remove.
bool bsPrivateFolder_File(const bsPrivateFolder* p, const char* name, char* path, size_t size, char* err,
	size_t errlen);

// Creates NAME in the folder exclusively (O_EXCL | O_NOFOLLOW), for writing; -1 (errno) on failure.
int bsPrivateFolder_Create(const bsPrivateFolder* p, const char* name);

// Renames NAME out of the folder to `to` relative to the folder descriptor toDir (AT_FDCWD: a path).
bool bsPrivateFolder_MoveOut(const bsPrivateFolder* p, const char* name, int toDir, const char* to, char* err,
	size_t errlen);

// Removes every file left in the folder (whatever the child made), then the folder.
void bsPrivateFolder_Remove(bsPrivateFolder* p);

// Unlinks every entry of the folder open at fd but its folders (the links themselves, never what they
// name).
void bsRemoveFolderFiles(int fd);
