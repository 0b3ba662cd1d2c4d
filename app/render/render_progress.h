// render_progress.h — how far POV-Ray is, from its own messages, and a progress line for a terminal.
//
// POV-Ray 3.7 writes its progress to stderr as it renders, one report per carriage return:
//     "Rendered 1024 of 120000 pixels (0%)\rRendered 2048 of 120000 pixels (1%)\r..."
// (POV-Ray 3.6 wrote "Rendering line 12 of 240"; both are read). bsRenderParser takes the bytes as
// they come, in pieces of any size, and keeps the last complete report. Anything else (the banner,
// warnings, statistics, binary garbage, a line longer than its buffer) is skipped: Feed never fails.
//
// bsRenderMeter turns the reports of one or several POV-Ray processes (frames rendered at once)
// into a line "render: frame 3/6, 42%, ETA 12 s". It is thread-safe: each render feeds its own
// parser and reports its fraction under its slot.
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum
{
	bs_renderParserLineMax = 128,  // bytes of one report kept; longer ones are skipped
	bs_renderMeterSlots = 64,      // renders in flight at once that the meter follows
};

typedef struct bsRenderParser
{
	char line[bs_renderParserLineMax];
	size_t used;
	bool overlong;       // the current line outgrew the buffer: skipped up to the next separator
	uint64_t done;       // from the last report: pixels (or lines) rendered
	uint64_t total;      // ... of this many; 0 before the first report
	int reports;         // reports read so far
} bsRenderParser;

void bsRenderParser_Init(bsRenderParser* p);

// Reads n bytes of POV-Ray's output. True when they completed a report that changed the fraction.
bool bsRenderParser_Feed(bsRenderParser* p, const char* data, size_t n);

// The fraction rendered (0..1) by the last report; 0 before the first.
double bsRenderParser_Fraction(const bsRenderParser* p);

// Reads one report ("Rendered A of B pixels", "Rendering line A of B", leading spaces allowed,
// anything after B ignored) into *done and *total. False for anything else, also when B is 0 or A > B.
bool bsRenderParser_ParseLine(const char* line, size_t n, uint64_t* done, uint64_t* total);

// ---- The meter ----

typedef enum bsRenderMeterMode
{
	bs_renderMeterNone,      // nothing
	bs_renderMeterTerminal,  // a line on stderr rewritten with '\r' (at most 10 times a second)
	bs_renderMeterLines,     // machine-readable lines on stderr for a parent (`blobsim batch`), at
	                         // most 4 a second: "blobsim-progress render F\n", F the fraction of
	                         // the whole render (all frames) done, 0..1
} bsRenderMeterMode;

typedef struct bsRenderMeter
{
	bsRenderMeterMode mode;
	int frames;                 // frames to render in all
	int done;                   // frames finished
	double start;               // bsNow() at Begin
	double last;                // the last print
	bool printed;               // a terminal line is showing (End ends it)
	double fractions[bs_renderMeterSlots];  // the frame in each slot; < 0: the slot is idle
	pthread_mutex_t lock;
} bsRenderMeter;

// Starts following a render of `frames` frames.
void bsRenderMeter_Begin(bsRenderMeter* m, bsRenderMeterMode mode, int frames);

// The frame in `slot` (0 .. bs_renderMeterSlots-1; one per render running at once) is at fraction.
void bsRenderMeter_Update(bsRenderMeter* m, int slot, double fraction);

// The frame in `slot` has finished (successfully or not): the slot is idle again.
void bsRenderMeter_FrameDone(bsRenderMeter* m, int slot);

// Ends the terminal line (a newline) when one is showing, and frees the lock.
void bsRenderMeter_End(bsRenderMeter* m);

// The whole render's fraction done (finished frames plus the running ones' fractions, over frames),
// and the seconds left at the rate so far (-1 when there is no rate yet). Under the caller's lock or
// from one thread: tests and the printers.
double bsRenderMeter_Fraction(const bsRenderMeter* m, double now, double* etaSeconds);

// "12 s", "3 min 05 s", "2 h 04 min": a duration for a progress line.
void bsFormatDuration(char* out, size_t size, double seconds);

// ---- A queue of runs (`blobsim batch`) ----

// A run in flight: when it started, and its render's progress (its child's progress lines).
typedef struct bsQueueRun
{
	double start;        // bsNow() when it started
	double renderStart;  // bsNow() at its first progress line
	double fraction;     // its render's last fraction; < 0: no progress line yet
} bsQueueRun;

// The seconds a queue has left: each run in flight by its render's own rate once that has reported
// 2 % (else the finished runs' mean duration less its elapsed time), plus toGo runs of the mean
// duration (or, before any finished, of the in-flight runs' projected durations), spread over jobs
// runs at once, and never less than the longest run in flight. -1 when nothing tells yet.
double bsQueueEta(const bsQueueRun* runs, int count, double meanSeconds, int toGo, int jobs, double now);

// The line a parent reads (bs_renderMeterLines): when line is "blobsim-progress render F" (with or
// without the newline), true with F in *fraction (clamped to 0..1).
bool bsRenderProgress_ParseChildLine(const char* line, size_t n, double* fraction);
