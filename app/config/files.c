// files.c — folders, programs on PATH, atomic copies, formatted strings (files.h).
#include "files.h"

#include "output_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum
{
	bs_filesPathMax = 4096,
};

bool bsMakeFolders(const char* path, const char* role, bsCreatedFolders* created, char* err, size_t errlen)
{
	if (created != NULL)
	{
		created->count = 0;
	}
	char buffer[bs_filesPathMax];
	size_t n = strlen(path);
	if (n == 0)
	{
		snprintf(err, errlen, "%s is an empty path", role);
		return false;
	}
	if (n >= sizeof(buffer))
	{
		snprintf(err, errlen, "%.64s...: %s path longer than %d bytes", path, role, bs_filesPathMax - 1);
		return false;
	}
	memcpy(buffer, path, n + 1);
	for (size_t k = 1; k <= n; ++k)
	{
		if (buffer[k] == '/' || buffer[k] == '\0')
		{
			char saved = buffer[k];
			buffer[k] = '\0';
			if (mkdir(buffer, 0777) == 0)
			{
				if (created != NULL && created->count < 64)
				{
					created->length[created->count++] = k;
				}
			}
			else if (errno != EEXIST)
			{
				snprintf(err, errlen, "%s: cannot create directory: %s", buffer, strerror(errno));
				return false;
			}
			buffer[k] = saved;
		}
	}
	struct stat st;
	if (stat(path, &st) != 0)
	{
		snprintf(err, errlen, "%s: cannot use as %s: %s", path, role, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode))
	{
		snprintf(err, errlen, "%s: cannot use as %s: it is a %s, not a directory", path, role,
			S_ISREG(st.st_mode) ? "regular file" : "special file");
		return false;
	}
	return true;
}

void bsRemoveCreatedFolders(const char* path, const bsCreatedFolders* created)
{
	char buffer[bs_filesPathMax];
	size_t n = strlen(path);
	if (n >= sizeof(buffer))
	{
		return;
	}
	for (int i = created->count - 1; i >= 0; --i)
	{
		memcpy(buffer, path, created->length[i]);
		buffer[created->length[i]] = '\0';
		rmdir(buffer);
	}
}

bool bsFindProgram(const char* name, char* out, size_t size)
{
	const char* path = getenv("PATH");
	if (path == NULL)
	{
		return false;
	}
	while (*path != '\0')
	{
		const char* end = strchr(path, ':');
		size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
		if (n > 0 && n + strlen(name) + 2 < size)
		{
			snprintf(out, size, "%.*s/%s", (int)n, path, name);
			if (access(out, X_OK) == 0)
			{
				return true;
			}
		}
		path += n;
		if (*path == ':')
		{
			++path;
		}
	}
	return false;
}

// True when the first length bytes of path name a symbolic link (or cannot be checked): its ".." is
// not the folder that holds it.
static bool bsIsLink(const char* path, size_t length)
{
	char prefix[bs_filesPathMax];
	if (length == 0 || length >= sizeof(prefix))
	{
		return true;
	}
	memcpy(prefix, path, length);
	prefix[length] = '\0';
	struct stat st;
	return lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode);
}

void bsTidyPath(char* path)
{
	bool absolute = path[0] == '/';
	size_t out = absolute ? 1 : 0;  // path[0, out) is the tidy prefix, written over the input
	size_t last = out;              // where the tidy prefix's last component starts
	const char* in = path;
	while (*in != '\0')
	{
		while (*in == '/')
		{
			++in;
		}
		size_t n = strcspn(in, "/");
		if (n == 0 || (n == 1 && in[0] == '.'))
		{
			in += n;
			continue;
		}
		bool up = n == 2 && in[0] == '.' && in[1] == '.';
		if (up && absolute && out == 1)
		{
			in += n;  // "/.." is "/"
			continue;
		}
		bool droppable = out > last && !(out - last == 2 && path[last] == '.' && path[last + 1] == '.');
		if (up && droppable && !bsIsLink(path, out))
		{
			out = last > (absolute ? 1u : 0u) ? last - 1 : last;  // drop "NAME" and the slash before it
			size_t start = absolute ? 1 : 0;
			last = out;
			while (last > start && path[last - 1] != '/')
			{
				--last;
			}
			in += n;
			continue;
		}
		if (out > (absolute ? 1u : 0u))
		{
			path[out++] = '/';
		}
		last = out;
		memmove(path + out, in, n);
		out += n;
		in += n;
	}
	if (out == 0)
	{
		path[out++] = '.';
	}
	path[out] = '\0';
}

