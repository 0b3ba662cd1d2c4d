// render_movie.c — animation.mp4 and preview.gif from the frames, by ffmpeg (render_movie.h).
#include "render_movie.h"

#include "atomic_file.h"
#include "files.h"
#include "process.h"

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
// frame_%04d.png -frames:v N <codec args> <output>`, in DIR. The output joins the deferred group first.
static bool bsMovie_Run(const char* ffmpeg, const char* dir, int lastFrame, int fps, const char* name,
	const char* ext, char* const* codec, char* err, size_t errlen)
{
	char tmpName[128], tmp[BS_MOVIE_PATH_MAX], target[BS_MOVIE_PATH_MAX];
	snprintf(tmpName, sizeof(tmpName), "%s.tmp.%ld.%s", name, (long)getpid(), ext);
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, tmpName);
	snprintf(target, sizeof(target), "%s/%s.%s", dir, name, ext);
	if (!bsAtomicFile_DeferFile(tmp, target, err, errlen))
	{
		return false;
	}
	char rate[32], count[32];
	snprintf(rate, sizeof(rate), "%d", fps);
	snprintf(count, sizeof(count), "%d", lastFrame + 1);
	char* args[32] = {(char*)ffmpeg, "-nostdin", "-y", "-loglevel", "error", "-framerate", rate, "-start_number",
		"0", "-i", "frame_%04d.png", "-frames:v", count};
	int n = 13;
	for (int k = 0; codec[k] != NULL && n < 30; ++k)
	{
		args[n++] = codec[k];
	}
	args[n++] = tmpName;
	args[n] = NULL;
	bsProcessInput in = {.program = ffmpeg, .argv = args, .directory = dir};
	bsProcess p;
	char why[512];
	if (!bsProcess_Start(&in, &p, why, sizeof(why)))
	{
		snprintf(err, errlen, "--movie: %s", why);
		return false;
	}
	bsProcessOutput out;
	bsProcess_Wait(&p, &out);
	if (out.state != bs_processExited || out.exitCode != 0)
	{
		char lines[1024];
		bsProcess_Describe(&out, why, sizeof(why));
		bsProcess_LastLines(out.stderrTail, 3, lines, sizeof(lines));
		snprintf(err, errlen, "--movie: ffmpeg failed making %s.%s (%s): %s", name, ext, why, lines);
		return false;
	}
	return true;
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
