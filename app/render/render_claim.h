// render_claim.h — a frame claimed by one renderer at a time, on any node sharing the folder.
//
// `blobsim render DIR` claims each image before it renders it: DIR/<image>.claim (e.g.
// frame_0003.png.claim), created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW) under the folder's lock
// (output_set.h), holding "blobsim claim: node <node> pid <pid> since <unix time>". While the claim
// exists no other renderer (another task of the array, another array, a requeued task) renders that
// image: it skips it and says who holds it. After the render (done or failed) the claim is removed.
//
// A claim is stale, and taken over, when its holder is dead (output_set.h's rules): on this node its
// pid is gone; on another node its file was not refreshed for BS_CLAIM_STALE_SECONDS (30 minutes; the
// holder touches it whenever POV-Ray reports, at most once a minute). A file at the claim's name that
// is not a claim (a link, a folder, other text) is never removed: the frame fails, naming it.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

typedef struct bsRenderClaim
{
	int fd;            // the claim, open; -1 when none
	char path[4096];   // DIR/<image>.claim
	time_t refreshed;  // the last touch
} bsRenderClaim;

typedef enum bsClaimResult
{
	bs_claimTaken,   // this process holds it now
	bs_claimHeld,    // a live renderer holds it: why says which
	bs_claimFailed,  // the lock or the file failed, or a file not a claim is in the way: why says so
} bsClaimResult;

bsClaimResult bsRenderClaim_Take(bsRenderClaim* claim, const char* dir, const char* image, char* why,
	size_t whylen);

// Touches the claim's file when a minute has passed since the last touch (cheap otherwise).
void bsRenderClaim_Refresh(bsRenderClaim* claim);

// Removes the claim (when its file is still this one's) and closes it. Harmless when none is held.
void bsRenderClaim_Release(bsRenderClaim* claim, const char* dir);

// Removes the claim of an image that is not to render (up to date) when its holder is dead: a renderer
// killed after its image was in place, before it removed the claim.
void bsRenderClaim_Tidy(const char* dir, const char* image);
