// pov_gas.c — render.gas: the particles as a density grid of POV-Ray media (pov_writer.h, bsPovGas).
//
// Why a grid: one media sphere per puff crashed POV-Ray 3.7.0 where hundreds of the explosion's 800
// puffs overlap, and one container holding 800 media stops at "an internal nesting limit"; one container whose density function sums every puff
// evaluates 800 terms a sample (93 s for 160x120 on one core), and boxes of a coarse grid each summing
// the puffs that reach them were slower still (140 s). A df3 density file read by one box, trilinearly
// interpolated, traces the same frame in 0.2 s.
#include "atomic_file.h"
#include "pov_writer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A coefficient: finite and >= 0.
static bool bsGas_IsCoefficient(double x)
{
	return x >= 0.0 && isfinite(x);
}

const char* bsPovGas_Check(const bsPovGas* gas, char* out, size_t size)
{
	if (!bsIsValidVec3(gas->color) || !bsGas_IsCoefficient(gas->emission) || !bsGas_IsCoefficient(gas->absorption) ||
		!bsGas_IsCoefficient(gas->scattering) || gas->samples < 1 || gas->samples > 100 ||
		!bsGas_IsCoefficient(gas->peak) || !bsIsValidVec3(gas->lo) || !bsIsValidVec3(gas->hi))
	{
		snprintf(out, size, "gas: a non-finite colour, box or coefficient, a negative one, or samples %d not in 1..100",
			gas->samples);
		return out;
	}
	for (const char* c = gas->file; *c != '\0'; ++c)
	{
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\')
		{
			snprintf(out, size, "gas: the density file's name holds a control character, '\"' or '\\'");
			return out;
		}
	}
	return NULL;
}

static double bsGas_Radius(const bsPovParticles* ps, size_t i)
{
	return ps->radii != NULL ? ps->radii[i] : ps->radius;
}

// The cells [from, to) along one axis whose centres lie within r of c.
static void bsGas_Span(double c, double r, double lo, double cell, int n, int* from, int* to)
{
	double a = ceil((c - r - lo) / cell - 0.5), b = floor((c + r - lo) / cell - 0.5) + 1.0;
	*from = a < 0.0 ? 0 : a > n ? n : (int)a;
	*to = b < 0.0 ? 0 : b > n ? n : (int)b;
}

// Adds puff i to the grid: d (1 - |x - c| / r) at every cell centre x within r of its centre c.
static void bsGas_Splat(bsGasGrid* g, const bsPovParticles* ps, const double* densities, size_t i)
{
	bsVec3 c = ps->centers[i];
	double r = bsGas_Radius(ps, i), d = densities[i];
	int x0, x1, y0, y1, z0, z1;
	bsGas_Span(c.x, r, g->lo.x, g->cell, g->n[0], &x0, &x1);
	bsGas_Span(c.y, r, g->lo.y, g->cell, g->n[1], &y0, &y1);
	bsGas_Span(c.z, r, g->lo.z, g->cell, g->n[2], &z0, &z1);
	for (int z = z0; z < z1; ++z)
	{
		double dz = g->lo.z + (z + 0.5) * g->cell - c.z;
		for (int y = y0; y < y1; ++y)
		{
			double dy = g->lo.y + (y + 0.5) * g->cell - c.y;
			double* row = g->values + ((size_t)z * (size_t)g->n[1] + (size_t)y) * (size_t)g->n[0];
			for (int x = x0; x < x1; ++x)
			{
				double dx = g->lo.x + (x + 0.5) * g->cell - c.x;
				double t = 1.0 - sqrt(dx * dx + dy * dy + dz * dz) / r;
				if (t > 0.0)
				{
					row[x] += d * t;
				}
			}
		}
	}
}

