// render_movie.c — animation.mp4 and preview.gif from the frames, by ffmpeg (render_movie.h).
#include "render_movie.h"

#include "atomic_file.h"
#include "files.h"
#include "process.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS_MOVIE_PATH_MAX 4096

bool bsMovie_FindFfmpeg(const char* what, char* out, size_t size, char* err, size_t errlen)
{
	if (bsFindProgram("ffmpeg", out, size))
	{
		return true;
	}
	snprintf(err, errlen, "%s: ffmpeg is not installed (no 'ffmpeg' on PATH); install it with 'apt-get install "
		"ffmpeg' (Debian's package ffmpeg), then make the movie with 'blobsim render DIR --movie'", what);
	return false;
}

static void bsFramePng(char* out, size_t size, const char* dir, int frame)
{
	snprintf(out, size, "%s/frame_%04d.png", dir, frame);
}

static bool bsModifiedAfter(const struct stat* a, const struct stat* b)
{
	return a->st_mtim.tv_sec > b->st_mtim.tv_sec ||
		(a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec >= b->st_mtim.tv_nsec);
}

bool bsMovie_UpToDate(const char* dir, int lastFrame)
{
	char path[BS_MOVIE_PATH_MAX];
	struct stat mp4, gif, frame;
	snprintf(path, sizeof(path), "%s/animation.mp4", dir);
	bool ok = stat(path, &mp4) == 0;
	snprintf(path, sizeof(path), "%s/preview.gif", dir);
	ok = ok && stat(path, &gif) == 0;
	for (int k = 0; ok && k <= lastFrame; ++k)
	{
		bsFramePng(path, sizeof(path), dir, k);
		ok = stat(path, &frame) == 0 && bsModifiedAfter(&mp4, &frame) && bsModifiedAfter(&gif, &frame);
	}
	return ok;
}

// One ffmpeg run over the frames: `ffmpeg -nostdin -y -loglevel error -framerate F -start_number 0 -i
// ../frame_%04d.png -frames:v N <codec args> <output>`, in a private folder of DIR (atomic_file.h: ffmpeg
// writes its output by name, and nothing is written by name in DIR); the output then joins the
// deferred group as a temporary file in DIR.
static bool bsMovie_Run(const char* ffmpeg, const char* dir, int lastFrame, int fps, const char* name,
	const char* ext, char* const* codec, char* err, size_t errlen)
{
	char outName[128], tmp[BS_MOVIE_PATH_MAX], target[BS_MOVIE_PATH_MAX], inFolder[BS_MOVIE_PATH_MAX];
	snprintf(outName, sizeof(outName), "%s.%s", name, ext);
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp.%s.%ld.%s", dir, name, bsAtomicFile_Node(), (long)getpid(), ext);
	snprintf(target, sizeof(target), "%s/%s", dir, outName);
	bsPrivateFolder folder;
	if (!bsPrivateFolder_Make(&folder, dir, name, err, errlen) ||
		!bsPrivateFolder_File(&folder, outName, inFolder, sizeof(inFolder), err, errlen) ||
		!bsAtomicFile_DeferFile(tmp, target, err, errlen))
	{
		bsPrivateFolder_Remove(&folder);
		return false;
	}
	char rate[32], count[32];
	snprintf(rate, sizeof(rate), "%d", fps);
	snprintf(count, sizeof(count), "%d", lastFrame + 1);
	char* args[32] = {(char*)ffmpeg, "-nostdin", "-y", "-loglevel", "error", "-framerate", rate, "-start_number",
		"0", "-i", "../frame_%04d.png", "-frames:v", count};
	int n = 13;
	for (int k = 0; codec[k] != NULL && n < 30; ++k)
	{
		args[n++] = codec[k];
	}
	args[n++] = outName;
	args[n] = NULL;
	bsProcessInput in = {.program = ffmpeg, .argv = args, .useDirectoryFd = true, .directoryFd = folder.fd};
	bsProcess p;
	char why[512];
	bool ok = bsProcess_Start(&in, &p, why, sizeof(why));
	if (!ok)
	{
		snprintf(err, errlen, "--movie: %s", why);
	}
	bsProcessOutput out;
	if (ok)
	{
		bsProcess_Wait(&p, &out);
		ok = out.state == bs_processExited && out.exitCode == 0;
	}
	if (!ok && p.pid >= 0)
	{
		char lines[1024];
		bsProcess_Describe(&out, why, sizeof(why));
		bsProcess_LastLines(out.stderrTail, 3, lines, sizeof(lines));
		snprintf(err, errlen, "--movie: ffmpeg failed making %s (%s): %s", outName, why, lines);
	}
	ok = ok && bsPrivateFolder_MoveOut(&folder, outName, AT_FDCWD, tmp, err, errlen);
	bsPrivateFolder_Remove(&folder);
	return ok;
}

bool bsMovie_Encode(const char* dir, int lastFrame, int fps, char* err, size_t errlen)
{
	char ffmpeg[BS_MOVIE_PATH_MAX];
	if (!bsMovie_FindFfmpeg("--movie", ffmpeg, sizeof(ffmpeg), err, errlen))
	{
		return false;
	}
	for (int k = 0; k <= lastFrame; ++k)
	{
		char path[BS_MOVIE_PATH_MAX];
		bsFramePng(path, sizeof(path), dir, k);
		if (!bsIsRegularFile(path))
		{
			snprintf(err, errlen, "--movie: %s is missing: render every frame first (blobsim render %s)", path, dir);
			return false;
		}
	}
	// H.264 wants even dimensions: pad an odd one by a pixel rather than scale.
	char* mp4[] = {"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18",
		"-movflags", "+faststart", "-f", "mp4", NULL};
	char* gif[] = {"-vf", "scale='min(320,iw)':-1:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse",
		"-f", "gif", NULL};
	return bsMovie_Run(ffmpeg, dir, lastFrame, fps, "animation", "mp4", mp4, err, errlen) &&
		bsMovie_Run(ffmpeg, dir, lastFrame, fps, "preview", "gif", gif, err, errlen);
}
