// batch.c — `blobsim batch`: expand the inputs into runs, skip the up-to-date ones, run the rest as
// `blobsim run` children (process.h) on --jobs worker threads, write batch.json, print a table.
//
// The expansion is fixed before anything runs and does not depend on --jobs or --shard: inputs in
// command-line order; a folder's *.json in name order; a batch file's runs in file order, each
// sweep a cartesian product with the first key varying slowest. Run i of the expansion belongs to
// shard i mod N, so every machine of a sharded batch agrees on who runs what.
#include "batch.h"

#include "array.h"
#include "atomic_file.h"
#include "cli.h"
#include "config.h"
#include "files.h"
#include "inputs.h"
#include "json.h"
#include "blobsim/base.h"
#include "process.h"
#include "render_progress.h"
#include "run_child.h"

#include "blobsim/version.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BS_BATCH_MAX_RUNS 100000   // the expanded batch, all shards together
#define BS_BATCH_MAX_JOBS 256
#define BS_BATCH_NAME_MAX 200      // bytes of one folder name; longer ones end in a hash
#define BS_BATCH_PATH_MAX 4096
#define BS_BATCH_ERR_MAX (2 * BS_BATCH_PATH_MAX + 1024)  // a message naming two paths

// --- Small helpers ---

// A growing string; ok turns false (for good) when memory runs out.
typedef struct bsText
{
	char* s;
	size_t length, capacity;
	bool ok;
} bsText;

static void bsText_Put(bsText* t, const char* text, size_t n)
{
	if (!t->ok)
	{
		return;
	}
	if (!BS_ARRAY_RESERVE(t->s, t->capacity, t->length + n + 1))
	{
		t->ok = false;
		return;
	}
	memcpy(t->s + t->length, text, n);
	t->length += n;
	t->s[t->length] = '\0';
}

static void bsText_Str(bsText* t, const char* text)
{
	bsText_Put(t, text, strlen(text));
}

// Characters a run's folder name keeps; every other byte becomes '_'.
static bool bsIsSafeChar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
		ch == '_' || ch == '-' || ch == '=' || ch == ',' || ch == '+';
}

// A JSON path segment as config.c writes them: .key for identifiers, ["key"] otherwise.
static void bsPathKey(char* path, size_t size, const char* parent, const char* key)
{
	bool identifier = (key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z') || key[0] == '_';
	for (const char* p = key; identifier && *p != '\0'; ++p)
	{
		identifier = bsIsSafeChar((unsigned char)*p) && *p != '.' && *p != '-' && *p != '=' && *p != ',' &&
			*p != '+';
	}
	if (identifier)
	{
		snprintf(path, size, "%s%s%s", parent, parent[0] != '\0' ? "." : "", key);
	}
	else
	{
		snprintf(path, size, "%s[\"%.80s\"]", parent, key);
	}
}

// Compact JSON of a value for messages, cut at 60 bytes.
static void bsDescribe(const cJSON* v, char* out, size_t size)
{
	char* text = cJSON_PrintUnformatted(v);
	if (text == NULL)
	{
		snprintf(out, size, "a value");
		return;
	}
	if (strlen(text) > 60)
	{
		snprintf(out, size, "%.57s...", text);
	}
	else
	{
		snprintf(out, size, "%s", text);
	}
	cJSON_free(text);
}

// --- The expanded batch ---

typedef enum bsRunStatus
{
	bs_runPending,      // not decided yet
	bs_runToRun,        // will run (not up to date, or --force)
	bs_runOk,
	bs_runFailed,
	bs_runSkipped,      // up to date
	bs_runInterrupted,  // stopped by SIGINT/SIGTERM while running
	bs_runNotRun,       // not started: the batch was interrupted first
} bsRunStatus;

static const char* const bs_runStatusNames[] = {
	"pending", "to run", "ok", "failed", "skipped", "interrupted", "not run",
};
// The same as keys of batch.json's "counts".
static const char* const bs_runStatusKeys[] = {
	"pending", "to_run", "ok", "failed", "skipped", "interrupted", "not_run",
};

typedef struct bsBatchRun
{
	int index;         // in the whole expansion (all shards)
	char* source;      // where it comes from, for messages: "b.json: runs[2]" or the config path
	char* config;      // the config's path (relative to the working directory, or absolute)
	char* name;        // its folder under the output root, e.g. "snow/particles.radius=0.02"
	char* output;      // root/name
	char** overrides;  // "key.path=JSON", in order
	int overrideCount;

	bsRunStatus status;
	char* note;        // why it is not up to date, or why it failed (owned)
	int exitCode;      // -1 when it did not exit
	int signal;        // that ended it, else 0
	double seconds;
} bsBatchRun;

typedef struct bsBatchPlan
{
	bsBatchRun* runs;
	int count;
	size_t capacity;
	char* root;        // output root from the first batch file with "output" (owned), or NULL
	char* rootSource;  // that batch file
} bsBatchPlan;

static void bsBatchRun_Free(bsBatchRun* r)
{
	free(r->source);
	free(r->config);
	free(r->name);
	free(r->output);
	for (int k = 0; k < r->overrideCount; ++k)
	{
		free(r->overrides[k]);
	}
	free(r->overrides);
	free(r->note);
	memset(r, 0, sizeof(*r));
}

static void bsBatchPlan_Free(bsBatchPlan* plan)
{
	for (int i = 0; i < plan->count; ++i)
	{
		bsBatchRun_Free(plan->runs + i);
	}
	free(plan->runs);
	free(plan->root);
	free(plan->rootSource);
	memset(plan, 0, sizeof(*plan));
}

// Appends a run, taking ownership of every pointer of *r (freed on failure too).
static bool bsBatchPlan_Add(bsBatchPlan* plan, bsBatchRun* r, char* err, size_t errlen)
{
	if (plan->count == BS_BATCH_MAX_RUNS)
	{
		snprintf(err, errlen, "%s: the batch expands to more than %d runs", r->source, BS_BATCH_MAX_RUNS);
		bsBatchRun_Free(r);
		return false;
	}
	if (!BS_ARRAY_RESERVE(plan->runs, plan->capacity, (size_t)plan->count + 1))
	{
		snprintf(err, errlen, "out of memory");
		bsBatchRun_Free(r);
		return false;
	}
	r->index = plan->count;
	r->exitCode = -1;
	plan->runs[plan->count++] = *r;
	memset(r, 0, sizeof(*r));
	return true;
}

// "dir/path" for a path relative to a file in dir, tidied; absolute paths are only tidied.
static char* bsRelativeTo(const char* file, const char* path)
{
	const char* slash = strrchr(file, '/');
	char* joined = path[0] == '/' || slash == NULL ? bsFormat("%s", path)
		: bsFormat("%.*s/%s", (int)(slash - file), file, path);
	if (joined != NULL)
	{
		bsTidyPath(joined);
	}
	return joined;
}

// The config's file name without a ".json" ending, made safe: the default run name.
static char* bsDefaultName(const char* config)
{
	const char* slash = strrchr(config, '/');
	const char* base = slash != NULL ? slash + 1 : config;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
	{
		n -= 5;
	}
	char* name = bsFormat("%.*s", (int)n, base);
	if (name == NULL)
	{
		return NULL;
	}
	for (char* p = name; *p != '\0'; ++p)
	{
		*p = bsIsSafeChar((unsigned char)*p) ? *p : '_';
	}
	if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
	{
		free(name);
		name = bsFormat("run");
	}
	return name;
}

// --- Sweeps ---

// One key of a run's "set": its values (one for a fixed value, the array's elements for a sweep).
typedef struct bsSetKey
{
	const char* key;
	const cJSON* value;  // the value, or the array of swept values
	bool sweep;
	int count;           // values: 1, or the array's length
} bsSetKey;

typedef struct bsSetList
{
	bsSetKey keys[256];
	int count;
} bsSetList;

// The folder name part of one swept value: key=VALUE, strings without their quotes, unsafe bytes
// as '_', cut to BS_BATCH_NAME_MAX bytes (then ending in '~' and a hash of the whole, to stay unique).
static void bsSweepLabel(bsText* t, const char* key, const cJSON* v)
{
	char* json = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
	const char* value = cJSON_IsString(v) ? v->valuestring : json;
	if (value == NULL)
	{
		t->ok = false;
		return;
	}
	char* label = bsFormat("%s=%s", key, value);
	cJSON_free(json);
	if (label == NULL)
	{
		t->ok = false;
		return;
	}
	size_t n = strlen(label);
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; ++i)
	{
		h = (h ^ (unsigned char)label[i]) * 1099511628211ull;
		label[i] = bsIsSafeChar((unsigned char)label[i]) ? label[i] : '_';
	}
	if (n > BS_BATCH_NAME_MAX)
	{
		snprintf(label + BS_BATCH_NAME_MAX - 17, 18, "~%016" PRIx64, h);
	}
	bsText_Str(t, label);
	free(label);
}

