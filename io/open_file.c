// open_file.c — open a user's file for reading only when it is a regular file (open_file.h).
#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bsOpenRegularFile(const char* path, int* why)
{
	int fd;
	do
	{
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
	{
		*why = errno;
		return -1;
	}
	struct stat st;
	*why = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? -1 : 0;
	if (*why != -1)
	{
		close(fd);
		return -1;
	}
	// O_NONBLOCK changes nothing for a regular file; cleared all the same for the reads that follow.
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*why = 0;
	return fd;
}

void bsOpenError(int why, char* out, size_t size)
{
	if (why == 0)
	{
		snprintf(out, size, "not a regular file");
	}
	else
	{
		char text[128];
		if (strerror_r(why, text, sizeof(text)) != 0)  // the XSI one: thread-safe
		{
			snprintf(text, sizeof(text), "error %d", why);
		}
		snprintf(out, size, "%s: %s", why == EISDIR ? "cannot read" : "cannot open", text);
	}
}

FILE* bsOpenRegularStream(const char* path, int* why)
{
	int fd = bsOpenRegularFile(path, why);
	FILE* f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (fd >= 0 && f == NULL)
	{
		*why = errno;
		close(fd);
	}
	return f;
}
