// regress.c — `blobsim regress`: run, render and compare every case of a suite; write the report.
//
// The data path of one case: `blobsim run CONFIG -o OUT/NAME --render --set render.width=...` in a
// child process (process.h: a crashing run fails its case, not the suite), then the new image
// OUT/NAME/scene.png against SUITE/ref/NAME.png (image_compare.h), the heatmap to OUT/NAME/diff.png
// and a copy of the reference to OUT/NAME/ref.png, so the report folder stands on its own.
// Renders use fixed settings: the suite's size and antialias threshold, and no antialiasing jitter
// (render.jitter 0, unless the suite says otherwise), so an unchanged tree reproduces its references
// pixel for pixel (only the PNG's time stamp differs).
#include "regress.h"

#include "array.h"
#include "atomic_file.h"
#include "cli.h"
#include "json.h"
#include "files.h"
#include "image.h"
#include "image_compare.h"
#include "process.h"
#include "run_child.h"
#include "blobsim/base.h"

#include "blobsim/version.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS_REGRESS_PATH_MAX 4096
#define BS_REGRESS_ERR_MAX (4 * BS_REGRESS_PATH_MAX)

enum
{
	bs_regressMaxCases = 10000,
	bs_regressMaxSets = 256,
	bs_regressMaxImageSide = 4096,
};

// What became of a case.
typedef enum bsRegressStatus
{
	bs_regressPass = 0,  // the new image is within the limits of the reference
	bs_regressFail,      // it breaks a limit
	bs_regressError,     // the run or render failed, or an image could not be read or compared
	bs_regressMissing,   // there is no reference (run with --update to bless one)
	bs_regressBlessed,   // --update: the new image became the reference
	bs_regressKept,      // --update: the reference already had these pixels, and stays as it was
	bs_regressSkipped,   // not selected by --only
	bs_regressStatusCount
} bsRegressStatus;

static const char* const bs_regressStatusNames[bs_regressStatusCount] = {
	"pass", "fail", "error", "no-reference", "blessed", "kept", "skipped"};

// Limits with the threshold they are measured at, each optional (set false: inherit).
typedef struct bsRegressLimits
{
	bsCompareLimits limits;
	int threshold;
} bsRegressLimits;

typedef struct bsRegressCase
{
	char* name;
	char* config;   // path as the child gets it (relative to the working directory)
	char* written;  // the config as the suite names it, for the report
	char** sets;    // "key.path=JSON" overrides, the case's own
	int setCount;
	bsRegressLimits limits;

	// Results.
	bsRegressStatus status;
	char* message;  // why it failed (malloc'd), NULL when it passed
	bsImageMetrics metrics;
	bool compared;  // metrics hold a comparison
	unsigned broken;  // bs_limit* bits
	double seconds;   // the child's wall time (run and render)
	bool haveNew, haveRef, haveDiff;  // images in OUT/NAME for the report
	bool refUnreadable;  // the reference is there but cannot be read (the suite's fault: exit 3)
} bsRegressCase;

typedef struct bsRegressSuite
{
	char* source;   // the suite file, or the folder when it has no suite.json
	char* dir;      // the folder configs and references are relative to
	char* refDir;   // the references' folder
	int width, height;
	double antialias;
	double jitter;  // 0: off, so that renders are reproducible by construction
	bsRegressLimits limits;
	bsRegressCase* cases;
	int count;
	size_t capacity;
} bsRegressSuite;

typedef struct bsRegressOptions
{
	const char* suite;
	const char* output;
	bool update;
	bool quiet;
	int threads;  // -1: not given
	const char* only[64];
	int onlyCount;
	const char* sets[bs_regressMaxSets];  // --set, applied to every case after its own
	int setCount;
} bsRegressOptions;

// --- The suite file ---

// Error at a JSON path of the suite file: "FILE: PATH: message".
BS_PRINTF_FORMAT(5, 6)
static bool bsSuiteFail(char* err, size_t errlen, const char* file, const char* path, const char* fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s: %s", file, path, message);
	return false;
}

static const char* bsJsonKind(const cJSON* v)
{
	if (cJSON_IsNumber(v))
	{
		return "a number";
	}
	if (cJSON_IsString(v))
	{
		return "a string";
	}
	if (cJSON_IsBool(v))
	{
		return "a boolean";
	}
	if (cJSON_IsNull(v))
	{
		return "null";
	}
	if (cJSON_IsArray(v))
	{
		return "an array";
	}
	return "an object";
}

// Every key of object must be one of keys.
static bool bsCheckKeys(const cJSON* object, const char* const* keys, int keyCount, const char* file,
	const char* path, char* err, size_t errlen)
{
	for (const cJSON* item = object->child; item != NULL; item = item->next)
	{
		bool known = false;
		for (int i = 0; i < keyCount && !known; ++i)
		{
			known = strcmp(item->string, keys[i]) == 0;
		}
		if (!known)
		{
			char list[512] = "";
			for (int i = 0; i < keyCount; ++i)
			{
				size_t n = strlen(list);
				snprintf(list + n, sizeof(list) - n, "%s%s", i > 0 ? ", " : "", keys[i]);
			}
			return bsSuiteFail(err, errlen, file, path, "unknown key '%.64s' (expected one of: %s)",
				item->string, list);
		}
	}
	return true;
}