// Adds the runs of one config with the set keys (a cartesian product over the swept keys, the last
// key varying fastest). name is the run's folder; the values of keys with more than one value add
// a level "k1=v1,k2=v2" (a one-value array is a fixed value and names nothing).
static bool bsExpand(bsBatchPlan* plan, const char* source, const char* config, const char* name,
	const bsSetList* set, char* err, size_t errlen)
{
	int pick[256] = {0};
	int product = 1;
	for (int k = 0; k < set->count; ++k)
	{
		if (product > BS_BATCH_MAX_RUNS / set->keys[k].count)
		{
			snprintf(err, errlen, "%s: the sweep expands to more than %d runs", source, BS_BATCH_MAX_RUNS);
			return false;
		}
		product *= set->keys[k].count;
	}
	for (int n = 0; n < product; ++n)
	{
		bsBatchRun r;
		memset(&r, 0, sizeof(r));
		bsText folder = {NULL, 0, 0, true};
		bsText_Str(&folder, name);
		bool swept = false;
		r.source = bsFormat("%s", source);
		r.config = bsFormat("%s", config);
		r.overrides = calloc((size_t)set->count + 1, sizeof(char*));
		bool ok = r.source != NULL && r.config != NULL && r.overrides != NULL;
		for (int k = 0; ok && k < set->count; ++k)
		{
			const bsSetKey* sk = set->keys + k;
			const cJSON* v = sk->sweep ? cJSON_GetArrayItem(sk->value, pick[k]) : sk->value;
			char* json = cJSON_PrintUnformatted(v);
			r.overrides[k] = json != NULL ? bsFormat("%s=%s", sk->key, json) : NULL;
			cJSON_free(json);
			ok = r.overrides[k] != NULL;
			r.overrideCount = k + 1;
			if (sk->count > 1)
			{
				bsText_Str(&folder, swept ? "," : "/");
				bsSweepLabel(&folder, sk->key, v);
				swept = true;
			}
		}
		ok = ok && folder.ok;
		r.name = folder.s;
		if (!ok)
		{
			bsBatchRun_Free(&r);
			snprintf(err, errlen, "out of memory");
			return false;
		}
		if (!bsBatchPlan_Add(plan, &r, err, errlen))
		{
			return false;
		}
		// Next combination: the last key fastest.
		for (int k = set->count - 1; k >= 0; --k)
		{
			if (++pick[k] < set->keys[k].count)
			{
				break;
			}
			pick[k] = 0;
		}
	}
	return true;
}

// --- Batch files ---

