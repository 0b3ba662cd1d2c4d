// test_render_progress.c — POV-Ray's progress reports (render_progress.h): a captured POV-Ray 3.7
// stderr read in pieces of every size agrees with an independent sscanf reading of the same text;
// garbage, overlong lines and absurd numbers never crash and never give a fraction outside 0..1; the
// meter's fraction and ETA; the lines a child prints for `blobsim batch`.
#include "test.h"

#include "render_progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// `povray +Is.pov +Oo.png +W200 +H150 +A0.3 +FN -D -P +V` (POV-Ray 3.7.0.10, Debian 12), stderr:
// the banner's start, then from the render options to the statistics' start.
static const char bs_povray37Sample[] =
	"povray: cannot open the user configuration file /root/.povray/3.7/povray.conf: No such file"
	" or directory\n"
	"Persistence of Vision(tm) Ray Tracer Version 3.7.0.10.unofficial (g++ @\n"
	" x86_64-pc-linux-gnu)\n"
	"This is an unofficial version compiled by:\n"
	" amd64 / i386 Build Daemon (x86-ubc-01) <buildd_amd64-x86-Render Options\n"
	"  Quality:  9\n"
	"  Bounding boxes.......On   Bounding threshold: 3\n"
	"  Antialiasing.........On  (Method 1, Threshold 0.300, Depth 3, Jitter 1.00,\n"
	" Gamma 2.50)\n"
	"==== [Rendering...] ========================================================\n"
	"Rendered 1024 of 30000 pixels (3%)\r"
	"Rendered 2048 of 30000 pixels (6%)\r"
	"Rendered 3072 of 30000 pixels (10%)\r"
	"Rendered 4096 of 30000 pixels (13%)\r"
	"Rendered 5120 of 30000 pixels (17%)\r"
	"Rendered 6144 of 30000 pixels (20%)\r"
	"Rendered 6400 of 30000 pixels (21%)\r"
	"Rendered 7424 of 30000 pixels (24%)\r"
	"Rendered 8448 of 30000 pixels (28%)\r"
	"Rendered 9472 of 30000 pixels (31%)\r"
	"Rendered 10496 of 30000 pixels (34%)\r"
	"Rendered 11520 of 30000 pixels (38%)\r"
	"Rendered 12544 of 30000 pixels (41%)\r"
	"Rendered 12800 of 30000 pixels (42%)\r"
	"Rendered 13824 of 30000 pixels (46%)\r"
	"Rendered 14848 of 30000 pixels (49%)\r"
	"Rendered 15872 of 30000 pixels (52%)\r"
	"Rendered 16896 of 30000 pixels (56%)\r"
	"Rendered 17920 of 30000 pixels (59%)\r"
	"Rendered 18176 of 30000 pixels (60%)\r"
	"Rendered 19200 of 30000 pixels (64%)\r"
	"Rendered 20224 of 30000 pixels (67%)\r"
	"Rendered 21248 of 30000 pixels (70%)\r"
	"Rendered 22272 of 30000 pixels (74%)\r"
	"Rendered 23296 of 30000 pixels (77%)\r"
	"Rendered 24320 of 30000 pixels (81%)\r"
	"Rendered 24576 of 30000 pixels (81%)\r"
	"Rendered 25280 of 30000 pixels (84%)\r"
	"Rendered 25984 of 30000 pixels (86%)\r"
	"Rendered 26688 of 30000 pixels (88%)\r"
	"Rendered 27392 of 30000 pixels (91%)\r"
	"Rendered 28096 of 30000 pixels (93%)\r"
	"Rendered 28800 of 30000 pixels (96%)\r"
	"Rendered 28976 of 30000 pixels (96%)\r"
	"Rendered 30000 of 30000 pixels (100%)\r"
	"\n"
	"----------------------------------------------------------------------------\n"
	"Render Statistics\n"
	"Image Resolution 200 x 150\n"
	"---------------------------------------------------------------------------"
	;

// The reference: the last segment (between '\r' or '\n') that sscanf reads as "Rendered A of B" with
// 0 < B and A <= B. A separate method from the parser's hand-written scan.
static bool ReferenceLast(const char* text, size_t n, unsigned long long* done, unsigned long long* total)
{
	char* copy = malloc(n + 1);
	memcpy(copy, text, n);
	copy[n] = '\0';
	// A trailing segment without a separator is not complete yet.
	char* end = copy + n;
	while (end > copy && end[-1] != '\r' && end[-1] != '\n')
	{
		--end;
	}
	*end = '\0';
	bool found = false;
	char* save = NULL;
	for (char* s = strtok_r(copy, "\r\n", &save); s != NULL; s = strtok_r(NULL, "\r\n", &save))
	{
		unsigned long long a, b;
		char word[16];
		if (strlen(s) <= bs_renderParserLineMax && sscanf(s, " Rendered %llu of %llu pixel%15s", &a, &b, word) == 3 &&
			b > 0 && a <= b)
		{
			*done = a;
			*total = b;
			found = true;
		}
	}
	free(copy);
	return found;
}

