// render_progress.c — POV-Ray's progress reports, and the progress line of one or several renders.
#include "render_progress.h"

#include "blobsim/base.h"

#include <stdio.h>
#include <string.h>

// ---- The parser ----

void bsRenderParser_Init(bsRenderParser* p)
{
	memset(p, 0, sizeof(*p));
}

// Reads the digits at line[*i] as a count (at most 18 digits, so no overflow). False when there are
// none or too many.
static bool bsReadCount(const char* line, size_t n, size_t* i, uint64_t* out)
{
	uint64_t v = 0;
	size_t start = *i;
	while (*i < n && line[*i] >= '0' && line[*i] <= '9')
	{
		if (*i - start >= 18)
		{
			return false;
		}
		v = 10 * v + (uint64_t)(line[*i] - '0');
		++*i;
	}
	*out = v;
	return *i > start;
}

// True, past it, when line[*i..] starts with word.
static bool bsSkipWord(const char* line, size_t n, size_t* i, const char* word)
{
	size_t len = strlen(word);
	if (n - *i < len || memcmp(line + *i, word, len) != 0)
	{
		return false;
	}
	*i += len;
	return true;
}

static void bsSkipSpaces(const char* line, size_t n, size_t* i)
{
	while (*i < n && line[*i] == ' ')
	{
		++*i;
	}
}

bool bsRenderParser_ParseLine(const char* line, size_t n, uint64_t* done, uint64_t* total)
{
	size_t i = 0;
	bsSkipSpaces(line, n, &i);
	if (!bsSkipWord(line, n, &i, "Rendered ") && !bsSkipWord(line, n, &i, "Rendering line "))
	{
		return false;
	}
	uint64_t a, b;
	bsSkipSpaces(line, n, &i);
	if (!bsReadCount(line, n, &i, &a))
	{
		return false;
	}
	bsSkipSpaces(line, n, &i);
	if (!bsSkipWord(line, n, &i, "of "))
	{
		return false;
	}
	bsSkipSpaces(line, n, &i);
	if (!bsReadCount(line, n, &i, &b) || b == 0 || a > b)
	{
		return false;
	}
	*done = a;
	*total = b;
	return true;
}

// The line in the buffer is complete: read it and start the next.
static bool bsRenderParser_EndLine(bsRenderParser* p)
{
	bool changed = false;
	uint64_t done, total;
	if (!p->overlong && bsRenderParser_ParseLine(p->line, p->used, &done, &total))
	{
		changed = p->reports == 0 || done != p->done || total != p->total;
		p->done = done;
		p->total = total;
		p->reports += 1;
	}
	p->used = 0;
	p->overlong = false;
	return changed;
}

bool bsRenderParser_Feed(bsRenderParser* p, const char* data, size_t n)
{
	bool changed = false;
	for (size_t k = 0; k < n; ++k)
	{
		char c = data[k];
		if (c == '\r' || c == '\n')
		{
			changed |= bsRenderParser_EndLine(p);
		}
		else if (p->used < sizeof(p->line))
		{
			p->line[p->used++] = c;
		}
		else
		{
			p->overlong = true;
		}
	}
	return changed;
}

double bsRenderParser_Fraction(const bsRenderParser* p)
{
	return p->total > 0 ? (double)p->done / (double)p->total : 0.0;
}

// ---- The meter ----

void bsRenderMeter_Begin(bsRenderMeter* m, bsRenderMeterMode mode, int frames)
{
	memset(m, 0, sizeof(*m));
	m->mode = mode;
	m->frames = frames > 0 ? frames : 1;
	m->start = bsNow();
	for (int k = 0; k < bs_renderMeterSlots; ++k)
	{
		m->fractions[k] = -1.0;
	}
	pthread_mutex_init(&m->lock, NULL);
}

double bsRenderMeter_Fraction(const bsRenderMeter* m, double now, double* etaSeconds)
{
	double work = (double)m->done;
	for (int k = 0; k < bs_renderMeterSlots; ++k)
	{
		work += m->fractions[k] > 0.0 ? m->fractions[k] : 0.0;
	}
	double fraction = work / (double)m->frames;
	fraction = fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
	double elapsed = now - m->start;
	// The rate of work so far, parse times included: a frame's parse shows as 0 %, so the first
	// estimate comes once a frame has rendered a little.
	*etaSeconds = fraction > 0.005 && elapsed > 0.0 ? elapsed * (1.0 - fraction) / fraction : -1.0;
	return fraction;
}

