// compare.c — `blobsim compare`.
#include "compare.h"

#include "cli.h"
#include "image.h"
#include "image_compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS_COMPARE_ERR_MAX 8192

typedef struct bsCompareArgs
{
	const char* files[2];
	int fileCount;
	const char* heatmap;  // --diff
	bool json;
	int threshold;
	bsCompareLimits limits;
	bool anyLimit;
} bsCompareArgs;

static void bsCompareUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim compare A.png B.png [options]\n"
		"\n"
		"Compares two PNG images of the same size and prints PSNR, SSIM, the mean (MAE) and largest\n"
		"absolute difference, and the fraction of pixels that differ by more than a threshold\n"
		"(docs/compare.md defines each). Every PNG variant is read as 8-bit RGB (gray, palette and\n"
		"16-bit too); pixels with alpha are composited over black first. SSIM is that of the\n"
		"luminance Y = 0.299 R + 0.587 G + 0.114 B, 11x11 Gaussian window (sigma 1.5), mean over the\n"
		"window positions inside the image; it is undefined (n/a) below 11x11.\n"
		"\n"
		"options:\n"
		"  --threshold N     a pixel differs when one of its channels differs by more than N\n"
		"                    (0-255, default 0: any change)\n"
		"  --diff FILE       write a heatmap PNG: black where equal, else by the pixel's largest\n"
		"                    channel difference d: blue (1), cyan (4), green (16), yellow (64), red (255)\n"
		"  --json            print the metrics as one JSON object (PSNR of identical images: null)\n"
		"  --min-psnr DB     fail when PSNR < DB (identical images, PSNR inf, always pass)\n"
		"  --min-ssim S      fail when SSIM < S (or when SSIM is undefined)\n"
		"  --max-diff N      fail when the largest channel difference > N (0-255)\n"
		"  --max-mae X       fail when MAE > X\n"
		"  --max-fraction F  fail when the fraction of pixels over --threshold > F (0-1)\n"
		"  -h, --help        show this help and exit\n"
		"\n"
		"Exit status: 0 pass (always, when no limit is given), 1 fail (a limit is broken), 2 usage\n"
		"error, 3 error (an image cannot be read or is not a valid PNG, the sizes differ, the heatmap\n"
		"cannot be written).\n");
}

// A double option in [lo, hi]; sets anyLimit. Returns false after a usage error.
static bool bsCompareDoubleLimit(const char* option, const char* value, double lo, double hi, double* out,
	bsCompareArgs* args)
{
	args->anyLimit = true;
	return bsParseDoubleOption("compare", option, value, lo, hi, out);
}

