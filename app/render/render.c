// render.c — POV-Ray through process.h, its files through the deferred group of atomic_file.h.
#include "render.h"

#include "atomic_file.h"
#include "files.h"
#include "image.h"
#include "inputs.h"
#include "output_set.h"
#include "png_text.h"
#include "process.h"
#include "render_claim.h"
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

// The files of one render, in its private folder, named after its image ("frame_0003.png" ->
// "frame_0003.png", "frame_0003.log", ...), with their paths (listed for a signal to remove).
typedef struct bsRenderFiles
{
	bsPrivateFolder folder;
	char stem[256], png[300], state[300], log[300], wrapper[320];
	char samples[64][300];  // motion blur: the earlier samples' images ("frame_0003.blur0.png")
	char sampleWrappers[64][320];  // and, for a sample with a pending surface, its wrapper
	char pngPath[BS_RENDER_PATH_MAX], logPath[BS_RENDER_PATH_MAX];
} bsRenderFiles;

// Motion blur: sample j's pending surface, or NULL (blobs, or its include in place).
static const char* bsRender_SampleSurface(const bsRenderInput* in, int j)
{
	return in->sampleSurfacePaths != NULL ? in->sampleSurfacePaths[j] : NULL;
}

// Motion blur: the earlier samples' image names (and their wrappers), listed like the others.
static bool bsRenderFiles_MakeSamples(bsRenderFiles* f, const bsRenderInput* in, char* err, size_t errlen)
{
	if (in->sampleCount > (int)(sizeof(f->samples) / sizeof(f->samples[0])))
	{
		snprintf(err, errlen, "--render: %s: %d motion-blur samples, more than %d", in->imageName, in->sampleCount + 1,
			(int)(sizeof(f->samples) / sizeof(f->samples[0])));
		return false;
	}
	for (int j = 0; j < in->sampleCount; ++j)
	{
		char ignored[BS_RENDER_PATH_MAX];
		snprintf(f->samples[j], sizeof(f->samples[j]), "%s.blur%d.png", f->stem, j);
		if (!bsPrivateFolder_File(&f->folder, f->samples[j], ignored, sizeof(ignored), err, errlen))
		{
			return false;
		}
		snprintf(f->sampleWrappers[j], sizeof(f->sampleWrappers[j]), "%s.blur%d.wrapper.pov", f->stem, j);
		if (bsRender_SampleSurface(in, j) != NULL &&
			!bsPrivateFolder_File(&f->folder, f->sampleWrappers[j], ignored, sizeof(ignored), err, errlen))
		{
			return false;
		}
	}
	return true;
}

static bool bsRenderFiles_Make(bsRenderFiles* f, const bsRenderInput* in, char* err, size_t errlen)
{
	const char* dot = strrchr(in->imageName, '.');
	int stemLen = dot != NULL ? (int)(dot - in->imageName) : (int)strlen(in->imageName);
	snprintf(f->stem, sizeof(f->stem), "%.*s", stemLen, in->imageName);
	snprintf(f->png, sizeof(f->png), "%s.png", f->stem);
	snprintf(f->state, sizeof(f->state), "%s.pov-state", f->stem);
	snprintf(f->log, sizeof(f->log), "%s.log", f->stem);
	snprintf(f->wrapper, sizeof(f->wrapper), "%s.wrapper.pov", f->stem);
	char ignored[BS_RENDER_PATH_MAX];
	// The folder first, then its files: a signal removes the files, then the folder.
	return bsPrivateFolder_Make(&f->folder, in->directory, f->stem, err, errlen) &&
		bsPrivateFolder_File(&f->folder, f->png, f->pngPath, sizeof(f->pngPath), err, errlen) &&
		bsPrivateFolder_File(&f->folder, f->log, f->logPath, sizeof(f->logPath), err, errlen) &&
		bsPrivateFolder_File(&f->folder, f->state, ignored, sizeof(ignored), err, errlen) &&
		(in->surfacePath == NULL || bsPrivateFolder_File(&f->folder, f->wrapper, ignored, sizeof(ignored), err, errlen)) &&
		bsRenderFiles_MakeSamples(f, in, err, errlen);
}