// A number in [lo, hi] at path; absent leaves *out as it was.
static bool bsReadSuiteNumber(const cJSON* object, const char* key, double lo, double hi, bool integer,
	const char* file, const char* parent, double* out, char* err, size_t errlen)
{
	const cJSON* v = cJSON_GetObjectItemCaseSensitive(object, key);
	if (v == NULL)
	{
		return true;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s.%s", parent, key);
	if (!cJSON_IsNumber(v))
	{
		return bsSuiteFail(err, errlen, file, path, "expected a number, got %s", bsJsonKind(v));
	}
	double x = v->valuedouble;
	if (!(x >= lo && x <= hi) || (integer && x != floor(x)))
	{
		return bsSuiteFail(err, errlen, file, path, "expected %s in [%g, %g], got %g",
			integer ? "an integer" : "a number", lo, hi, x);
	}
	*out = x;
	return true;
}

// "limits": {"min_psnr", "min_ssim", "max_diff", "max_mae", "max_fraction", "threshold"}: each key given
// replaces the inherited value in *limits.
static bool bsReadLimits(const cJSON* object, const char* file, const char* path, bsRegressLimits* limits,
	char* err, size_t errlen)
{
	if (object == NULL)
	{
		return true;
	}
	if (!cJSON_IsObject(object))
	{
		return bsSuiteFail(err, errlen, file, path, "expected an object, got %s", bsJsonKind(object));
	}
	static const char* const keys[] = {"min_psnr", "min_ssim", "max_diff", "max_mae", "max_fraction",
		"threshold"};
	if (!bsCheckKeys(object, keys, 6, file, path, err, errlen))
	{
		return false;
	}
	double maxDiff = limits->limits.maxDiff, threshold = limits->threshold;
	if (!bsReadSuiteNumber(object, "min_psnr", 0.0, 1000.0, false, file, path, &limits->limits.minPsnr, err,
			errlen) ||
		!bsReadSuiteNumber(object, "min_ssim", -1.0, 1.0, false, file, path, &limits->limits.minSsim, err,
			errlen) ||
		!bsReadSuiteNumber(object, "max_diff", 0.0, 255.0, true, file, path, &maxDiff, err, errlen) ||
		!bsReadSuiteNumber(object, "max_mae", 0.0, 255.0, false, file, path, &limits->limits.maxMae, err,
			errlen) ||
		!bsReadSuiteNumber(object, "max_fraction", 0.0, 1.0, false, file, path, &limits->limits.maxFraction,
			err, errlen) ||
		!bsReadSuiteNumber(object, "threshold", 0.0, 255.0, true, file, path, &threshold, err, errlen))
	{
		return false;
	}
	limits->limits.maxDiff = (int)maxDiff;
	limits->threshold = (int)threshold;
	return true;
}

// A case name becomes a folder and a file name: letters, digits, '.', '_', '-', not starting with '.'.
static bool bsValidCaseName(const char* name)
{
	if (name[0] == '\0' || name[0] == '.' || strlen(name) > 128)
	{
		return false;
	}
	for (const char* p = name; *p != '\0'; ++p)
	{
		char ch = *p;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
				ch == '_' || ch == '-'))
		{
			return false;
		}
	}
	return true;
}

static void bsRegressCase_Free(bsRegressCase* c)
{
	free(c->name);
	free(c->config);
	free(c->written);
	for (int i = 0; i < c->setCount; ++i)
	{
		free(c->sets[i]);
	}
	free(c->sets);
	free(c->message);
	memset(c, 0, sizeof(*c));
}

static void bsRegressSuite_Free(bsRegressSuite* s)
{
	for (int i = 0; i < s->count; ++i)
	{
		bsRegressCase_Free(s->cases + i);
	}
	free(s->cases);
	free(s->source);
	free(s->dir);
	free(s->refDir);
	memset(s, 0, sizeof(*s));
}

