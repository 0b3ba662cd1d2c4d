#include "surface_file.h"

#include "atomic_file.h"
#include "pov_writer.h"

#include "blobsim/version.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char* const bsDefaultSurfaceMaterial = "pigment { color rgb <0.8,0.8,0.8> } finish { diffuse 0.7 }";

bsSurfaceFileDef bsDefaultSurfaceFileDef(void)
{
	bsSurfaceFileDef d;
	memset(&d, 0, sizeof(d));
	d.positionDecimals = 6;
	d.normalDecimals = 3;
	return d;
}

int bsSurfaceFile_Decimals(double spacing, double fraction)
{
	double step = spacing * fraction;
	for (int d = 0; d < 9; ++d)
	{
		if (pow(10.0, -d) <= step)
		{
			return d;
		}
	}
	return 9;
}

static const uint64_t bsPow10u[10] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
	1000000000u};

size_t bsSurfaceFile_FormatFixed(char* out, double x, int decimals, bool leadingZero)
{
	// |x| is below 2^19 spacings (surface.h) and decimals <= 9: the scaled value fits in 53 bits for any
	// sensible scene; beyond that fall back to %.9g.
	double scaled = x * (double)bsPow10u[decimals];
	if (!(fabs(scaled) < 9.0e15))
	{
		return (size_t)snprintf(out, 32, "%.9g", x);
	}
	int64_t v = (int64_t)llround(scaled);
	char* p = out;
	if (v < 0)
	{
		*p++ = '-';
		v = -v;
	}
	uint64_t whole = (uint64_t)v / bsPow10u[decimals], frac = (uint64_t)v % bsPow10u[decimals];
	if (whole != 0 || frac == 0 || leadingZero)
	{
		char tmp[24];
		int n = 0;
		do
		{
			tmp[n++] = (char)('0' + whole % 10u);
			whole /= 10u;
		} while (whole != 0);
		while (n > 0)
		{
			*p++ = tmp[--n];
		}
	}
	if (frac != 0)
	{
		int d = decimals;
		while (frac % 10u == 0)
		{
			frac /= 10u;
			--d;
		}
		*p++ = '.';
		for (int i = d - 1; i >= 0; --i)
		{
			p[i] = (char)('0' + frac % 10u);
			frac /= 10u;
		}
		p += d;
	}
	if (p == out + 1 && out[0] == '-')
	{
		p = out;  // "-0"
		*p++ = '0';
	}
	*p = '\0';
	return (size_t)(p - out);
}

// POV-Ray's "<x,y,z>" without leading zeros, or OBJ's "x y z" with them (pov false).
static char* bsPutFixedVector(char* p, bsVec3 v, int decimals, bool pov)
{
	char open = pov ? '<' : 0, sep = pov ? ',' : ' ', close = pov ? '>' : 0;
	if (open != 0)
	{
		*p++ = open;
	}
	p += bsSurfaceFile_FormatFixed(p, v.x, decimals, !pov);
	*p++ = sep;
	p += bsSurfaceFile_FormatFixed(p, v.y, decimals, !pov);
	*p++ = sep;
	p += bsSurfaceFile_FormatFixed(p, v.z, decimals, !pov);
	if (close != 0)
	{
		*p++ = close;
	}
	return p;
}

enum
{
	bsLineMax = 3 * 32 + 32,
	bsLinesPerReserve = 256,
};

// The vectors, one per line: prefix, then the vector (POV-Ray "<x,y,z>" or OBJ "x y z"), then ",".
static void bsPutVectors(bsAtomicFile* f, const bsVec3* v, size_t n, int decimals, const char* prefix, bool pov)
{
	size_t lp = strlen(prefix);
	for (size_t i = 0; i < n;)
	{
		size_t m = n - i < bsLinesPerReserve ? n - i : bsLinesPerReserve;
		char* out = bsAtomicFile_Reserve(f, m * (bsLineMax + lp));
		if (out == NULL)
		{
			return;
		}
		char* q = out;
		for (size_t k = 0; k < m; ++k, ++i)
		{
			memcpy(q, prefix, lp);
			q += lp;
			q = bsPutFixedVector(q, v[i], decimals, pov);
			if (pov && i + 1 < n)
			{
				*q++ = ',';
			}
			*q++ = '\n';
		}
		bsAtomicFile_Advance(f, (size_t)(q - out));
	}
}

static bool bsCheckDef(const bsSurfaceFileDef* def, char* errbuf, size_t errlen, const char* path)
{
	if (def == NULL || def->mesh == NULL || def->positionDecimals < 0 || def->positionDecimals > 9 ||
		def->normalDecimals < 1 || def->normalDecimals > 9)
	{
		snprintf(errbuf, errlen, "%s: invalid surface file settings", path != NULL ? path : "(null)");
		return false;
	}
	return true;
}

// Checks the settings, opens path and writes the header comment line.
static bool bsOpenSurfaceFile(bsAtomicFile* f, const char* path, const bsSurfaceFileDef* def, const char* comment,
	char* errbuf, size_t errlen)
{
	if (!bsCheckDef(def, errbuf, errlen, path) || !bsAtomicFile_Open(f, path, errbuf, errlen))
	{
		return false;
	}
	const bsSurfaceMesh* m = def->mesh;
	bsAtomicFile_Printf(f, "%s blobsim %s particle surface: %zu triangles, %zu vertices%s%s\n", comment,
		BLOBSIM_VERSION, m->triangleCount, m->vertexCount, def->comment != NULL ? "; " : "",
		def->comment != NULL ? def->comment : "");
	return true;
}