// Returns -1 to go on, else an exit status.
static int bsParseCompareArgs(int argc, char** argv, bsCompareArgs* args)
{
	memset(args, 0, sizeof(*args));
	args->limits = bsCompareLimits_None();
	const char* cmd = "compare";
	int i = 1;
	while (i < argc)
	{
		const char* a = argv[i];
		const char* value = NULL;
		int m = 0;
		long long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		{
			bsCompareUsage(stdout);
			return bs_exitOk;
		}
		else if (strcmp(a, "--json") == 0)
		{
			args->json = true;
			++i;
		}
		else if ((m = bsMatchOption(cmd, "--diff", argc, argv, &i, &value)) != 0)
		{
			if (m < 0)
			{
				return bs_exitUsage;
			}
			args->heatmap = value;
		}
		else if ((m = bsMatchOption(cmd, "--threshold", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--threshold", value, 0, 255, &v))
			{
				return bs_exitUsage;
			}
			args->threshold = (int)v;
		}
		else if ((m = bsMatchOption(cmd, "--max-diff", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsParseIntOption(cmd, "--max-diff", value, 0, 255, &v))
			{
				return bs_exitUsage;
			}
			args->limits.maxDiff = (int)v;
			args->anyLimit = true;
		}
		else if ((m = bsMatchOption(cmd, "--min-psnr", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsCompareDoubleLimit("--min-psnr", value, 0.0, 1000.0, &args->limits.minPsnr, args))
			{
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--min-ssim", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsCompareDoubleLimit("--min-ssim", value, -1.0, 1.0, &args->limits.minSsim, args))
			{
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--max-mae", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 || !bsCompareDoubleLimit("--max-mae", value, 0.0, 255.0, &args->limits.maxMae, args))
			{
				return bs_exitUsage;
			}
		}
		else if ((m = bsMatchOption(cmd, "--max-fraction", argc, argv, &i, &value)) != 0)
		{
			if (m < 0 ||
				!bsCompareDoubleLimit("--max-fraction", value, 0.0, 1.0, &args->limits.maxFraction, args))
			{
				return bs_exitUsage;
			}
		}
		else if (a[0] == '-' && a[1] != '\0')
		{
			bsUsageError(cmd, "unknown option", a);
			return bs_exitUsage;
		}
		else if (args->fileCount == 2)
		{
			bsUsageError(cmd, "two images only; extra argument", a);
			return bs_exitUsage;
		}
		else
		{
			args->files[args->fileCount++] = a;
			++i;
		}
	}
	if (args->fileCount < 2)
	{
		bsUsageError(cmd, "needs two images, A.png and B.png", NULL);
		return bs_exitUsage;
	}
	return -1;
}

static void bsPrintCompareText(const bsCompareArgs* args, const bsImageMetrics* m, unsigned failed)
{
	printf("%s vs %s (%dx%d)\n", args->files[0], args->files[1], m->width, m->height);
	if (m->identical)
	{
		printf("psnr       inf (identical)\n");
	}
	else
	{
		printf("psnr       %.4f dB\n", m->psnr);
	}
	if (isnan(m->ssim))
	{
		printf("ssim       n/a (smaller than %dx%d)\n", BS_SSIM_WINDOW, BS_SSIM_WINDOW);
	}
	else
	{
		printf("ssim       %.6f\n", m->ssim);
	}
	printf("mae        %.6f\n", m->mae);
	printf("max_diff   %d\n", m->maxDiff);
	printf("over       %lld of %lld pixels (%.6g) differ by more than %d\n", (long long)m->pixelsOver,
		(long long)m->width * m->height, m->fractionOver, m->threshold);
	if (!args->anyLimit)
	{
		return;
	}
	if (failed == 0)
	{
		printf("result     pass\n");
		return;
	}
	for (unsigned bit = 1; bit <= bs_limitMaxFraction; bit <<= 1)
	{
		if (failed & bit)
		{
			char why[256];
			bsCompareLimits_Describe(&args->limits, m, bit, why, sizeof(why));
			printf("result     fail: %s\n", why);
		}
	}
}

// A number, or null when it is not finite (JSON has no inf or NaN).
static void bsAddNumberOrNull(cJSON* o, const char* name, double v)
{
	if (isfinite(v))
	{
		cJSON_AddNumberToObject(o, name, v);
	}
	else
	{
		cJSON_AddNullToObject(o, name);
	}
}

static bool bsPrintCompareJson(const bsCompareArgs* args, const bsImageMetrics* m, unsigned failed)
{
	cJSON* o = cJSON_CreateObject();
	cJSON* failures = cJSON_CreateArray();
	bool ok = o != NULL && failures != NULL;
	if (ok)
	{
		cJSON_AddStringToObject(o, "a", args->files[0]);
		cJSON_AddStringToObject(o, "b", args->files[1]);
		cJSON_AddNumberToObject(o, "width", m->width);
		cJSON_AddNumberToObject(o, "height", m->height);
		cJSON_AddBoolToObject(o, "identical", m->identical);
		bsAddNumberOrNull(o, "psnr", m->psnr);
		bsAddNumberOrNull(o, "ssim", m->ssim);
		cJSON_AddNumberToObject(o, "mse", m->mse);
		cJSON_AddNumberToObject(o, "mae", m->mae);
		cJSON_AddNumberToObject(o, "max_diff", m->maxDiff);
		cJSON_AddNumberToObject(o, "threshold", m->threshold);
		cJSON_AddNumberToObject(o, "pixels_over", (double)m->pixelsOver);
		cJSON_AddNumberToObject(o, "fraction_over", m->fractionOver);
		if (args->heatmap != NULL)
		{
			cJSON_AddStringToObject(o, "heatmap", args->heatmap);
		}
		else
		{
			cJSON_AddNullToObject(o, "heatmap");
		}
		cJSON_AddBoolToObject(o, "pass", failed == 0);
		for (unsigned bit = 1; bit <= bs_limitMaxFraction; bit <<= 1)
		{
			if (failed & bit)
			{
				char why[256];
				bsCompareLimits_Describe(&args->limits, m, bit, why, sizeof(why));
				cJSON_AddItemToArray(failures, cJSON_CreateString(why));
			}
		}
		cJSON_AddItemToObject(o, "failures", failures);
		failures = NULL;
	}
	char* text = ok ? cJSON_PrintUnformatted(o) : NULL;
	if (text != NULL)
	{
		printf("%s\n", text);
		free(text);
	}
	cJSON_Delete(o);
	cJSON_Delete(failures);
	return text != NULL;
}

int bsCompareMain(int argc, char** argv)
{
	bsCompareArgs args;
	int status = bsParseCompareArgs(argc, argv, &args);
	if (status >= 0)
	{
		return status;
	}
	char err[BS_COMPARE_ERR_MAX];
	bsImage a = {0}, b = {0}, heat = {0};
	bsImageMetrics metrics;
	bsCompareOptions options = {.threshold = args.threshold, .nameA = args.files[0], .nameB = args.files[1]};
	bool ok = bsImage_LoadPng(args.files[0], &a, err, sizeof(err)) &&
		bsImage_LoadPng(args.files[1], &b, err, sizeof(err)) &&
		bsCompareImages(&a, &b, &options, &metrics, args.heatmap != NULL ? &heat : NULL, err, sizeof(err)) &&
		(args.heatmap == NULL || bsImage_SavePng(args.heatmap, &heat, err, sizeof(err)));
	bsImage_Free(&a);
	bsImage_Free(&b);
	bsImage_Free(&heat);
	if (!ok)
	{
		fprintf(stderr, "blobsim: %s\n", err);
		return bs_exitCompareError;
	}
	unsigned failed = bsCompareLimits_Check(&args.limits, &metrics);
	if (args.json)
	{
		if (!bsPrintCompareJson(&args, &metrics, failed))
		{
			fprintf(stderr, "blobsim: compare: out of memory\n");
			return bs_exitCompareError;
		}
	}
	else
	{
		bsPrintCompareText(&args, &metrics, failed);
	}
	return failed != 0 ? bs_exitCompareFail : bs_exitOk;
}
