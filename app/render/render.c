// render.c — POV-Ray through process.h, its files through the deferred group of atomic_file.h.
#include "render.h"

#include "atomic_file.h"
#include "files.h"
#include "output_set.h"
#include "png_text.h"
#include "process.h"
#include "render_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS_RENDER_PATH_MAX 4096

static void bsRenderPath(char* out, size_t size, const char* dir, const char* name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

// The name of path inside dir ("DIR/NAME" -> "NAME"), or NULL when path is not a file directly in dir.
static const char* bsRender_NameIn(const char* dir, const char* path)
{
	size_t n = strlen(dir);
	if (strncmp(path, dir, n) != 0 || path[n] != '/' || path[n + 1] == '\0' || strchr(path + n + 1, '/') != NULL)
	{
		return NULL;
	}
	return path + n + 1;
}

bool bsRender_FindPovray(const char* what, const char* dir, char* out, size_t size, char* err, size_t errlen)
{
	if (bsFindProgram("povray", out, size))
	{
		return true;
	}
	snprintf(err, errlen, "%s: POV-Ray is not installed (no 'povray' on PATH); install it with 'apt-get "
		"install povray', or run without --render and render %s/scene.pov yourself", what, dir);
	return false;
}

// The temporary files of one render, named after its image ("frame_0003.png" -> "frame_0003.tmp.<pid>"):
// the names carry the pid, so two runs into one folder do not share them.
typedef struct bsRenderFiles
{
	char tmp[BS_RENDER_PATH_MAX], png[BS_RENDER_PATH_MAX], state[BS_RENDER_PATH_MAX],
		logTmp[BS_RENDER_PATH_MAX], log[BS_RENDER_PATH_MAX], wrapper[BS_RENDER_PATH_MAX];
} bsRenderFiles;

static void bsRenderFiles_Name(bsRenderFiles* f, const bsRenderInput* in)
{
	char stem[256], name[320];
	const char* dot = strrchr(in->imageName, '.');
	int stemLen = dot != NULL ? (int)(dot - in->imageName) : (int)strlen(in->imageName);
	snprintf(stem, sizeof(stem), "%.*s.tmp.%ld", stemLen, in->imageName, (long)getpid());
	const char* dir = in->directory;
	snprintf(name, sizeof(name), "%s.png", stem);
	bsRenderPath(f->tmp, sizeof(f->tmp), dir, name);
	snprintf(name, sizeof(name), "%s.pov-state", stem);
	bsRenderPath(f->state, sizeof(f->state), dir, name);
	snprintf(name, sizeof(name), "%s.pov", stem);
	bsRenderPath(f->wrapper, sizeof(f->wrapper), dir, name);
	snprintf(name, sizeof(name), "%s.log", stem);
	bsRenderPath(f->logTmp, sizeof(f->logTmp), dir, name);
	bsRenderPath(f->png, sizeof(f->png), dir, in->imageName);
	bsRenderPath(f->log, sizeof(f->log), dir, in->logName != NULL ? in->logName : "render.log");
}

// Listed before POV-Ray starts, so a signal from here on removes whatever it makes.
static bool bsRenderFiles_Defer(const bsRenderFiles* f, const bsRenderInput* in, char* err, size_t errlen)
{
	bool keepLog = in->logName != NULL && !in->commitNow;
	if (in->surfacePath != NULL && !bsAtomicFile_DeferRemoval(f->wrapper, err, errlen))
	{
		return false;
	}
	if (in->commitNow)
	{
		return bsAtomicFile_DeferRemoval(f->tmp, err, errlen) && bsAtomicFile_DeferRemoval(f->logTmp, err, errlen) &&
			bsAtomicFile_DeferRemoval(f->state, err, errlen);
	}
	return bsAtomicFile_DeferFile(f->tmp, f->png, err, errlen) &&
		(keepLog ? bsAtomicFile_DeferFile(f->logTmp, f->log, err, errlen)
				 : bsAtomicFile_DeferRemoval(f->logTmp, err, errlen)) &&
		bsAtomicFile_DeferRemoval(f->state, err, errlen);
}

// After a success: the record into the image; with commitNow, the image and its log into place.
static bool bsRenderFiles_Finish(const bsRenderFiles* f, const bsRenderInput* in, char* err, size_t errlen)
{
	if (in->record != NULL && !bsPng_AddText(f->tmp, BS_RENDER_RECORD_KEY, in->record, err, errlen))
	{
		return false;
	}
	if (!in->commitNow)
	{
		return true;
	}
	if (rename(f->tmp, f->png) != 0)
	{
		snprintf(err, errlen, "--render: cannot rename %s to %s", f->tmp, f->png);
		return false;
	}
	if (in->logName != NULL)
	{
		rename(f->logTmp, f->log);
	}
	else
	{
		unlink(f->logTmp);
	}
	return true;
}

// Renames the failure's log into place and lists it in DIR/outputs.txt: the run fails, so no commit
// lists it, and a later run must be able to remove it. Unlisted (the list unreadable), it is removed:
// the error then names a log that is gone, which beats a file no run ever tidies.
static void bsRenderFiles_PlaceFailureLog(const bsRenderFiles* f, const bsRenderInput* in)
{
	if (rename(f->logTmp, f->log) != 0)
	{
		return;
	}
	const char* slash = strrchr(f->log, '/');
	char ignored[512];
	if (!bsOutputSet_ListNow(in->directory, slash != NULL ? slash + 1 : f->log, ignored, sizeof(ignored)))
	{
		unlink(f->log);
	}
}

// After a failure: the log to DIR/render.log (or the log's name), unless a render of lower rank
// failed too and keeps it.
static void bsRenderFiles_KeepFailureLog(const bsRenderFiles* f, const bsRenderInput* in)
{
	if (in->failure == NULL)
	{
		bsRenderFiles_PlaceFailureLog(f, in);
		return;
	}
	pthread_mutex_lock(&in->failure->lock);
	if (in->rank < in->failure->rank)
	{
		in->failure->rank = in->rank;
		bsRenderFiles_PlaceFailureLog(f, in);
	}
	pthread_mutex_unlock(&in->failure->lock);
}

// The scene with its pending surface: the scene's BlobsimSurface names the include's final name
// unless declared before, so the wrapper declares the pending name and includes the scene.
static bool bsRenderFiles_WriteWrapper(const bsRenderFiles* f, const bsRenderInput* in, const char* scene,
	char* err, size_t errlen)
{
	const char* include = bsRender_NameIn(in->directory, in->surfacePath);
	FILE* w = include != NULL ? fopen(f->wrapper, "w") : NULL;
	if (w == NULL)
	{
		snprintf(err, errlen, "--render: cannot write %s", f->wrapper);
		return false;
	}
	// #version first: POV-Ray 3.7 warns about a declaration before it (the scene's own comes too late).
	fprintf(w, "// blobsim: the pending scene with its pending surface (removed after the render)\n"
		"#version 3.7;\n#declare BlobsimSurface = \"%s\";\n#include \"%s\"\n", include, scene);
	if (fclose(w) != 0)
	{
		snprintf(err, errlen, "--render: cannot write %s", f->wrapper);
		return false;
	}
	return true;
}

// What the parent does with POV-Ray's output as it comes: all of it to the log, the progress reports
// to the meter.
typedef struct bsRenderReader
{
	int log;           // the log's descriptor
	int logError;      // the first write error (errno), 0 when none
	bsRenderParser parser;
	bsRenderMeter* meter;
	int slot;
} bsRenderReader;

static void bsRender_OnOutput(void* context, const char* data, size_t n)
{
	bsRenderReader* r = context;
	for (size_t at = 0; at < n && r->logError == 0;)
	{
		ssize_t w = write(r->log, data + at, n - at);
		if (w < 0 && errno == EINTR)
		{
			continue;
		}
		if (w <= 0)
		{
			r->logError = w < 0 ? errno : EIO;
			break;
		}
		at += (size_t)w;
	}
	if (bsRenderParser_Feed(&r->parser, data, n) && r->meter != NULL)
	{
		bsRenderMeter_Update(r->meter, r->slot, bsRenderParser_Fraction(&r->parser));
	}
}

bool bsRender_Image(const bsRenderInput* in, char* err, size_t errlen)
{
	const char* dir = in->directory;
	char povray[BS_RENDER_PATH_MAX];
	if (!bsRender_FindPovray("--render", dir, povray, sizeof(povray), err, errlen))
	{
		return false;
	}
	char width[32], height[32], aa[64], jitter[64], threads[32];
	snprintf(width, sizeof(width), "+W%d", in->width);
	snprintf(height, sizeof(height), "+H%d", in->height);
	if (in->antialias > 0.0)
	{
		snprintf(aa, sizeof(aa), "+A%g", in->antialias);
	}
	else
	{
		snprintf(aa, sizeof(aa), "-A");
	}
	if (in->jitter > 0.0)
	{
		snprintf(jitter, sizeof(jitter), "+J%g", in->jitter);
	}
	else
	{
		snprintf(jitter, sizeof(jitter), "-J");
	}
	snprintf(threads, sizeof(threads), "+WT%d", in->threads);

	bsRenderFiles f;
	bsRenderFiles_Name(&f, in);
	if (!bsRenderFiles_Defer(&f, in, err, errlen))
	{
		return false;
	}

	// POV-Ray runs in DIR and gets bare names: it reads '=', '+', '-', quotes and spaces in a +I or +O
	// argument as options, and the names below hold none of them, whatever DIR is called.
	const char* scene = bsRender_NameIn(dir, in->scenePath);
	if (scene == NULL)
	{
		snprintf(err, errlen, "--render: %s is not in %s", in->scenePath, dir);
		return false;
	}
	if (in->surfacePath != NULL)
	{
		if (!bsRenderFiles_WriteWrapper(&f, in, scene, err, errlen))
		{
			return false;
		}
		scene = bsRender_NameIn(dir, f.wrapper);
	}
	char input[BS_RENDER_PATH_MAX + 8], output[BS_RENDER_PATH_MAX + 8];
	snprintf(input, sizeof(input), "+I%s", scene);
	snprintf(output, sizeof(output), "+O%s", bsRender_NameIn(dir, f.tmp));
	char* args[] = {povray, input, output, width, height, aa, jitter, "+FN", "-D", "-P", "+V", NULL, NULL};
	if (in->threads > 0)
	{
		args[11] = threads;
	}
	// POV-Ray's stdout and stderr come to this process through one pipe (it reports its progress on
	// stderr, with carriage returns): every byte goes to the log, and the reports to the meter.
	bsRenderReader reader = {.log = open(f.logTmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666),
		.meter = in->meter, .slot = in->meterSlot};
	if (reader.log < 0)
	{
		snprintf(err, errlen, "--render: %s: cannot create: %s", f.logTmp, strerror(errno));
		return false;
	}
	bsRenderParser_Init(&reader.parser);
	bsProcessInput pin = {.program = povray, .argv = args, .stdoutToPipe = true, .directory = dir};
	bsProcess p;
	char why[512];
	if (!bsProcess_Start(&pin, &p, why, sizeof(why)))
	{
		close(reader.log);
		snprintf(err, errlen, "--render: %s", why);
		return false;
	}
	bsProcessOutput out;
	bsProcess_WaitRead(&p, &out, bsRender_OnOutput, &reader);
	if (close(reader.log) != 0 && reader.logError == 0 && errno != EINTR)
	{
		reader.logError = errno;
	}
	if (in->surfacePath != NULL)
	{
		unlink(f.wrapper);
	}
	if (out.state != bs_processExited || out.exitCode != 0)
	{
		// The message names render.log: put this render's log there now (the group then finds no
		// temporary file to remove, which is harmless). The caller aborts the group, which removes
		// the image.
		bsRenderFiles_KeepFailureLog(&f, in);
		bsProcess_Describe(&out, why, sizeof(why));
		bool frame = strcmp(in->imageName, "scene.png") != 0;
		snprintf(err, errlen, "--render: POV-Ray failed%s%s (%s); see %s", frame ? " making " : "",
			frame ? in->imageName : "", why, f.log);
		return false;
	}
	struct stat st;
	if (stat(f.tmp, &st) != 0 || !S_ISREG(st.st_mode))
	{
		bsRenderFiles_KeepFailureLog(&f, in);
		snprintf(err, errlen, "--render: POV-Ray wrote no image (%s); see %s", f.tmp, f.log);
		return false;
	}
	if (reader.logError != 0)
	{
		snprintf(err, errlen, "--render: %s: cannot write: %s", f.logTmp, strerror(reader.logError));
		return false;
	}
	return bsRenderFiles_Finish(&f, in, err, errlen);
}