// Whether DIR/outputs.txt lists name (false when it cannot be read: the caller then refuses).
static bool bsListedOutput(const char* path)
{
	char dir[bs_filesPathMax];
	const char* slash = strrchr(path, '/');
	size_t n = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir))
	{
		return false;
	}
	memcpy(dir, slash == NULL ? "." : path, n);
	dir[n] = '\0';
	bsOutputList list;
	char ignored[512];
	bool listed = false;
	if (bsOutputList_Read(dir, &list, ignored, sizeof(ignored)))
	{
		const char* name = slash == NULL ? path : slash + 1;
		for (size_t i = 0; i < list.count && !listed; ++i)
		{
			listed = strcmp(list.names[i], name) == 0;
		}
	}
	bsOutputList_Free(&list);
	return listed;
}

// Whether the regular file at path begins with signature[0..n).
static bool bsBeginsWith(const char* path, const char* signature, size_t n)
{
	int why;
	FILE* f = bsOpenRegularStream(path, &why);
	if (f == NULL)
	{
		return false;
	}
	char head[256];
	size_t want = n < sizeof(head) ? n : sizeof(head);
	size_t got = fread(head, 1, want, f);
	fclose(f);
	return n > 0 && got == want && memcmp(head, signature, want) == 0;
}

bool bsCheckReplaceable(const char* path, const char* signature, size_t n, char* err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st) != 0)
	{
		// Nothing there (ENOTDIR: a folder on the way is a file, which the caller's making of the
		// folder reports): nothing of the user's to replace.
		if (errno == ENOENT || errno == ENOTDIR)
		{
			return true;
		}
		snprintf(err, errlen, "%s: cannot check: %s", path, strerror(errno));
		return false;
	}
	if (S_ISREG(st.st_mode) && (bsListedOutput(path) || bsBeginsWith(path, signature, n)))
	{
		return true;
	}
	snprintf(err, errlen, "%s: not a file blobsim wrote (%s); move the file away, blobsim does not replace it", path,
		S_ISREG(st.st_mode) ? "outputs.txt does not list it and its content is not blobsim's"
		: S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
	return false;
}

bool bsCopyFile(const char* from, const char* to, char* err, size_t errlen)
{
	int why;
	int fd = bsOpenRegularFile(from, &why);
	if (fd < 0)
	{
		char text[256];
		bsOpenError(why, text, sizeof(text));
		snprintf(err, errlen, "%s: %s", from, text);
		return false;
	}
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, to, err, errlen))
	{
		close(fd);
		return false;
	}
	char buffer[65536];
	for (;;)
	{
		ssize_t n = read(fd, buffer, sizeof(buffer));
		if (n < 0 && errno == EINTR)
		{
			continue;
		}
		if (n < 0)
		{
			snprintf(err, errlen, "%s: cannot read: %s", from, strerror(errno));
			close(fd);
			bsAtomicFile_Abort(&f);
			return false;
		}
		if (n == 0)
		{
			break;
		}
		bsAtomicFile_Write(&f, buffer, (size_t)n);
	}
	close(fd);
	return bsAtomicFile_Commit(&f, 0);
}

bool bsWriteTextFile(const char* path, const char* text, char* err, size_t errlen)
{
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, err, errlen))
	{
		return false;
	}
	size_t n = strlen(text);
	bsAtomicFile_Write(&f, text, n);
	if (n == 0 || text[n - 1] != '\n')
	{
		bsAtomicFile_Write(&f, "\n", 1);
	}
	return bsAtomicFile_Commit(&f, 0);
}

bool bsIsFolder(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool bsIsRegularFile(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char* bsFormat(const char* fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
	{
		return NULL;
	}
	char* s = malloc((size_t)n + 1);
	if (s != NULL)
	{
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return s;
}

char* bsPathJoin(const char* dir, const char* name)
{
	if (name[0] == '/' || dir == NULL || dir[0] == '\0')
	{
		return bsFormat("%s", name);
	}
	size_t n = strlen(dir);
	return bsFormat("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}