// The vertex colours' texture_list: the declared material with each colour's pigment.
static void bsPutPalette(bsAtomicFile* f, const bsSurfaceFileDef* def)
{
	bsAtomicFile_Printf(f, "texture_list\n{\n%u", def->paletteCount);
	for (uint32_t k = 0; k < def->paletteCount; ++k)
	{
		const float* c = def->palette + 4 * (size_t)k;
		double parts[4] = {c[0], c[1], c[2], 1.0 - (double)c[3]};
		char num[4][bs_povNumberMax];
		for (int i = 0; i < 4; ++i)
		{
			bsPov_FormatDouble(num[i], round(parts[i] * 1e6) / 1e6);  // to 6 decimals, as the blobs' colours
		}
		bsAtomicFile_Printf(f, ",\ntexture { BlobsimSurfaceTexture pigment { rgbt <%s, %s, %s, %s> } }", num[0],
			num[1], num[2], num[3]);
	}
	bsAtomicFile_Printf(f, "\n}\n");
}

bool bsSurfaceFile_WritePov(const char* path, const bsSurfaceFileDef* def, char* errbuf, size_t errlen)
{
	bsAtomicFile f;
	if (!bsOpenSurfaceFile(&f, path, def, "//", errbuf, errlen))
	{
		return false;
	}
	const bsSurfaceMesh* m = def->mesh;
	if (m->triangleCount == 0)
	{
		return bsAtomicFile_Commit(&f, 0);
	}
	const char* material = def->material != NULL ? def->material : bsDefaultSurfaceMaterial;
	bool colored = def->palette != NULL;
	if (colored)
	{
		bsAtomicFile_Printf(&f, "#declare BlobsimSurfaceTexture = texture { %s }\n", material);
	}
	bsAtomicFile_Printf(&f, "mesh2\n{\nvertex_vectors\n{\n%zu,\n", m->vertexCount);
	bsPutVectors(&f, m->positions, m->vertexCount, def->positionDecimals, "", true);
	bsAtomicFile_Printf(&f, "}\nnormal_vectors\n{\n%zu,\n", m->vertexCount);
	bsPutVectors(&f, m->normals, m->vertexCount, def->normalDecimals, "", true);
	bsAtomicFile_Printf(&f, "}\n");
	if (colored)
	{
		bsPutPalette(&f, def);
	}
	bsAtomicFile_Printf(&f, "face_indices\n{\n%zu,\n", m->triangleCount);
	for (size_t t = 0; t < m->triangleCount;)
	{
		size_t n = m->triangleCount - t < bsLinesPerReserve ? m->triangleCount - t : bsLinesPerReserve;
		char* out = bsAtomicFile_Reserve(&f, n * 80);
		if (out == NULL)
		{
			break;
		}
		char* q = out;
		for (size_t k = 0; k < n; ++k, ++t)
		{
			const uint32_t* i = m->indices + 3 * t;
			*q++ = '<';
			q = bsPov_PutUnsigned(q, i[0]);
			*q++ = ',';
			q = bsPov_PutUnsigned(q, i[1]);
			*q++ = ',';
			q = bsPov_PutUnsigned(q, i[2]);
			*q++ = '>';
			for (int c = 0; colored && c < 3; ++c)
			{
				*q++ = ',';
				q = bsPov_PutUnsigned(q, def->vertexColor[i[c]]);
			}
			if (t + 1 < m->triangleCount)
			{
				*q++ = ',';
			}
			*q++ = '\n';
		}
		bsAtomicFile_Advance(&f, (size_t)(q - out));
	}
	bsAtomicFile_Printf(&f, colored ? "}\n}\n" : "}\ntexture { %s }\n}\n", material);
	return bsAtomicFile_Commit(&f, 0);
}

bool bsSurfaceFile_WriteObj(const char* path, const bsSurfaceFileDef* def, char* errbuf, size_t errlen)
{
	bsAtomicFile f;
	if (!bsOpenSurfaceFile(&f, path, def, "#", errbuf, errlen))
	{
		return false;
	}
	const bsSurfaceMesh* m = def->mesh;
	bsPutVectors(&f, m->positions, m->vertexCount, def->positionDecimals, "v ", false);
	bsPutVectors(&f, m->normals, m->vertexCount, def->normalDecimals, "vn ", false);
	for (size_t t = 0; t < m->triangleCount;)
	{
		size_t n = m->triangleCount - t < bsLinesPerReserve ? m->triangleCount - t : bsLinesPerReserve;
		char* out = bsAtomicFile_Reserve(&f, n * 80);
		if (out == NULL)
		{
			break;
		}
		char* q = out;
		for (size_t k = 0; k < n; ++k, ++t)
		{
			*q++ = 'f';
			for (int j = 0; j < 3; ++j)
			{
				uint64_t i = (uint64_t)m->indices[3 * t + (size_t)j] + 1u;
				*q++ = ' ';
				q = bsPov_PutUnsigned(q, i);
				*q++ = '/';
				*q++ = '/';
				q = bsPov_PutUnsigned(q, i);
			}
			*q++ = '\n';
		}
		bsAtomicFile_Advance(&f, (size_t)(q - out));
	}
	return bsAtomicFile_Commit(&f, 0);
}
