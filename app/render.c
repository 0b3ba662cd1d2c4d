// render.c — POV-Ray through process.h, its files through the deferred group of atomic_file.h.
#include "render.h"

#include "atomic_file.h"
#include "files.h"
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

bool bsRender_Scene(const bsRenderInput* in, char* err, size_t errlen)
{
	const char* dir = in->directory;
	char povray[BS_RENDER_PATH_MAX];
	if (!bsFindProgram("povray", povray, sizeof(povray)))
	{
		snprintf(err, errlen, "--render: POV-Ray is not installed (no 'povray' on PATH); install it "
			"with 'apt-get install povray', or run without --render and render %s/scene.pov yourself", dir);
		return false;
	}
	char width[32], height[32], aa[64], jitter[64];
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

	// The temporary names carry the pid: two runs into one folder do not share them.
	char tmp[BS_RENDER_PATH_MAX], png[BS_RENDER_PATH_MAX], state[BS_RENDER_PATH_MAX], logTmp[BS_RENDER_PATH_MAX],
		log[BS_RENDER_PATH_MAX], name[64];
	long pid = (long)getpid();
	snprintf(name, sizeof(name), "scene.tmp.%ld.png", pid);
	bsRenderPath(tmp, sizeof(tmp), dir, name);
	snprintf(name, sizeof(name), "scene.tmp.%ld.pov-state", pid);
	bsRenderPath(state, sizeof(state), dir, name);
	snprintf(name, sizeof(name), "render.log.tmp.%ld", pid);
	bsRenderPath(logTmp, sizeof(logTmp), dir, name);
	bsRenderPath(png, sizeof(png), dir, "scene.png");
	bsRenderPath(log, sizeof(log), dir, "render.log");
	// Listed before POV-Ray starts, so a signal from here on removes whatever it has made.
	if (!bsAtomicFile_DeferFile(tmp, png, err, errlen) || !bsAtomicFile_DeferFile(logTmp, log, err, errlen) ||
		!bsAtomicFile_DeferRemoval(state, err, errlen))
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
	char input[BS_RENDER_PATH_MAX + 8], output[BS_RENDER_PATH_MAX + 8];
	snprintf(input, sizeof(input), "+I%s", scene);
	snprintf(output, sizeof(output), "+O%s", bsRender_NameIn(dir, tmp));
	char* args[] = {povray, input, output, width, height, aa, jitter, "+FN", "-D", "-P", "+V", NULL};
	// POV-Ray's stdout and stderr come to this process through one pipe (it reports its progress on
	// stderr, with carriage returns): every byte goes to the log, and the reports to the meter.
	bsRenderReader reader = {.log = open(logTmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666),
		.meter = in->meter, .slot = in->meterSlot};
	if (reader.log < 0)
	{
		snprintf(err, errlen, "--render: %s: cannot create: %s", logTmp, strerror(errno));
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
	if (out.state != bs_processExited || out.exitCode != 0)
	{
		// The message names render.log: put this render's log there now (the group then finds no
		// temporary file to remove, which is harmless). The caller aborts the group, which removes
		// the image.
		rename(logTmp, log);
		bsProcess_Describe(&out, why, sizeof(why));
		snprintf(err, errlen, "--render: POV-Ray failed (%s); see %s", why, log);
		return false;
	}
	struct stat st;
	if (stat(tmp, &st) != 0 || !S_ISREG(st.st_mode))
	{
		rename(logTmp, log);
		snprintf(err, errlen, "--render: POV-Ray wrote no image (%s); see %s", tmp, log);
		return false;
	}
	if (reader.logError != 0)
	{
		snprintf(err, errlen, "--render: %s: cannot write: %s", logTmp, strerror(reader.logError));
		return false;
	}
	return true;
}