// Appends a case (name and config owned by the suite afterwards). False when the name is invalid or
// taken, or memory runs out.
static bool bsAddCase(bsRegressSuite* s, char* name, const char* written, const char* file, const char* path,
	char* err, size_t errlen)
{
	char* config = bsPathJoin(s->dir, written);
	if (name == NULL || config == NULL)
	{
		free(name);
		free(config);
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	if (!bsValidCaseName(name))
	{
		bsSuiteFail(err, errlen, file, path, "case name '%.64s' is not a valid file name (letters, digits, "
			"'.', '_' and '-', not starting with '.', at most 128 bytes)", name);
		free(name);
		free(config);
		return false;
	}
	for (int i = 0; i < s->count; ++i)
	{
		if (strcmp(s->cases[i].name, name) == 0)
		{
			bsSuiteFail(err, errlen, file, path, "case name '%s' is used twice", name);
			free(name);
			free(config);
			return false;
		}
	}
	if (s->count >= bs_regressMaxCases)
	{
		free(name);
		free(config);
		return bsSuiteFail(err, errlen, file, path, "more than %d cases", bs_regressMaxCases);
	}
	if (!BS_ARRAY_RESERVE(s->cases, s->capacity, (size_t)s->count + 1))
	{
		free(name);
		free(config);
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	bsRegressCase* c = s->cases + s->count++;
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->config = config;
	c->written = bsFormat("%s", written);
	c->limits = s->limits;
	if (c->written == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	return true;
}

// "set": {"key.path": JSON value, ...} into "key.path=JSON" overrides.
static bool bsReadCaseSets(const cJSON* set, const char* file, const char* path, bsRegressCase* c, char* err,
	size_t errlen)
{
	if (set == NULL)
	{
		return true;
	}
	if (!cJSON_IsObject(set))
	{
		return bsSuiteFail(err, errlen, file, path, "expected an object of \"key.path\": value, got %s",
			bsJsonKind(set));
	}
	int n = cJSON_GetArraySize(set);
	if (n > bs_regressMaxSets)
	{
		return bsSuiteFail(err, errlen, file, path, "more than %d overrides", bs_regressMaxSets);
	}
	c->sets = calloc((size_t)n + 1, sizeof(char*));
	if (c->sets == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", file);
		return false;
	}
	for (const cJSON* item = set->child; item != NULL; item = item->next)
	{
		char* value = cJSON_PrintUnformatted(item);
		char* text = value != NULL ? bsFormat("%s=%s", item->string, value) : NULL;
		free(value);
		if (text == NULL)
		{
			snprintf(err, errlen, "%s: out of memory", file);
			return false;
		}
		c->sets[c->setCount++] = text;
	}
	return true;
}

// The defaults: a small image, antialiased, and limits that an unchanged tree passes with room while a
// visible change fails.
static void bsSuiteDefaults(bsRegressSuite* s)
{
	s->width = 160;
	s->height = 120;
	s->antialias = 0.3;
	s->jitter = 0.0;
	s->limits.limits = bsCompareLimits_None();
	s->limits.limits.minPsnr = 40.0;
	s->limits.limits.minSsim = 0.99;
	s->limits.limits.maxFraction = 0.001;
	s->limits.threshold = 16;
}

static bool bsReadSuiteFile(bsRegressSuite* s, const char* file, char* err, size_t errlen)
{
	cJSON* root = NULL;
	bsJsonError jerr;
	if (bsJson_Load(file, &root, &jerr) != bs_ok)
	{
		snprintf(err, errlen, "%s", jerr.message);
		return false;
	}
	bool ok = false;
	if (!cJSON_IsObject(root))
	{
		bsSuiteFail(err, errlen, file, "(root)", "expected an object, got %s", bsJsonKind(root));
		goto done;
	}
	static const char* const keys[] = {"render", "limits", "references", "cases"};
	if (!bsCheckKeys(root, keys, 4, file, "(root)", err, errlen))
	{
		goto done;
	}
	const cJSON* render = cJSON_GetObjectItemCaseSensitive(root, "render");
	if (render != NULL)
	{
		static const char* const renderKeys[] = {"width", "height", "antialias", "jitter"};
		double w = s->width, h = s->height;
		if (!cJSON_IsObject(render))
		{
			bsSuiteFail(err, errlen, file, "render", "expected an object, got %s", bsJsonKind(render));
			goto done;
		}
		if (!bsCheckKeys(render, renderKeys, 4, file, "render", err, errlen) ||
			!bsReadSuiteNumber(render, "width", 16, bs_regressMaxImageSide, true, file, "render", &w, err,
				errlen) ||
			!bsReadSuiteNumber(render, "height", 16, bs_regressMaxImageSide, true, file, "render", &h, err,
				errlen) ||
			!bsReadSuiteNumber(render, "antialias", 0.0, 3.0, false, file, "render", &s->antialias, err, errlen) ||
			!bsReadSuiteNumber(render, "jitter", 0.0, 1.0, false, file, "render", &s->jitter, err, errlen))
		{
			goto done;
		}
		s->width = (int)w;
		s->height = (int)h;
	}
	if (!bsReadLimits(cJSON_GetObjectItemCaseSensitive(root, "limits"), file, "limits", &s->limits, err,
			errlen))
	{
		goto done;
	}
	const cJSON* refs = cJSON_GetObjectItemCaseSensitive(root, "references");
	if (refs != NULL)
	{
		if (!cJSON_IsString(refs) || refs->valuestring[0] == '\0')
		{
			bsSuiteFail(err, errlen, file, "references", "expected a folder name, got %s", bsJsonKind(refs));
			goto done;
		}
		free(s->refDir);
		s->refDir = bsPathJoin(s->dir, refs->valuestring);
	}
	const cJSON* cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) == 0)
	{
		bsSuiteFail(err, errlen, file, "cases", "expected a non-empty array of cases, got %s",
			cases == NULL ? "nothing" : bsJsonKind(cases));
		goto done;
	}
	int index = 0;
	for (const cJSON* item = cases->child; item != NULL; item = item->next, ++index)
	{
		char path[64];
		snprintf(path, sizeof(path), "cases[%d]", index);
		if (!cJSON_IsObject(item))
		{
			bsSuiteFail(err, errlen, file, path, "expected an object, got %s", bsJsonKind(item));
			goto done;
		}
		static const char* const caseKeys[] = {"name", "config", "set", "limits"};
		if (!bsCheckKeys(item, caseKeys, 4, file, path, err, errlen))
		{
			goto done;
		}
		const cJSON* config = cJSON_GetObjectItemCaseSensitive(item, "config");
		const cJSON* name = cJSON_GetObjectItemCaseSensitive(item, "name");
		char sub[96];
		if (!cJSON_IsString(config) || config->valuestring[0] == '\0')
		{
			snprintf(sub, sizeof(sub), "%s.config", path);
			bsSuiteFail(err, errlen, file, sub, "expected the path of a config, got %s",
				config == NULL ? "nothing" : bsJsonKind(config));
			goto done;
		}
		if (name != NULL && !cJSON_IsString(name))
		{
			snprintf(sub, sizeof(sub), "%s.name", path);
			bsSuiteFail(err, errlen, file, sub, "expected a string, got %s", bsJsonKind(name));
			goto done;
		}
		char* caseName = NULL;
		if (name != NULL)
		{
			caseName = bsFormat("%s", name->valuestring);
		}
		else
		{
			// The config's file name without folder and extension.
			const char* base = strrchr(config->valuestring, '/');
			base = base != NULL ? base + 1 : config->valuestring;
			size_t n = strlen(base);
			if (n > 5 && strcmp(base + n - 5, ".json") == 0)
			{
				n -= 5;
			}
			caseName = bsFormat("%.*s", (int)n, base);
		}
		snprintf(sub, sizeof(sub), "%s.name", path);
		if (!bsAddCase(s, caseName, config->valuestring, file, sub, err, errlen))
		{
			goto done;
		}
		bsRegressCase* c = s->cases + s->count - 1;
		snprintf(sub, sizeof(sub), "%s.set", path);
		if (!bsReadCaseSets(cJSON_GetObjectItemCaseSensitive(item, "set"), file, sub, c, err, errlen))
		{
			goto done;
		}
		snprintf(sub, sizeof(sub), "%s.limits", path);
		if (!bsReadLimits(cJSON_GetObjectItemCaseSensitive(item, "limits"), file, sub, &c->limits, err, errlen))
		{
			goto done;
		}
	}
	ok = true;
done:
	cJSON_Delete(root);
	return ok;
}

static int bsCompareNames(const void* a, const void* b)
{
	return strcmp(*(const char* const*)a, *(const char* const*)b);
}

// A folder without suite.json: every *.json in it is a case with the default settings, by file name.
static bool bsReadSuiteFolder(bsRegressSuite* s, char* err, size_t errlen)
{
	DIR* d = opendir(s->dir);
	if (d == NULL)
	{
		snprintf(err, errlen, "%s: cannot open: %s", s->dir, strerror(errno));
		return false;
	}
	char** names = NULL;
	int count = 0;
	size_t capacity = 0;
	bool ok = true;
	struct dirent* e;
	while (ok && (e = readdir(d)) != NULL)
	{
		size_t n = strlen(e->d_name);
		if (n <= 5 || strcmp(e->d_name + n - 5, ".json") != 0 || e->d_name[0] == '.')
		{
			continue;
		}
		bool room = count < bs_regressMaxCases && BS_ARRAY_RESERVE(names, capacity, (size_t)count + 1);
		char* name = room ? bsFormat("%s", e->d_name) : NULL;
		if (name == NULL)
		{
			snprintf(err, errlen, "%s: too many configs or out of memory", s->dir);
			ok = false;
			break;
		}
		names[count++] = name;
	}
	closedir(d);
	if (ok && count == 0)
	{
		snprintf(err, errlen, "%s: no suite.json and no *.json configs: nothing to test", s->dir);
		ok = false;
	}
	if (ok)
	{
		qsort(names, (size_t)count, sizeof(char*), bsCompareNames);
	}
	for (int i = 0; ok && i < count; ++i)
	{
		size_t n = strlen(names[i]);
		char* caseName = bsFormat("%.*s", (int)(n - 5), names[i]);
		ok = bsAddCase(s, caseName, names[i], s->dir, names[i], err, errlen);
	}
	for (int i = 0; i < count; ++i)
	{
		free(names[i]);
	}
	free(names);
	return ok;
}

// SUITE is a folder (with suite.json, or a folder of configs) or a suite file.
static bool bsRegressSuite_Load(bsRegressSuite* s, const char* suite, char* err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	bsSuiteDefaults(s);
	char* file = NULL;
	if (bsIsFolder(suite))
	{
		s->dir = bsFormat("%s", suite);
		file = bsPathJoin(suite, "suite.json");
		if (file != NULL && !bsIsRegularFile(file))
		{
			free(file);
			file = NULL;
			s->source = bsFormat("%s", suite);
		}
		else
		{
			s->source = file != NULL ? bsFormat("%s", file) : NULL;
		}
	}
	else if (bsIsRegularFile(suite))
	{
		file = bsFormat("%s", suite);
		s->source = bsFormat("%s", suite);
		const char* slash = strrchr(suite, '/');
		s->dir = slash == NULL ? bsFormat(".") : bsFormat("%.*s", (int)(slash - suite), suite);
		if (s->dir != NULL && s->dir[0] == '\0')
		{
			free(s->dir);
			s->dir = bsFormat("/");
		}
	}
	else
	{
		snprintf(err, errlen, "%s: no such suite folder or file", suite);
		return false;
	}
	s->refDir = s->dir != NULL ? bsPathJoin(s->dir, "ref") : NULL;
	if (s->dir == NULL || s->source == NULL || s->refDir == NULL)
	{
		free(file);
		snprintf(err, errlen, "%s: out of memory", suite);
		return false;
	}
	bool ok = file != NULL ? bsReadSuiteFile(s, file, err, errlen) : bsReadSuiteFolder(s, err, errlen);
	free(file);
	return ok;
}

// --- One case ---

BS_PRINTF_FORMAT(3, 4)
static void bsCaseSet(bsRegressCase* c, bsRegressStatus status, const char* fmt, ...)
{
	c->status = status;
	free(c->message);
	c->message = NULL;
	if (fmt != NULL)
	{
		char text[BS_REGRESS_ERR_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(text, sizeof(text), fmt, ap);
		va_end(ap);
		c->message = bsFormat("%s", text);
	}
}

// Runs the case's config with rendering in a child: `blobsim run CONFIG -o DIR --quiet [--threads N]
// --render --set render.width=W --set render.height=H --set render.antialias=A --set render.jitter=J
// [case sets] [--set ...]`.
static bool bsRunCase(const char* exe, const bsRegressSuite* s, const bsRegressOptions* o, bsRegressCase* c,
	const char* dir)
{
	char width[64], height[64], antialias[64], jitter[64];
	snprintf(width, sizeof(width), "render.width=%d", s->width);
	snprintf(height, sizeof(height), "render.height=%d", s->height);
	snprintf(antialias, sizeof(antialias), "render.antialias=%.17g", s->antialias);
	snprintf(jitter, sizeof(jitter), "render.jitter=%.17g", s->jitter);
	const char** sets = calloc((size_t)(4 + c->setCount + o->setCount), sizeof(char*));
	if (sets == NULL)
	{
		bsCaseSet(c, bs_regressError, "out of memory");
		return false;
	}
	int n = 0;
	sets[n++] = width;
	sets[n++] = height;
	sets[n++] = antialias;
	sets[n++] = jitter;
	for (int i = 0; i < c->setCount; ++i)
	{
		sets[n++] = c->sets[i];
	}
	for (int i = 0; i < o->setCount; ++i)
	{
		sets[n++] = o->sets[i];
	}
	bsRunChildDef def = bsDefaultRunChildDef();
	def.exe = exe;
	def.config = c->config;
	def.output = dir;
	def.render = true;
	def.threads = o->threads >= 0 ? o->threads : -1;
	def.sets = sets;
	def.setCount = n;

	char err[BS_REGRESS_ERR_MAX];
	bsRunChildOutput out;
	bool started = bsRunChild_Run(&def, &out, err, sizeof(err));
	free(sets);
	if (!started)
	{
		bsCaseSet(c, bs_regressError, "%s", err);
		return false;
	}
	c->seconds = out.seconds;
	if (!out.ok)
	{
		char why[1200];
		bsRunChild_Describe(&out, 2, why, sizeof(why));
		bsCaseSet(c, bs_regressError, "blobsim run failed: %s", why);
	}
	return out.ok;
}

// Two files with the same bytes (a reference that --update would rewrite unchanged).
static bool bsSamePixels(const bsImage* a, const bsImage* b)
{
	bsImageMetrics m;
	char err[256];
	return a->width == b->width && a->height == b->height &&
		bsCompareImages(a, b, NULL, &m, NULL, err, sizeof(err)) && m.identical;
}

static void bsRegressCase_Run(const char* exe, const bsRegressSuite* s, const bsRegressOptions* o,
	bsRegressCase* c, const char* out)
{
	char* dir = bsPathJoin(out, c->name);
	char* newPng = dir != NULL ? bsPathJoin(dir, "scene.png") : NULL;
	char* refCopy = dir != NULL ? bsPathJoin(dir, "ref.png") : NULL;
	char* diffPng = dir != NULL ? bsPathJoin(dir, "diff.png") : NULL;
	char* refName = bsFormat("%s.png", c->name);
	char* refPng = refName != NULL ? bsPathJoin(s->refDir, refName) : NULL;
	bsImage fresh = {0}, ref = {0}, heat = {0};
	char err[BS_REGRESS_ERR_MAX];
	if (dir == NULL || newPng == NULL || refCopy == NULL || diffPng == NULL || refPng == NULL)
	{
		bsCaseSet(c, bs_regressError, "out of memory");
		goto done;
	}
	// Stale images of an earlier report must not pass for this one's.
	unlink(refCopy);
	unlink(diffPng);
	if (!bsRunCase(exe, s, o, c, dir))
	{
		goto done;
	}
	if (!bsImage_LoadPng(newPng, &fresh, err, sizeof(err)))
	{
		bsCaseSet(c, bs_regressError, "%s", err);
		goto done;
	}
	c->haveNew = true;
	// A reference that is there but cannot be opened (no permission, a FIFO, a folder) is the suite's
	// fault, not the image's: an error that makes the suite exit 3, even with --update.
	int openWhy;
	int refFd = bsOpenRegularFile(refPng, &openWhy);
	if (refFd < 0 && openWhy != ENOENT)
	{
		char reason[160];
		bsOpenError(openWhy, reason, sizeof(reason));
		c->refUnreadable = true;
		bsCaseSet(c, bs_regressError, "%s: %s (the reference cannot be read)", refPng, reason);
		goto done;
	}
	bool haveRef = refFd >= 0;
	if (refFd >= 0)
	{
		close(refFd);
	}
	if (haveRef && !bsImage_LoadPng(refPng, &ref, err, sizeof(err)))
	{
		if (!o->update)
		{
			bsCaseSet(c, bs_regressError, "%s", err);
			goto done;
		}
		haveRef = false;  // an unreadable reference is replaced
	}
	if (haveRef)
	{
		if (!bsCopyFile(refPng, refCopy, err, sizeof(err)))
		{
			bsCaseSet(c, bs_regressError, "%s", err);
			goto done;
		}
		c->haveRef = true;
		if (fresh.width != ref.width || fresh.height != ref.height)
		{
			bsCaseSet(c, bs_regressError, "the new image is %dx%d but the reference %s is %dx%d", fresh.width,
				fresh.height, refPng, ref.width, ref.height);
		}
		else
		{
			bsCompareOptions co = {c->limits.threshold, newPng, refPng};
			if (!bsCompareImages(&fresh, &ref, &co, &c->metrics, &heat, err, sizeof(err)))
			{
				bsCaseSet(c, bs_regressError, "%s", err);
				goto done;
			}
			c->compared = true;
			if (!bsImage_SavePng(diffPng, &heat, err, sizeof(err)))
			{
				bsCaseSet(c, bs_regressError, "%s", err);
				goto done;
			}
			c->haveDiff = true;
			c->broken = bsCompareLimits_Check(&c->limits.limits, &c->metrics);
			if (c->broken == 0)
			{
				bsCaseSet(c, bs_regressPass, NULL);
			}
			else
			{
				char why[1024] = "", one[256];
				for (unsigned bit = 1; bit <= bs_limitMaxFraction; bit <<= 1)
				{
					if (c->broken & bit)
					{
						bsCompareLimits_Describe(&c->limits.limits, &c->metrics, bit, one, sizeof(one));
						size_t n = strlen(why);
						snprintf(why + n, sizeof(why) - n, "%s%s", n > 0 ? "; " : "", one);
					}
				}
				bsCaseSet(c, bs_regressFail, "%s", why);
			}
		}
	}
	else if (!o->update)
	{
		bsCaseSet(c, bs_regressMissing, "no reference %s (run with --update to bless the new image)", refPng);
	}
	if (o->update)
	{
		if (haveRef && bsSamePixels(&fresh, &ref))
		{
			bsCaseSet(c, bs_regressKept, NULL);
		}
		else if (!bsMakeFolders(s->refDir, "the references' folder", NULL, err, sizeof(err)) || !bsCopyFile(newPng, refPng, err, sizeof(err)))
		{
			bsCaseSet(c, bs_regressError, "%s", err);
		}
		else
		{
			bsCaseSet(c, bs_regressBlessed, haveRef ? "replaced %s" : "new reference %s", refPng);
		}
	}
done:
	bsImage_Free(&fresh);
	bsImage_Free(&ref);
	bsImage_Free(&heat);
	free(dir);
	free(newPng);
	free(refCopy);
	free(diffPng);
	free(refName);
	free(refPng);
}

// --- Reports ---

static bool bsCaseFailed(const bsRegressCase* c)
{
	return c->status == bs_regressFail || c->status == bs_regressError || c->status == bs_regressMissing;
}

// A finite number, or null (an infinite PSNR, an undefined SSIM).
static void bsAddNumberOrNull(cJSON* object, const char* key, double x)
{
	if (isfinite(x))
	{
		cJSON_AddNumberToObject(object, key, x);
	}
	else
	{
		cJSON_AddNullToObject(object, key);
	}
}

static cJSON* bsLimitsJson(const bsRegressLimits* l)
{
	cJSON* o = cJSON_CreateObject();
	bsAddNumberOrNull(o, "min_psnr", l->limits.minPsnr);
	bsAddNumberOrNull(o, "min_ssim", l->limits.minSsim);
	cJSON_AddNumberToObject(o, "max_diff", l->limits.maxDiff);
	bsAddNumberOrNull(o, "max_mae", l->limits.maxMae);
	bsAddNumberOrNull(o, "max_fraction", l->limits.maxFraction);
	cJSON_AddNumberToObject(o, "threshold", l->threshold);
	return o;
}

static char* bsReportJson(const bsRegressSuite* s, const bsRegressOptions* o, int passed, int failed)
{
	cJSON* root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "blobsim", BLOBSIM_VERSION);
	cJSON_AddStringToObject(root, "suite", s->source);
	cJSON_AddBoolToObject(root, "update", o->update);
	cJSON* render = cJSON_AddObjectToObject(root, "render");
	cJSON_AddNumberToObject(render, "width", s->width);
	cJSON_AddNumberToObject(render, "height", s->height);
	cJSON_AddNumberToObject(render, "antialias", s->antialias);
	cJSON_AddNumberToObject(render, "jitter", s->jitter);
	cJSON* sets = cJSON_AddArrayToObject(root, "set");
	for (int i = 0; i < o->setCount; ++i)
	{
		cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
	}
	cJSON_AddNumberToObject(root, "passed", passed);
	cJSON_AddNumberToObject(root, "failed", failed);
	cJSON* cases = cJSON_AddArrayToObject(root, "cases");
	for (int i = 0; i < s->count; ++i)
	{
		const bsRegressCase* c = s->cases + i;
		cJSON* j = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, j);
		cJSON_AddStringToObject(j, "name", c->name);
		cJSON_AddStringToObject(j, "config", c->config);
		cJSON* cs = cJSON_AddArrayToObject(j, "set");
		for (int k = 0; k < c->setCount; ++k)
		{
			cJSON_AddItemToArray(cs, cJSON_CreateString(c->sets[k]));
		}
		cJSON_AddStringToObject(j, "status", bs_regressStatusNames[c->status]);
		if (c->message != NULL)
		{
			cJSON_AddStringToObject(j, "message", c->message);
		}
		else
		{
			cJSON_AddNullToObject(j, "message");
		}
		cJSON_AddNumberToObject(j, "seconds", c->seconds);
		cJSON_AddItemToObject(j, "limits", bsLimitsJson(&c->limits));
		if (c->compared)
		{
			cJSON* m = cJSON_AddObjectToObject(j, "metrics");
			bsAddNumberOrNull(m, "psnr", c->metrics.psnr);
			bsAddNumberOrNull(m, "ssim", c->metrics.ssim);
			cJSON_AddNumberToObject(m, "mae", c->metrics.mae);
			cJSON_AddNumberToObject(m, "max_diff", c->metrics.maxDiff);
			cJSON_AddNumberToObject(m, "threshold", c->metrics.threshold);
			cJSON_AddNumberToObject(m, "pixels_over", (double)c->metrics.pixelsOver);
			cJSON_AddNumberToObject(m, "fraction_over", c->metrics.fractionOver);
			cJSON_AddBoolToObject(m, "identical", c->metrics.identical);
		}
		else
		{
			cJSON_AddNullToObject(j, "metrics");
		}
		cJSON* images = cJSON_AddObjectToObject(j, "images");
		char path[300];
		snprintf(path, sizeof(path), "%s/scene.png", c->name);
		c->haveNew ? (void)cJSON_AddStringToObject(images, "new", path) : (void)cJSON_AddNullToObject(images, "new");
		snprintf(path, sizeof(path), "%s/ref.png", c->name);
		c->haveRef ? (void)cJSON_AddStringToObject(images, "ref", path) : (void)cJSON_AddNullToObject(images, "ref");
		snprintf(path, sizeof(path), "%s/diff.png", c->name);
		c->haveDiff ? (void)cJSON_AddStringToObject(images, "diff", path)
					: (void)cJSON_AddNullToObject(images, "diff");
	}
	char* text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

// Text with HTML's special characters escaped.
static void bsHtmlText(bsAtomicFile* f, const char* text)
{
	for (const char* p = text; *p != '\0'; ++p)
	{
		switch (*p)
		{
			case '<': bsAtomicFile_Printf(f, "&lt;"); break;
			case '>': bsAtomicFile_Printf(f, "&gt;"); break;
			case '&': bsAtomicFile_Printf(f, "&amp;"); break;
			case '"': bsAtomicFile_Printf(f, "&quot;"); break;
			default: bsAtomicFile_Write(f, p, 1); break;
		}
	}
}

static void bsHtmlImage(bsAtomicFile* f, bool have, const char* name, const char* file, const char* alt)
{
	if (have)
	{
		bsAtomicFile_Printf(f, "<td><a href=\"");
		bsHtmlText(f, name);
		bsAtomicFile_Printf(f, "/%s\"><img src=\"", file);
		bsHtmlText(f, name);
		bsAtomicFile_Printf(f, "/%s\" alt=\"%s\"></a></td>", file, alt);
	}
	else
	{
		bsAtomicFile_Printf(f, "<td class=\"none\">none</td>");
	}
}

static bool bsWriteReportHtml(const char* path, const bsRegressSuite* s, const bsRegressOptions* o, int passed,
	int failed, char* err, size_t errlen)
{
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, err, errlen))
	{
		return false;
	}
	bsAtomicFile_Printf(&f,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>blobsim regress: ");
	bsHtmlText(&f, s->source);
	bsAtomicFile_Printf(&f,
		"</title>\n<style>\n"
		"body { font-family: sans-serif; margin: 1.5em; }\n"
		"table { border-collapse: collapse; }\n"
		"th, td { border: 1px solid #bbb; padding: 4px 8px; text-align: left; vertical-align: top; }\n"
		"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
		"img { width: %dpx; }\n"
		"td.message { font-size: small; }\n"
		".pass, .blessed, .kept { background: #dfd; } .fail, .error, .no-reference { background: #fdd; }\n"
		".none { color: #888; }\n"
		"</style>\n</head>\n<body>\n<h1>blobsim regress</h1>\n<p>Suite <code>",
		s->width * 3 / 2);
	bsHtmlText(&f, s->source);
	bsAtomicFile_Printf(&f, "</code>, blobsim %s, images %dx%d, antialias %g, jitter %g: <b>%d passed, %d failed</b>."
		"</p>\n", BLOBSIM_VERSION, s->width, s->height, s->antialias, s->jitter, passed, failed);
	if (o->setCount > 0)
	{
		bsAtomicFile_Printf(&f, "<p>Every case ran with");
		for (int k = 0; k < o->setCount; ++k)
		{
			bsAtomicFile_Printf(&f, " --set ");
			bsHtmlText(&f, o->sets[k]);
		}
		bsAtomicFile_Printf(&f, " (given on the command line).</p>\n");
	}
	bsAtomicFile_Printf(&f,
		"<p>Heatmap: black where equal; blue, cyan, green, yellow, red for a pixel's largest channel "
		"difference of 1, 4, 16, 64, 255.</p>\n"
		"<table>\n<tr><th>case</th><th>status</th><th>PSNR dB</th><th>SSIM</th><th>MAE</th><th>max diff</th>"
		"<th>pixels over threshold</th><th>reference</th><th>new</th><th>difference</th></tr>\n");
	int skipped = 0;
	for (int i = 0; i < s->count; ++i)
	{
		const bsRegressCase* c = s->cases + i;
		if (c->status == bs_regressSkipped)
		{
			++skipped;
			continue;
		}
		const char* status = bs_regressStatusNames[c->status];
		bsAtomicFile_Printf(&f, "<tr class=\"%s\"><td><b>", status);
		bsHtmlText(&f, c->name);
		bsAtomicFile_Printf(&f, "</b><br><small>");
		bsHtmlText(&f, c->written);
		for (int k = 0; k < c->setCount; ++k)
		{
			bsAtomicFile_Printf(&f, "<br>--set ");
			bsHtmlText(&f, c->sets[k]);
		}
		bsAtomicFile_Printf(&f, "</small></td><td>%s</td>", status);
		if (c->compared)
		{
			const bsImageMetrics* m = &c->metrics;
			const bsCompareLimits* l = &c->limits.limits;
			if (isfinite(m->psnr))
			{
				bsAtomicFile_Printf(&f, "<td class=\"num\">%.2f<br><small>min %g</small></td>", m->psnr, l->minPsnr);
			}
			else
			{
				bsAtomicFile_Printf(&f, "<td class=\"num\">&infin;<br><small>min %g</small></td>", l->minPsnr);
			}
			bsAtomicFile_Printf(&f,
				"<td class=\"num\">%.5f<br><small>min %g</small></td><td class=\"num\">%.4f</td>"
				"<td class=\"num\">%d</td><td class=\"num\">%lld (%.4f%%) &gt; %d<br><small>max %g%%</small></td>",
				m->ssim, l->minSsim, m->mae, m->maxDiff, (long long)m->pixelsOver, 100.0 * m->fractionOver,
				m->threshold, 100.0 * l->maxFraction);
		}
		else
		{
			bsAtomicFile_Printf(&f, "<td colspan=\"5\" class=\"none\">not compared</td>");
		}
		bsHtmlImage(&f, c->haveRef, c->name, "ref.png", "reference");
		bsHtmlImage(&f, c->haveNew, c->name, "scene.png", "new");
		bsHtmlImage(&f, c->haveDiff, c->name, "diff.png", "difference");
		bsAtomicFile_Printf(&f, "</tr>\n");
		if (c->message != NULL)
		{
			// Why it failed (or what --update did), on a row of its own under the case.
			bsAtomicFile_Printf(&f, "<tr class=\"%s\"><td></td><td colspan=\"9\" class=\"message\">", status);
			bsHtmlText(&f, c->message);
			bsAtomicFile_Printf(&f, "</td></tr>\n");
		}
	}
	bsAtomicFile_Printf(&f, "</table>\n");
	if (skipped > 0)
	{
		bsAtomicFile_Printf(&f, "<p>Not run (--only): ");
		for (int i = 0, n = 0; i < s->count; ++i)
		{
			if (s->cases[i].status == bs_regressSkipped)
			{
				bsAtomicFile_Printf(&f, "%s", n++ > 0 ? ", " : "");
				bsHtmlText(&f, s->cases[i].name);
			}
		}
		bsAtomicFile_Printf(&f, ".</p>\n");
	}
	bsAtomicFile_Printf(&f, "</body>\n</html>\n");
	return bsAtomicFile_Commit(&f, 0);
}