// "file: json.path: message" into err. Returns false.
BS_PRINTF_FORMAT(5, 6)
static bool bsFileFail(char* err, size_t errlen, const char* file, const char* path, const char* fmt, ...)
{
	char message[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (path[0] != '\0')
	{
		snprintf(err, errlen, "%s: %s: %s", file, path, message);
	}
	else
	{
		snprintf(err, errlen, "%s: %s", file, message);
	}
	return false;
}

// Unknown and duplicate keys of an object (path names it; allowed is "a, b, c").
static bool bsCheckObjectKeys(const cJSON* object, const char* const* keys, int keyCount, const char* file,
	const char* path, char* err, size_t errlen)
{
	char allowed[128] = "";
	for (int k = 0; k < keyCount; ++k)
	{
		size_t used = strlen(allowed);
		snprintf(allowed + used, sizeof(allowed) - used, "%s%s", k > 0 ? ", " : "", keys[k]);
	}
	for (const cJSON* m = object->child; m != NULL; m = m->next)
	{
		bool known = keys == NULL;
		for (int k = 0; !known && k < keyCount; ++k)
		{
			known = strcmp(m->string, keys[k]) == 0;
		}
		char at[256];
		bsPathKey(at, sizeof(at), path, m->string);
		if (!known)
		{
			return bsFileFail(err, errlen, file, path, "unknown key \"%.80s\" (allowed: %s)", m->string, allowed);
		}
		for (const cJSON* e = object->child; e != m; e = e->next)
		{
			if (strcmp(e->string, m->string) == 0)
			{
				return bsFileFail(err, errlen, file, at, "duplicate key");
			}
		}
	}
	return true;
}

// Reads a "set" object into list (after what it holds: the batch-wide keys come first; a run's key
// replaces a batch-wide key of the same name in place).
static bool bsReadSet(const cJSON* set, const char* file, const char* path, bsSetList* list, char* err,
	size_t errlen)
{
	if (!cJSON_IsObject(set))
	{
		char got[80];
		bsDescribe(set, got, sizeof(got));
		return bsFileFail(err, errlen, file, path, "expected an object of \"key.path\": value or [values], got %s",
			got);
	}
	if (!bsCheckObjectKeys(set, NULL, 0, file, path, err, errlen))
	{
		return false;
	}
	for (const cJSON* m = set->child; m != NULL; m = m->next)
	{
		char at[256];
		bsPathKey(at, sizeof(at), path, m->string);
		if (m->string[0] == '\0')
		{
			return bsFileFail(err, errlen, file, at, "empty key path");
		}
		if (strchr(m->string, '=') != NULL)
		{
			return bsFileFail(err, errlen, file, at, "a key path cannot contain '='");
		}
		bool sweep = cJSON_IsArray(m);
		int count = sweep ? cJSON_GetArraySize(m) : 1;
		if (count == 0)
		{
			return bsFileFail(err, errlen, file, at, "expected at least one value to sweep, got [] (to set an "
				"empty array, write [[]])");
		}
		bsSetKey key = {m->string, m, sweep, count};
		int slot = list->count;
		for (int k = 0; k < list->count; ++k)
		{
			if (strcmp(list->keys[k].key, m->string) == 0)
			{
				slot = k;
			}
		}
		if (slot == list->count)
		{
			if (list->count == (int)(sizeof(list->keys) / sizeof(list->keys[0])))
			{
				return bsFileFail(err, errlen, file, at, "more than 256 keys");
			}
			list->count += 1;
		}
		list->keys[slot] = key;
	}
	return true;
}

// A run's folder name from the batch file: safe characters only, '/' between non-empty parts that
// are not "." or "..".
static bool bsValidName(const char* name)
{
	if (name[0] == '\0' || strlen(name) > BS_BATCH_NAME_MAX)
	{
		return false;
	}
	const char* part = name;
	for (const char* p = name;; ++p)
	{
		if (*p == '/' || *p == '\0')
		{
			size_t n = (size_t)(p - part);
			if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
			{
				return false;
			}
			if (*p == '\0')
			{
				return true;
			}
			part = p + 1;
		}
		else if (!bsIsSafeChar((unsigned char)*p))
		{
			return false;
		}
	}
}

static const char* const bs_batchKeys[] = {"output", "set", "runs"};
static const char* const bs_runKeys[] = {"config", "name", "set"};

// Adds the runs of a batch file (already parsed; its top level is an object with "runs").
static bool bsAddBatchFile(bsBatchPlan* plan, const char* file, const cJSON* root, char* err, size_t errlen)
{
	if (!bsCheckObjectKeys(root, bs_batchKeys, 3, file, "", err, errlen))
	{
		return false;
	}
	char got[80];
	const cJSON* output = cJSON_GetObjectItemCaseSensitive(root, "output");
	if (output != NULL)
	{
		if (!cJSON_IsString(output) || output->valuestring[0] == '\0')
		{
			bsDescribe(output, got, sizeof(got));
			return bsFileFail(err, errlen, file, "output", "expected a folder path, got %s", got);
		}
		if (plan->root == NULL)
		{
			plan->root = bsRelativeTo(file, output->valuestring);
			plan->rootSource = bsFormat("%s", file);
			if (plan->root == NULL || plan->rootSource == NULL)
			{
				snprintf(err, errlen, "out of memory");
				return false;
			}
		}
		else
		{
			char* mine = bsRelativeTo(file, output->valuestring);
			bool same = mine != NULL && strcmp(mine, plan->root) == 0;
			free(mine);
			if (!same)
			{
				return bsFileFail(err, errlen, file, "output", "the batch writes to %s (from %s), not here too; give "
					"one folder with -o", plan->root, plan->rootSource);
			}
		}
	}
	bsSetList common;
	common.count = 0;
	const cJSON* set = cJSON_GetObjectItemCaseSensitive(root, "set");
	if (set != NULL && !bsReadSet(set, file, "set", &common, err, errlen))
	{
		return false;
	}
	const cJSON* runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
	if (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0)
	{
		bsDescribe(runs, got, sizeof(got));
		return bsFileFail(err, errlen, file, "runs", "expected a non-empty array of runs, got %s", got);
	}
	int i = 0;
	for (const cJSON* run = runs->child; run != NULL; run = run->next, ++i)
	{
		char at[64], key[96];
		snprintf(at, sizeof(at), "runs[%d]", i);
		const cJSON* config = run;
		const cJSON* name = NULL;
		bsSetList list = common;
		if (cJSON_IsObject(run))
		{
			if (!bsCheckObjectKeys(run, bs_runKeys, 3, file, at, err, errlen))
			{
				return false;
			}
			config = cJSON_GetObjectItemCaseSensitive(run, "config");
			if (config == NULL)
			{
				return bsFileFail(err, errlen, file, at, "missing \"config\"");
			}
			snprintf(key, sizeof(key), "%s.config", at);
			if (!cJSON_IsString(config) || config->valuestring[0] == '\0')
			{
				bsDescribe(config, got, sizeof(got));
				return bsFileFail(err, errlen, file, key, "expected a config file path, got %s", got);
			}
			name = cJSON_GetObjectItemCaseSensitive(run, "name");
			snprintf(key, sizeof(key), "%s.name", at);
			if (name != NULL && (!cJSON_IsString(name) || !bsValidName(name->valuestring)))
			{
				bsDescribe(name, got, sizeof(got));
				return bsFileFail(err, errlen, file, key, "expected a folder name of letters, digits and . _ - = , + "
					"(parts separated by '/', no '..'), got %s", got);
			}
			const cJSON* runSet = cJSON_GetObjectItemCaseSensitive(run, "set");
			snprintf(key, sizeof(key), "%s.set", at);
			if (runSet != NULL && !bsReadSet(runSet, file, key, &list, err, errlen))
			{
				return false;
			}
		}
		else if (!cJSON_IsString(run) || run->valuestring[0] == '\0')
		{
			bsDescribe(run, got, sizeof(got));
			return bsFileFail(err, errlen, file, at, "expected a config file path or an object with \"config\", got %s",
				got);
		}
		char* path = bsRelativeTo(file, config->valuestring);
		char* folder = name != NULL ? bsFormat("%s", name->valuestring) : bsDefaultName(config->valuestring);
		char* source = bsFormat("%s: %s", file, at);
		bool ok = path != NULL && folder != NULL && source != NULL;
		if (!ok)
		{
			snprintf(err, errlen, "out of memory");
		}
		ok = ok && bsExpand(plan, source, path, folder, &list, err, errlen);
		free(path);
		free(folder);
		free(source);
		if (!ok)
		{
			return false;
		}
	}
	return true;
}

static int bsCompareStrings(const void* a, const void* b)
{
	return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static bool bsAddConfig(bsBatchPlan* plan, const char* config, char* err, size_t errlen)
{
	bsSetList none;
	none.count = 0;
	char* name = bsDefaultName(config);
	bool ok = name != NULL && bsExpand(plan, config, config, name, &none, err, errlen);
	if (name == NULL)
	{
		snprintf(err, errlen, "out of memory");
	}
	free(name);
	return ok;
}

// Every *.json of a folder, by name (not recursive; hidden files left out), each a config.
static bool bsAddFolder(bsBatchPlan* plan, const char* dir, char* err, size_t errlen)
{
	DIR* d = opendir(dir);
	if (d == NULL)
	{
		snprintf(err, errlen, "%s: cannot open the folder: %s", dir, strerror(errno));
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
		if (e->d_name[0] == '.' || n <= 5 || strcmp(e->d_name + n - 5, ".json") != 0)
		{
			continue;
		}
		ok = BS_ARRAY_RESERVE(names, capacity, (size_t)count + 1);
		if (ok)
		{
			names[count] = bsFormat("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
			ok = names[count] != NULL;
			count += ok;
		}
	}
	closedir(d);
	if (!ok)
	{
		snprintf(err, errlen, "out of memory");
	}
	else if (count == 0)
	{
		snprintf(err, errlen, "%s: no *.json config in the folder", dir);
		ok = false;
	}
	if (ok)
	{
		qsort(names, (size_t)count, sizeof(char*), bsCompareStrings);
	}
	for (int k = 0; k < count; ++k)
	{
		ok = ok && bsAddConfig(plan, names[k], err, errlen);
		free(names[k]);
	}
	free(names);
	return ok;
}

// One command-line input: a folder, a batch file (a JSON object with "runs") or a config.
static bool bsAddInput(bsBatchPlan* plan, const char* input, char* err, size_t errlen)
{
	struct stat st;
	if (stat(input, &st) != 0)
	{
		snprintf(err, errlen, "%s: cannot open: %s", input, strerror(errno));
		return false;
	}
	if (S_ISDIR(st.st_mode))
	{
		return bsAddFolder(plan, input, err, errlen);
	}
	cJSON* root = NULL;
	bsJsonError cerr;
	if (bsJson_Load(input, &root, &cerr) != bs_ok)
	{
		snprintf(err, errlen, "%s", cerr.message);
		return false;
	}
	bool ok = cJSON_IsObject(root) && cJSON_GetObjectItemCaseSensitive(root, "runs") != NULL
		? bsAddBatchFile(plan, input, root, err, errlen)
		: bsAddConfig(plan, input, err, errlen);
	cJSON_Delete(root);
	return ok;
}

static int bsCompareOutputs(const void* pa, const void* pb)
{
	const bsBatchRun* a = *(const bsBatchRun* const*)pa;
	const bsBatchRun* b = *(const bsBatchRun* const*)pb;
	int c = strcmp(a->output, b->output);
	return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

// Output folders from the root; two runs with the same folder are an error (naming both, the
// earlier first).
static bool bsAssignOutputs(bsBatchPlan* plan, const char* root, char* err, size_t errlen)
{
	bsBatchRun** order = malloc((size_t)plan->count * sizeof(bsBatchRun*) + 1);
	if (order == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (int i = 0; i < plan->count; ++i)
	{
		bsBatchRun* r = plan->runs + i;
		r->output = bsFormat("%s/%s", root, r->name);
		if (r->output == NULL)
		{
			free(order);
			snprintf(err, errlen, "out of memory");
			return false;
		}
		order[i] = r;
	}
	qsort(order, (size_t)plan->count, sizeof(bsBatchRun*), bsCompareOutputs);
	bool ok = true;
	for (int i = 0; ok && i + 1 < plan->count; ++i)
	{
		const bsBatchRun* a = order[i];
		const bsBatchRun* b = order[i + 1];
		if (strcmp(a->output, b->output) == 0)
		{
			// Two values of one sweep whose names differ only in unsafe characters, or two runs.
			if (strcmp(a->source, b->source) == 0)
			{
				int d = 0;
				while (d + 1 < a->overrideCount && strcmp(a->overrides[d], b->overrides[d]) == 0)
				{
					++d;
				}
				snprintf(err, errlen, "%s: two values of the sweep give the same folder %s (%s and %s): a folder name "
					"keeps only letters, digits and . _ - = , +", a->source, a->output,
					a->overrides[d], b->overrides[d]);
			}
			else
			{
				snprintf(err, errlen, "%s and %s write to the same folder %s: give one of them another \"name\"",
					a->source, b->source, a->output);
			}
			ok = false;
		}
	}
	free(order);
	return ok;
}

// --- Up to date ---

// Input file hashes, computed once per batch: the runs of a sweep read the same meshes, which may be
// large.
typedef struct bsHashCache
{
	bsInputFile* files;
	int count;
	size_t capacity;
} bsHashCache;

static void bsHashCache_Free(bsHashCache* cache)
{
	bsInputList list = {cache->files, cache->count, cache->capacity};
	bsInputList_Free(&list);
	memset(cache, 0, sizeof(*cache));
}

// Fills in->hashed, size and hash from the cache, hashing the file on its first use.
static void bsHashCache_Hash(bsHashCache* cache, bsInputFile* in)
{
	for (int k = 0; k < cache->count; ++k)
	{
		if (strcmp(cache->files[k].path, in->path) == 0)
		{
			in->hashed = cache->files[k].hashed;
			in->size = cache->files[k].size;
			in->hash = cache->files[k].hash;
			return;
		}
	}
	in->hashed = bsHashFile(in->path, &in->size, &in->hash);
	char* path = bsFormat("%s", in->path);
	if (path == NULL || !BS_ARRAY_RESERVE(cache->files, cache->capacity, (size_t)cache->count + 1))
	{
		free(path);
		return;  // not cached: hashed again next time
	}
	cache->files[cache->count] = *in;
	cache->files[cache->count].path = path;
	cache->count += 1;
}

// True when r's summary.json shows a run of this blobsim with the same config and overrides (the
// config hash) and the same input files (path, size, content hash) as now, and its outputs exist.
// Otherwise false, with the first reason found in why.
static bool bsUpToDate(const bsBatchRun* r, bool render, bsHashCache* cache, char* why, size_t size)
{
	char path[BS_BATCH_PATH_MAX];
	snprintf(path, sizeof(path), "%s/summary.json", r->output);
	struct stat st;
	if (stat(path, &st) != 0)
	{
		snprintf(why, size, "no summary.json");
		return false;
	}
	cJSON* summary = NULL;
	bsConfigError cerr;
	if (bsJson_Load(path, &summary, &cerr) != bs_ok || !cJSON_IsObject(summary))
	{
		cJSON_Delete(summary);
		snprintf(why, size, "summary.json unreadable");
		return false;
	}
	bsConfig c;
	bsInputList inputs = {NULL, 0, 0};
	const char* const* overrides = (const char* const*)r->overrides;
	bool configOk = bsConfig_LoadWithOverrides(r->config, overrides, r->overrideCount, &c, &cerr) == bs_ok;
	bool ok = false;
	const cJSON* version = cJSON_GetObjectItemCaseSensitive(summary, "blobsim");
	const cJSON* hash = cJSON_GetObjectItemCaseSensitive(summary, "config_hash");
	const cJSON* files = cJSON_GetObjectItemCaseSensitive(summary, "inputs");
	const cJSON* rendered = cJSON_GetObjectItemCaseSensitive(summary, "rendered");
	char text[32];
	if (!cJSON_IsString(version) || strcmp(version->valuestring, BLOBSIM_VERSION) != 0)
	{
		snprintf(why, size, "made by another blobsim version");
	}
	else if (!configOk)
	{
		snprintf(why, size, "the config does not load");
	}
	else if (snprintf(text, sizeof(text), "%016" PRIx64, c.hash), !cJSON_IsString(hash) ||
		strcmp(hash->valuestring, text) != 0)
	{
		snprintf(why, size, "the config or its overrides changed");
	}
	else if (!bsInputList_Make(&c, false, &inputs))
	{
		snprintf(why, size, "out of memory");
	}
	else if (!cJSON_IsArray(files) || cJSON_GetArraySize(files) != inputs.count)
	{
		snprintf(why, size, "the input files changed");
	}
	else
	{
		ok = true;
		const cJSON* f = files->child;
		for (int i = 0; ok && i < inputs.count; ++i, f = f->next)
		{
			bsInputFile* in = inputs.files + i;
			bsHashCache_Hash(cache, in);
			const cJSON* p = cJSON_GetObjectItemCaseSensitive(f, "path");
			const cJSON* n = cJSON_GetObjectItemCaseSensitive(f, "size");
			const cJSON* h = cJSON_GetObjectItemCaseSensitive(f, "fnv1a64");
			snprintf(text, sizeof(text), "%016" PRIx64, in->hash);
			ok = in->hashed && cJSON_IsString(p) && strcmp(p->valuestring, in->path) == 0 && cJSON_IsNumber(n) &&
				n->valuedouble == (double)in->size && cJSON_IsString(h) && strcmp(h->valuestring, text) == 0;
			if (!ok)
			{
				snprintf(why, size, "input changed: %s", in->path);
			}
		}
		const char* outputs[] = {"scene.pov", "particles.ply", "scene.png"};
		for (int k = 0; ok && k < (render ? 3 : 2); ++k)
		{
			snprintf(path, sizeof(path), "%s/%s", r->output, outputs[k]);
			ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
			if (!ok)
			{
				snprintf(why, size, "no %s", outputs[k]);
			}
		}
		if (ok && render && !cJSON_IsTrue(rendered))
		{
			ok = false;
			snprintf(why, size, "not rendered");
		}
	}
	bsInputList_Free(&inputs);
	bsConfig_Free(&c);
	cJSON_Delete(summary);
	return ok;
}

// --- Running ---

// SIGINT/SIGTERM (run_child.h): the first signal stops the batch (no new run starts) and is passed on
// to every running child, which removes its temporary files and exits; the batch then writes
// batch.json and exits 128 + the signal.

typedef struct bsBatchOptions
{
	const char* inputs[256];
	int inputCount;
	const char* output;  // -o
	int jobs;
	int threads;         // per run; 0: cores / jobs
	bool threadsGiven;
	bool force;
	bool render;
	bool dryRun;
	bool quiet;
	int shard, shardCount;  // shardCount 0: no --shard
} bsBatchOptions;

typedef struct bsBatchExec
{
	bsBatchPlan* plan;
	const bsBatchOptions* o;
	const char* exe;
	int* todo;        // indices of the runs to run, in order
	int todoCount;
	int next;         // the next todo position to start
	int finished, failed, running;
	double start;
	bool progress;    // a progress line on stderr, redrawn (a terminal)
	bool lines;       // a line on stderr per finished run (not a terminal: a log, a pipe, Slurm's file)
	double runSeconds;  // the finished runs' wall time (simulation and render), summed
	int jobs;           // runs at once
	bsQueueRun flights[BS_BATCH_MAX_JOBS];  // the run of each worker; start 0: idle
	pthread_mutex_t lock;
} bsBatchExec;

typedef struct bsBatchWorker
{
	bsBatchExec* exec;
	int index;
	pthread_t thread;
} bsBatchWorker;

// "\rbatch: 3/10 finished, 1 failed, 2 running (render 42%, 7%), 5 to go, ETA 1 min 10 s". The ETA
// counts the runs in flight by their renders' progress (bsQueueEta), so a long render does not
// leave an estimate made from the short runs before it. Under the lock.
static void bsBatchProgress(const bsBatchExec* x, bool final)
{
	if (!x->progress)
	{
		return;
	}
	double now = bsNow();
	int left = x->todoCount - x->finished;
	bsQueueRun running[BS_BATCH_MAX_JOBS];
	int count = 0;
	char renders[64] = "";
	size_t used = 0;
	for (int k = 0; k < x->jobs; ++k)
	{
		if (x->flights[k].start > 0.0)
		{
			running[count++] = x->flights[k];
			if (x->flights[k].fraction >= 0.0 && used + 16 < sizeof(renders))
			{
				used += (size_t)snprintf(renders + used, sizeof(renders) - used, "%s%.0f%%", used == 0 ? " (render " : ", ",
					100.0 * x->flights[k].fraction);
			}
		}
	}
	if (used > 0)
	{
		snprintf(renders + used, sizeof(renders) - used, ")");
	}
	char eta[48] = "";
	double mean = x->finished > 0 ? x->runSeconds / x->finished : 0.0;
	double seconds = bsQueueEta(running, count, mean, left - x->running, x->jobs, now);
	if (left > 0 && seconds >= 0.0)
	{
		char d[32];
		bsFormatDuration(d, sizeof(d), seconds);
		snprintf(eta, sizeof(eta), ", ETA %s", d);
	}
	fprintf(stderr, "\rbatch: %d/%d finished, %d failed, %d running%s, %d to go%s    ", x->finished, x->todoCount,
		x->failed, x->running, renders, left - x->running, eta);
	if (final)
	{
		fputc('\n', stderr);
	}
	fflush(stderr);
}

// Off a terminal, where a redrawn line would be noise: "batch: 3/10 finished: ok 12.40 s out/x", one
// line as each run ends, so a long batch in a log or a pipe says how far it is. Under the lock.
static void bsBatchFinishedLine(const bsBatchExec* x, const bsBatchRun* r)
{
	if (!x->lines)
	{
		return;
	}
	fprintf(stderr, "batch: %d/%d finished: %s %.2f s %s\n", x->finished, x->todoCount, bs_runStatusNames[r->status],
		r->seconds, r->output);
	fflush(stderr);
}

// A child's render progress (run_child.h): its worker's flight, and the line redrawn.
typedef struct bsBatchFlightRef
{
	bsBatchExec* exec;
	int index;
} bsBatchFlightRef;

static void bsBatchOnProgress(void* context, double fraction)
{
	bsBatchFlightRef* ref = context;
	bsBatchExec* x = ref->exec;
	pthread_mutex_lock(&x->lock);
	bsQueueRun* f = x->flights + ref->index;
	if (f->fraction < 0.0)
	{
		f->renderStart = bsNow();
	}
	f->fraction = fraction;
	bsBatchProgress(x, false);
	pthread_mutex_unlock(&x->lock);
}

static void bsBatchRunOne(bsBatchExec* x, int worker, bsBatchRun* r)
{
	const bsBatchOptions* o = x->o;
	bsRunChildDef def = bsDefaultRunChildDef();
	bsBatchFlightRef ref = {x, worker};
	if (x->progress && o->render)
	{
		def.onProgress = bsBatchOnProgress;
		def.progressContext = &ref;
	}
	def.exe = x->exe;
	def.config = r->config;
	def.output = r->output;
	def.render = o->render;
	def.threads = o->threads;
	def.sets = (const char* const*)r->overrides;
	def.setCount = r->overrideCount;

	double t0 = bsNow();
	char err[BS_BATCH_ERR_MAX];
	// The batch makes the folder above the run's (shared by the values of a sweep); the run makes
	// its own, and removes it when it fails. A run failing while a sibling starts then cannot remove
	// the parent from under it.
	char parent[BS_BATCH_PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", r->output);
	char* slash = strrchr(parent, '/');
	if (slash != NULL && slash > parent)
	{
		*slash = '\0';
	}
	bool made = slash == NULL || slash == parent || bsMakeFolders(parent, "a run's parent folder", NULL, err, sizeof(err));
	bsRunChildOutput out;
	if (!made || !bsRunChild_Run(&def, &out, err, sizeof(err)))
	{
		r->status = bs_runFailed;
		r->note = bsFormat("%s", err);
	}
	else
	{
		const bsProcessOutput* q = &out.process;
		r->exitCode = q->state == bs_processExited ? q->exitCode : -1;
		r->signal = q->state == bs_processSignaled ? q->signal : 0;
		if (out.ok)
		{
			r->status = bs_runOk;
		}
		else
		{
			r->status = out.interrupted ? bs_runInterrupted : bs_runFailed;
			char text[1200];
			bsRunChild_Describe(&out, 1, text, sizeof(text));
			free(r->note);
			r->note = bsFormat("%s", text);
		}
	}
	r->seconds = bsNow() - t0;
}

static void* bsBatchWorkerMain(void* context)
{
	bsBatchWorker* w = context;
	bsBatchExec* x = w->exec;
	for (;;)
	{
		pthread_mutex_lock(&x->lock);
		if (bsRunChild_StopSignal() != 0 || x->next >= x->todoCount)
		{
			pthread_mutex_unlock(&x->lock);
			break;
		}
		bsBatchRun* r = x->plan->runs + x->todo[x->next++];
		x->running += 1;
		x->flights[w->index] = (bsQueueRun){.start = bsNow(), .fraction = -1.0};
		bsBatchProgress(x, false);
		pthread_mutex_unlock(&x->lock);

		bsBatchRunOne(x, w->index, r);

		pthread_mutex_lock(&x->lock);
		x->flights[w->index].start = 0.0;
		x->runSeconds += r->seconds;
		x->running -= 1;
		x->finished += 1;
		x->failed += r->status == bs_runFailed;
		bsBatchProgress(x, false);
		bsBatchFinishedLine(x, r);
		pthread_mutex_unlock(&x->lock);
	}
	return NULL;
}

// Runs x->todo on o->jobs worker threads (at least one: the caller's thread when none can start).
static void bsBatchExecute(bsBatchExec* x)
{
	int jobs = x->o->jobs < x->todoCount ? x->o->jobs : x->todoCount;
	bsBatchWorker workers[BS_BATCH_MAX_JOBS];
	bool started[BS_BATCH_MAX_JOBS] = {false};
	x->jobs = jobs;
	for (int k = 0; k < jobs; ++k)
	{
		workers[k].exec = x;
		workers[k].index = k;
		started[k] = k > 0 && bsThread_Create(&workers[k].thread, bsBatchWorkerMain, workers + k) == 0;
	}
	if (jobs > 0)
	{
		bsBatchWorkerMain(workers);
	}
	for (int k = 1; k < jobs; ++k)
	{
		if (started[k])
		{
			pthread_join(workers[k].thread, NULL);
		}
	}
	pthread_mutex_lock(&x->lock);
	bsBatchProgress(x, true);
	pthread_mutex_unlock(&x->lock);
}

// --- Reports ---

static cJSON* bsRunJson(const bsBatchRun* r)
{
	cJSON* j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "index", r->index);
	cJSON_AddStringToObject(j, "name", r->name);
	cJSON_AddStringToObject(j, "config", r->config);
	cJSON* overrides = cJSON_AddArrayToObject(j, "overrides");
	for (int k = 0; k < r->overrideCount; ++k)
	{
		cJSON_AddItemToArray(overrides, cJSON_CreateString(r->overrides[k]));
	}
	cJSON_AddStringToObject(j, "output", r->output);
	cJSON_AddStringToObject(j, "status", bs_runStatusNames[r->status]);
	bool ran = r->status == bs_runOk || r->status == bs_runFailed || r->status == bs_runInterrupted;
	if (ran && r->exitCode >= 0)
	{
		cJSON_AddNumberToObject(j, "exit_code", r->exitCode);
	}
	else
	{
		cJSON_AddNullToObject(j, "exit_code");
	}
	if (r->signal != 0)
	{
		cJSON_AddNumberToObject(j, "signal", r->signal);
	}
	else
	{
		cJSON_AddNullToObject(j, "signal");
	}
	if (ran)
	{
		cJSON_AddNumberToObject(j, "seconds", r->seconds);
	}
	else
	{
		cJSON_AddNullToObject(j, "seconds");
	}
	bool error = r->status == bs_runFailed || r->status == bs_runInterrupted;
	if (error && r->note != NULL)
	{
		cJSON_AddStringToObject(j, "error", r->note);
	}
	else
	{
		cJSON_AddNullToObject(j, "error");
	}
	return j;
}

// batch.json (or batch.shard-K-of-N.json) in the root, written atomically.
static bool bsWriteBatchJson(const bsBatchPlan* plan, const int* mine, int mineCount, const bsBatchOptions* o,
	const char* root, const char* path, int sig, const int counts[], double seconds, char* err,
	size_t errlen)
{
	cJSON* j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "blobsim", BLOBSIM_VERSION);
	cJSON_AddStringToObject(j, "output", root);
	if (o->shardCount > 0)
	{
		cJSON* shard = cJSON_AddObjectToObject(j, "shard");
		cJSON_AddNumberToObject(shard, "index", o->shard);
		cJSON_AddNumberToObject(shard, "count", o->shardCount);
	}
	else
	{
		cJSON_AddNullToObject(j, "shard");
	}
	cJSON_AddNumberToObject(j, "jobs", o->jobs);
	cJSON_AddNumberToObject(j, "threads", o->threads);
	cJSON_AddBoolToObject(j, "force", o->force);
	cJSON_AddBoolToObject(j, "render", o->render);
	if (sig != 0)
	{
		cJSON_AddStringToObject(j, "interrupted", sig == SIGINT ? "SIGINT" : "SIGTERM");
	}
	else
	{
		cJSON_AddNullToObject(j, "interrupted");
	}
	cJSON_AddNumberToObject(j, "seconds", seconds);
	cJSON* c = cJSON_AddObjectToObject(j, "counts");
	cJSON_AddNumberToObject(c, "runs", mineCount);
	for (int s = bs_runOk; s <= bs_runNotRun; ++s)
	{
		cJSON_AddNumberToObject(c, bs_runStatusKeys[s], counts[s]);
	}
	cJSON* runs = cJSON_AddArrayToObject(j, "runs");
	for (int k = 0; k < mineCount; ++k)
	{
		cJSON_AddItemToArray(runs, bsRunJson(plan->runs + mine[k]));
	}
	char* text = cJSON_Print(j);
	cJSON_Delete(j);
	if (text == NULL)
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return false;
	}
	bool ok = bsWriteTextFile(path, text, err, errlen);
	cJSON_free(text);
	return ok;
}

// The closing table on stdout: one line per run of this shard.
static void bsPrintTable(const bsBatchPlan* plan, const int* mine, int mineCount)
{
	printf("%-11s %8s  %s\n", "status", "seconds", "output");
	for (int k = 0; k < mineCount; ++k)
	{
		const bsBatchRun* r = plan->runs + mine[k];
		char seconds[32] = "-";
		if (r->status == bs_runOk || r->status == bs_runFailed || r->status == bs_runInterrupted)
		{
			snprintf(seconds, sizeof(seconds), "%.2f", r->seconds);
		}
		const char* note = r->status == bs_runSkipped ? "up to date"
			: (r->status == bs_runFailed || r->status == bs_runInterrupted) ? r->note : NULL;
		printf("%-11s %8s  %s%s%s%s\n", bs_runStatusNames[r->status], seconds, r->output, note != NULL ? "  (" : "",
			note != NULL ? note : "", note != NULL ? ")" : "");
	}
}

// --- The command ---

static void bsBatchUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim batch INPUT... [options]\n"
		"\n"
		"Runs many simulations, each as 'blobsim run' in its own output folder. An INPUT is a config,\n"
		"a folder (its *.json configs, by name) or a batch file: a JSON object with \"runs\", which lists\n"
		"configs with parameter sweeps (docs/batch.md). A run's folder is OUT/NAME, NAME the config's\n"
		"file name without .json (or the run's \"name\"), then KEY=VALUE,... for its swept values.\n"
		"A run whose summary.json shows the same blobsim version, config, overrides and input files\n"
		"(content hashes) and whose outputs exist is up to date and skipped. A failed run does not stop\n"
		"the others. OUT/batch.json records every run: config, overrides, status, exit code, seconds,\n"
		"output folder and error.\n"
		"\n"
		"options:\n"
		"  -o, --output OUT  the root of the run folders and batch.json (default: the batch file's\n"
		"                    \"output\", else out/batch)\n"
		"  -j, --jobs N      runs at the same time, 0 = one per core (default 1)\n"
		"  --threads N       threads per run (default: cores / jobs, at least 1); results do not depend\n"
		"                    on it\n"
		"  --force           run every run, up to date or not\n"
		"  --render          render each run with POV-Ray (passed to 'blobsim run')\n"
		"  --shard K/N       run only the runs whose index i (in the expanded batch) has i mod N = K;\n"
		"                    K counts from 0 (as SLURM_ARRAY_TASK_ID with --array=0-(N-1)); writes\n"
		"                    OUT/batch.shard-K-of-N.json\n"
		"  --dry-run, --list print the runs (index, run or up-to-date, folder, config, overrides) and\n"
		"                    run nothing\n"
		"  --quiet           no progress line and no table; failed runs are still reported on stderr\n"
		"  -h, --help        show this help and exit\n"
		"\n"
		"SIGINT and SIGTERM are passed on to the running runs (which remove their temporary files);\n"
		"batch.json then records them as interrupted and the batch exits 130 or 143.\n"
		"\n"
		"Exit status: 0 every run ok or up to date, 1 a run failed (or the batch could not start: bad\n"
		"batch file, two runs with one output folder), 2 usage error, 130/143 interrupted.\n");
}

// "K/N" with 0 <= K < N.
static bool bsParseShard(const char* text, int* k, int* n)
{
	const char* slash = strchr(text, '/');
	char part[32];
	long long a, b;
	if (slash == NULL || (size_t)(slash - text) >= sizeof(part))
	{
		return false;
	}
	memcpy(part, text, (size_t)(slash - text));
	part[slash - text] = '\0';
	char* end;
	if (part[0] < '0' || part[0] > '9' || slash[1] < '0' || slash[1] > '9')
	{
		return false;
	}
	errno = 0;
	a = strtoll(part, &end, 10);
	if (*end != '\0' || errno != 0)
	{
		return false;
	}
	b = strtoll(slash + 1, &end, 10);
	if (*end != '\0' || errno != 0 || b < 1 || b > BS_BATCH_MAX_RUNS || a >= b)
	{
		return false;
	}
	*k = (int)a;
	*n = (int)b;
	return true;
}

// Returns -1 to go on, else an exit status.
static int bsParseBatchOptions(int argc, char** argv, bsBatchOptions* o)
{
	const char* cmd = "batch";
	memset(o, 0, sizeof(*o));
	o->jobs = 1;
	int i = 1;
	while (i < argc)
	{
		const char* a = argv[i];
		const char* value = NULL;
		int m;
		long long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		{
			bsBatchUsage(stdout);
			return bs_exitOk;
		}
		else if ((m = bsMatchOption(cmd, "--output", argc, argv, &i, &value)) != 0 ||
			(m = bsMatchOption(cmd, "-o", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			if (value[0] == '\0')
			{
				bsUsageError(cmd, "-o: expected a folder, got", value);
				return bs_exitUsage;
			}
			o->output = value;
		}
		else if ((m = bsMatchOption(cmd, "--jobs", argc, argv, &i, &value)) != 0 ||
			(m = bsMatchOption(cmd, "-j", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--jobs", value, 0, BS_BATCH_MAX_JOBS, &v))
			{
				return bs_exitUsage;
			}
			o->jobs = (int)v;
		}
		else if ((m = bsMatchOption(cmd, "--threads", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--threads", value, 1, 1024, &v))
			{
				return bs_exitUsage;
			}
			o->threads = (int)v;
			o->threadsGiven = true;
		}
		else if ((m = bsMatchOption(cmd, "--shard", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			if (!bsParseShard(value, &o->shard, &o->shardCount))
			{
				bsUsageError(cmd, "--shard: expected K/N with 0 <= K < N (K counts from 0), got", value);
				return bs_exitUsage;
			}
		}
		else if (strcmp(a, "--force") == 0 || strcmp(a, "--render") == 0 || strcmp(a, "--dry-run") == 0 ||
			strcmp(a, "--list") == 0 || strcmp(a, "--quiet") == 0)
		{
			o->force |= strcmp(a, "--force") == 0;
			o->render |= strcmp(a, "--render") == 0;
			o->dryRun |= strcmp(a, "--dry-run") == 0 || strcmp(a, "--list") == 0;
			o->quiet |= strcmp(a, "--quiet") == 0;
			++i;
		}
		else if (a[0] == '-' && a[1] != '\0')
		{
			bsUsageError(cmd, "unknown option", a);
			return bs_exitUsage;
		}
		else if (o->inputCount == (int)(sizeof(o->inputs) / sizeof(o->inputs[0])))
		{
			bsUsageError(cmd, "too many inputs (256 at most; give a folder or a batch file)", NULL);
			return bs_exitUsage;
		}
		else
		{
			o->inputs[o->inputCount++] = a;
			++i;
		}
	}
	if (o->inputCount == 0)
	{
		bsUsageError(cmd, "missing INPUT (a config, a folder of configs or a batch file)", NULL);
		return bs_exitUsage;
	}
	int cores = bsCoreCount();
	if (o->jobs == 0)
	{
		o->jobs = cores < BS_BATCH_MAX_JOBS ? cores : BS_BATCH_MAX_JOBS;
	}
	if (!o->threadsGiven)
	{
		o->threads = cores / o->jobs > 1 ? cores / o->jobs : 1;
	}
	return -1;
}

static int bsBatchFail(const char* message)
{
	fprintf(stderr, "blobsim batch: %s\n", message);
	return bs_exitFailure;
}

// This shard's runs (mine), and of them those not up to date (todo, with why in their note).
static void bsBatch_Select(bsBatchPlan* plan, const bsBatchOptions* o, int* mine, int* mineCount, int* todo,
	int* todoCount)
{
	*mineCount = *todoCount = 0;
	bsHashCache cache = {NULL, 0, 0};
	for (int i = 0; i < plan->count; ++i)
	{
		if (o->shardCount > 0 && i % o->shardCount != o->shard)
		{
			continue;
		}
		bsBatchRun* r = plan->runs + i;
		mine[(*mineCount)++] = i;
		char why[BS_BATCH_PATH_MAX + 64] = "--force";
		if (!o->force && bsUpToDate(r, o->render, &cache, why, sizeof(why)))
		{
			r->status = bs_runSkipped;
		}
		else
		{
			r->status = bs_runToRun;
			r->note = bsFormat("%s", why);
			todo[(*todoCount)++] = i;
		}
	}
	bsHashCache_Free(&cache);
}

// --dry-run: a line a run (index, up-to-date or run, output, config, overrides), and a count.
static void bsBatch_PrintPlan(const bsBatchPlan* plan, const bsBatchOptions* o, const int* mine, int mineCount,
	int todoCount)
{
	for (int k = 0; k < mineCount; ++k)
	{
		const bsBatchRun* r = plan->runs + mine[k];
		printf("%d\t%s\t%s\t%s", r->index, r->status == bs_runSkipped ? "up-to-date" : "run", r->output,
			r->config);
		for (int v = 0; v < r->overrideCount; ++v)
		{
			printf("\t%s", r->overrides[v]);
		}
		printf("\n");
	}
	if (!o->quiet)
	{
		fprintf(stderr, "blobsim batch: %d run%s (%d to run, %d up to date)%s; nothing run (--dry-run)\n",
			mineCount, mineCount == 1 ? "" : "s", todoCount, mineCount - todoCount,
			o->shardCount > 0 ? " in this shard" : "");
	}
}

// Runs the todo list as child processes (bsBatchExecute), with the termination signals passed on.
static void bsBatch_Run(bsBatchPlan* plan, const bsBatchOptions* o, const char* exe, int* todo, int todoCount)
{
	bsBatchExec x;
	memset(&x, 0, sizeof(x));
	x.plan = plan;
	x.o = o;
	x.exe = exe;
	x.todo = todo;
	x.todoCount = todoCount;
	x.start = bsNow();
	x.progress = !o->quiet && isatty(2) && todoCount > 0;
	x.lines = !o->quiet && !isatty(2);
	pthread_mutex_init(&x.lock, NULL);
	bsBatchExecute(&x);
	pthread_mutex_destroy(&x.lock);
}

// What the batch did: the table (or, with --quiet, the failures alone).
static void bsBatch_Report(const bsBatchPlan* plan, const bsBatchOptions* o, const int* mine, int mineCount)
{
	if (!o->quiet)
	{
		bsPrintTable(plan, mine, mineCount);
		fflush(stdout);
		return;
	}
	for (int k = 0; k < mineCount; ++k)
	{
		const bsBatchRun* r = plan->runs + mine[k];
		if (r->status == bs_runFailed)
		{
			fprintf(stderr, "blobsim batch: %s: failed: %s\n", r->output, r->note != NULL ? r->note : "");
		}
	}
}

// The closing line: runs by status, and where batch.json is.
static void bsBatch_PrintTotals(const bsBatchOptions* o, int mineCount, const int* counts, int sig,
	const char* batchPath, double seconds)
{
	char stopped[64] = "";
	if (sig != 0)
	{
		snprintf(stopped, sizeof(stopped), ", %d interrupted, %d not run", counts[bs_runInterrupted],
			counts[bs_runNotRun]);
	}
	fprintf(stderr, "blobsim batch: %d ok, %d failed, %d skipped (up to date)%s of %d run%s%s in %.1f s; %s\n",
		counts[bs_runOk], counts[bs_runFailed], counts[bs_runSkipped], stopped, mineCount,
		mineCount == 1 ? "" : "s",
		o->shardCount > 0 ? " in this shard" : "", seconds, batchPath != NULL ? batchPath : "no batch file");
}

// The runs of every input, each with its output folder under root (-o, the batch file's, or
// out/batch). False with the message in err.
static bool bsBatch_Plan(const bsBatchOptions* o, bsBatchPlan* plan, const char** root, char* err, size_t errlen)
{
	for (int k = 0; k < o->inputCount; ++k)
	{
		if (!bsAddInput(plan, o->inputs[k], err, errlen))
		{
			return false;
		}
	}
	*root = o->output != NULL ? o->output : plan->root != NULL ? plan->root : "out/batch";
	return bsAssignOutputs(plan, *root, err, errlen);
}

// Runs what is to run, writes batch.json (or the shard's) and reports: the exit status.
static int bsBatch_Execute(bsBatchPlan* plan, const bsBatchOptions* o, const char* root, const int* mine,
	int mineCount, int* todo, int todoCount, double start)
{
	char err[BS_BATCH_ERR_MAX];
	char batchPath[BS_BATCH_PATH_MAX];
	if (o->shardCount > 0)
	{
		snprintf(batchPath, sizeof(batchPath), "%s/batch.shard-%d-of-%d.json", root, o->shard, o->shardCount);
	}
	else
	{
		snprintf(batchPath, sizeof(batchPath), "%s/batch.json", root);
	}
	char exe[BS_BATCH_PATH_MAX];
	// Every batch.json blobsim writes begins so (cJSON_Print's object, "blobsim" first); a file there
	// that neither begins so nor is listed is the user's (the batch file itself, say), never replaced.
	static const char signature[] = "{\n\t\"blobsim\":\t\"";
	if (!bsMakeFolders(root, "the batch's output folder", NULL, err, sizeof(err)) ||
		!bsCheckReplaceable(batchPath, signature, sizeof(signature) - 1, err, sizeof(err)))
	{
		return bsBatchFail(err);
	}
	if (!bsProcess_SelfPath(NULL, exe, sizeof(exe)))
	{
		return bsBatchFail("cannot find the blobsim executable (/proc/self/exe)");
	}
	bsRunChildSignals savedSignals;
	bsRunChild_InstallSignals(&savedSignals);
	bsBatch_Run(plan, o, exe, todo, todoCount);
	int sig = bsRunChild_StopSignal();
	int counts[bs_runNotRun + 1] = {0};
	for (int k = 0; k < mineCount; ++k)
	{
		bsBatchRun* r = plan->runs + mine[k];
		if (r->status == bs_runToRun)
		{
			r->status = bs_runNotRun;  // never started: the batch was interrupted
		}
		counts[r->status] += 1;
	}
	bool written = bsWriteBatchJson(plan, mine, mineCount, o, root, batchPath, sig, counts, bsNow() - start,
		err, sizeof(err));
	bsBatch_Report(plan, o, mine, mineCount);
	if (!written)
	{
		fprintf(stderr, "blobsim batch: %s\n", err);
	}
	if (!o->quiet || counts[bs_runFailed] > 0 || sig != 0)
	{
		bsBatch_PrintTotals(o, mineCount, counts, sig, written ? batchPath : NULL, bsNow() - start);
	}
	bsRunChild_RestoreSignals(&savedSignals);
	if (sig != 0)
	{
		return 128 + sig;
	}
	return counts[bs_runFailed] > 0 || !written ? bs_exitFailure : bs_exitOk;
}

int bsBatchMain(int argc, char** argv)
{
	bsBatchOptions o;
	int status = bsParseBatchOptions(argc, argv, &o);
	if (status >= 0)
	{
		return status;
	}
	double start = bsNow();
	char err[BS_BATCH_ERR_MAX];
	bsBatchPlan plan;
	memset(&plan, 0, sizeof(plan));
	const char* root = NULL;
	int* mine = NULL;
	int* todo = NULL;
	if (!bsBatch_Plan(&o, &plan, &root, err, sizeof(err)))
	{
		status = bsBatchFail(err);
	}
	else if ((mine = malloc((size_t)plan.count * sizeof(int) + 1)) == NULL ||
		(todo = malloc((size_t)plan.count * sizeof(int) + 1)) == NULL)
	{
		status = bsBatchFail("out of memory");
	}
	else
	{
		int mineCount, todoCount;
		bsBatch_Select(&plan, &o, mine, &mineCount, todo, &todoCount);
		if (o.dryRun)
		{
			bsBatch_PrintPlan(&plan, &o, mine, mineCount, todoCount);
			status = bs_exitOk;
		}
		else
		{
			status = bsBatch_Execute(&plan, &o, root, mine, mineCount, todo, todoCount, start);
		}
	}
	free(mine);
	free(todo);
	bsBatchPlan_Free(&plan);
	return status;
}
