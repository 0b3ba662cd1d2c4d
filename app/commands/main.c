// main.c — the `blobsim` executable: global flags, then one command from the table below.
//
// A command is a function taking its own argc/argv (argv[0] is the command name) and returning an
// exit status: 0 ok, 1 runtime failure, 2 usage error (cli.h). Adding a command is one row in
// bs_commands.
#include "batch.h"
#include "bench.h"
#include "cli.h"
#include "compare.h"
#include "core.h"
#include "grid_command.h"
#include "init_command.h"
#include "regress.h"
#include "render_command.h"
#include "run.h"

#include "blobsim/blobsim.h"

#include <stdio.h>
#include <string.h>

typedef int bsCommandFn(int argc, char** argv);

typedef struct bsCommand
{
	const char* name;
	bsCommandFn* fn;
	const char* summary;  // one line for `blobsim --help`
	int errorStatus;      // its status for a runtime error (e.g. stdout cannot be written)
} bsCommand;

static const bsCommand bs_commands[] = {
	{"run", bsRunMain, "run a simulation config and write the POV-Ray scene, particles and summary",
		bs_exitFailure},
	{"render", bsRenderMain, "render an output folder's scene and frames with POV-Ray (and a movie)",
		bs_exitFailure},
	{"check", bsCheckMain, "validate a config and the files it names without simulating", bs_exitFailure},
	{"batch", bsBatchMain, "run many configs and parameter sweeps, skipping runs that are up to date",
		bs_exitFailure},
	{"init", bsInitMain, "write a first config for an OBJ model: a material on it, gravity, ground, camera",
		bs_exitFailure},
	{"grid", bsGridMain, "build a distance/normal grid file from a mesh or config, or describe one",
		bs_exitFailure},
	{"bench", bsBenchMain, "time the paper's Table 1 tests and the BVH queries", bs_exitFailure},
	// For these two, 1 means "the images differ": a runtime error is 3.
	{"compare", bsCompareMain, "compare two PNG images: PSNR, SSIM, differences, pass/fail limits",
		bs_exitCompareError},
	{"regress", bsRegressMain, "run a regression suite: render each case, compare with its reference",
		bs_exitRegressError},
};

enum
{
	bs_commandCount = BS_COUNT(bs_commands)
};

static void bsUsage(FILE* f)
{
	fprintf(f,
		"usage: blobsim <command> [options]\n"
		"       blobsim --help | --version\n"
		"\n"
		"A particle simulator: spheres swept along straight lines against triangle meshes\n"
		"(Karabassi, Papaioannou & Theoharis, JGT 1999).\n"
		"\n"
		"commands:\n");
	for (int i = 0; i < bs_commandCount; ++i)
	{
		fprintf(f, "  %-10s %s\n", bs_commands[i].name, bs_commands[i].summary);
	}
	fprintf(f,
		"  %-10s %s\n"
		"\n"
		"options:\n"
		"  -h, --help   show this help and exit\n"
		"  --version    print the version and exit\n"
		"\n"
		"Run 'blobsim <command> --help' for the options of a command.\n"
		"\n"
		"exit status:\n"
		"  0  success\n"
		"  1  runtime failure (cannot read or write a file, out of memory, invalid data); for compare\n"
		"     and regress: the images differ beyond the limits, or a case failed\n"
		"  2  usage error (unknown command or option, missing or malformed option value)\n"
		"  3  compare and regress: an image, the suite or the report cannot be read or written\n"
		"  130, 143  run and batch: interrupted by SIGINT or SIGTERM\n",
		"help", "show this help, or a command's: blobsim help <command>");
}

static const bsCommand* bsFindCommand(const char* name)
{
	for (int i = 0; i < bs_commandCount; ++i)
	{
		if (strcmp(bs_commands[i].name, name) == 0)
		{
			return bs_commands + i;
		}
	}
	return NULL;
}

int main(int argc, char** argv)
{
	if (argc < 2)
	{
		bsUsage(stderr);
		return bs_exitUsage;
	}
	const char* first = argv[1];
	if (strcmp(first, "--version") == 0)
	{
		if (argc > 2)
		{
			bsUsageError(NULL, "unexpected argument", argv[2]);
			return bs_exitUsage;
		}
		printf("blobsim %s\n", BLOBSIM_VERSION);
		return bs_exitOk;
	}
	if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0)
	{
		// `blobsim help` and `blobsim help help`: help is a command of its own, and this is its help.
		if (argc == 2 || (argc == 3 && strcmp(argv[2], "help") == 0))
		{
			bsUsage(stdout);
			return bs_exitOk;
		}
		// `blobsim help <command>`: the command's own help.
		const bsCommand* c = bsFindCommand(argv[2]);
		if (c == NULL)
		{
			bsUsageError(NULL, "unknown command", argv[2]);
			return bs_exitUsage;
		}
		if (argc > 3)
		{
			bsUsageError(NULL, "unexpected argument", argv[3]);
			return bs_exitUsage;
		}
		char help[] = "--help";
		char* helpArgv[3] = {argv[2], help, NULL};
		return c->fn(2, helpArgv);
	}
	if (first[0] == '-')
	{
		bsUsageError(NULL, "unknown option", first);
		return bs_exitUsage;
	}
	const bsCommand* c = bsFindCommand(first);
	if (c == NULL)
	{
		bsUsageError(NULL, "unknown command", first);
		return bs_exitUsage;
	}
	int status = c->fn(argc - 1, argv + 1);
	if (fflush(stdout) != 0 || ferror(stdout))
	{
		fprintf(stderr, "blobsim: error writing the output\n");
		return c->errorStatus;
	}
	return status;
}