bool bsGasGrid_Build(bsGasGrid* g, const bsPovParticles* ps, const double* densities, int resolution)
{
	memset(g, 0, sizeof *g);
	if (ps->count == 0)
	{
		return true;
	}
	bsVec3 lo = ps->centers[0], hi = ps->centers[0];
	for (size_t i = 0; i < ps->count; ++i)
	{
		double r = bsGas_Radius(ps, i);
		lo = bsMin(lo, bsSub(ps->centers[i], bsV3(r, r, r)));
		hi = bsMax(hi, bsAdd(ps->centers[i], bsV3(r, r, r)));
	}
	bsVec3 size = bsSub(hi, lo);
	g->cell = fmax(fmax(size.x, size.y), size.z) / resolution;
	double extent[3] = {size.x, size.y, size.z};
	for (int a = 0; a < 3; ++a)
	{
		int n = (int)ceil(extent[a] / g->cell - 1e-9);
		g->n[a] = n < 1 ? 1 : n > resolution ? resolution : n;
	}
	g->lo = lo;
	g->hi = bsAdd(lo, bsV3(g->n[0] * g->cell, g->n[1] * g->cell, g->n[2] * g->cell));
	size_t cells = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
	g->values = calloc(cells, sizeof(double));
	if (g->values == NULL)
	{
		return false;
	}
	for (size_t i = 0; i < ps->count; ++i)
	{
		bsGas_Splat(g, ps, densities, i);
	}
	for (size_t c = 0; c < cells; ++c)
	{
		g->peak = fmax(g->peak, g->values[c]);
	}
	return true;
}

void bsGasGrid_Free(bsGasGrid* g)
{
	free(g->values);
	memset(g, 0, sizeof *g);
}

uint8_t* bsGasGrid_Df3(const bsGasGrid* g, size_t* size)
{
	size_t cells = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
	*size = 6 + 2 * cells;
	uint8_t* out = malloc(*size);
	if (out == NULL)
	{
		return NULL;
	}
	for (int a = 0; a < 3; ++a)
	{
		out[2 * a] = (uint8_t)(g->n[a] >> 8);
		out[2 * a + 1] = (uint8_t)(g->n[a] & 0xff);
	}
	for (size_t c = 0; c < cells; ++c)
	{
		double v = g->peak > 0.0 ? g->values[c] / g->peak * 65535.0 : 0.0;
		unsigned q = (unsigned)lround(fmin(fmax(v, 0.0), 65535.0));
		out[6 + 2 * c] = (uint8_t)(q >> 8);
		out[7 + 2 * c] = (uint8_t)(q & 0xff);
	}
	return out;
}

void bsPov_WriteGas(bsAtomicFile* f, const bsPovParticles* ps, double step)
{
	const bsPovGas* gas = &ps->gas;
	char n[12][bs_povNumberMax];
	bsPov_FormatDouble(n[0], gas->peak * gas->color.x * gas->emission);
	bsPov_FormatDouble(n[1], gas->peak * gas->color.y * gas->emission);
	bsPov_FormatDouble(n[2], gas->peak * gas->color.z * gas->emission);
	bsPov_FormatDouble(n[3], gas->peak * gas->absorption);
	bsPov_FormatDouble(n[4], gas->peak * gas->scattering);
	bsPov_FormatDouble(n[5], gas->peak);
	bsPov_FormatDoubleWithin(n[6], gas->lo.x, step);
	bsPov_FormatDoubleWithin(n[7], gas->lo.y, step);
	bsPov_FormatDoubleWithin(n[8], gas->lo.z, step);
	bsPov_FormatDouble(n[9], gas->hi.x - gas->lo.x);
	bsPov_FormatDouble(n[10], gas->hi.y - gas->lo.y);
	bsPov_FormatDouble(n[11], gas->hi.z - gas->lo.z);
	bsAtomicFile_Printf(f,
		"\n// the particles as gas: their density grid, %s at its densest (1 in the file)\n"
		"#declare BlobsimGasPeak = %s;\n"
		"box\n{\n\t0, 1 hollow no_shadow\n"
		"\ttexture { pigment { rgbt 1 } finish { ambient 0 diffuse 0 } }\n"
		"\tinterior\n\t{\n\t\tmedia\n\t\t{\n"
		"\t\t\tmethod 3 intervals 1 samples %d\n"
		"\t\t\temission rgb <%s, %s, %s>\n"
		"\t\t\tabsorption %s\n",
		n[5], n[5], gas->samples, n[0], n[1], n[2], n[3]);
	if (gas->scattering > 0.0)
	{
		bsAtomicFile_Printf(f, "\t\t\tscattering { 1, %s }\n", n[4]);
	}
	bsAtomicFile_Printf(f,
		"\t\t\tdensity { density_file df3 \"%s\" interpolate 1 }\n"
		"\t\t}\n\t}\n"
		"\tscale <%s, %s, %s>\n\ttranslate <%s, %s, %s>\n}\n",
		gas->file, n[9], n[10], n[11], n[6], n[7], n[8]);
}