void bsFormatDuration(char* out, size_t size, double seconds)
{
	long s = (long)(seconds + 0.5);
	if (s < 60)
	{
		snprintf(out, size, "%ld s", s);
	}
	else if (s < 3600)
	{
		snprintf(out, size, "%ld min %02ld s", s / 60, s % 60);
	}
	else
	{
		snprintf(out, size, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
	}
}

// Prints the line for the meter's mode when it is time (final: always). Under the lock.
static void bsRenderMeter_Print(bsRenderMeter* m, bool final)
{
	double now = bsNow();
	double every = m->mode == bs_renderMeterTerminal ? 0.1 : 0.25;
	if (m->mode == bs_renderMeterNone || (!final && now - m->last < every))
	{
		return;
	}
	m->last = now;
	double eta;
	double fraction = bsRenderMeter_Fraction(m, now, &eta);
	if (m->mode == bs_renderMeterLines)
	{
		fprintf(stderr, "blobsim-progress render %.4f\n", fraction);
		fflush(stderr);
		return;
	}
	char text[128], etaText[48] = "";
	if (eta >= 0.0 && !final)
	{
		char d[32];
		bsFormatDuration(d, sizeof(d), eta);
		snprintf(etaText, sizeof(etaText), ", ETA %s", d);
	}
	int running = 0;
	double current = 0.0;
	for (int k = 0; k < bs_renderMeterSlots; ++k)
	{
		if (m->fractions[k] >= 0.0)
		{
			running += 1;
			current = m->fractions[k];
		}
	}
	if (m->frames == 1)
	{
		snprintf(text, sizeof(text), "render: %3.0f%%%s", 100.0 * fraction, etaText);
	}
	else if (running == 1)
	{
		snprintf(text, sizeof(text), "render: %d/%d frames done, frame %d at %3.0f%%%s", m->done, m->frames,
			m->done + 1, 100.0 * current, etaText);
	}
	else
	{
		snprintf(text, sizeof(text), "render: %d/%d frames done, %d rendering, %3.0f%% in all%s", m->done, m->frames,
			running, 100.0 * fraction, etaText);
	}
	// Padded: a shorter line must cover the previous one.
	fprintf(stderr, "\r%-72s", text);
	m->printed = true;
	fflush(stderr);
}

void bsRenderMeter_Update(bsRenderMeter* m, int slot, double fraction)
{
	if (slot < 0 || slot >= bs_renderMeterSlots)
	{
		return;
	}
	pthread_mutex_lock(&m->lock);
	m->fractions[slot] = fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
	bsRenderMeter_Print(m, false);
	pthread_mutex_unlock(&m->lock);
}

void bsRenderMeter_FrameDone(bsRenderMeter* m, int slot)
{
	pthread_mutex_lock(&m->lock);
	if (slot >= 0 && slot < bs_renderMeterSlots)
	{
		m->fractions[slot] = -1.0;
	}
	m->done += m->done < m->frames;
	bsRenderMeter_Print(m, false);
	pthread_mutex_unlock(&m->lock);
}

void bsRenderMeter_End(bsRenderMeter* m)
{
	pthread_mutex_lock(&m->lock);
	if (m->printed)
	{
		bsRenderMeter_Print(m, true);
		fputc('\n', stderr);
		fflush(stderr);
	}
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_destroy(&m->lock);
}

double bsQueueEta(const bsQueueRun* runs, int count, double meanSeconds, int toGo, int jobs, double now)
{
	double work = 0.0, longest = 0.0, projected = 0.0;
	int projections = 0;
	for (int k = 0; k < count; ++k)
	{
		const bsQueueRun* r = runs + k;
		double left;
		if (r->fraction >= 0.02)
		{
			double rendering = now - r->renderStart;
			left = rendering * (1.0 - r->fraction) / r->fraction;
			projected += now - r->start + left;
			projections += 1;
		}
		else if (meanSeconds > 0.0)
		{
			left = meanSeconds - (now - r->start);
			left = left > 0.0 ? left : 0.0;
		}
		else
		{
			return -1.0;
		}
		work += left;
		longest = left > longest ? left : longest;
	}
	if (toGo > 0)
	{
		double each = meanSeconds > 0.0 ? meanSeconds : projections > 0 ? projected / projections : -1.0;
		if (each < 0.0)
		{
			return -1.0;
		}
		work += each * toGo;
	}
	double spread = work / (jobs > 0 ? jobs : 1);
	return spread > longest ? spread : longest;
}

bool bsRenderProgress_ParseChildLine(const char* line, size_t n, double* fraction)
{
	static const char prefix[] = "blobsim-progress render ";
	size_t len = sizeof(prefix) - 1;
	if (n < len + 1 || memcmp(line, prefix, len) != 0)
	{
		return false;
	}
	// "0.4213" or "1.0000": a digit, optionally a point and up to 9 digits.
	size_t i = len;
	double v = 0.0, scale = 1.0;
	if (line[i] < '0' || line[i] > '9')
	{
		return false;
	}
	v = line[i++] - '0';
	if (i < n && line[i] == '.')
	{
		++i;
		for (int d = 0; i < n && d < 9 && line[i] >= '0' && line[i] <= '9'; ++d, ++i)
		{
			scale /= 10.0;
			v += scale * (line[i] - '0');
		}
	}
	if (i < n && line[i] != '\n' && line[i] != '\r')
	{
		return false;
	}
	*fraction = v > 1.0 ? 1.0 : v;
	return true;
}