static int SampleTest(void)
{
	size_t n = sizeof(bs_povray37Sample) - 1;
	unsigned long long a, b;
	ENSURE(ReferenceLast(bs_povray37Sample, n, &a, &b));
	ENSURE(a == 30000 && b == 30000);
	// Every prefix, fed in pieces of 1, 7 and 4096 bytes: the parser's last report is the
	// reference's, and the fraction never falls (POV-Ray's reports only grow within one pass).
	int steps[] = {1, 7, 4096};
	for (int s = 0; s < 3; ++s)
	{
		bsRenderParser p;
		bsRenderParser_Init(&p);
		double previous = 0.0;
		int changes = 0;
		for (size_t at = 0; at < n; at += (size_t)steps[s])
		{
			size_t len = n - at < (size_t)steps[s] ? n - at : (size_t)steps[s];
			changes += bsRenderParser_Feed(&p, bs_povray37Sample + at, len);
			double f = bsRenderParser_Fraction(&p);
			ENSURE(f >= previous && f <= 1.0);
			previous = f;
			unsigned long long ra = 0, rb = 0;
			bool found = ReferenceLast(bs_povray37Sample, at + len, &ra, &rb);
			ENSURE(found == (p.reports > 0));
			ENSURE(!found || (p.done == ra && p.total == rb));
		}
		ENSURE(p.done == 30000 && p.total == 30000);
		ENSURE(bsRenderParser_Fraction(&p) == 1.0);
		// The sample holds 35 distinct reports; a piece shorter than a report completes one at most.
		ENSURE(steps[s] > 36 || changes == 35);
	}
	return 0;
}

static int LineTest(void)
{
	uint64_t a, b;
	ENSURE(bsRenderParser_ParseLine("Rendered 5 of 10 pixels (50%)", 29, &a, &b) && a == 5 && b == 10);
	ENSURE(bsRenderParser_ParseLine("  Rendering line 12 of 240", 26, &a, &b) && a == 12 && b == 240);
	const char* bad[] = {"", "Rendered", "Rendered  of 10", "Rendered 5 of", "Rendered 11 of 10 pixels",
		"Rendered 0 of 0 pixels", "rendered 5 of 10", "Rendered -5 of 10", "Rendered 5 off 10",
		"Rendered 1234567890123456789 of 12345678901234567890", "Parsed 5 of 10"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k)
	{
		ENSURE(!bsRenderParser_ParseLine(bad[k], strlen(bad[k]), &a, &b));
	}
	// A report cut by the end of the bytes given is only read once its separator comes.
	bsRenderParser p;
	bsRenderParser_Init(&p);
	ENSURE(!bsRenderParser_Feed(&p, "Rendered 3 of 4", 15));
	ENSURE(p.reports == 0);
	ENSURE(bsRenderParser_Feed(&p, "\r", 1));
	ENSURE_SMALL(bsRenderParser_Fraction(&p) - 0.75, 0.0);
	// The same report again changes nothing; a line longer than the buffer is skipped whole, even
	// when its tail looks like a report.
	ENSURE(!bsRenderParser_Feed(&p, "Rendered 3 of 4\n", 16));
	char longLine[3 * bs_renderParserLineMax];
	memset(longLine, 'x', sizeof(longLine));
	memcpy(longLine + sizeof(longLine) - 20, "Rendered 1 of 4    \r", 20);
	ENSURE(!bsRenderParser_Feed(&p, longLine, sizeof(longLine)));
	ENSURE_SMALL(bsRenderParser_Fraction(&p) - 0.75, 0.0);
	ENSURE(bsRenderParser_Feed(&p, "Rendered 4 of 4 pixels\r", 23));
	ENSURE(bsRenderParser_Fraction(&p) == 1.0);
	return 0;
}

// Random bytes, biased towards the report's own characters, in random pieces: no crash (the
// sanitizer build watches), the fraction always in 0..1, and the parser agrees with the reference.
static int GarbageTest(void)
{
	static const char alphabet[] = "Rendered of pixels line 0123456789\r\n\r\n%()-+ \x01\xff";
	uint64_t state = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 200; ++round)
	{
		char text[2048];
		size_t n = 0;
		while (n < sizeof(text))
		{
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			uint32_t r = (uint32_t)(state >> 33);
			if (r % 5 == 0 && n + 40 < sizeof(text))
			{
				n += (size_t)snprintf(text + n, 40, "Rendered %u of %u pixels\r", r % 1000, (r >> 10) % 1000);
			}
			else
			{
				text[n++] = alphabet[r % (sizeof(alphabet) - 1)];
			}
		}
		bsRenderParser p;
		bsRenderParser_Init(&p);
		size_t at = 0;
		while (at < n)
		{
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			size_t len = 1 + (size_t)(state >> 40) % 300;
			len = len > n - at ? n - at : len;
			bsRenderParser_Feed(&p, text + at, len);
			at += len;
			double f = bsRenderParser_Fraction(&p);
			ENSURE(f >= 0.0 && f <= 1.0);
		}
		unsigned long long ra, rb;
		bool found = ReferenceLast(text, n, &ra, &rb);
		ENSURE(found == (p.reports > 0));
		ENSURE(!found || (p.done == ra && p.total == rb));
	}
	return 0;
}