// --- The command ---

static void bsRegressUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim regress SUITE [options]\n"
		"\n"
		"Runs every case of a regression suite, renders it with POV-Ray at the suite's small fixed size,\n"
		"and compares the image with the blessed reference SUITE/ref/NAME.png under the case's limits\n"
		"(PSNR, SSIM, largest difference, fraction of pixels over a threshold: blobsim compare).\n"
		"SUITE is a folder holding suite.json (cases, render size, limits: docs/regress.md), a folder of\n"
		"configs (each *.json a case, default settings), or a suite file. Writes OUT/report.html (a\n"
		"table with reference, new image and heatmap side by side), OUT/report.json, and per case\n"
		"OUT/NAME/ (the run's outputs, scene.png, ref.png, diff.png).\n"
		"\n"
		"options:\n"
		"  -o, --output DIR  report folder (default: out/regress)\n"
		"  --update          bless: make each new image the case's reference (a reference with the same\n"
		"                    pixels is kept as it is)\n"
		"  --only NAME       run only this case (repeatable); the others are reported as skipped\n"
		"  --set KEY=VALUE   override a config value in every case (repeatable), after the case's own\n"
		"  --threads N       worker threads of each run (default: all cores)\n"
		"  --quiet           print nothing but errors (each failing case, on stderr)\n"
		"  -h, --help        show this help and exit\n"
		"\n"
		"SIGINT and SIGTERM are passed on to the running case, which removes its temporary files; the\n"
		"suite then stops without writing a report and exits 130 or 143.\n"
		"\n"
		"Exit status: 0 every case passed (or was blessed), 1 a case failed (an image breaks a limit, a\n"
		"run failed, a reference is missing), 2 usage error, 3 the suite or a reference cannot be\n"
		"read, POV-Ray is missing, or the report cannot be written, 130/143 interrupted.\n");
}