// Renames NAME out of the private folder to a temporary file of the deferred group in DIR, to be
// renamed to DIR/<target> with the group's others.
static bool bsRenderFiles_Defer(const bsRenderFiles* f, const bsRenderInput* in, const char* name, const char* ext,
	const char* target, char* err, size_t errlen)
{
	char tmp[BS_RENDER_PATH_MAX], final[BS_RENDER_PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp.%s.%ld.%s", in->directory, f->stem, bsAtomicFile_Node(), (long)getpid(), ext);
	bsRenderPath(final, sizeof(final), in->directory, target);
	return bsAtomicFile_DeferFile(tmp, final, err, errlen) &&
		bsPrivateFolder_MoveOut(&f->folder, name, AT_FDCWD, tmp, err, errlen);
}

// The log's name in DIR after a failure: its own, or render.log.
static const char* bsRender_FailureLog(const bsRenderInput* in)
{
	return in->logName != NULL ? in->logName : "render.log";
}

// The log into place at once, at name (logs/NAME through DIR/logs opened without following a link),
// listed in DIR/outputs.txt at once and kept in the group: a later run removes it when it does not
// write it again. Unlisted (the list unreadable), it is removed: the error then names a log that is
// gone, which beats a file no run ever tidies.
static bool bsRenderFiles_PlaceLog(const bsRenderFiles* f, const bsRenderInput* in, const char* name, char* err,
	size_t errlen)
{
	const char* slash = strchr(name, '/');
	int to = slash != NULL ? bsOutputSet_OpenLogs(in->directory, true) : AT_FDCWD;
	char target[BS_RENDER_PATH_MAX];
	bsRenderPath(target, sizeof(target), in->directory, name);
	if (to == -1)
	{
		snprintf(err, errlen, "--render: %s/%s: cannot use as the logs' folder: %s", in->directory, BS_OUTPUT_LOGS_NAME,
			strerror(errno));
		return false;
	}
	bool ok = bsPrivateFolder_MoveOut(&f->folder, f->log, to, slash != NULL ? slash + 1 : target, err, errlen);
	if (to >= 0)
	{
		close(to);
	}
	if (ok && !bsOutputSet_ListNow(in->directory, name, err, errlen))
	{
		unlinkat(AT_FDCWD, target, 0);
		ok = false;
	}
	return ok && bsAtomicFile_DeferKeep(target, err, errlen);
}

// After a failure: the log into place at once (the message names it), unless a render of lower rank
// failed too and keeps render.log.
static void bsRenderFiles_KeepFailureLog(const bsRenderFiles* f, const bsRenderInput* in)
{
	char ignored[1024];
	if (in->failure == NULL || in->logName != NULL)
	{
		bsRenderFiles_PlaceLog(f, in, bsRender_FailureLog(in), ignored, sizeof(ignored));
		return;
	}
	pthread_mutex_lock(&in->failure->lock);
	if (in->rank < in->failure->rank)
	{
		in->failure->rank = in->rank;
		bsRenderFiles_PlaceLog(f, in, bsRender_FailureLog(in), ignored, sizeof(ignored));
	}
	pthread_mutex_unlock(&in->failure->lock);
}

// After the render: the image (done) and the log into place, deferred or at once.
static bool bsRenderFiles_Finish(const bsRenderFiles* f, const bsRenderInput* in, bool done, char* err,
	size_t errlen)
{
	if (!done)
	{
		bsRenderFiles_KeepFailureLog(f, in);
	}
	else if (in->logName != NULL && (in->commitNow || strchr(in->logName, '/') != NULL))
	{
		if (!bsRenderFiles_PlaceLog(f, in, in->logName, err, errlen))
		{
			return false;
		}
	}
	else if (in->logName != NULL && !bsRenderFiles_Defer(f, in, f->log, "log", in->logName, err, errlen))
	{
		return false;
	}
	if (!done)
	{
		return true;
	}
	if (in->record != NULL && !bsPng_AddText(f->pngPath, BS_RENDER_RECORD_KEY, in->record, err, errlen))
	{
		return false;
	}
	if (!in->commitNow)
	{
		return bsRenderFiles_Defer(f, in, f->png, "png", in->imageName, err, errlen);
	}
	char target[BS_RENDER_PATH_MAX];
	bsRenderPath(target, sizeof(target), in->directory, in->imageName);
	return bsPrivateFolder_MoveOut(&f->folder, f->png, AT_FDCWD, target, err, errlen);
}

// The scene with its pending surface: the scene's BlobsimSurface names the include's final name
// unless declared before, so the wrapper (named `wrapper` in the private folder; a motion-blur sample
// has its own) declares the pending name, surfacePath's, and includes the scene.
static bool bsRenderFiles_WriteWrapper(const bsRenderFiles* f, const bsRenderInput* in, const char* wrapper,
	const char* surfacePath, const char* scene, char* err, size_t errlen)
{
	const char* include = bsRender_NameIn(in->directory, surfacePath);
	int fd = include != NULL ? bsPrivateFolder_Create(&f->folder, wrapper) : -1;
	FILE* w = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (w == NULL)
	{
		if (fd >= 0)
		{
			close(fd);
		}
		snprintf(err, errlen, "--render: cannot write %s/%s", f->folder.path, wrapper);
		return false;
	}
	// #version first: POV-Ray 3.7 warns about a declaration before it (the scene's own comes too late).
	fprintf(w, "// blobsim: the pending scene with its pending surface (removed after the render)\n"
		"#version 3.7;\n#declare BlobsimSurface = \"%s\";\n#include \"%s\"\n", include, scene);
	if (fclose(w) != 0)
	{
		snprintf(err, errlen, "--render: cannot write %s/%s", f->folder.path, wrapper);
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
	bsRenderClaim* claim;  // refreshed as POV-Ray reports; NULL: none
	int pass, passes;      // motion blur: this POV-Ray of the image's (the meter sees their sum)
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
	if (r->claim != NULL)
	{
		bsRenderClaim_Refresh(r->claim);
	}
	if (bsRenderParser_Feed(&r->parser, data, n) && r->meter != NULL)
	{
		bsRenderMeter_Update(r->meter, r->slot,
			((double)r->pass + bsRenderParser_Fraction(&r->parser)) / (double)(r->passes > 0 ? r->passes : 1));
	}
}

// One POV-Ray run in the private folder: input (its +I argument) to image (a name in the folder), its
// output to the reader's log. False with what went wrong: *verb "failed" (why: how it ended) or "wrote
// no image" (why empty), or a start failure (*started false, why the message).
static bool bsRender_Pass(const bsRenderFiles* f, const bsRenderInput* in, const char* povray, const char* input,
	const char* image, bsRenderReader* reader, bool* started, const char** verb, char* why, size_t whylen)
{
	char width[32], height[32], aa[64], jitter[64], threads[32], output[BS_RENDER_PATH_MAX + 8];
	snprintf(width, sizeof(width), "+W%d", in->width);
	snprintf(height, sizeof(height), "+H%d", in->height);
	snprintf(aa, sizeof(aa), in->antialias > 0.0 ? "+A%g" : "-A", in->antialias);
	snprintf(jitter, sizeof(jitter), in->jitter > 0.0 ? "+J%g" : "-J", in->jitter);
	snprintf(threads, sizeof(threads), "+WT%d", in->threads);
	snprintf(output, sizeof(output), "+O%s", image);
	char* args[] = {(char*)povray, (char*)input, output, "+L..", width, height, aa, jitter, "+FN", "-D", "-P", "+V", NULL, NULL};
	if (in->threads > 0)
	{
		args[12] = threads;
	}
	bsRenderParser_Init(&reader->parser);
	bsProcessInput pin = {.program = povray, .argv = args, .stdoutToPipe = true, .useDirectoryFd = true,
		.directoryFd = f->folder.fd};
	bsProcess p;
	*started = bsProcess_Start(&pin, &p, why, whylen);
	if (!*started)
	{
		return false;
	}
	bsProcessOutput out;
	bsProcess_WaitRead(&p, &out, bsRender_OnOutput, reader);
	struct stat st;
	if (out.state != bs_processExited || out.exitCode != 0)
	{
		bsProcess_Describe(&out, why, whylen);
		*verb = "failed";
		return false;
	}
	if (fstatat(f->folder.fd, image, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
	{
		why[0] = '\0';
		*verb = "wrote no image";
		return false;
	}
	return true;
}

// Motion blur: the image becomes the average of the samples' images and its own (image.h), written
// over it in the private folder.
// source[k]: the pass whose image stands for pass k's (the same scene bytes).
static bool bsRender_Average(const bsRenderFiles* f, const bsRenderInput* in, const int* source, char* err,
	size_t errlen)
{
	int n = in->sampleCount + 1;
	bsImage images[64 + 1], average;
	memset(images, 0, sizeof(images));
	memset(&average, 0, sizeof(average));
	char path[BS_RENDER_PATH_MAX + 320];
	bool ok = true;
	for (int k = 0; ok && k < n; ++k)
	{
		int from = source[k];
		snprintf(path, sizeof(path), "%s/%s", f->folder.path, from < in->sampleCount ? f->samples[from] : f->png);
		ok = bsImage_LoadPng(path, images + k, err, errlen);
	}
	ok = ok && bsImage_AverageLinear(images, n, &average, err, errlen);
	ok = ok && bsImage_SavePngNow(f->pngPath, &average, err, errlen);
	for (int k = 0; k < n; ++k)
	{
		bsImage_Free(images + k);
	}
	bsImage_Free(&average);
	if (!ok)
	{
		char why[1024];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--render: motion blur of %s: %s", in->imageName, why);
	}
	return ok;
}

// Motion blur: source[k] is the first of the passes (the samples, then the scene) with pass k's scene
// bytes, so a scene repeated (frame 0, whose samples are all the initial state; particles at rest) is
// rendered once. A scene that cannot be read is its own source (its POV-Ray then says why).
static void bsRender_Sources(const bsRenderInput* in, int* source)
{
	uint64_t size[64 + 1], hash[64 + 1];
	bool read[64 + 1];
	for (int k = 0; k <= in->sampleCount; ++k)
	{
		const char* path = k < in->sampleCount ? in->samplePaths[k] : in->scenePath;
		read[k] = bsHashFile(path, size + k, hash + k);
		source[k] = k;
		for (int j = 0; read[k] && j < k && source[k] == k; ++j)
		{
			source[k] = read[j] && size[j] == size[k] && hash[j] == hash[k] ? j : k;
		}
	}
}

// POV-Ray in the private folder, its output into the log there (the motion-blur samples first, each
// its own POV-Ray, all into the one log); then the files into place.
static bool bsRender_Run(const bsRenderFiles* f, const bsRenderInput* in, const char* povray, const char* scene,
	char* err, size_t errlen)
{
	char input[BS_RENDER_PATH_MAX + 8];
	if (in->surfacePath != NULL)
	{
		if (!bsRenderFiles_WriteWrapper(f, in, f->wrapper, in->surfacePath, scene, err, errlen))
		{
			return false;
		}
		snprintf(input, sizeof(input), "+I%s", f->wrapper);
	}
	else
	{
		snprintf(input, sizeof(input), "+I../%s", scene);
	}
	// POV-Ray's stdout and stderr come to this process through one pipe (it reports its progress on
	// stderr, with carriage returns): every byte goes to the log, and the reports to the meter.
	bsRenderReader reader = {.log = bsPrivateFolder_Create(&f->folder, f->log), .meter = in->meter,
		.slot = in->meterSlot, .claim = in->claim, .passes = in->sampleCount + 1};
	if (reader.log < 0)
	{
		snprintf(err, errlen, "--render: %s: cannot create: %s", f->logPath, strerror(errno));
		return false;
	}
	int source[64 + 1];
	bsRender_Sources(in, source);
	char why[512] = "", sampleInput[BS_RENDER_PATH_MAX + 8];
	const char* verb = "";
	bool started = true, image = true;
	const char* failedScene = scene;
	for (reader.pass = 0; image && reader.pass < reader.passes; ++reader.pass)
	{
		if (source[reader.pass] != reader.pass)
		{
			continue;  // the same scene as an earlier pass: its image stands for this one
		}
		bool isSample = reader.pass < in->sampleCount;
		const char* sample = isSample ? bsRender_NameIn(in->directory, in->samplePaths[reader.pass]) : NULL;
		if (isSample && sample == NULL)
		{
			snprintf(why, sizeof(why), "%s is not in %s", in->samplePaths[reader.pass], in->directory);
			verb = "failed";
			image = false;
			break;
		}
		snprintf(sampleInput, sizeof(sampleInput), "+I../%s", isSample ? sample : scene);
		failedScene = isSample ? sample : scene;
		const char* surface = isSample ? bsRender_SampleSurface(in, reader.pass) : NULL;
		if (surface != NULL)
		{
			// A mesh sample's pending surface: through its own wrapper, as the image's scene.
			const char* wrapper = f->sampleWrappers[reader.pass];
			if (!bsRenderFiles_WriteWrapper(f, in, wrapper, surface, sample, err, errlen))
			{
				close(reader.log);
				return false;
			}
			snprintf(sampleInput, sizeof(sampleInput), "+I%s", wrapper);
		}
		image = bsRender_Pass(f, in, povray, isSample ? sampleInput : input, isSample ? f->samples[reader.pass] : f->png,
			&reader, &started, &verb, why, sizeof(why));
		if (!image)
		{
			break;
		}
	}
	if (close(reader.log) != 0 && reader.logError == 0 && errno != EINTR)
	{
		reader.logError = errno;
	}
	if (!started)
	{
		snprintf(err, errlen, "--render: %s", why);
		return false;
	}
	char log[BS_RENDER_PATH_MAX], which[BS_RENDER_PATH_MAX + 64] = "";
	bsRenderPath(log, sizeof(log), in->directory, bsRender_FailureLog(in));
	bool named = strcmp(in->imageName, "scene.png") != 0 || in->sampleCount > 0;
	if (in->sampleCount > 0)
	{
		snprintf(which, sizeof(which), " (motion-blur sample %d of %d, %s)", reader.pass + 1, reader.passes, failedScene);
	}
	if (!image)
	{
		// "POV-Ray failed making frame_0003.png (how it ended); see ..." or "POV-Ray wrote no image ...".
		snprintf(err, errlen, "--render: POV-Ray %s%s%s%s%s%s%s; see %s", verb, named ? " making " : "",
			named ? in->imageName : "", why[0] != '\0' ? " (" : "", why, why[0] != '\0' ? ")" : "", which, log);
	}
	else if (reader.logError != 0)
	{
		snprintf(err, errlen, "--render: %s: cannot write: %s", f->logPath, strerror(reader.logError));
		return false;
	}
	else if (in->sampleCount > 0 && !bsRender_Average(f, in, source, err, errlen))
	{
		return false;
	}
	// After a failure the log goes into place at once, so the message can point at it.
	return bsRenderFiles_Finish(f, in, image, err, errlen) && image;
}

bool bsRender_Image(const bsRenderInput* in, char* err, size_t errlen)
{
	const char* dir = in->directory;
	char povray[BS_RENDER_PATH_MAX];
	if (!bsRender_FindPovray("--render", dir, povray, sizeof(povray), err, errlen))
	{
		return false;
	}

	// POV-Ray runs in the private folder and gets names without DIR: it reads '=', '+', '-', quotes
	// and spaces in a +I or +O argument as options, and the names below hold none of them.
	const char* scene = bsRender_NameIn(dir, in->scenePath);
	if (scene == NULL)
	{
		snprintf(err, errlen, "--render: %s is not in %s", in->scenePath, dir);
		return false;
	}
	bsRenderFiles f;
	if (!bsRenderFiles_Make(&f, in, err, errlen))
	{
		bsPrivateFolder_Remove(&f.folder);
		return false;
	}
	bool ok = bsRender_Run(&f, in, povray, scene, err, errlen);
	bsPrivateFolder_Remove(&f.folder);
	return ok;
}
