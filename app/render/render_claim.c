// render_claim.c — frame claims under the folder's lock (render_claim.h).
#include "render_claim.h"

#include "atomic_file.h"
#include "output_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char bs_claimHeader[] = "blobsim claim: node ";

// Reads the claim at path: true with its holder when it is one (a regular file of the right text).
static bool bsClaim_Read(const char* path, bsTempOwner* owner, time_t* touched, char* text, size_t size)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		if (fd >= 0)
		{
			close(fd);
		}
		return false;
	}
	ssize_t n = read(fd, text, size - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	char* nl = strchr(text, '\n');
	if (nl != NULL)
	{
		*nl = '\0';
	}
	*touched = st.st_mtime;
	memset(owner, 0, sizeof(*owner));
	size_t h = sizeof(bs_claimHeader) - 1;
	const char* node = text + h;
	const char* space = strncmp(text, bs_claimHeader, h) == 0 ? strchr(node, ' ') : NULL;
	if (space == NULL || space == node || (size_t)(space - node) >= sizeof(owner->node) ||
		strncmp(space, " pid ", 5) != 0)
	{
		return false;
	}
	memcpy(owner->node, node, (size_t)(space - node));
	char* end;
	long pid = strtol(space + 5, &end, 10);
	owner->pid = (pid_t)pid;
	return pid > 0 && *end == ' ';
}

// With the lock held: true when the claim at path is a claim whose holder is dead.
static bool bsClaim_DeadLocked(const char* path)
{
	bsTempOwner owner;
	time_t touched;
	char text[256];
	return bsClaim_Read(path, &owner, &touched, text, sizeof(text)) &&
		bsOutputSet_OwnerDead(owner.node, owner.pid, touched, BS_CLAIM_STALE_SECONDS);
}

// With the lock held: creates the claim, or says who holds it.
static bsClaimResult bsClaim_TakeLocked(bsRenderClaim* claim, char* why, size_t whylen)
{
	for (int attempt = 0; attempt < 2; ++attempt)
	{
		claim->fd = open(claim->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (claim->fd >= 0)
		{
			claim->refreshed = time(NULL);
			dprintf(claim->fd, "%s%s pid %ld since %lld\n", bs_claimHeader, bsAtomicFile_Node(), (long)getpid(),
				(long long)claim->refreshed);
			return bs_claimTaken;
		}
		if (errno != EEXIST)
		{
			snprintf(why, whylen, "%s: cannot create: %s", claim->path, strerror(errno));
			return bs_claimFailed;
		}
		bsTempOwner owner;
		time_t touched;
		char text[256];
		if (!bsClaim_Read(claim->path, &owner, &touched, text, sizeof(text)))
		{
			snprintf(why, whylen, "%s is in the way and is not a claim blobsim wrote; move it away", claim->path);
			return bs_claimFailed;
		}
		if (!bsClaim_DeadLocked(claim->path))
		{
			snprintf(why, whylen, "claimed by run %ld on %s (%s)", (long)owner.pid, owner.node, claim->path);
			return bs_claimHeld;
		}
		unlink(claim->path);  // its holder is dead: take it over (the lock keeps this to one taker)
	}
	snprintf(why, whylen, "%s: cannot take over a dead run's claim", claim->path);
	return bs_claimFailed;
}

bsClaimResult bsRenderClaim_Take(bsRenderClaim* claim, const char* dir, const char* image, char* why, size_t whylen)
{
	claim->fd = -1;
	snprintf(claim->path, sizeof(claim->path), "%s/%s.claim", dir, image);
	int lock = bsOutputSet_Lock(dir, why, whylen);
	if (lock < 0)
	{
		return bs_claimFailed;
	}
	bsClaimResult r = bsClaim_TakeLocked(claim, why, whylen);
	bsOutputSet_Unlock(lock);
	return r;
}

void bsRenderClaim_Refresh(bsRenderClaim* claim)
{
	time_t now = time(NULL);
	if (claim->fd >= 0 && now - claim->refreshed >= 60)
	{
		futimens(claim->fd, NULL);
		claim->refreshed = now;
	}
}

void bsRenderClaim_Release(bsRenderClaim* claim, const char* dir)
{
	if (claim->fd < 0)
	{
		return;
	}
	char ignored[512];
	int lock = bsOutputSet_Lock(dir, ignored, sizeof(ignored));
	struct stat mine, there;
	// Still this claim's file (not one that took over a claim thought stale): remove it.
	if (fstat(claim->fd, &mine) == 0 && lstat(claim->path, &there) == 0 && mine.st_ino == there.st_ino &&
		mine.st_dev == there.st_dev)
	{
		unlink(claim->path);
	}
	bsOutputSet_Unlock(lock);
	close(claim->fd);
	claim->fd = -1;
}

void bsRenderClaim_Tidy(const char* dir, const char* image)
{
	char path[4096 + 64], ignored[512];
	snprintf(path, sizeof(path), "%s/%s.claim", dir, image);
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
	{
		return;  // the usual case: no claim
	}
	int lock = bsOutputSet_Lock(dir, ignored, sizeof(ignored));
	if (lock >= 0 && bsClaim_DeadLocked(path))
	{
		unlink(path);
	}
	bsOutputSet_Unlock(lock);
}