// Returns -1 to go on, else an exit status.
static int bsParseRegressOptions(int argc, char** argv, bsRegressOptions* o)
{
	const char* cmd = "regress";
	memset(o, 0, sizeof(*o));
	o->threads = -1;
	for (int i = 1; i < argc;)
	{
		const char* arg = argv[i];
		const char* value = NULL;
		int m;
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
		{
			bsRegressUsage(stdout);
			return bs_exitOk;
		}
		if (strcmp(arg, "--update") == 0 || strcmp(arg, "--quiet") == 0)
		{
			*(arg[2] == 'u' ? &o->update : &o->quiet) = true;
			++i;
		}
		else if ((m = bsMatchOption(cmd, "--output", argc, argv, &i, &value)) != 0 ||
			(m = bsMatchOption(cmd, "-o", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			o->output = value;
		}
		else if ((m = bsMatchOption(cmd, "--only", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			if (o->onlyCount >= 64)
			{
				bsUsageError(cmd, "more than 64 --only options at", value);
				return bs_exitUsage;
			}
			o->only[o->onlyCount++] = value;
		}
		else if ((m = bsMatchSetOption(cmd, argc, argv, &i, o->sets, &o->setCount, bs_regressMaxSets)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--threads", argc, argv, &i, &value)) != 0)
		{
			long long v = 0;
			if (m < 0 || !bsParseIntOption(cmd, "--threads", value, 0, 1024, &v))
			{
				return bs_exitUsage;
			}
			o->threads = (int)v;
		}
		else if (arg[0] == '-' && arg[1] != '\0')
		{
			bsUsageError(cmd, "unknown option", arg);
			return bs_exitUsage;
		}
		else if (o->suite == NULL)
		{
			o->suite = arg;
			++i;
		}
		else
		{
			bsUsageError(cmd, "unexpected argument", arg);
			return bs_exitUsage;
		}
	}
	if (o->suite == NULL)
	{
		bsUsageError(cmd, "missing SUITE", NULL);
		return bs_exitUsage;
	}
	if (o->output == NULL)
	{
		o->output = "out/regress";
	}
	return -1;
}

// The reports a run replaces must be blobsim's (files.h): the user's own report.html in OUT is refused
// before any case runs.
static bool bsRegress_CheckReports(const char* out, char* err, size_t errlen)
{
	static const char jsonStart[] = "{\n\t\"blobsim\":\t\"";
	static const char htmlStart[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<title>blobsim regress: ";
	char* json = bsPathJoin(out, "report.json");
	char* html = bsPathJoin(out, "report.html");
	bool ok = json != NULL && html != NULL;
	if (!ok)
	{
		snprintf(err, errlen, "%s: out of memory", out);
	}
	ok = ok && bsCheckReplaceable(json, jsonStart, sizeof(jsonStart) - 1, err, errlen) &&
		bsCheckReplaceable(html, htmlStart, sizeof(htmlStart) - 1, err, errlen);
	free(json);
	free(html);
	return ok;
}

static bool bsRegressCase_Selected(const bsRegressOptions* o, const char* name)
{
	bool selected = o->onlyCount == 0;
	for (int k = 0; k < o->onlyCount && !selected; ++k)
	{
		selected = strcmp(name, o->only[k]) == 0;
	}
	return selected;
}

// The case's line as it ends: on stdout, or with --quiet ("nothing but errors") on stderr when it
// failed, so that a quiet suite never fails without saying which case and why.
static void bsRegressCase_Print(const bsRegressCase* c, bool quiet)
{
	if (quiet && !bsCaseFailed(c))
	{
		return;
	}
	FILE* f = quiet ? stderr : stdout;
	fprintf(f, "%s%-24s %-12s", quiet ? "blobsim regress: " : "", c->name, bs_regressStatusNames[c->status]);
	if (c->compared)
	{
		fprintf(f, " psnr %6.2f  ssim %.5f  max %3d  over %.4f%%", c->metrics.psnr, c->metrics.ssim,
			c->metrics.maxDiff, 100.0 * c->metrics.fractionOver);
	}
	fprintf(f, "%s%s\n", c->message != NULL ? "  " : "", c->message != NULL ? c->message : "");
	fflush(f);
}

int bsRegressMain(int argc, char** argv)
{
	bsRegressOptions o;
	int status = bsParseRegressOptions(argc, argv, &o);
	if (status >= 0)
	{
		return status;
	}
	char err[BS_REGRESS_ERR_MAX];
	bsRegressSuite s;
	if (!bsRegressSuite_Load(&s, o.suite, err, sizeof(err)))
	{
		fprintf(stderr, "blobsim regress: %s\n", err);
		bsRegressSuite_Free(&s);
		return bs_exitRegressError;
	}
	for (int k = 0; k < o.onlyCount; ++k)
	{
		bool found = false;
		for (int i = 0; i < s.count && !found; ++i)
		{
			found = strcmp(s.cases[i].name, o.only[k]) == 0;
		}
		if (!found)
		{
			fprintf(stderr, "blobsim regress: --only %s: %s has no such case\n", o.only[k], s.source);
			bsRegressSuite_Free(&s);
			return bs_exitUsage;
		}
	}
	char exe[BS_REGRESS_PATH_MAX];
	if (!bsFindProgram("povray", exe, sizeof(exe)))
	{
		fprintf(stderr, "blobsim regress: POV-Ray is not installed (no 'povray' on PATH); install it with "
			"'apt-get install povray'\n");
		bsRegressSuite_Free(&s);
		return bs_exitRegressError;
	}
	err[0] = '\0';
	if (!bsProcess_SelfPath(NULL, exe, sizeof(exe)) || !bsMakeFolders(o.output, "the report folder", NULL, err, sizeof(err)) ||
		!bsRegress_CheckReports(o.output, err, sizeof(err)))
	{
		fprintf(stderr, "blobsim regress: %s\n", err[0] != '\0' ? err : "cannot find the blobsim executable");
		bsRegressSuite_Free(&s);
		return bs_exitRegressError;
	}

	// SIGINT/SIGTERM reach the case's run (which removes its temporary files and stops POV-Ray);
	// then the suite stops without a report.
	bsRunChildSignals savedSignals;
	bsRunChild_InstallSignals(&savedSignals);
	int passed = 0, failed = 0, selectedCount = 0;
	bool unreadable = false;
	for (int i = 0; i < s.count; ++i)
	{
		selectedCount += bsRegressCase_Selected(&o, s.cases[i].name);
	}
	for (int i = 0; i < s.count && bsRunChild_StopSignal() == 0; ++i)
	{
		bsRegressCase* c = s.cases + i;
		if (!bsRegressCase_Selected(&o, c->name))
		{
			bsCaseSet(c, bs_regressSkipped, NULL);
			continue;
		}
		if (!o.quiet)
		{
			fprintf(stderr, "blobsim regress: case %d of %d: %s (%s)...\n", passed + failed + 1, selectedCount,
				c->name, c->written);
		}
		bsRegressCase_Run(exe, &s, &o, c, o.output);
		if (bsRunChild_StopSignal() != 0)
		{
			break;
		}
		bsCaseFailed(c) ? ++failed : ++passed;
		unreadable = unreadable || c->refUnreadable;
		bsRegressCase_Print(c, o.quiet);
	}

	bsRunChild_RestoreSignals(&savedSignals);
	int sig = bsRunChild_StopSignal();
	if (sig != 0)
	{
		fprintf(stderr, "blobsim regress: %s; no report written\n", sig == SIGINT ? "interrupted (SIGINT)" :
			"terminated (SIGTERM)");
		bsRegressSuite_Free(&s);
		return 128 + sig;
	}

	char* reportJson = bsPathJoin(o.output, "report.json");
	char* reportHtml = bsPathJoin(o.output, "report.html");
	char* json = bsReportJson(&s, &o, passed, failed);
	bool written = reportJson != NULL && reportHtml != NULL && json != NULL;
	if (!written)
	{
		snprintf(err, sizeof(err), "%s: out of memory", o.output);
	}
	written = written && bsWriteTextFile(reportJson, json, err, sizeof(err)) &&
		bsWriteReportHtml(reportHtml, &s, &o, passed, failed, err, sizeof(err));
	if (!written)
	{
		fprintf(stderr, "blobsim regress: %s\n", err);
	}
	else if (!o.quiet)
	{
		printf("%d passed, %d failed; report: %s\n", passed, failed, reportHtml);
	}
	cJSON_free(json);
	free(reportJson);
	free(reportHtml);
	bsRegressSuite_Free(&s);
	if (!written || unreadable)
	{
		return bs_exitRegressError;
	}
	return failed > 0 ? bs_exitRegressFail : bs_exitOk;
}
