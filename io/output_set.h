// output_set.h — a run replaces a folder's whole set of outputs, and only its outputs.
//
// Each run writes DIR/outputs.txt, the list of the files it wrote in DIR (the targets of its
// deferred group, atomic_file.h: whatever names it wrote, frames included). The next run into DIR
// removes the listed files it does not write again (the frames beyond its count, a scene.png when it
// does not render, ...) as part of its commit; a file that no list names (the user's notes, a file
// of an older blobsim without the list) is never touched.
//
// Usage (instead of bsAtomicFile_BeginDeferred / CommitDeferred):
//     if (!bsOutputSet_Begin(dir, err, sizeof(err))) { fail }   // checks DIR/outputs.txt, opens the group
//     ... write outputs through atomic_file.h ...
//     if (!bsOutputSet_Commit(dir, bs_outputSetReplace, err, sizeof(err))) { fail }
//     on failure before the commit: bsAtomicFile_AbortDeferred() (DIR as it was, list included)
//
// The commit first refuses a target that the earlier list does not name and that holds someone
// else's file (bsOutputSet_Replaceable's rule): a run never replaces a file it did not write. Then, in
// an order that keeps the list a superset of every blobsim file in DIR at each moment, so that a run
// killed anywhere (even by SIGKILL) leaves nothing that a later run cannot tidy:
//   1. the list of the earlier files and the new ones, marked "state: replacing", renamed into place;
//   2. the group's files renamed into place (bsAtomicFile_CommitDeferred);
//   3. the earlier files not written again removed;
//   4. the list of the new files, marked "state: complete", renamed into place.
// A failure or signal before step 1 leaves DIR exactly as it was. SIGINT and SIGTERM are blocked in
// the calling thread from step 1 to 4 (a few renames), so a handler that exits does not cut the
// commit in the middle: it runs once the new set is complete (`blobsim run` commits when its worker
// threads have ended, so no other thread takes the signal meanwhile). Only SIGKILL (or a crash) can stop it
// there, and then each file is whole, from one run or the other, the list says "replacing", and the
// next run removes whatever of the earlier run it does not write.
//
// The list is text: the line "# blobsim outputs", comment lines starting with '#' (one is
// "# state: complete" or "# state: replacing"), then one file name per line (a name in DIR: no '/',
// no newline, not "." or ".." or outputs.txt itself; or "logs/NAME", a per-frame log, or "cache/NAME",
// a frame's particle cache).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "atomic_file.h"

#define BS_OUTPUT_LIST_NAME "outputs.txt"
#define BS_OUTPUT_LOCK_NAME ".outputs.lock"  // the folder's lock (bsOutputSet_Lock)
#define BS_OUTPUT_LOGS_NAME "logs"           // the per-frame logs' folder: "logs/NAME" may be listed
#define BS_OUTPUT_CACHE_NAME "cache"         // the per-frame particle caches' folder: "cache/NAME" too

enum
{
	BS_TEMP_STALE_SECONDS = 24 * 3600,  // another node's temporary file, untouched this long, is dead
	BS_CLAIM_STALE_SECONDS = 30 * 60,   // another node's frame claim, unrefreshed this long, is dead
};

typedef enum bsOutputSetMode
{
	bs_outputSetReplace,  // the group's files are the folder's whole new set: the others listed go
	bs_outputSetAdd,      // the group's files join the listed ones (e.g. images rendered later for
	                      // a folder's frames); nothing is removed
} bsOutputSetMode;

// Checks DIR/outputs.txt (absent, or a list as above: else a message naming the file and line),
// removes the temporary files that killed runs left in DIR (bsOutputSet_RemoveDeadTemps, noted on
// stderr) and opens the deferred group. False, with the group not opened, when the list is unreadable or not a
// list: a user's own outputs.txt is never replaced.
bool bsOutputSet_Begin(const char* dir, char* err, size_t errlen);

// Commits the open group as DIR's outputs (see above) and ends the group. False, with a message: the
// group is then ended too (its files not renamed are removed), and DIR holds whole files, listed.
bool bsOutputSet_Commit(const char* dir, bsOutputSetMode mode, char* err, size_t errlen);

// Whether a command may replace DIR/name: the folder's list names it, or nothing of someone else's is
// there (a regular file whose first bytes are not what blobsim writes: "blobsim" among them, a PNG's
// signature, POV-Ray's banner). false with the message, or the list's read error, in err.
bool bsOutputSet_Replaceable(const char* dir, const char* name, char* err, size_t errlen);