static int MeterTest(void)
{
	bsRenderMeter m;
	bsRenderMeter_Begin(&m, bs_renderMeterNone, 4);
	double eta;
	ENSURE(bsRenderMeter_Fraction(&m, m.start + 10.0, &eta) == 0.0 && eta < 0.0);
	// Two frames done, two at 50 % each: 3 of 4 frames' work in 30 s, so 10 s to go.
	bsRenderMeter_FrameDone(&m, 0);
	bsRenderMeter_FrameDone(&m, 1);
	bsRenderMeter_Update(&m, 0, 0.5);
	bsRenderMeter_Update(&m, 1, 0.5);
	double f = bsRenderMeter_Fraction(&m, m.start + 30.0, &eta);
	ENSURE_SMALL(f - 0.75, 1e-12);
	ENSURE_SMALL(eta - 10.0, 1e-9);
	// Out-of-range slots and fractions are ignored or clamped.
	bsRenderMeter_Update(&m, -1, 0.9);
	bsRenderMeter_Update(&m, bs_renderMeterSlots, 0.9);
	bsRenderMeter_Update(&m, 1, 7.0);
	ENSURE_SMALL(bsRenderMeter_Fraction(&m, m.start + 30.0, &eta) - 0.875, 1e-12);
	bsRenderMeter_End(&m);

	char text[32];
	bsFormatDuration(text, sizeof(text), 12.4);
	ENSURE(strcmp(text, "12 s") == 0);
	bsFormatDuration(text, sizeof(text), 185.0);
	ENSURE(strcmp(text, "3 min 05 s") == 0);
	bsFormatDuration(text, sizeof(text), 7450.0);
	ENSURE(strcmp(text, "2 h 04 min") == 0);

	double c;
	ENSURE(bsRenderProgress_ParseChildLine("blobsim-progress render 0.4213\n", 31, &c));
	ENSURE_SMALL(c - 0.4213, 1e-12);
	ENSURE(bsRenderProgress_ParseChildLine("blobsim-progress render 1", 25, &c) && c == 1.0);
	ENSURE(!bsRenderProgress_ParseChildLine("blobsim-progress render x", 25, &c));
	ENSURE(!bsRenderProgress_ParseChildLine("blobsim-progress render 0.5 more", 32, &c));
	ENSURE(!bsRenderProgress_ParseChildLine("blobsim: error", 14, &c));
	return 0;
}

// The queue's ETA (batch): a 40 s render in flight is not hidden by short runs that finished before.
static int QueueEtaTest(void)
{
	// Nothing finished, no render report: no estimate.
	bsQueueRun runs[2] = {{.start = 100.0, .renderStart = 0.0, .fraction = -1.0}, {.start = 100.0, .fraction = -1.0}};
	ENSURE(bsQueueEta(runs, 2, 0.0, 3, 2, 110.0) < 0.0);
	// Finished runs took 3 s on average; one in flight renders at 25 % after 10 s of rendering:
	// 30 s left for it, whatever the mean says.
	runs[0] = (bsQueueRun){.start = 100.0, .renderStart = 102.0, .fraction = 0.25};
	double eta = bsQueueEta(runs, 1, 3.0, 0, 2, 112.0);
	ENSURE_SMALL(eta - 30.0, 1e-9);
	// Plus 4 runs to go of 3 s on 2 jobs, and a second run 1 s into a mean of 3 s: the work is
	// 30 + 2 + 12 = 44 s over 2 jobs = 22 s, less than the 30 s render: 30 s.
	runs[1] = (bsQueueRun){.start = 111.0, .fraction = -1.0};
	eta = bsQueueEta(runs, 2, 3.0, 4, 2, 112.0);
	ENSURE_SMALL(eta - 30.0, 1e-9);
	// 40 runs to go: 30 + 2 + 120 = 152 s over 2 jobs.
	eta = bsQueueEta(runs, 2, 3.0, 40, 2, 112.0);
	ENSURE_SMALL(eta - 76.0, 1e-9);
	// Nothing finished yet: the runs to go take the in-flight render's projected duration, 12 + 30 s.
	eta = bsQueueEta(runs, 1, 0.0, 2, 1, 112.0);
	ENSURE_SMALL(eta - (30.0 + 2 * 42.0), 1e-9);
	return 0;
}

int RenderProgressTest(void)
{
	RUN_SUBTEST(QueueEtaTest());
	RUN_SUBTEST(SampleTest());
	RUN_SUBTEST(LineTest());
	RUN_SUBTEST(GarbageTest());
	RUN_SUBTEST(MeterTest());
	return 0;
}
