// test_output.c — atomic files (and their deferred groups), PLY particle files and POV-Ray scenes.
#include "test.h"

#include "array.h"
#include "atomic_file.h"
#include "output_set.h"
#include "ply.h"
#include "pov_writer.h"
#include "blobsim/rng.h"

#include "blobsim/version.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// ---- Helpers --------------------------------------------------------------------------------------

static char testDir[512];

static const char* TestPath(char* out, size_t len, const char* name)
{
	snprintf(out, len, "%s/%s", testDir, name);
	return out;
}

static uint8_t* ReadAll(const char* path, size_t* size)
{
	*size = 0;
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t* data = malloc(cap);
	while (data != NULL)
	{
		if (n == cap && !BS_ARRAY_RESERVE(data, cap, cap + 1))
		{
			free(data);
			data = NULL;
			break;
		}
		size_t got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
		{
			break;
		}
	}
	fclose(f);
	*size = n;
	return data;
}

static bool FileIs(const char* path, const char* text)
{
	size_t size;
	uint8_t* data = ReadAll(path, &size);
	bool same = data != NULL && size == strlen(text) && memcmp(data, text, size) == 0;
	free(data);
	return same;
}

static bool Exists(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static long FileSize(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

// Entries of dir whose name holds ".tmp.": leftover temporary files.
static int CountTempFiles(const char* dir)
{
	DIR* d = opendir(dir);
	if (d == NULL)
	{
		return -1;
	}
	int count = 0;
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		count += strstr(e->d_name, ".tmp.") != NULL;
	}
	closedir(d);
	return count;
}

static void RemoveTree(const char* path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
	{
		return;
	}
	if (S_ISDIR(st.st_mode))
	{
		chmod(path, 0700);
		DIR* d = opendir(path);
		if (d != NULL)
		{
			struct dirent* e;
			while ((e = readdir(d)) != NULL)
			{
				if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				{
					continue;
				}
				char child[1024];
				snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
				RemoveTree(child);
			}
			closedir(d);
		}
		rmdir(path);
	}
	else
	{
		unlink(path);
	}
}

static double Now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t CountOccurrences(const char* text, const char* needle)
{
	size_t count = 0, len = strlen(needle);
	for (const char* p = strstr(text, needle); p != NULL; p = strstr(p + len, needle))
	{
		++count;
	}
	return count;
}

static bool PovrayAvailable(void)
{
	return system("command -v povray >/dev/null 2>&1") == 0;
}

// ---- Atomic files ---------------------------------------------------------------------------------

static int AtomicCommitAbortTest(void)
{
	char path[600], err[1024];
	TestPath(path, sizeof(path), "a.txt");
	bsAtomicFile f;
	ENSURE(bsAtomicFile_Open(&f, path, err, sizeof(err)));
	ENSURE(bsAtomicFile_PendingCount() == 1);
	ENSURE(bsAtomicFile_Write(&f, "hello ", 6));
	ENSURE(bsAtomicFile_Printf(&f, "%d %s", 42, "world"));
	ENSURE(!Exists(path));
	ENSURE(CountTempFiles(testDir) == 1);
	ENSURE(bsAtomicFile_Commit(&f, 0));
	ENSURE(FileIs(path, "hello 42 world"));
	ENSURE(CountTempFiles(testDir) == 0);
	ENSURE(bsAtomicFile_PendingCount() == 0);
	bsAtomicFile_Abort(&f);  // harmless after Commit
	ENSURE(FileIs(path, "hello 42 world"));

	// Commit replaces, with fsync.
	ENSURE(bsAtomicFile_Open(&f, path, err, sizeof(err)));
	ENSURE(bsAtomicFile_Printf(&f, "second"));
	ENSURE(bsAtomicFile_Commit(&f, bs_atomicFileSync));
	ENSURE(FileIs(path, "second"));

	// Abort keeps the old file and leaves no temporary file.
	ENSURE(bsAtomicFile_Open(&f, path, err, sizeof(err)));
	ENSURE(bsAtomicFile_Printf(&f, "third"));
	bsAtomicFile_Abort(&f);
	bsAtomicFile_Abort(&f);
	ENSURE(FileIs(path, "second"));
	ENSURE(CountTempFiles(testDir) == 0);
	ENSURE(bsAtomicFile_PendingCount() == 0);

	// Large content: many small Printfs across buffer flushes, a Write larger than the buffer, a Printf
	// larger than the buffer, and Reserve.
	size_t bigLen = 3 * (size_t)bs_atomicFileBufferSize + 17;
	char* big = malloc(bigLen + 1);
	ENSURE(big != NULL);
	for (size_t i = 0; i < bigLen; ++i)
	{
		big[i] = (char)('a' + i % 26);
	}
	big[bigLen] = '\0';
	ENSURE(bsAtomicFile_Open(&f, path, err, sizeof(err)));
	size_t expected = 0;
	for (int i = 0; i < 200000; ++i)
	{
		ENSURE(bsAtomicFile_Printf(&f, "line %06d\n", i));
		expected += 12;
	}
	ENSURE(bsAtomicFile_Write(&f, big, bigLen));
	ENSURE(bsAtomicFile_Printf(&f, "<%s>", big));
	char* r = bsAtomicFile_Reserve(&f, 5);
	ENSURE(r != NULL);
	memcpy(r, "[end]", 5);
	bsAtomicFile_Advance(&f, 5);
	ENSURE(bsAtomicFile_Reserve(&f, bs_atomicFileReserveMax + 1) == NULL);
	expected += bigLen + bigLen + 2 + 5;
	ENSURE(bsAtomicFile_Commit(&f, 0));
	size_t size;
	uint8_t* data = ReadAll(path, &size);
	ENSURE(data != NULL);
	bool ok = size == expected && memcmp(data, "line 000000\nline 000001\n", 24) == 0 &&
		memcmp(data + 12 * 200000, big, bigLen) == 0 && data[12 * 200000 + bigLen] == '<' &&
		memcmp(data + 12 * 200000 + bigLen + 1, big, bigLen) == 0 && memcmp(data + size - 6, ">[end]", 6) == 0;
	free(data);
	free(big);
	ENSURE(ok);
	return 0;
}

// Writes text to path directly (a file made by someone else, e.g. POV-Ray).
static int WriteFile(const char* path, const char* text)
{
	FILE* f = fopen(path, "w");
	ENSURE(f != NULL);
	fputs(text, f);
	ENSURE(fclose(f) == 0);
	return 0;
}

// A deferred group: a committed file, a file made by someone else (DeferFile) and scratch files
// (DeferRemoval, one never made) wait for the end of the group; CommitDeferred renames the first two
// and removes the scratch file, AbortDeferred removes all three and leaves the targets as they were.
static int AtomicDeferredTest(void)
{
	char a[600], b[600], bTmp[600], scratch[600], never[600], err[1024];
	TestPath(a, sizeof(a), "d-a.txt");
	TestPath(b, sizeof(b), "d-b.png");
	TestPath(bTmp, sizeof(bTmp), "d-b.tmp.1.png");
	TestPath(scratch, sizeof(scratch), "d-b.tmp.1.pov-state");
	TestPath(never, sizeof(never), "d-never.tmp.1");
	RUN_SUBTEST(WriteFile(a, "old a"));
	RUN_SUBTEST(WriteFile(b, "old b"));
	ENSURE(!bsAtomicFile_DeferRemoval(scratch, err, sizeof(err)));  // no group open
	ENSURE(strstr(err, "no deferred group open") != NULL);
	for (int commit = 0; commit < 2; ++commit)
	{
		bsAtomicFile_BeginDeferred();
		bsAtomicFile f;
		ENSURE(bsAtomicFile_Open(&f, a, err, sizeof(err)));
		ENSURE(bsAtomicFile_Printf(&f, "new a"));
		ENSURE(bsAtomicFile_Commit(&f, 0));
		ENSURE(bsAtomicFile_DeferFile(bTmp, b, err, sizeof(err)));
		ENSURE(bsAtomicFile_DeferRemoval(scratch, err, sizeof(err)));
		ENSURE(bsAtomicFile_DeferRemoval(never, err, sizeof(err)));
		RUN_SUBTEST(WriteFile(bTmp, "new b"));
		RUN_SUBTEST(WriteFile(scratch, "state"));
		ENSURE(bsAtomicFile_PendingCount() == 4);
		ENSURE(FileIs(a, "old a") && FileIs(b, "old b"));  // nothing replaced before the end
		ENSURE(bsAtomicFile_DeferredPath(a) != NULL && bsAtomicFile_DeferredPath(scratch) == NULL);
		if (commit)
		{
			ENSURE(bsAtomicFile_CommitDeferred(err, sizeof(err)));
			ENSURE(FileIs(a, "new a") && FileIs(b, "new b"));
		}
		else
		{
			bsAtomicFile_AbortDeferred();
			ENSURE(FileIs(a, "old a") && FileIs(b, "old b"));
		}
		ENSURE(!Exists(scratch) && !Exists(never) && !Exists(bTmp));
		ENSURE(CountTempFiles(testDir) == 0 && bsAtomicFile_PendingCount() == 0);
	}
	unlink(a);
	unlink(b);
	return 0;
}

// The list of a folder's outputs (output_set.h): what it accepts, each refusal naming the line.
static int OutputListTest(void)
{
	bsOutputList list;
	char err[512];
	const char good[] = "# blobsim outputs\n# state: replacing\n\nscene.pov\nframe_0000.pov\nscene.pov\nname with spaces";
	ENSURE(bsOutputList_Parse(good, sizeof(good) - 1, "L", &list, err, sizeof(err)));
	ENSURE(list.count == 3 && !list.complete);
	ENSURE(strcmp(list.names[0], "scene.pov") == 0 && strcmp(list.names[2], "name with spaces") == 0);
	bsOutputList_Free(&list);
	const char* bad[][2] = {
		{"", "L: empty, not a list of blobsim's outputs; move the file away, blobsim does not replace it"},
		{"my notes\nscene.pov\n", "L:1: not a list of blobsim's outputs (the first line is not '# blobsim outputs'); "
			"move the file away, blobsim does not replace it"},
		{"# blobsim outputs\nscene.pov\n../etc/passwd\n", "L:3: not a file name in the folder: '../etc/passwd'"},
		{"# blobsim outputs\n..\n", "L:2: not a file name in the folder: '..'"},
		{"# blobsim outputs\nouputs\noutputs.txt\n", "L:3: not a file name in the folder: 'outputs.txt'"},
		{"# blobsim outputs\n/abs\n", "L:2: not a file name in the folder: '/abs'"},
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k)
	{
		ENSURE(!bsOutputList_Parse(bad[k][0], strlen(bad[k][0]), "L", &list, err, sizeof(err)));
		ENSURE(list.count == 0);
		if (strcmp(err, bad[k][1]) != 0)
		{
			fprintf(stderr, "  case %zu: %s\n", k, err);
			return 1;
		}
	}
	return 0;
}

// Writes name in dir through the open group.
static int GroupWrite(const char* dir, const char* name, const char* text)
{
	char path[700], err[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	bsAtomicFile f;
	ENSURE(bsAtomicFile_Open(&f, path, err, sizeof(err)));
	ENSURE(bsAtomicFile_Printf(&f, "%s", text));
	ENSURE(bsAtomicFile_Commit(&f, 0));
	return 0;
}

// Replace: the listed files not written again go, a kept one (DeferKeep) stays, the user's stay. Add:
// the listed ones stay and the new ones join the list. A keep never replaces new content.
static int OutputSetTest(void)
{
	char dir[600], path[700], err[1024];
	TestPath(dir, sizeof(dir), "set");
	ENSURE(mkdir(dir, 0777) == 0);
	snprintf(path, sizeof(path), "%s/user.txt", dir);
	RUN_SUBTEST(WriteFile(path, "mine"));
	ENSURE(bsOutputSet_Begin(dir, err, sizeof(err)));
	RUN_SUBTEST(GroupWrite(dir, "a.pov", "a1"));
	RUN_SUBTEST(GroupWrite(dir, "b.pov", "b1"));
	RUN_SUBTEST(GroupWrite(dir, "c.png", "c1"));
	ENSURE(bsOutputSet_Commit(dir, bs_outputSetReplace, err, sizeof(err)));
	bsOutputList list;
	ENSURE(bsOutputList_Read(dir, &list, err, sizeof(err)));
	ENSURE(list.count == 3 && list.complete);
	bsOutputList_Free(&list);

	// Second run: writes a.pov, keeps c.png as it is, and a keep of a.pov does not undo its new content.
	ENSURE(bsOutputSet_Begin(dir, err, sizeof(err)));
	RUN_SUBTEST(GroupWrite(dir, "a.pov", "a2"));
	snprintf(path, sizeof(path), "%s/c.png", dir);
	ENSURE(bsAtomicFile_DeferKeep(path, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/a.pov", dir);
	ENSURE(bsAtomicFile_DeferKeep(path, err, sizeof(err)));
	ENSURE(bsAtomicFile_DeferredPath(path) != NULL);
	ENSURE(bsOutputSet_Commit(dir, bs_outputSetReplace, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/a.pov", dir);
	ENSURE(FileIs(path, "a2"));
	snprintf(path, sizeof(path), "%s/b.pov", dir);
	ENSURE(!Exists(path));
	snprintf(path, sizeof(path), "%s/c.png", dir);
	ENSURE(FileIs(path, "c1"));
	snprintf(path, sizeof(path), "%s/user.txt", dir);
	ENSURE(FileIs(path, "mine"));
	ENSURE(bsOutputList_Read(dir, &list, err, sizeof(err)));
	ENSURE(list.count == 2 && strcmp(list.names[0], "a.pov") == 0 && strcmp(list.names[1], "c.png") == 0);
	bsOutputList_Free(&list);

	// Add: d.png joins; nothing goes.
	ENSURE(bsOutputSet_Begin(dir, err, sizeof(err)));
	RUN_SUBTEST(GroupWrite(dir, "d.png", "d1"));
	ENSURE(bsOutputSet_Commit(dir, bs_outputSetAdd, err, sizeof(err)));
	ENSURE(bsOutputList_Read(dir, &list, err, sizeof(err)));
	ENSURE(list.count == 3 && strcmp(list.names[2], "d.png") == 0);
	bsOutputList_Free(&list);
	snprintf(path, sizeof(path), "%s/c.png", dir);
	ENSURE(FileIs(path, "c1"));

	// An aborted group changes nothing, the list included.
	size_t before;
	snprintf(path, sizeof(path), "%s/%s", dir, BS_OUTPUT_LIST_NAME);
	uint8_t* listBefore = ReadAll(path, &before);
	ENSURE(bsOutputSet_Begin(dir, err, sizeof(err)));
	RUN_SUBTEST(GroupWrite(dir, "e.png", "e1"));
	bsAtomicFile_AbortDeferred();
	size_t after;
	uint8_t* listAfter = ReadAll(path, &after);
	ENSURE(listBefore != NULL && listAfter != NULL && before == after && memcmp(listBefore, listAfter, before) == 0);
	free(listBefore);
	free(listAfter);
	ENSURE(CountTempFiles(dir) == 0 && bsAtomicFile_PendingCount() == 0);
	return 0;
}

// Writers on several nodes sharing a folder: 12 processes commit at the same moment and the list
// keeps every entry (outputs.txt is read, changed and written back under the folder's lock); a
// temporary name carries the node and pid, and only this node's dead writer's is its to remove.
static int OutputSetConcurrentTest(void)
{
	char dir[600], err[1024];
	TestPath(dir, sizeof(dir), "concurrent");
	ENSURE(mkdir(dir, 0777) == 0);
	enum { writers = 12 };
	pid_t pids[writers];
	for (int k = 0; k < writers; ++k)
	{
		pids[k] = fork();
		ENSURE(pids[k] >= 0);
		if (pids[k] == 0)
		{
			char name[32];
			snprintf(name, sizeof(name), "c%02d.png", k);
			bool ok = bsOutputSet_Begin(dir, err, sizeof(err)) && GroupWrite(dir, name, "x") == 0 &&
				bsOutputSet_Commit(dir, bs_outputSetAdd, err, sizeof(err));
			_exit(ok ? 0 : 1);
		}
	}
	for (int k = 0; k < writers; ++k)
	{
		int status = 0;
		ENSURE(waitpid(pids[k], &status, 0) == pids[k] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	bsOutputList list;
	ENSURE(bsOutputList_Read(dir, &list, err, sizeof(err)));
	ENSURE(list.count == writers && list.complete);
	bsOutputList_Free(&list);
	ENSURE(CountTempFiles(dir) == 0);

	// Names: this node's, another node's, an older blobsim's, and look-alikes.
	bsTempOwner owner;
	char name[256];
	snprintf(name, sizeof(name), "scene.pov.tmp.%s.123.bsAbC123", bsAtomicFile_Node());
	ENSURE(bsOutputSet_TempOwner(name, &owner) && owner.pid == 123 && strcmp(owner.node, bsAtomicFile_Node()) == 0);
	ENSURE(bsOutputSet_TempOwner("frame_0001.tmp.gpu-3_p4026531836.77.bsQw3rt9", &owner) && owner.pid == 77 &&
		strcmp(owner.node, "gpu-3_p4026531836") == 0);
	ENSURE(bsOutputSet_TempOwner("scene.pov.tmp.77.bsAbC123", &owner) && owner.pid == 77 && owner.node[0] == '\0');
	ENSURE(!bsOutputSet_TempOwner("notes.tmp.node.77.backup", &owner));
	ENSURE(!bsOutputSet_TempOwner("notes.tmp.no de.77.bsAbC123", &owner));
	ENSURE(!bsOutputSet_TempOwner("scene.pov.tmp.node.077.bsAbC123", &owner));
	time_t now = time(NULL);
	// Another node: dead only when untouched for the stale time, whatever its pid.
	ENSURE(!bsOutputSet_OwnerDead("gpu-3_p1", getpid(), now, BS_TEMP_STALE_SECONDS));
	ENSURE(!bsOutputSet_OwnerDead("gpu-3_p1", 999999, now, BS_TEMP_STALE_SECONDS));
	ENSURE(bsOutputSet_OwnerDead("gpu-3_p1", getpid(), now - BS_TEMP_STALE_SECONDS - 10, BS_TEMP_STALE_SECONDS));
	ENSURE(bsOutputSet_OwnerDead("", getpid(), now - BS_TEMP_STALE_SECONDS - 10, BS_TEMP_STALE_SECONDS));
	// This node: dead when its pid is gone, however fresh; alive when it runs, however old.
	pid_t gone = fork();
	ENSURE(gone >= 0);
	if (gone == 0)
	{
		_exit(0);
	}
	ENSURE(waitpid(gone, NULL, 0) == gone);
	ENSURE(bsOutputSet_OwnerDead(bsAtomicFile_Node(), gone, now, BS_TEMP_STALE_SECONDS));
	ENSURE(!bsOutputSet_OwnerDead(bsAtomicFile_Node(), getppid(), now - 10 * BS_TEMP_STALE_SECONDS, BS_TEMP_STALE_SECONDS));
	return 0;
}

static int AtomicErrorTest(void)
{
	char path[600], expect[1200], err[1200];
	bsAtomicFile f;

	// The target is a directory.
	ENSURE(!bsAtomicFile_Open(&f, testDir, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot create: %s", testDir, strerror(EISDIR));
	ENSURE(strcmp(err, expect) == 0);
	bsAtomicFile_Abort(&f);

	// A path inside a regular file.
	TestPath(path, sizeof(path), "a.txt/inside.txt");
	ENSURE(!bsAtomicFile_Open(&f, path, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot create: %s", path, strerror(ENOTDIR));
	ENSURE(strcmp(err, expect) == 0);

	// A missing directory.
	TestPath(path, sizeof(path), "no-such-dir/x.txt");
	ENSURE(!bsAtomicFile_Open(&f, path, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot create: %s", path, strerror(ENOENT));
	ENSURE(strcmp(err, expect) == 0);

	// A device node is not replaced.
	ENSURE(!bsAtomicFile_Open(&f, "/dev/null", err, sizeof(err)));
	ENSURE(strcmp(err, "/dev/null: cannot create: not a regular file") == 0);

	// An empty path.
	ENSURE(!bsAtomicFile_Open(&f, "", err, sizeof(err)));
	snprintf(expect, sizeof(expect), "(empty path): cannot create: %s", strerror(ENOENT));
	ENSURE(strcmp(err, expect) == 0);

	// A directory without write permission. Root ignores permissions, so then a child process drops to
	// the user nobody for the check.
	{
		char dir[600];
		TestPath(dir, sizeof(dir), "readonly");
		ENSURE(mkdir(dir, 0555) == 0);
		TestPath(path, sizeof(path), "readonly/x.txt");
		snprintf(expect, sizeof(expect), "%s: cannot create: %s", path, strerror(EACCES));
		if (geteuid() != 0)
		{
			ENSURE(!bsAtomicFile_Open(&f, path, err, sizeof(err)));
			ENSURE(strcmp(err, expect) == 0);
		}
		else
		{
			ENSURE(chmod(testDir, 0711) == 0);
			fflush(stdout);
			fflush(stderr);
			pid_t child = fork();
			ENSURE(child >= 0);
			if (child == 0)
			{
				if (setgid(65534) != 0 || setuid(65534) != 0)
				{
					_exit(20);
				}
				bsAtomicFile c;
				bool opened = bsAtomicFile_Open(&c, path, err, sizeof(err));
				if (opened || strcmp(err, expect) != 0)
				{
					fprintf(stderr, "got '%s'\nwant '%s'\n", err, expect);
					_exit(21);
				}
				_exit(0);
			}
			int childStatus = 0;
			ENSURE(waitpid(child, &childStatus, 0) == child);
			ENSURE(chmod(testDir, 0700) == 0);
			ENSURE(WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 0);
		}
	}

	// A write error (EFBIG through RLIMIT_FSIZE, standing in for ENOSPC), in a child process so that
	// the limit stays there. The target must not appear, the temporary file must be gone.
	TestPath(path, sizeof(path), "toolarge.txt");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ENSURE(pid >= 0);
	if (pid == 0)
	{
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {4096, 4096};
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
		{
			_exit(10);
		}
		bsAtomicFile c;
		char cerr[1200], cexpect[1200];
		if (!bsAtomicFile_Open(&c, path, cerr, sizeof(cerr)))
		{
			_exit(11);
		}
		for (int i = 0; i < 100000; ++i)
		{
			bsAtomicFile_Printf(&c, "%d\n", i);  // errors are sticky: checked at Commit
		}
		if (bsAtomicFile_Commit(&c, 0))
		{
			_exit(12);
		}
		snprintf(cexpect, sizeof(cexpect), "%s: cannot write: %s", path, strerror(EFBIG));
		if (strcmp(cerr, cexpect) != 0)
		{
			fprintf(stderr, "got '%s'\nwant '%s'\n", cerr, cexpect);
			_exit(13);
		}
		_exit(Exists(path) || CountTempFiles(testDir) != 0 || bsAtomicFile_PendingCount() != 0 ? 14 : 0);
	}
	int status = 0;
	ENSURE(waitpid(pid, &status, 0) == pid);
	ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	ENSURE(CountTempFiles(testDir) == 0);
	ENSURE(bsAtomicFile_PendingCount() == 0);
	return 0;
}

static int AtomicRegistryTest(void)
{
	char pathA[600], pathB[600], err[1200], expect[1200];
	TestPath(pathA, sizeof(pathA), "sig-a.txt");
	TestPath(pathB, sizeof(pathB), "sig-b.txt");
	bsAtomicFile a, b;
	ENSURE(bsAtomicFile_Open(&a, pathA, err, sizeof(err)));
	ENSURE(bsAtomicFile_Open(&b, pathB, err, sizeof(err)));
	ENSURE(bsAtomicFile_PendingCount() == 2);
	ENSURE(CountTempFiles(testDir) == 2);
	ENSURE(bsAtomicFile_Printf(&a, "a"));

	// What a signal handler does: both temporary files disappear.
	bsAtomicFile_CleanupOnSignal();
	ENSURE(CountTempFiles(testDir) == 0);
	bsAtomicFile_CleanupOnSignal();  // idempotent

	// If the program goes on, the rename finds nothing; the slots are released either way.
	ENSURE(!bsAtomicFile_Commit(&a, 0));
	snprintf(expect, sizeof(expect), "%s: cannot replace: %s", pathA, strerror(ENOENT));
	ENSURE(strcmp(err, expect) == 0);
	bsAtomicFile_Abort(&b);
	ENSURE(!Exists(pathA) && !Exists(pathB));
	ENSURE(bsAtomicFile_PendingCount() == 0);

	// More files than the registry holds still work.
	enum
	{
		many = 70
	};
	bsAtomicFile files[many];
	for (int i = 0; i < many; ++i)
	{
		char p[600], name[32];
		snprintf(name, sizeof(name), "many-%02d.txt", i);
		ENSURE(bsAtomicFile_Open(files + i, TestPath(p, sizeof(p), name), err, sizeof(err)));
	}
	ENSURE(bsAtomicFile_PendingCount() == 64);
	ENSURE(CountTempFiles(testDir) == many);
	for (int i = 0; i < many; ++i)
	{
		ENSURE(bsAtomicFile_Printf(files + i, "%d", i));
		ENSURE(bsAtomicFile_Commit(files + i, 0));
	}
	ENSURE(bsAtomicFile_PendingCount() == 0);
	ENSURE(CountTempFiles(testDir) == 0);
	return 0;
}

// ---- PLY --------------------------------------------------------------------------------------------

typedef struct Bytes
{
	uint8_t data[8192];
	size_t size;
} Bytes;

static void PutText(Bytes* b, const char* s)
{
	size_t n = strlen(s);
	if (b->size + n <= sizeof(b->data))
	{
		memcpy(b->data + b->size, s, n);
		b->size += n;
	}
}

static void PutBits(Bytes* b, uint64_t u, int n, bool big)
{
	for (int i = 0; i < n && b->size < sizeof(b->data); ++i)
	{
		int shift = 8 * (big ? n - 1 - i : i);
		b->data[b->size++] = (uint8_t)(u >> shift);
	}
}

static void PutF32(Bytes* b, float f, bool big)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	PutBits(b, u, 4, big);
}

static void PutF64(Bytes* b, double d, bool big)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	PutBits(b, u, 8, big);
}

static bool SameParticle(const bsPlyParticle* a, const bsPlyParticle* b)
{
	return a->position.x == b->position.x && a->position.y == b->position.y &&
		a->position.z == b->position.z && a->velocity.x == b->velocity.x &&
		a->velocity.y == b->velocity.y && a->velocity.z == b->velocity.z && a->radius == b->radius &&
		a->state == b->state && a->id == b->id;
}

// Writes n particles given as records through the writer of the simulator's arrays.
static bool WritePly(const char* path, const bsPlyParticle* p, size_t n, char* err, size_t errlen)
{
	bsParticles arrays;
	if (bsParticles_Alloc(&arrays, n) != bs_ok)
	{
		return false;
	}
	for (size_t i = 0; i < n; ++i)
	{
		arrays.position[i] = p[i].position;
		arrays.velocity[i] = p[i].velocity;
		arrays.radius[i] = p[i].radius;
		arrays.state[i] = p[i].state;
		arrays.id[i] = p[i].id;
	}
	bool ok = bsPly_WriteParticles(path, &arrays, err, errlen);
	bsParticles_Free(&arrays);
	return ok;
}

static double RandomFloatValue(bsRng* rng, double lo, double hi)
{
	return (double)(float)bsRng_Range(rng, lo, hi);
}

static int PlyRoundTripTest(void)
{
	char path[600], path2[600], err[1200];
	TestPath(path, sizeof(path), "p.ply");
	TestPath(path2, sizeof(path2), "p2.ply");
	enum
	{
		n = 1000
	};
	static bsPlyParticle p[n];
	bsRng rng = bsMakeRng(7);
	for (int i = 0; i < n; ++i)
	{
		p[i].position = bsV3(RandomFloatValue(&rng, -10, 10), RandomFloatValue(&rng, -10, 10),
			RandomFloatValue(&rng, -1e-3, 1e5));
		p[i].velocity = bsV3(RandomFloatValue(&rng, -3, 3), RandomFloatValue(&rng, -3, 3), -0.0);
		p[i].radius = RandomFloatValue(&rng, 0, 0.1);
		p[i].state = (uint8_t)(i % 3);
		p[i].id = i == 0 ? UINT32_MAX : (uint32_t)bsRng_Next(&rng);  // every bit of the field
	}
	ENSURE(WritePly(path, p, n, err, sizeof(err)));
	bsPlyData d;
	ENSURE(bsPly_Read(path, &d, err, sizeof(err)));
	ENSURE(d.count == n);
	ENSURE(d.fields == (bs_plyHasRadius | bs_plyHasVelocity | bs_plyHasState | bs_plyHasId));
	for (int i = 0; i < n; ++i)
	{
		ENSURE(SameParticle(d.particles + i, p + i));
	}
	free(d.particles);

	// Writing twice gives the same bytes.
	ENSURE(WritePly(path2, p, n, err, sizeof(err)));
	size_t s1, s2;
	uint8_t* b1 = ReadAll(path, &s1);
	uint8_t* b2 = ReadAll(path2, &s2);
	bool same = b1 != NULL && b2 != NULL && s1 == s2 && memcmp(b1, b2, s1) == 0;
	free(b1);
	free(b2);
	ENSURE(same);

	// Byte-exact layout of one particle.
	bsPlyParticle one = {bsV3(1.0, -2.0, 0.5), bsV3(0.0, 0.0, -1.0), 0.25, bs_particleStuck, 0x01020304u, {0, 0, 0}};
	ENSURE(WritePly(path, &one, 1, err, sizeof(err)));
	size_t size;
	uint8_t* bytes = ReadAll(path, &size);
	ENSURE(bytes != NULL);
	char header[512];
	snprintf(header, sizeof(header),
		"ply\nformat binary_little_endian 1.0\ncomment blobsim %s\nelement vertex 1\n"
		"property float x\nproperty float y\nproperty float z\nproperty float radius\n"
		"property float vx\nproperty float vy\nproperty float vz\nproperty uchar state\nproperty uint id\n"
		"end_header\n",
		BLOBSIM_VERSION);
	static const uint8_t record[33] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f, 0, 0, 0x80, 0x3e,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xbf, 1, 4, 3, 2, 1};
	size_t hl = strlen(header);
	same = size == hl + 33 && memcmp(bytes, header, hl) == 0 && memcmp(bytes + hl, record, 33) == 0;
	free(bytes);
	ENSURE(same);

	// Doubles are narrowed to float; zero particles is a valid file.
	bsPlyParticle tenth = {bsV3(0.1, 1e-30, -7.0), bsV3(0, 0, 0), 0.1, 0, 0, {0, 0, 0}};
	ENSURE(WritePly(path, &tenth, 1, err, sizeof(err)));
	ENSURE(bsPly_Read(path, &d, err, sizeof(err)));
	ENSURE(d.count == 1 && d.particles[0].position.x == (double)0.1f &&
		d.particles[0].position.y == (double)1e-30f && d.particles[0].radius == (double)0.1f);
	free(d.particles);
	ENSURE(WritePly(path, NULL, 0, err, sizeof(err)));
	ENSURE(bsPly_Read(path, &d, err, sizeof(err)));
	ENSURE(d.count == 0 && d.particles == NULL);

	// Writer errors.
	char expect[1200];
	bsPlyParticle bad = one;
	bad.position.y = 1e39;
	ENSURE(!WritePly(path, &bad, 1, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: particle 0: y = 1e+39 is not a finite float", path);
	ENSURE(strcmp(err, expect) == 0);
	bad = one;
	bad.state = 4;
	ENSURE(!WritePly(path, &bad, 1, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: particle 0: state 4 is not 0, 1, 2 or 3", path);
	ENSURE(strcmp(err, expect) == 0);

	// Reader file errors.
	TestPath(path, sizeof(path), "missing.ply");
	ENSURE(!bsPly_Read(path, &d, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot open: %s", path, strerror(ENOENT));
	ENSURE(strcmp(err, expect) == 0);
	ENSURE(!bsPly_Read(testDir, &d, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot read: %s", testDir, strerror(EISDIR));
	ENSURE(strcmp(err, expect) == 0);
	ENSURE(CountTempFiles(testDir) == 0);
	return 0;
}

static int PlyFormatsTest(void)
{
	char err[1200];
	bsPlyData d;

	// ascii: any property order, a double, an extra property, a face element after the vertices.
	const char* ascii =
		"ply\r\n"
		"format ascii 1.0\r\n"
		"comment made by hand\n"
		"element vertex 3\n"
		"property float z\n"
		"property double x\n"
		"property float y\n"
		"property float radius\n"
		"property int extra\n"
		"property uchar state\n"
		"element face 1\n"
		"property list uchar int vertex_indices\n"
		"end_header\n"
		"1 2 3 0.5 7 0\n"
		"4 5.25 6 0.25 -8 1\r\n"
		"  -1e-3\t.5 2 1 9 2\n"
		"3 0 1 2\n";
	ENSURE(bsPly_Parse((const uint8_t*)ascii, strlen(ascii), "a.ply", &d, err, sizeof(err)));
	ENSURE(d.count == 3 && d.fields == (bs_plyHasRadius | bs_plyHasState));
	ENSURE(d.particles[0].position.x == 2 && d.particles[0].position.y == 3);
	ENSURE(d.particles[0].position.z == 1);
	ENSURE(d.particles[1].position.x == 5.25 && d.particles[1].radius == 0.25 && d.particles[1].state == 1);
	ENSURE(d.particles[2].position.x == 0.5 && d.particles[2].position.z == -1e-3);
	ENSURE(d.particles[2].state == 2);
	ENSURE(d.particles[2].velocity.x == 0 && d.particles[2].velocity.z == 0);
	free(d.particles);

	// binary, both byte orders: an element with a list before the vertices, doubles, shorts, a list
	// inside the vertex element, properties in a scrambled order.
	for (int order = 0; order < 2; ++order)
	{
		bool big = order == 1;
		Bytes b = {{0}, 0};
		PutText(&b, big ? "ply\nformat binary_big_endian 1.0\n" : "ply\nformat binary_little_endian 1.0\n");
		PutText(&b,
			"element material 2\n"
			"property list uchar float coefficients\n"
			"property short id\n"
			"element vertex 2\n"
			"property double vz\n"
			"property float y\n"
			"property list int ushort neighbours\n"
			"property double x\n"
			"property float vx\n"
			"property int state\n"
			"property float vy\n"
			"property double z\n"
			"property char flag\n"
			"end_header\n");
		// material 0: 2 coefficients; material 1: none
		PutBits(&b, 2, 1, big);
		PutF32(&b, 0.5f, big);
		PutF32(&b, 0.25f, big);
		PutBits(&b, 1, 2, big);
		PutBits(&b, 0, 1, big);
		PutBits(&b, 0xffff, 2, big);
		for (int v = 0; v < 2; ++v)
		{
			PutF64(&b, -9.81 * (v + 1), big);  // vz
			PutF32(&b, 1.5f + (float)v, big);  // y
			PutBits(&b, (uint64_t)v, 4, big);  // neighbours: v entries
			for (int k = 0; k < v; ++k)
			{
				PutBits(&b, 7, 2, big);
			}
			PutF64(&b, 0.1 * (v + 1), big);  // x
			PutF32(&b, -0.5f, big);           // vx
			PutBits(&b, (uint64_t)(2 - v), 4, big);  // state
			PutF32(&b, 3.0f, big);            // vy
			PutF64(&b, 1e-300, big);          // z
			PutBits(&b, 0xff, 1, big);        // flag (-1)
		}
		PutText(&b, "trailing bytes are ignored");
		ENSURE(bsPly_Parse(b.data, b.size, "b.ply", &d, err, sizeof(err)));
		ENSURE(d.count == 2 && d.fields == (bs_plyHasVelocity | bs_plyHasState));
		for (int v = 0; v < 2; ++v)
		{
			const bsPlyParticle* q = d.particles + v;
			ENSURE(q->position.x == 0.1 * (v + 1) && q->position.y == 1.5 + v && q->position.z == 1e-300);
			ENSURE(q->velocity.x == -0.5 && q->velocity.y == 3.0 && q->velocity.z == -9.81 * (v + 1));
			ENSURE(q->state == 2 - v && q->radius == 0.0);
		}
		free(d.particles);
	}
	return 0;
}

typedef struct BadPly
{
	const char* text;  // header (and, for ascii, body) text
	int bodyBytes;     // binary zero bytes appended
	const char* message;
} BadPly;

static int PlyMalformedTest(void)
{
	static const BadPly cases[] = {
		// truncated body
		{"ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
		 "property float z\nend_header\n", 20,
			"bad.ply: element vertex has 2 items but the data holds at most 1"},
		// count larger than the data
		{"ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\n"
		 "property float z\nend_header\n", 24,
			"bad.ply: element vertex has 100 items but the data holds at most 2"},
		// unknown type
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty flaot x\nend_header\n", 0,
			"bad.ply:4: unknown property type 'flaot'"},
		// missing x
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float y\nproperty float z\nend_header\n1 2\n", 0,
			"bad.ply:3: element vertex has no property 'x'"},
		// element vertex -1
		{"ply\nformat ascii 1.0\nelement vertex -1\n", 0, "bad.ply:3: bad element count '-1'"},
		// huge counts
		{"ply\nformat binary_little_endian 1.0\nelement vertex 18446744073709551615\nproperty double x\n"
		 "property double y\nproperty double z\nend_header\n", 48,
			"bad.ply: element vertex has 18446744073709551615 items but the data holds at most 2"},
		{"ply\nformat ascii 1.0\nelement vertex 99999999999999999999999\n", 0,
			"bad.ply:3: bad element count '99999999999999999999999'"},
		{"ply\nformat ascii 1.0\nelement vertex 5000000000\nproperty float x\nproperty float y\n"
		 "property float z\nend_header\n1 2 3\n", 0,
			"bad.ply: element vertex has 5000000000 items but the data holds at most 1"},
		// bad magic
		{"plx\nformat ascii 1.0\n", 0, "bad.ply:1: not a PLY file (the first line is not 'ply')"},
		{"", 0, "bad.ply:1: not a PLY file (the first line is not 'ply')"},
		{"ply", 0, "bad.ply:1: not a PLY file (the first line is not 'ply')"},
		{"\x7f" "ELF\x02\x01\x01", 0, "bad.ply:1: not a PLY file (the first line is not 'ply')"},
		// missing end_header
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n", 0, "bad.ply: missing end_header"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_head", 0, "bad.ply: missing end_header"},
		// formats and versions
		{"ply\nformat binary_middle_endian 1.0\n", 0, "bad.ply:2: unknown format 'binary_middle_endian'"},
		{"ply\nformat ascii 2.0\n", 0, "bad.ply:2: unsupported PLY version '2.0'"},
		{"ply\nelement vertex 1\n", 0, "bad.ply:2: missing format line"},
		{"ply\nformat ascii 1.0\nend_header\n", 0, "bad.ply: no vertex element"},
		// garbage
		{"ply\n\x01\x02garbage\n", 0, "bad.ply:2: invalid byte 0x01 in the header"},
		{"ply\nformat ascii 1.0\nhello world\n", 0, "bad.ply:3: unknown header keyword 'hello'"},
		{"ply\nformat ascii 1.0\nproperty float x\n", 0, "bad.ply:3: property before any element"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\n", 0,
			"bad.ply:4: property 'x' must not be a list"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty double x\n", 0,
			"bad.ply:5: duplicate property 'x'"},
		{"ply\nformat ascii 1.0\nelement face 1\nproperty list float int v\n", 0,
			"bad.ply:4: list count type 'float' is not an integer type"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property float vx\nend_header\n1 2 3 4\n", 0,
			"bad.ply:3: element vertex has only some of vx, vy, vz"},
		// ascii bodies
		{"ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n"
		 "end_header\n1 2 3\n4 abc 6\n", 0, "bad.ply:9: bad number 'abc'"},
		{"ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n"
		 "end_header\n1.000 2 3\n4 5\n", 0, "bad.ply:9: unexpected end of data in element vertex (item 1 of 2)"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "end_header\nnan 2 3\n", 0, "bad.ply:8: vertex 0: non-finite x"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property uchar state\nend_header\n1 2 3 7\n", 0, "bad.ply:9: vertex 0: state 7 is not 0, 1, 2 or 3"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property uchar state\nend_header\n1 2 3 256\n", 0, "bad.ply:9: bad uchar value '256'"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property float radius\nend_header\n1 2 3 -1\n", 0, "bad.ply:9: vertex 0: negative radius -1"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property float id\nend_header\n1 2 3 1.5\n", 0,
			"bad.ply:9: vertex 0: id 1.5 is not an integer from 0 to 4294967295"},
		{"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
		 "property int id\nend_header\n1 2 3 -1\n", 0,
			"bad.ply:9: vertex 0: id -1 is not an integer from 0 to 4294967295"},
		// a binary list longer than the data, before the vertices
		{"ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uchar int v\nelement vertex 0\n"
		 "property float x\nproperty float y\nproperty float z\nend_header\n\xff", 0,
			"bad.ply: unexpected end of data in element face (item 0 of 1)"},
	};
	char err[1200];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		Bytes b = {{0}, 0};
		PutText(&b, cases[i].text);
		b.size += (size_t)cases[i].bodyBytes;
		bsPlyData d;
		bool ok = bsPly_Parse(b.data, b.size, "bad.ply", &d, err, sizeof(err));
		if (ok || strcmp(err, cases[i].message) != 0)
		{
			fprintf(stderr, "case %zu: got %s '%s'\n  want '%s'\n", i, ok ? "success" : "error", err,
				cases[i].message);
		}
		ENSURE(!ok && strcmp(err, cases[i].message) == 0);
		ENSURE(d.particles == NULL && d.count == 0);
	}

	// A header line over the limit.
	Bytes b = {{0}, 0};
	PutText(&b, "ply\nformat ascii 1.0\ncomment ");
	for (int i = 0; i < bs_plyMaxLineLength; ++i)
	{
		PutText(&b, "x");
	}
	PutText(&b, "\nend_header\n");
	bsPlyData d;
	ENSURE(!bsPly_Parse(b.data, b.size, "bad.ply", &d, err, sizeof(err)));
	ENSURE(strcmp(err, "bad.ply:3: header line longer than 1024 bytes") == 0);

	// Every prefix of a valid file, and random byte corruption, must fail cleanly or parse (the
	// sanitizer build checks the memory safety).
	const char* good =
		"ply\nformat binary_little_endian 1.0\nelement face 2\nproperty list uchar int v\n"
		"element vertex 2\nproperty float x\nproperty float y\nproperty float z\nproperty uchar state\n"
		"end_header\n";
	Bytes g = {{0}, 0};
	PutText(&g, good);
	for (int f = 0; f < 2; ++f)
	{
		PutBits(&g, 3, 1, false);
		for (int k = 0; k < 3; ++k)
		{
			PutBits(&g, (uint64_t)k, 4, false);
		}
	}
	for (int v = 0; v < 2; ++v)
	{
		PutF32(&g, 1.0f, false);
		PutF32(&g, 2.0f, false);
		PutF32(&g, 3.0f, false);
		PutBits(&g, 1, 1, false);
	}
	ENSURE(bsPly_Parse(g.data, g.size, "g.ply", &d, err, sizeof(err)));
	ENSURE(d.count == 2 && d.particles[1].position.z == 3.0 && d.particles[1].state == 1);
	free(d.particles);
	for (size_t len = 0; len < g.size; ++len)
	{
		ENSURE(!bsPly_Parse(g.data, len, "g.ply", &d, err, sizeof(err)));
		ENSURE(strncmp(err, "g.ply", 5) == 0);
	}
	bsRng rng = bsMakeRng(99);
	for (int trial = 0; trial < 20000; ++trial)
	{
		Bytes c = g;
		int flips = 1 + (int)bsRng_Below(&rng, 4);
		for (int k = 0; k < flips; ++k)
		{
			c.data[bsRng_Below(&rng, (uint32_t)c.size)] = (uint8_t)bsRng_Next(&rng);
		}
		if (bsPly_Parse(c.data, c.size, "c.ply", &d, err, sizeof(err)))
		{
			ENSURE(d.count <= 2);
			free(d.particles);
		}
		else
		{
			ENSURE(strncmp(err, "c.ply", 5) == 0 && d.particles == NULL);
		}
	}
	return 0;
}

// ---- Number formatting ----------------------------------------------------------------------------

static int CheckFormat(double x)
{
	char mine[bs_povNumberMax], libc[64];
	size_t n = bsPov_FormatDouble(mine, x);
	snprintf(libc, sizeof(libc), "%.9g", x);
	if (strcmp(mine, libc) != 0 || n != strlen(mine))
	{
		fprintf(stderr, "format %.17g: got '%s', printf gives '%s'\n", x, mine, libc);
		return 1;
	}
	return 0;
}

static int FormatTest(void)
{
	static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1e-4, 9.99999999e-5, 9.999999995e-5,
		0.000123456789, 1e-5, 123456789.0, 999999999.0, 999999999.4, 999999999.5, 1e9, 1e10, 1234567890.0,
		123456789.5, 123456788.5, 0.30000000000000004, 1.0000000005, 1.0000000015, 2.5e-15, 1e-14, 9.9e29,
		1e30, 1e31, 1e300, -1e-300, 5e-324, DBL_MAX, DBL_MIN, 16777216.0, 3.14159265358979, 100.0, 1e8,
		99999999.95, 0.000099999999950000, 8.8817841970012523e-16, -1.1102230246251565e-16, 1e-15, 9.99999999e-16,
		9.999999995e-16, 1e-36, 9.9999999e-37, 1e-37, 1.23456789e-30};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); ++i)
	{
		ENSURE(CheckFormat(special[i]) == 0);
	}
	bsRng rng = bsMakeRng(2024);
	for (int i = 0; i < 1000000; ++i)
	{
		// Scene-like magnitudes, wide magnitudes, raw bit patterns, and ties (few significant bits).
		double x;
		switch (i % 4)
		{
			case 0:
				x = bsRng_Range(&rng, -100.0, 100.0);
				break;
			case 1:
				x = bsRng_Range(&rng, 1.0, 10.0) * pow(10.0, bsRng_Range(&rng, -40.0, 35.0));
				break;
			case 2:
			{
				uint64_t u = bsRng_Next(&rng);
				memcpy(&x, &u, sizeof(x));
				if (!isfinite(x))
				{
					x = 1.0;
				}
				break;
			}
			default:
				// exact ties at the ninth digit, and values with few significant bits
				x = i % 3 == 0 ? 100000000.0 + (double)bsRng_Below(&rng, 900000000u) + 0.5
							   : ldexp((double)(bsRng_Next(&rng) >> 28), -(int)bsRng_Below(&rng, 40));
				break;
		}
		ENSURE(CheckFormat(i % 8 < 4 ? x : -x) == 0);
	}

	// Speed, not asserted.
	enum
	{
		n = 1000000
	};
	double* values = malloc(n * sizeof(double));
	ENSURE(values != NULL);
	for (int i = 0; i < n; ++i)
	{
		values[i] = bsRng_Range(&rng, -50.0, 50.0);
	}
	char buf[64];
	size_t total = 0;
	double t0 = Now();
	for (int i = 0; i < n; ++i)
	{
		total += bsPov_FormatDouble(buf, values[i]);
	}
	double t1 = Now();
	for (int i = 0; i < n; ++i)
	{
		total += (size_t)snprintf(buf, sizeof(buf), "%.9g", values[i]);
	}
	double t2 = Now();
	free(values);
	printf("  format: %.1f ns a number (snprintf %%.9g: %.1f ns) [%zu]\n", 1e9 * (t1 - t0) / n,
		1e9 * (t2 - t1) / n, total % 10);
	return 0;
}

// ---- POV-Ray scenes -------------------------------------------------------------------------------

static int MakeQuad(bsTriangle* out, double y, double half)
{
	bsVec3 a = bsV3(-half, y, -half), b = bsV3(-half, y, half);
	bsVec3 c = bsV3(half, y, half), d = bsV3(half, y, -half);
	ENSURE(bsMakeTriangle(a, b, c, out + 0) == bs_ok);
	ENSURE(bsMakeTriangle(a, c, d, out + 1) == bs_ok);
	return 0;
}

static double Volume(bsVec3 lo, bsVec3 hi)
{
	return (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
}

typedef struct SceneData
{
	bsTriangle quad[2];
	bsTriangle single[1];
	bsPovMesh meshes[3];
	bsPovLight lights[2];
	bsPovPlane plane;
	bsVec3* centers;
	double* radii;
} SceneData;

static int MakeScene(SceneData* s, bsPovScene* scene, size_t count, uint64_t seed)
{
	RUN_SUBTEST(MakeQuad(s->quad, -0.0, 2.0));
	ENSURE(bsMakeTriangle(bsV3(0, 0, 0), bsV3(1, 0, 0), bsV3(0, 1, 0), s->single) == bs_ok);
	s->meshes[0] =
		(bsPovMesh){"floor quad", s->quad, 2, "pigment { color rgb <1,1,1> } finish { diffuse 0.7 }", NULL};
	s->meshes[1] = (bsPovMesh){"empty", NULL, 0, NULL, NULL};
	s->meshes[2] = (bsPovMesh){NULL, s->single, 1, NULL, NULL};
	s->lights[0] = (bsPovLight){bsV3(5, 10, -5), bsV3(1, 1, 1)};
	s->lights[1] = (bsPovLight){bsV3(-5, 3, -2), bsV3(0.3, 0.3, 0.4)};
	s->plane = (bsPovPlane){bsV3(0, -1, 0), bsV3(0, 2, 0), "pigment { checker color rgb 1 color rgb 0.5 }"};
	s->centers = malloc(count * sizeof(bsVec3));
	s->radii = malloc(count * sizeof(double));
	ENSURE(s->centers != NULL && s->radii != NULL);
	bsRng rng = bsMakeRng(seed);
	for (size_t i = 0; i < count; ++i)
	{
		s->centers[i] = bsV3(bsRng_Range(&rng, -1, 1), bsRng_Range(&rng, -1, 0.5), bsRng_Range(&rng, -1, 1));
		s->radii[i] = bsRng_Range(&rng, 0.02, 0.05);
	}
	*scene = bsPovScene_Default();
	scene->camera.location = bsV3(0, 1.5, -4);
	scene->camera.lookAt = bsV3(0, -0.5, 0);
	scene->camera.width = 64;
	scene->camera.height = 48;
	scene->lights = s->lights;
	scene->lightCount = 2;
	scene->background = bsV3(0.1, 0.2, 0.3);
	scene->meshes = s->meshes;
	scene->meshCount = 3;
	scene->planes = &s->plane;
	scene->planeCount = 1;
	scene->particles.centers = s->centers;
	scene->particles.radii = s->radii;
	scene->particles.count = count;
	scene->particles.material = "pigment { color rgb <0.9,0.95,1> } finish { specular 0.4 }";
	return 0;
}

static void FreeScene(SceneData* s)
{
	free(s->centers);
	free(s->radii);
}

static int CompareLines(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

// The blobs are formatted in pieces of 2048 components on the threads (pov_writer.c): 12,000 particles
// in 4 tiles of 3,000 give each tile two pieces of its own and pieces of its neighbours' edge particles.
// The file is the same at 1, 2 and 3 threads and all cores, and each tile holds exactly the particles
// whose sphere reaches its clip box, against a brute-force check of every particle and tile (the
// neighbours' edge lists skip most particles: none that reaches the box may be missing).
static int PovThreadsTest(void)
{
	enum
	{
		count = 12000,
		tiles = 4
	};
	SceneData s;
	bsPovScene scene;
	RUN_SUBTEST(MakeScene(&s, &scene, count, 11));
	scene.particles.maxComponents = 5000;
	char path[600], err[1200];
	uint8_t* first = NULL;
	size_t firstSize = 0;
	int rc = 0;
	const int threads[] = {1, 2, 3, 0};
	for (int k = 0; k < 4 && rc == 0; ++k)
	{
		TestPath(path, sizeof(path), "threads.pov");
		scene.particles.threads = threads[k];
		size_t size = 0;
		uint8_t* text = bsPov_WriteScene(path, &scene, err, sizeof(err)) ? ReadAll(path, &size) : NULL;
		if (text == NULL || (first != NULL && (size != firstSize || memcmp(text, first, size) != 0)))
		{
			fprintf(stderr, "scene at %d threads differs from 1 thread's (%s)\n", threads[k], err);
			rc = 1;
		}
		if (first == NULL)
		{
			first = text;
			firstSize = size;
		}
		else
		{
			free(text);
		}
	}
	char* text = rc == 0 ? realloc(first, firstSize + 1) : first;
	if (rc != 0 || text == NULL)
	{
		free(text);
		FreeScene(&s);
		ENSURE(rc == 0 && text != NULL);
	}
	text[firstSize] = '\0';
	rc |= CountOccurrences(text, "\nblob\n{") != tiles;

	// Each tile's sphere lines (sorted, for the look-ups) and clip box.
	char** lines = malloc(3 * count * sizeof(char*));
	size_t start[tiles + 1] = {0};
	bsVec3 lo[tiles], hi[tiles];
	size_t n = 0, t = 0;
	for (char* line = strtok(text, "\n"); line != NULL && lines != NULL && rc == 0; line = strtok(NULL, "\n"))
	{
		if (strcmp(line, "blob") == 0)
		{
			start[t] = n;
		}
		else if (strncmp(line, "\tsphere { ", 10) == 0 && n < 3 * count)
		{
			lines[n++] = line;
		}
		else if (strncmp(line, "\tclipped_by { box { ", 20) == 0 && t < tiles)
		{
			double v[6];
			rc |= sscanf(line, "\tclipped_by { box { <%lf,%lf,%lf>, <%lf,%lf,%lf> } }", v, v + 1, v + 2, v + 3,
				v + 4, v + 5) != 6;
			lo[t] = bsV3(v[0], v[1], v[2]);
			hi[t] = bsV3(v[3], v[4], v[5]);
			start[++t] = n;
		}
	}
	rc |= lines == NULL || t != tiles;
	for (t = 0; t < tiles && rc == 0; ++t)
	{
		qsort(lines + start[t], start[t + 1] - start[t], sizeof(char*), CompareLines);
		size_t written = 0;
		for (size_t i = 0; i < count; ++i)
		{
			char want[256];
			char* key = want;
			double reach = s.radii[i] * scene.particles.radiusScale;
			snprintf(want, sizeof(want), "\tsphere { <%.9g,%.9g,%.9g>, %.9g, 1 }", s.centers[i].x, s.centers[i].y,
				s.centers[i].z, reach);
			bool found = bsearch(&key, lines + start[t], start[t + 1] - start[t], sizeof(char*), CompareLines) != NULL;
			bsVec3 q = bsMax(lo[t], bsMin(hi[t], s.centers[i]));
			double d2 = bsDistanceSquared(s.centers[i], q);
			// The box is read back rounded to 9 digits: a hair around the sphere is left undecided.
			if ((d2 < reach * reach * (1.0 - 1e-6) && !found) || (d2 > reach * reach * (1.0 + 1e-6) && found))
			{
				fprintf(stderr, "tile %zu: particle %zu at %g of its reach %g, written: %d\n", t, i, sqrt(d2), reach,
					found);
				rc = 1;
				break;
			}
			written += found;
		}
		rc |= written != start[t + 1] - start[t];  // nothing else, and nothing twice
	}
	free(lines);
	free(text);
	FreeScene(&s);
	ENSURE(rc == 0);
	return 0;
}

static int PovStructureTest(void)
{
	char pathA[600], pathB[600], err[1200], expect[1200];
	TestPath(pathA, sizeof(pathA), "a.pov");
	TestPath(pathB, sizeof(pathB), "b.pov");
	enum
	{
		count = 1000,
		maxComponents = 300
	};
	SceneData s;
	bsPovScene scene;
	RUN_SUBTEST(MakeScene(&s, &scene, count, 5));
	scene.particles.maxComponents = maxComponents;
	ENSURE(bsPov_WriteScene(pathA, &scene, err, sizeof(err)));
	ENSURE(bsPov_WriteScene(pathB, &scene, err, sizeof(err)));
	size_t sizeA, sizeB;
	uint8_t* a = ReadAll(pathA, &sizeA);
	uint8_t* b = ReadAll(pathB, &sizeB);
	bool same = a != NULL && b != NULL && sizeA == sizeB && memcmp(a, b, sizeA) == 0;
	free(b);
	if (!same)
	{
		free(a);
		FreeScene(&s);
		ENSURE(same);
	}
	char* text = realloc(a, sizeA + 1);
	ENSURE(text != NULL);
	text[sizeA] = '\0';

	// The blocks.
	int rc = 0;
	char header[256];
	snprintf(header, sizeof(header),
		"#version 3.7;\n// blobsim %s scene: 1000 particles in 4 blobs, 3 meshes (3 triangles), 1 plane, "
		"2 lights\n",
		BLOBSIM_VERSION);
	rc |= strncmp(text, header, strlen(header)) != 0;
	rc |= strstr(text, "global_settings { assumed_gamma 1 }") == NULL;
	rc |= strstr(text, "camera\n{\n\tperspective\n\tlocation <0,1.5,-4>\n\tright x*64/48\n\tup y\n") == NULL;
	rc |= strstr(text, "\tangle 50\n\tlook_at <0,-0.5,0>\n}") == NULL;
	rc |= CountOccurrences(text, "light_source { ") != 2;
	rc |= strstr(text, "light_source { <-5,3,-2> color rgb <0.3,0.3,0.4> }") == NULL;
	rc |= strstr(text, "background { color rgb <0.1,0.2,0.3> }") == NULL;
	rc |= CountOccurrences(text, "mesh2\n") != 2;
	rc |= strstr(text, "// mesh floor quad: 2 triangles, 4 vertices\nmesh2\n{\n\tvertex_vectors\n\t{\n\t\t4,\n"
					   "\t\t<-2,0,-2>,\n\t\t<-2,0,2>,\n\t\t<2,0,2>,\n\t\t<2,0,-2>\n\t}\n\tface_indices\n\t{\n"
					   "\t\t2,\n\t\t<0,1,2>,\n\t\t<0,2,3>\n\t}\n") == NULL;
	rc |= strstr(text, "// mesh 1 has no triangles") == NULL;
	rc |= strstr(text, "\tvertex_vectors\n\t{\n\t\t3,\n") == NULL;
	rc |= strstr(text,
			  "plane { <0,1,0>, -1\n\ttexture { pigment { checker color rgb 1 color rgb 0.5 } }\n}") == NULL;
	// 1000 particles, at most 300 a tile: median splits give 4 tiles of 250.
	size_t blobs = 4;
	rc |= CountOccurrences(text, "\nblob\n{\n\tthreshold 0.5\n") != blobs;
	rc |= CountOccurrences(text,
			  "\ttexture { pigment { color rgb <0.9,0.95,1> } finish { specular 0.4 } }\n\tclipped_by { box { ") !=
		blobs;
	rc |= strstr(text, "hierarchy") != NULL;
	if (rc != 0)
	{
		fprintf(stderr, "unexpected scene structure in %s\n", pathA);
	}

	// The tiles: read each blob's components and its clip box.
	enum
	{
		maxTiles = 16
	};
	bsVec3 lo[maxTiles], hi[maxTiles];
	char** lines[maxTiles];
	size_t lineCount[maxTiles];
	size_t tiles = 0;
	for (size_t t = 0; t < maxTiles; ++t)
	{
		lines[t] = malloc(count * sizeof(char*));
		lineCount[t] = 0;
	}
	for (char* line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"))
	{
		if (strcmp(line, "blob") == 0 && tiles < maxTiles)
		{
			++tiles;
		}
		else if (tiles > 0 && strncmp(line, "\tsphere { ", 10) == 0 && lineCount[tiles - 1] < count)
		{
			lines[tiles - 1][lineCount[tiles - 1]++] = line;
		}
		else if (tiles > 0 && strncmp(line, "\tclipped_by { box { ", 20) == 0)
		{
			double v[6];
			if (sscanf(line, "\tclipped_by { box { <%lf,%lf,%lf>, <%lf,%lf,%lf> } }", v, v + 1, v + 2, v + 3,
					v + 4, v + 5) == 6)
			{
				lo[tiles - 1] = bsV3(v[0], v[1], v[2]);
				hi[tiles - 1] = bsV3(v[3], v[4], v[5]);
			}
		}
	}
	rc |= tiles != blobs;

	// The reference lines, built with the C library's %.9g.
	char** want = malloc(count * sizeof(char*));
	for (size_t i = 0; i < count; ++i)
	{
		char line[256];
		snprintf(line, sizeof(line), "\tsphere { <%.9g,%.9g,%.9g>, %.9g, 1 }", s.centers[i].x, s.centers[i].y,
			s.centers[i].z, s.radii[i] * scene.particles.radiusScale);
		want[i] = malloc(strlen(line) + 1);
		strcpy(want[i], line);
	}
	// Each tile holds exactly the components whose sphere reaches its box (the field inside the box is
	// the whole field, so the clipped surfaces join without a seam); every centre lies in some box; the
	// boxes' volumes add up to the box of all components (they tile it).
	double tileVolume = 0.0;
	bsVec3 allLo = lo[0], allHi = hi[0];
	for (size_t t = 0; t < tiles && rc == 0; ++t)
	{
		tileVolume += Volume(lo[t], hi[t]);
		allLo = bsMin(allLo, lo[t]);
		allHi = bsMax(allHi, hi[t]);
		size_t expected = 0;
		for (size_t i = 0; i < count; ++i)
		{
			double reach = s.radii[i] * scene.particles.radiusScale;
			bsVec3 c = s.centers[i];
			bsVec3 q = bsMax(lo[t], bsMin(hi[t], c));
			bool meets = bsDistanceSquared(c, q) <= reach * reach * (1.0 + 1e-6);
			bool found = false;
			for (size_t k = 0; k < lineCount[t] && !found; ++k)
			{
				found = strcmp(lines[t][k], want[i]) == 0;
			}
			if (meets != found && bsDistanceSquared(c, q) < reach * reach * (1.0 - 1e-6))
			{
				fprintf(stderr, "tile %zu: particle %zu reaches it: %d, written: %d\n", t, i, meets, found);
				rc = 1;
				break;
			}
			expected += found;
		}
		rc |= expected != lineCount[t];  // nothing else in the tile
	}
	for (size_t i = 0; i < count && rc == 0; ++i)
	{
		bool inside = false;
		for (size_t t = 0; t < tiles && !inside; ++t)
		{
			inside = s.centers[i].x >= lo[t].x && s.centers[i].x <= hi[t].x && s.centers[i].y >= lo[t].y &&
				s.centers[i].y <= hi[t].y && s.centers[i].z >= lo[t].z && s.centers[i].z <= hi[t].z;
		}
		rc |= !inside;
	}
	if (rc == 0 && !(fabs(tileVolume - Volume(allLo, allHi)) <= 1e-6 * Volume(allLo, allHi)))
	{
		fprintf(stderr, "tiles do not tile: %g against %g\n", tileVolume, Volume(allLo, allHi));
		rc = 1;
	}
	for (size_t i = 0; i < count; ++i)
	{
		free(want[i]);
	}
	for (size_t t = 0; t < maxTiles; ++t)
	{
		free(lines[t]);
	}
	free(want);
	free(text);
	ENSURE(rc == 0);

	ENSURE(fabs(bsPov_BlobRadiusScale(0.5, 1.0) - 1.0 / sqrt(1.0 - sqrt(0.5))) < 1e-15);
	ENSURE(bsPov_BlobRadiusScale(1.0, 0.5) == 0.0);

	// Input errors: nothing is written.
	TestPath(pathB, sizeof(pathB), "c.pov");
	bsPovScene bad = scene;
	bad.camera.angle = 0.0;
	ENSURE(!bsPov_WriteScene(pathB, &bad, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: camera: angle 0 is not in (0, 180) degrees", pathB);
	ENSURE(strcmp(err, expect) == 0);
	bad = scene;
	s.centers[3].y = (double)NAN;
	ENSURE(!bsPov_WriteScene(pathB, &bad, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: particle 3: non-finite centre", pathB);
	ENSURE(strcmp(err, expect) == 0);
	s.centers[3].y = 0.0;
	s.radii[7] = 0.0;
	ENSURE(!bsPov_WriteScene(pathB, &bad, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: particle 7: radius 0 is not positive", pathB);
	ENSURE(strcmp(err, expect) == 0);
	s.radii[7] = 0.03;
	bad.camera.lookAt = bsV3(0, -5, 0);
	bad.camera.location = bsV3(0, 5, 0);
	ENSURE(!bsPov_WriteScene(pathB, &bad, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: camera: the view direction is parallel to sky", pathB);
	ENSURE(strcmp(err, expect) == 0);
	ENSURE(!Exists(pathB));
	TestPath(pathB, sizeof(pathB), "no-such-dir/c.pov");
	ENSURE(!bsPov_WriteScene(pathB, &scene, err, sizeof(err)));
	snprintf(expect, sizeof(expect), "%s: cannot create: %s", pathB, strerror(ENOENT));
	ENSURE(strcmp(err, expect) == 0);

	// One blob when the limit allows; a uniform radius.
	scene.particles.maxComponents = 0;
	scene.particles.radii = NULL;
	scene.particles.radius = 0.04;
	ENSURE(bsPov_WriteScene(pathA, &scene, err, sizeof(err)));
	size_t size;
	text = (char*)ReadAll(pathA, &size);
	ENSURE(text != NULL);
	char* grown = realloc(text, size + 1);
	ENSURE(grown != NULL);
	text = grown;
	text[size] = '\0';
	char radius[64];
	snprintf(radius, sizeof(radius), ">, %.9g, 1 }\n", 0.04 * scene.particles.radiusScale);
	rc = CountOccurrences(text, "\nblob\n") != 1 || CountOccurrences(text, radius) != count;
	free(text);
	FreeScene(&s);
	ENSURE(rc == 0);
	ENSURE(CountTempFiles(testDir) == 0);
	return 0;
}

static int PovRenderTest(void)
{
	if (!PovrayAvailable())
	{
		printf("  pov: render check skipped: povray is not on PATH\n");
		return 0;
	}
	char dir[600], path[700], err[1200], command[2048];
	TestPath(dir, sizeof(dir), "render");
	ENSURE(mkdir(dir, 0700) == 0);

	// A floor, a mesh and a pile of 50 particles.
	SceneData s;
	bsPovScene scene;
	RUN_SUBTEST(MakeScene(&s, &scene, 50, 11));
	scene.particles.maxComponents = 16;  // 4 blobs
	snprintf(path, sizeof(path), "%s/scene.pov", dir);
	bool ok = bsPov_WriteScene(path, &scene, err, sizeof(err));
	if (!ok)
	{
		FreeScene(&s);
		fprintf(stderr, "%s\n", err);
		ENSURE(ok);
	}
	snprintf(command, sizeof(command),
		"cd '%s' && povray +Iscene.pov +Oscene.png +W64 +H48 -D +A0.3 -GA >render.log 2>&1", dir);
	int status = system(command);
	snprintf(path, sizeof(path), "%s/scene.png", dir);
	long pngSize = FileSize(path);
	if (status != 0 || pngSize <= 0)
	{
		snprintf(command, sizeof(command), "cat '%s/render.log' >&2", dir);
		ENSURE(system(command) >= 0);
	}
	ENSURE(status == 0);
	ENSURE(pngSize > 0);
	size_t size;
	uint8_t* png = ReadAll(path, &size);
	bool isPng = png != NULL && size > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0;
	free(png);
	ENSURE(isPng);
	printf("  pov: rendered a 64x48 scene with 50 blob components in 4 blobs (%ld bytes of PNG)\n", pngSize);

	// An animation of frames 0 .. 2, then frame 1 alone (+SF1 +EF1), then a single-frame one.
	for (int frame = 0; frame <= 2; ++frame)
	{
		char name[32];
		bsPov_FrameFileName(name, sizeof(name), frame);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		s.centers[0].y += 0.1;
		ok = ok && bsPov_WriteScene(path, &scene, err, sizeof(err));
	}
	FreeScene(&s);
	ENSURE(ok);
	snprintf(path, sizeof(path), "%s/animation.ini", dir);
	ENSURE(bsPov_WriteAnimationIni(path, 2, 32, 24, 0.3, 1.0, err, sizeof(err)));
	snprintf(command, sizeof(command), "cd '%s' && povray animation.ini -GA >animation.log 2>&1", dir);
	status = system(command);
	char frames[3][700];
	bool all = true;
	for (int frame = 0; frame <= 2; ++frame)
	{
		// Named like the scenes: frame_0000.png for frame_0000.pov.
		snprintf(frames[frame], sizeof(frames[frame]), "%s/frame_%04d.png", dir, frame);
		all = all && FileSize(frames[frame]) > 0;
	}
	if (status != 0 || !all)
	{
		snprintf(command, sizeof(command), "ls '%s'; cat '%s/animation.log' >&2", dir, dir);
		ENSURE(system(command) >= 0);
	}
	ENSURE(status == 0 && all);
	ENSURE(unlink(frames[0]) == 0 && unlink(frames[1]) == 0 && unlink(frames[2]) == 0);
	snprintf(command, sizeof(command), "cd '%s' && povray animation.ini +SF1 +EF1 -GA >animation.log 2>&1", dir);
	status = system(command);
	ENSURE(status == 0 && FileSize(frames[0]) < 0 && FileSize(frames[1]) > 0 && FileSize(frames[2]) < 0);
	ENSURE(unlink(frames[1]) == 0);
	snprintf(path, sizeof(path), "%s/single.ini", dir);
	ENSURE(bsPov_WriteAnimationIni(path, 0, 32, 24, 0.0, 1.0, err, sizeof(err)));
	snprintf(command, sizeof(command), "cd '%s' && povray single.ini -GA >single.log 2>&1", dir);
	status = system(command);
	ENSURE(status == 0 && FileSize(frames[0]) > 0);
	printf("  pov: `povray animation.ini` rendered frame_0000.png .. frame_0002.png, +SF1 +EF1 frame 1 "
		"alone; a 1-frame .ini frame_0000.png\n");

	snprintf(path, sizeof(path), "%s/jitter.ini", dir);
	ENSURE(bsPov_WriteAnimationIni(path, 2, 32, 24, 0.3, 0.0, err, sizeof(err)));
	char ini[4096];
	FILE* fi = fopen(path, "r");
	ENSURE(fi != NULL);
	size_t got = fread(ini, 1, sizeof(ini) - 1, fi);
	fclose(fi);
	ini[got] = '\0';
	ENSURE(strstr(ini, "Antialias_Threshold=0.3\nJitter=Off\n") != NULL);
	ENSURE(bsPov_WriteAnimationIni(path, 2, 32, 24, 0.3, 0.5, err, sizeof(err)));
	fi = fopen(path, "r");
	ENSURE(fi != NULL);
	got = fread(ini, 1, sizeof(ini) - 1, fi);
	fclose(fi);
	ini[got] = '\0';
	ENSURE(strstr(ini, "Jitter=On\nJitter_Amount=0.5\n") != NULL);
	ENSURE(bsPov_WriteAnimationIni(path, 2, 32, 24, 0.3, -1.0, err, sizeof(err)) == false);

	snprintf(path, sizeof(path), "%s/animation.pov", dir);
	ENSURE(bsPov_WriteAnimationIni(path, 2, 32, 24, 0.3, 1.0, err, sizeof(err)) == false);
	return 0;
}

static int PovSpeedTest(void)
{
	enum
	{
		count = 150000
	};
	SceneData s;
	bsPovScene scene;
	RUN_SUBTEST(MakeScene(&s, &scene, count, 3));
	char path[600], err[1200];
	TestPath(path, sizeof(path), "big.pov");
	size_t chunks[2] = {(count + 63) / 64, 0};
	bool ok = true;
	for (int k = 0; k < 2 && ok; ++k)
	{
		scene.particles.maxComponents = chunks[k];
		double best = 1e30;
		for (int run = 0; run < 3 && ok; ++run)
		{
			double t0 = Now();
			ok = bsPov_WriteScene(path, &scene, err, sizeof(err));
			double t = Now() - t0;
			best = t < best ? t : best;
		}
		long size = FileSize(path);
		printf("  pov: %d particles in %s: %.1f MB in %.1f ms, %.0f MB/s\n", (int)count,
			k == 0 ? "64 blobs" : "1 blob", (double)size / 1e6, 1e3 * best, (double)size / 1e6 / best);
	}
	FreeScene(&s);
	ENSURE(ok);
	return 0;
}

// Far from the origin (survey coordinates) x, y, z are doubles, read back exactly (the file emitter
// reads them so); near it, floats. Radius and velocity stay floats either way.
static int PlyFarTest(void)
{
	char path[600], err[1200];
	TestPath(path, sizeof(path), "far.ply");
	bsPlyParticle p[2] = {
		{bsV3(580000.123456789, 101.5, 5800000.987654321), bsV3(0.5, -1.0, 0.0), 0.01, bs_particleFree, 0, {0, 0, 0}},
		{bsV3(580000.25, 100.0, 5800000.0), bsV3(0.0, 0.0, 0.0), 0.02, bs_particleStuck, 1, {0, 0, 0}},
	};
	ENSURE(WritePly(path, p, 2, err, sizeof(err)));
	size_t size;
	uint8_t* bytes = ReadAll(path, &size);
	ENSURE(bytes != NULL);
	bool doubles = strstr((const char*)bytes, "property double x\nproperty double y\nproperty double z\n"
		"property float radius\n") != NULL;
	const char* end = strstr((const char*)bytes, "end_header\n");
	bool sized = end != NULL && size == (size_t)(end + 11 - (const char*)bytes) + 2 * 45;
	free(bytes);
	ENSURE(doubles && sized);
	bsPlyData d;
	ENSURE(bsPly_Read(path, &d, err, sizeof(err)));
	ENSURE(d.count == 2);
	for (int i = 0; i < 2; ++i)
	{
		ENSURE(bsLength(bsSub(d.particles[i].position, p[i].position)) == 0.0);
		ENSURE(d.particles[i].radius == (double)(float)p[i].radius && d.particles[i].state == p[i].state);
		ENSURE(d.particles[i].velocity.x == p[i].velocity.x && d.particles[i].id == p[i].id);
	}
	free(d.particles);
	// The rule: a coordinate within 8192 radii stays a float (rounded by at most r / 2048).
	bsParticles one;
	ENSURE(bsParticles_Alloc(&one, 1) == bs_ok);
	one.position[0] = bsV3(81.92, -81.92, 0.0);
	one.radius[0] = 0.01;
	bool near = !bsPly_NeedsDoubles(&one);
	one.position[0].z = 81.93;
	bool far = bsPly_NeedsDoubles(&one);
	bsParticles_Free(&one);
	ENSURE(near && far);
	return 0;
}

// Coordinates within a step: 9 digits (bsPov_FormatDouble's bytes) where they round by less, else
// the fewest digits that keep the step.
static int FormatWithinTest(void)
{
	static const double nearValues[] = {0.0, 1.25, -3.14159265358979, 1234.56789012, -1999.123456789};
	for (size_t k = 0; k < sizeof(nearValues) / sizeof(nearValues[0]); ++k)
	{
		char a[bs_povNumberMax], b[bs_povNumberMax];
		bsPov_FormatDouble(a, nearValues[k]);
		bsPov_FormatDoubleWithin(b, nearValues[k], 1e-5);
		ENSURE(strcmp(a, b) == 0);
	}
	static const double farValues[] = {5800000.987654321, -580000.123456789, 1e12 + 0.123};
	for (size_t k = 0; k < sizeof(farValues) / sizeof(farValues[0]); ++k)
	{
		char a[bs_povNumberMax], b[bs_povNumberMax];
		bsPov_FormatDouble(a, farValues[k]);
		size_t n = bsPov_FormatDoubleWithin(b, farValues[k], 1e-5);
		ENSURE(n == strlen(b) && n < bs_povNumberMax);
		ENSURE(fabs(strtod(a, NULL) - farValues[k]) > 1e-5);  // 9 digits are not enough
		ENSURE(fabs(strtod(b, NULL) - farValues[k]) <= 1e-5);
	}
	char c[bs_povNumberMax];
	bsPov_FormatDoubleWithin(c, 5800000.987654321, 0.0);  // no step: 9 digits
	ENSURE(strcmp(c, "5800000.99") == 0);
	return 0;
}

// m (POV-Ray's rows: the images of x, y, z) applied to v: the sum of v's components times the rows.
static bsVec3 ApplyRows(const double* m, bsVec3 v)
{
	return bsV3(v.x * m[0] + v.y * m[3] + v.z * m[6], v.x * m[1] + v.y * m[4] + v.z * m[7],
		v.x * m[2] + v.y * m[5] + v.z * m[8]);
}

// A rotation (orthonormal rows, determinant +1) that takes axis to the direction of v.
static int CheckAxisRotation(bsVec3 axis, bsVec3 v, bsVec3 expected)
{
	double m[9];
	bsPov_AxisRotation(axis, v, m);
	bsVec3 r0 = bsV3(m[0], m[1], m[2]), r1 = bsV3(m[3], m[4], m[5]), r2 = bsV3(m[6], m[7], m[8]);
	ENSURE_SMALL(bsDot(r0, r0) - 1.0, 1e-14);
	ENSURE_SMALL(bsDot(r1, r1) - 1.0, 1e-14);
	ENSURE_SMALL(bsDot(r2, r2) - 1.0, 1e-14);
	ENSURE_SMALL(bsDot(r0, r1), 1e-14);
	ENSURE_SMALL(bsDot(r1, r2), 1e-14);
	ENSURE_SMALL(bsDot(r0, r2), 1e-14);
	ENSURE_SMALL(bsDot(bsCross(r0, r1), r2) - 1.0, 1e-14);
	bsVec3 got = ApplyRows(m, axis);
	ENSURE_SMALL(bsLength(bsSub(got, expected)), 1e-12);
	return 0;
}

// render.instances' orientation: the shortest arc from the object's axis to the velocity, the identity
// at rest, a half turn against it, and accurate in between, however close to either.
static int PovAxisRotationTest(void)
{
	bsVec3 z = bsV3(0.0, 0.0, 1.0);
	RUN_SUBTEST(CheckAxisRotation(z, bsV3(0.0, 0.0, 0.0), z));
	RUN_SUBTEST(CheckAxisRotation(z, bsV3(0.0, 1e-12, 0.0), z));  // still: unrotated
	double m[9];
	bsPov_AxisRotation(z, bsV3(1e-12, 0.0, 0.0), m);
	ENSURE(m[0] == 1.0 && m[4] == 1.0 && m[8] == 1.0 && m[1] == 0.0 && m[5] == 0.0);
	RUN_SUBTEST(CheckAxisRotation(z, bsV3(0.0, 0.0, 3.0), z));
	RUN_SUBTEST(CheckAxisRotation(z, bsV3(0.0, 0.0, -3.0), bsV3(0.0, 0.0, -1.0)));
	RUN_SUBTEST(CheckAxisRotation(bsV3(0.0, -1.0, 0.0), bsV3(0.0, 5.0, 0.0), bsV3(0.0, 1.0, 0.0)));
	RUN_SUBTEST(CheckAxisRotation(bsV3(1.0, 0.0, 0.0), bsV3(-2.0, 0.0, 0.0), bsV3(-1.0, 0.0, 0.0)));
	for (int k = 2; k <= 15; ++k)
	{
		// Near the half turn and near the identity, 10^-k radians off.
		double e = pow(10.0, -k);
		bsVec3 near = bsV3(sin(e), 0.0, -cos(e));
		RUN_SUBTEST(CheckAxisRotation(z, bsScale(2.0, near), near));
		bsVec3 close = bsV3(0.0, sin(e), cos(e));
		RUN_SUBTEST(CheckAxisRotation(z, close, close));
	}
	uint64_t state = 12345;
	for (int i = 0; i < 1000; ++i)
	{
		double u[6];
		for (int k = 0; k < 6; ++k)
		{
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			u[k] = (double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
		}
		bsVec3 a = bsNormalize(bsV3(u[0], u[1], u[2] + 1e-3)), v = bsV3(u[3], u[4], u[5]);
		RUN_SUBTEST(CheckAxisRotation(a, v, bsNormalize(v)));
	}
	return 0;
}

static int OutputTests(void)
{
	RUN_SUBTEST(AtomicCommitAbortTest());
	RUN_SUBTEST(AtomicErrorTest());
	RUN_SUBTEST(AtomicDeferredTest());
	RUN_SUBTEST(AtomicRegistryTest());
	RUN_SUBTEST(OutputListTest());
	RUN_SUBTEST(OutputSetTest());
	RUN_SUBTEST(OutputSetConcurrentTest());
	RUN_SUBTEST(PlyRoundTripTest());
	RUN_SUBTEST(PlyFarTest());
	RUN_SUBTEST(FormatWithinTest());
	RUN_SUBTEST(PlyFormatsTest());
	RUN_SUBTEST(PlyMalformedTest());
	RUN_SUBTEST(FormatTest());
	RUN_SUBTEST(PovAxisRotationTest());
	RUN_SUBTEST(PovStructureTest());
	RUN_SUBTEST(PovThreadsTest());
	RUN_SUBTEST(PovRenderTest());
	RUN_SUBTEST(PovSpeedTest());
	return 0;
}

int OutputTest(void)
{
	const char* tmp = getenv("TMPDIR");
	snprintf(testDir, sizeof(testDir), "%s/blobsim-output-XXXXXX",
		tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	ENSURE(mkdtemp(testDir) != NULL);
	int rc = OutputTests();
	if (rc == 0)
	{
		RemoveTree(testDir);
	}
	else
	{
		fprintf(stderr, "  output: files kept in %s\n", testDir);
	}
	return rc;
}