// Adds NAME (a file directly in DIR, already in place) to DIR/outputs.txt at once, writing the list
// if DIR has none: for a file renamed in outside the group's commit (a failed render's render.log),
// so that a later run's commit removes it when it does not write it again. False, with a message,
// when the list cannot be read or written.
bool bsOutputSet_ListNow(const char* dir, const char* name, char* err, size_t errlen);

// The same for count names at once, with one rewrite of the list (a run's thousand body includes).
bool bsOutputSet_ListManyNow(const char* dir, const char* const* names, size_t count, char* err, size_t errlen);

// ---- Temporary files of killed runs ----
//
// A SIGKILL (which no handler sees) leaves a run's temporary files, and no outputs.txt names them.
// Every temporary file (or private folder, atomic_file.h) blobsim makes is named
// "<name>.tmp.<node>.<pid>.<ending>": the writer's node (bsAtomicFile_Node: host and pid namespace) and
// pid, the ending "bs" and six letters or digits. An older blobsim's "<name>.tmp.<pid>.<ending>" (the
// ending also png, log, pov, pov-state, mp4 or gif) has no node. Such a file is a leftover, which
// nobody will rename or remove, when its writer is proven dead: on this node, kill(pid, 0) fails with
// ESRCH; on another node (or with no node), where no pid can be checked, when nothing touched it for
// BS_TEMP_STALE_SECONDS (a day; a private folder's time is its newest file's). A live writer's file,
// on any node, is kept, and so is any name not of that form (the user's files), a link, or a folder
// that is not a private folder.

typedef struct bsTempOwner
{
	char node[BS_TEMP_NODE_MAX];  // "" for an older blobsim's name
	pid_t pid;
} bsTempOwner;

// The writer of a temporary file's name of the form above; false when the name is not of that form.
bool bsOutputSet_TempOwner(const char* name, bsTempOwner* owner);

// The writer's pid in a temporary file's name of the form above; 0 when the name is not of that form.
pid_t bsOutputSet_TempPid(const char* name);

// True when the writer (node, pid) of a file last touched at `touched` is dead by the rules above,
// with staleSeconds for another node.
bool bsOutputSet_OwnerDead(const char* node, pid_t pid, time_t touched, int staleSeconds);

// Removes the temporary files and private folders named as above whose writer is dead from DIR and
// from its cache/ and logs/ folders (never through a link), saying so on notices (NULL: not at all),
// one line each. Returns how many it removed.
int bsOutputSet_RemoveDeadTemps(const char* dir, FILE* notices);

// ---- The folder's lock and logs ----
//
// DIR/.outputs.lock, a regular file (created if absent, never through a link), locked with flock(2)
// (which a shared file system such as NFS or Lustre passes to the server): outputs.txt is read,
// changed and written back under it, and frame claims (render_claim.h) are taken under it, so that
// commands on several nodes into one folder never lose each other's entries.

// Opens and locks DIR's lock, waiting for it; the descriptor, or -1 with a message.
int bsOutputSet_Lock(const char* dir, char* err, size_t errlen);
void bsOutputSet_Unlock(int fd);

// Opens DIR/logs (made first when `make`) as a folder, never through a link; -1 (errno) when it
// cannot (a link or a file of that name is refused).
int bsOutputSet_OpenLogs(const char* dir, bool make);

// The same for a listed name's folder: DIR/logs for "logs/NAME", DIR/cache for "cache/NAME" (never
// made); -1 for a name in neither.
int bsOutputSet_OpenFolderOf(const char* dir, const char* name);

// ---- The list itself (tests, tools) ----

typedef struct bsOutputList
{
	char** names;
	size_t count, capacity;
	bool complete;  // "# state: complete" (or no state line)
} bsOutputList;

// Reads list text (n bytes, named `where` in messages). False, with "WHERE:LINE: why" in err, when
// the text is not a list. *list is empty on failure; free it with bsOutputList_Free either way.
bool bsOutputList_Parse(const char* text, size_t n, const char* where, bsOutputList* list, char* err,
	size_t errlen);

// Reads DIR/outputs.txt: true with an empty list when the file is absent.
bool bsOutputList_Read(const char* dir, bsOutputList* list, char* err, size_t errlen);

void bsOutputList_Free(bsOutputList* list);

// True when name may stand in a list: a file name directly in the folder.
bool bsOutputList_ValidName(const char* name, size_t n);
