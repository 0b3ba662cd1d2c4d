#include "pov_writer.h"

#include "array.h"
#include "atomic_file.h"

#include "blobsim/base.h"
#include "blobsim/surface.h"
#include "blobsim/version.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- Numbers --------------------------------------------------------------------------------------

static const double bsPow10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The C library's "%.*g" with `digits` significant digits, with whatever the locale uses as a
// decimal point turned into '.'.
static size_t bsFormatDigits(char* out, double x, int digits)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*g", digits, x);
	size_t len = 0;
	bool inPoint = false;
	for (int i = 0; i < n && len + 1 < bs_povNumberMax; ++i)
	{
		char ch = tmp[i];
		bool plain = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || ch == '-' || ch == '+';
		if (plain)
		{
			out[len++] = ch;
			inPoint = false;
		}
		else if (!inPoint)
		{
			out[len++] = '.';
			inPoint = true;
		}
	}
	out[len] = '\0';
	return len;
}

static size_t bsFormatSlow(char* out, double x)
{
	return bsFormatDigits(out, x, 9);
}

// x * 10^k: one correctly rounded operation, 10^|k| being exact for |k| <= 22; two for 22 < k <= 44
// (the tiny numbers, such as the 1e-16 of a coordinate that rounding left near zero).
static double bsScale10(double x, int k)
{
	if (k > 22)
	{
		return (x * bsPow10[22]) * bsPow10[k - 22];
	}
	return k >= 0 ? x * bsPow10[k] : x / bsPow10[-k];
}

static const char bsDigitPairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t bsPov_FormatDouble(char* out, double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	int biased = (int)((bits >> 52) & 0x7ffu);
	if (biased == 0x7ff || (biased == 0 && (bits << 1) != 0))
	{
		return bsFormatSlow(out, x);  // inf, nan, subnormal
	}
	char* p = out;
	if ((bits >> 63) != 0)
	{
		*p++ = '-';
	}
	if (biased == 0)
	{
		*p++ = '0';
		*p = '\0';
		return (size_t)(p - out);
	}
	double a = fabs(x);
	// a is in [2^n, 2^(n+1)), so floor(log10(a)) is floor(n log10(2)) or one more. 1292913986 / 2^32 is
	// log10(2) to 1e-10: exact floors for |n| < 1100.
	int n = biased - 1023;
	int64_t t = (int64_t)n * 1292913986;
	int e10 = (int)(t >= 0 ? t >> 32 : -((-t + 0xffffffffll) >> 32));
	if (e10 < -36 || e10 > 29)
	{
		return bsFormatSlow(out, x);
	}
	double m = bsScale10(a, 8 - e10);
	if (m >= 1e9)
	{
		e10 += 1;
		m = bsScale10(a, 8 - e10);
	}
	// m is a * 10^(8 - e10) within half an ulp (< 6e-8 at 1e9), or within two roundings (< 2.3e-7)
	// below 1e-14: rounding it to an integer is the correctly rounded result unless the fraction is
	// within that error of one half (the 1e-6 guard below).
	if (!(m >= 99999999.0 && m < 1e9))
	{
		return bsFormatSlow(out, x);
	}
	uint32_t whole = (uint32_t)m;  // floor: m is positive
	double frac = m - (double)whole;
	if (fabs(frac - 0.5) < 1e-6)
	{
		return bsFormatSlow(out, x);
	}
	uint32_t digits = whole + (frac > 0.5 ? 1u : 0u);
	if (digits < 100000000u)
	{
		return bsFormatSlow(out, x);
	}
	if (digits == 1000000000u)
	{
		digits = 100000000u;
		e10 += 1;
	}
	char d[9];
	for (int i = 7; i >= 1; i -= 2)
	{
		uint32_t r = digits % 100u;
		digits /= 100u;
		d[i] = bsDigitPairs[2 * r];
		d[i + 1] = bsDigitPairs[2 * r + 1];
	}
	d[0] = (char)('0' + digits);
	int nd = 9;
	while (nd > 1 && d[nd - 1] == '0')
	{
		--nd;
	}
	if (e10 >= -4 && e10 < 9)
	{
		if (e10 >= 0)
		{
			memcpy(p, d, (size_t)e10 + 1);
			p += e10 + 1;
			if (nd > e10 + 1)
			{
				*p++ = '.';
				memcpy(p, d + e10 + 1, (size_t)(nd - e10 - 1));
				p += nd - e10 - 1;
			}
		}
		else
		{
			memcpy(p, "0.0000", (size_t)(1 - e10));
			p += 1 - e10;
			memcpy(p, d, (size_t)nd);
			p += nd;
		}
	}
	else
	{
		*p++ = d[0];
		if (nd > 1)
		{
			*p++ = '.';
			memcpy(p, d + 1, (size_t)(nd - 1));
			p += nd - 1;
		}
		*p++ = 'e';
		*p++ = e10 < 0 ? '-' : '+';
		int ae = e10 < 0 ? -e10 : e10;  // at most 30 here
		*p++ = (char)('0' + ae / 10);
		*p++ = (char)('0' + ae % 10);
	}
	*p = '\0';
	return (size_t)(p - out);
}

size_t bsPov_FormatDoubleWithin(char* out, double x, double step)
{
	// d significant digits round x by at most half a unit of the d-th: 0.5 10^(e + 1 - d) with
	// e = floor(log10 |x|), so at most |x| 0.5 10^(1 - d).
	double a = fabs(x);
	if (!(step > 0.0) || !isfinite(x) || a * 5e-9 <= step)
	{
		return bsPov_FormatDouble(out, x);
	}
	int digits = 10;
	while (digits < 17 && a * 0.5 / bsPow10[digits - 1] > step)
	{
		digits += 1;
	}
	return bsFormatDigits(out, x, digits);
}

char* bsPov_PutUnsigned(char* p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
	{
		tmp[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v != 0);
	while (n > 0)
	{
		*p++ = tmp[--n];
	}
	return p;
}

static char* bsPutText(char* p, const char* s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define BS_PUT_LITERAL(P, S) bsPutText((P), (S), sizeof(S) - 1)

// x rounded by at most step (bsPov_FormatDoubleWithin).
static char* bsPutDouble(char* p, double x, double step)
{
	return p + bsPov_FormatDoubleWithin(p, x, step);
}

// "<x,y,z>"
static char* bsPutVector(char* p, bsVec3 v, double step)
{
	*p++ = '<';
	p = bsPutDouble(p, v.x, step);
	*p++ = ',';
	p = bsPutDouble(p, v.y, step);
	*p++ = ',';
	p = bsPutDouble(p, v.z, step);
	*p++ = '>';
	return p;
}

enum
{
	bsVectorMax = 3 * bs_povNumberMax + 4,
};

// ---- Scene pieces ---------------------------------------------------------------------------------

static const char* const bsDefaultMaterial = "pigment { color rgb <0.8,0.8,0.8> } finish { diffuse 0.7 }";

bsPovScene bsPovScene_Default(void)
{
	bsPovScene s;
	memset(&s, 0, sizeof(s));
	s.camera.location = bsV3(0.0, 2.0, -6.0);
	s.camera.lookAt = bsV3(0.0, 0.0, 0.0);
	s.camera.sky = bsV3(0.0, 1.0, 0.0);
	s.camera.angle = 50.0;
	s.camera.width = 640;
	s.camera.height = 480;
	s.assumedGamma = 1.0;
	s.particles.threshold = 0.5;
	s.particles.strength = 1.0;
	s.particles.radiusScale = bsPov_BlobRadiusScale(0.5, 1.0);
	s.particles.maxComponents = bs_povMaxBlobComponents;
	s.particles.threads = 1;
	return s;
}

double bsPov_BlobRadiusScale(double threshold, double strength)
{
	if (!(threshold > 0.0 && threshold < strength && isfinite(strength)))
	{
		return 0.0;
	}
	return 1.0 / sqrt(1.0 - sqrt(threshold / strength));
}

typedef struct bsPovWriter
{
	bsAtomicFile file;
	const char* path;
	char* errbuf;
	size_t errlen;
	bool failed;
	double step;  // the largest rounding of a coordinate (bsPovScene.positionStep as resolved)
} bsPovWriter;

static bool bsPovFail(bsPovWriter* w, const char* fmt, ...) BS_PRINTF_FORMAT(2, 3);

static bool bsPovFail(bsPovWriter* w, const char* fmt, ...)
{
	if (!w->failed && w->errbuf != NULL && w->errlen > 0)
	{
		int n = snprintf(w->errbuf, w->errlen, "%s: ", w->path);
		if (n >= 0 && (size_t)n < w->errlen)
		{
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(w->errbuf + n, w->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	w->failed = true;
	return false;
}

static void bsPutString(bsPovWriter* w, const char* s)
{
	bsAtomicFile_Write(&w->file, s, strlen(s));
}

// A name made safe for a // comment: no control characters, at most 200 bytes.
static void bsPutCommentText(bsPovWriter* w, const char* s)
{
	char buf[204];
	size_t n = 0;
	for (; s[n] != '\0' && n < 200; ++n)
	{
		unsigned char ch = (unsigned char)s[n];
		buf[n] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	bsAtomicFile_Write(&w->file, buf, n);
}

static void bsPutMaterial(bsPovWriter* w, const char* indent, const char* material)
{
	bsAtomicFile_Printf(&w->file, "%stexture { %s }\n", indent,
		material != NULL ? material : bsDefaultMaterial);
}

static void bsPutVectorLine(bsPovWriter* w, const char* before, bsVec3 v, const char* after)
{
	char* p = bsAtomicFile_Reserve(&w->file, 2 * 256 + bsVectorMax);
	size_t lb = strlen(before), la = strlen(after);
	if (p == NULL || lb > 256 || la > 256)
	{
		return;
	}
	char* q = bsPutText(p, before, lb);
	q = bsPutVector(q, v, w->step);
	q = bsPutText(q, after, la);
	bsAtomicFile_Advance(&w->file, (size_t)(q - p));
}

// ---- Validation ------------------------------------------------------------------------------------

const char* bsPov_CameraViewProblem(bsVec3 location, bsVec3 lookAt, bsVec3 sky)
{
	bsVec3 dir = bsSub(lookAt, location);
	bsVec3 up = bsLengthSquared(sky) > 0.0 ? sky : bsV3(0.0, 1.0, 0.0);
	double d2 = bsLengthSquared(dir);
	if (!(d2 > 0.0))
	{
		return "location and look_at coincide";
	}
	if (!isfinite(d2))
	{
		return "the distance from location to look_at overflows";
	}
	// Also catches a direction that is only nearly vertical: at 9.2e18 above look_at and 1 to the side,
	// the direction is vertical to the last bit.
	if (!(bsLengthSquared(bsCross(bsNormalize(dir), bsNormalize(up))) > 1e-18))
	{
		return "the view direction is parallel to sky";
	}
	return NULL;
}

static bool bsPov_ValidateInstances(bsPovWriter* w, const bsPovParticles* ps);

static bool bsPov_ValidateParticles(bsPovWriter* w, const bsPovParticles* ps);

static bool bsPov_Validate(bsPovWriter* w, const bsPovScene* s)
{
	const bsPovCamera* cam = &s->camera;
	if (!bsIsValidVec3(cam->location) || !bsIsValidVec3(cam->lookAt) || !bsIsValidVec3(cam->sky))
	{
		return bsPovFail(w, "camera: non-finite location, look_at or sky");
	}
	if (!(cam->angle > 0.0 && cam->angle < 180.0))
	{
		return bsPovFail(w, "camera: angle %g is not in (0, 180) degrees", cam->angle);
	}
	if (cam->width <= 0 || cam->height <= 0)
	{
		return bsPovFail(w, "camera: image size %dx%d is not positive", cam->width, cam->height);
	}
	const char* view = bsPov_CameraViewProblem(cam->location, cam->lookAt, cam->sky);
	if (view != NULL)
	{
		return bsPovFail(w, "camera: %s", view);
	}
	if (s->lightCount > 0 && s->lights == NULL)
	{
		return bsPovFail(w, "lights: NULL array for %zu lights", s->lightCount);
	}
	for (size_t i = 0; i < s->lightCount; ++i)
	{
		if (!bsIsValidVec3(s->lights[i].location) || !bsIsValidVec3(s->lights[i].color))
		{
			return bsPovFail(w, "light %zu: non-finite location or color", i);
		}
	}
	if (!bsIsValidVec3(s->background))
	{
		return bsPovFail(w, "background: non-finite color");
	}
	if (!(s->assumedGamma >= 0.0 && isfinite(s->assumedGamma)))
	{
		return bsPovFail(w, "assumed_gamma %g is not positive", s->assumedGamma);
	}
	if (s->meshCount > 0 && s->meshes == NULL)
	{
		return bsPovFail(w, "meshes: NULL array for %zu meshes", s->meshCount);
	}
	for (size_t i = 0; i < s->meshCount; ++i)
	{
		const bsPovMesh* m = s->meshes + i;
		if (m->triangleCount > 0 && m->triangles == NULL)
		{
			return bsPovFail(w, "mesh %zu: NULL triangles for a count of %zu", i, m->triangleCount);
		}
		if (m->triangleCount > UINT32_MAX / 3)
		{
			return bsPovFail(w, "mesh %zu: %zu triangles are too many", i, m->triangleCount);
		}
		for (size_t t = 0; t < m->triangleCount; ++t)
		{
			const bsTriangle* tri = m->triangles + t;
			if (!bsIsValidVec3(tri->p1) || !bsIsValidVec3(tri->p2) || !bsIsValidVec3(tri->p3))
			{
				return bsPovFail(w, "mesh %zu: triangle %zu: non-finite vertex", i, t);
			}
		}
	}
	if (s->planeCount > 0 && s->planes == NULL)
	{
		return bsPovFail(w, "planes: NULL array for %zu planes", s->planeCount);
	}
	for (size_t i = 0; i < s->planeCount; ++i)
	{
		const bsPovPlane* pl = s->planes + i;
		if (!bsIsValidVec3(pl->point) || !bsIsValidVec3(pl->normal) || !(bsLength(pl->normal) > 1e-300))
		{
			return bsPovFail(w, "plane %zu: non-finite point or normal, or a zero normal", i);
		}
	}
	if (!bsPov_ValidateParticles(w, &s->particles))
	{
		return false;
	}
	for (size_t k = 0; k < s->moreParticleCount; ++k)
	{
		if (s->moreParticles[k].surfaceInclude != NULL || s->moreParticles[k].instances.object != NULL ||
			!bsPov_ValidateParticles(w, s->moreParticles + k))
		{
			return bsPovFail(w, "particle set %zu: not blobs, or invalid", k + 1);
		}
	}
	return true;
}

// The checks of one particle set.
static bool bsPov_ValidateParticles(bsPovWriter* w, const bsPovParticles* ps)
{
	if (ps->surfaceInclude != NULL)
	{
		for (const char* c = ps->surfaceInclude; *c != '\0'; ++c)
		{
			if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\')
			{
				return bsPovFail(w, "particles: the surface include name holds a control character, '\"' or '\\'");
			}
		}
	}
	if (ps->instances.object != NULL && !bsPov_ValidateInstances(w, ps))
	{
		return false;
	}
	char gasFault[160];
	if (ps->gas.file != NULL && bsPovGas_Check(&ps->gas, gasFault, sizeof gasFault) != NULL)
	{
		return bsPovFail(w, "particles: %s", gasFault);
	}
	if (ps->count > 0)
	{
		if (ps->centers == NULL)
		{
			return bsPovFail(w, "particles: NULL centers for a count of %zu", ps->count);
		}
		if (ps->count > UINT32_MAX)
		{
			return bsPovFail(w, "particles: %zu are too many", ps->count);
		}
		if (!(ps->threshold > 0.0 && isfinite(ps->threshold)))
		{
			return bsPovFail(w, "particles: threshold %g is not positive", ps->threshold);
		}
		if (!(ps->strength > 0.0 && isfinite(ps->strength)))
		{
			return bsPovFail(w, "particles: strength %g is not positive", ps->strength);
		}
		if (!(ps->radiusScale > 0.0 && isfinite(ps->radiusScale)))
		{
			return bsPovFail(w, "particles: radius scale %g is not positive", ps->radiusScale);
		}
		if (ps->radii == NULL && !(ps->radius > 0.0 && isfinite(ps->radius * ps->radiusScale)))
		{
			return bsPovFail(w, "particles: radius %g is not positive", ps->radius);
		}
		for (size_t i = 0; i < ps->count; ++i)
		{
			if (!bsIsValidVec3(ps->centers[i]))
			{
				return bsPovFail(w, "particle %zu: non-finite centre", i);
			}
			if (ps->radii != NULL && !(ps->radii[i] > 0.0 && isfinite(ps->radii[i] * ps->radiusScale)))
			{
				return bsPovFail(w, "particle %zu: radius %g is not positive", i, ps->radii[i]);
			}
			const float* rgba = ps->colors != NULL ? ps->colors + 4 * i : NULL;
			if (rgba != NULL && !(rgba[0] >= 0.0f && rgba[1] >= 0.0f && rgba[2] >= 0.0f && isfinite(rgba[0] + rgba[1] + rgba[2]) &&
				rgba[3] >= 0.0f && rgba[3] <= 1.0f))
			{
				return bsPovFail(w, "particle %zu: colour (%g, %g, %g) or opacity %g out of range", i, (double)rgba[0],
					(double)rgba[1], (double)rgba[2], (double)rgba[3]);
			}
		}
	}
	return true;
}

// ---- Meshes ---------------------------------------------------------------------------------------

static uint64_t bsBits(double d)
{
	d += 0.0;  // -0.0 becomes +0.0: the same point
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

static uint64_t bsHashVertex(bsVec3 v)
{
	uint64_t h = bsBits(v.x) * 0x9e3779b97f4a7c15ull;
	h = (h ^ (h >> 29) ^ bsBits(v.y)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 32) ^ bsBits(v.z)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static bool bsSameVertex(bsVec3 a, bsVec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;  // finite, so == is bitwise up to the sign of 0
}

// What a body's mesh adds to a plain one: a #declare before it, a matrix inside, no texture.
typedef struct bsPovMeshExtra
{
	const char* declare;    // "#declare ID =" written before mesh2, or NULL
	const double* matrix;   // 12 numbers, or NULL
	bool noTexture;
} bsPovMeshExtra;

static void bsPutMatrix(bsPovWriter* w, const char* indent, const double* m)
{
	char num[bs_povNumberMax];
	bsAtomicFile_Printf(&w->file, "%smatrix <", indent);
	for (int k = 0; k < 12; ++k)
	{
		bsPov_FormatDoubleWithin(num, m[k] + 0.0, w->step);
		bsAtomicFile_Printf(&w->file, "%s%s", num, k < 11 ? (k % 3 == 2 ? ",  " : ", ") : ">\n");
	}
}

// The distinct values of in[0 .. n) in order of first use into unique, and each one's index into
// index; returns how many (an open-addressing table of n slots or more). false: out of memory.
static bool bsPov_Dedupe(const bsVec3* in, size_t n, bsVec3* unique, uint32_t* index, uint32_t* count)
{
	size_t capacity = 16;
	while (capacity < 2 * n)
	{
		capacity *= 2;
	}
	uint32_t* table = malloc(capacity * sizeof(uint32_t));
	if (table == NULL)
	{
		return false;
	}
	memset(table, 0xff, capacity * sizeof(uint32_t));
	*count = 0;
	for (size_t c = 0; c < n; ++c)
	{
		bsVec3 v = in[c];
		size_t slot = (size_t)bsHashVertex(v) & (capacity - 1);
		while (table[slot] != UINT32_MAX && !bsSameVertex(unique[table[slot]], v))
		{
			slot = (slot + 1) & (capacity - 1);
		}
		if (table[slot] == UINT32_MAX)
		{
			table[slot] = *count;
			unique[(*count)++] = bsV3(v.x + 0.0, v.y + 0.0, v.z + 0.0);  // written "0", not "-0"
		}
		index[c] = table[slot];
	}
	free(table);
	return true;
}

// A mesh's corners (3 a triangle) as distinct vertices and their indices, and with corner colours
// the distinct colours and theirs (colorIndex NULL without).
typedef struct bsPovMeshParts
{
	bsVec3* vertices;
	uint32_t* indices;
	uint32_t vertexCount;
	bsVec3* colors;
	uint32_t* colorIndices;
	uint32_t colorCount;
} bsPovMeshParts;

static void bsPovMeshParts_Free(bsPovMeshParts* parts)
{
	free(parts->vertices);
	free(parts->indices);
	free(parts->colors);
	free(parts->colorIndices);
}

static bool bsPovMeshParts_Make(const bsPovMesh* m, bsPovMeshParts* parts)
{
	memset(parts, 0, sizeof(*parts));
	size_t corners = 3 * m->triangleCount;
	bsVec3* points = malloc(corners * sizeof(bsVec3));
	parts->vertices = malloc(corners * sizeof(bsVec3));
	parts->indices = malloc(corners * sizeof(uint32_t));
	bool ok = points != NULL && parts->vertices != NULL && parts->indices != NULL;
	for (size_t c = 0; ok && c < corners; ++c)
	{
		const bsTriangle* t = m->triangles + c / 3;
		points[c] = c % 3 == 0 ? t->p1 : (c % 3 == 1 ? t->p2 : t->p3);
	}
	ok = ok && bsPov_Dedupe(points, corners, parts->vertices, parts->indices, &parts->vertexCount);
	free(points);
	if (ok && m->cornerColors != NULL)
	{
		parts->colors = malloc(corners * sizeof(bsVec3));
		parts->colorIndices = malloc(corners * sizeof(uint32_t));
		ok = parts->colors != NULL && parts->colorIndices != NULL &&
			bsPov_Dedupe(m->cornerColors, corners, parts->colors, parts->colorIndices, &parts->colorCount);
	}
	if (!ok)
	{
		bsPovMeshParts_Free(parts);
	}
	return ok;
}

// The vertex colours' textures: each the mesh's look (its material without a pigment) with the
// colour as its pigment, which POV-Ray interpolates over a face from its corners' three.
static void bsPov_PutTextureList(bsPovWriter* w, const bsPovMeshParts* parts, const char* look)
{
	bsAtomicFile_Printf(&w->file, "\ttexture_list\n\t{\n\t\t%u", parts->colorCount);
	for (uint32_t i = 0; i < parts->colorCount; ++i)
	{
		bsVec3 c = parts->colors[i];
		bsAtomicFile_Printf(&w->file, ",\n\t\ttexture { pigment { color rgb <%.6g, %.6g, %.6g> } %s }", c.x, c.y,
			c.z, look != NULL ? look : "");
	}
	bsPutString(w, "\n\t}\n");
}

static void bsPov_PutFaces(bsPovWriter* w, const bsPovMeshParts* parts, size_t triangleCount)
{
	bsAtomicFile_Printf(&w->file, "\tface_indices\n\t{\n\t\t%zu", triangleCount);
	for (size_t t = 0; t < triangleCount; ++t)
	{
		char* p = bsAtomicFile_Reserve(&w->file, 6 * 12 + 24);
		if (p == NULL)
		{
			break;
		}
		char* q = BS_PUT_LITERAL(p, ",\n\t\t<");
		for (int c = 0; c < 3; ++c)
		{
			q = bsPov_PutUnsigned(q, parts->indices[3 * t + (size_t)c]);
			*q++ = c < 2 ? ',' : '>';
		}
		for (int c = 0; parts->colorIndices != NULL && c < 3; ++c)
		{
			q = BS_PUT_LITERAL(q, ", ");
			q = bsPov_PutUnsigned(q, parts->colorIndices[3 * t + (size_t)c]);
		}
		bsAtomicFile_Advance(&w->file, (size_t)(q - p));
	}
	bsPutString(w, "\n\t}\n");
}

static bool bsPov_WriteMesh(bsPovWriter* w, const bsPovMesh* m, size_t meshIndex, const bsPovMeshExtra* extra)
{
	bsPovMeshParts parts;
	if (!bsPovMeshParts_Make(m, &parts))
	{
		return bsPovFail(w, "mesh %zu: out of memory", meshIndex);
	}
	bsAtomicFile_Write(&w->file, "\n// mesh ", 9);
	if (m->name != NULL)
	{
		bsPutCommentText(w, m->name);
	}
	else
	{
		bsAtomicFile_Printf(&w->file, "%zu", meshIndex);
	}
	bsAtomicFile_Printf(&w->file, ": %zu triangles, %u vertices\n%s%smesh2\n{\n\tvertex_vectors\n\t{\n\t\t%u",
		m->triangleCount, parts.vertexCount, extra != NULL && extra->declare != NULL ? extra->declare : "",
		extra != NULL && extra->declare != NULL ? "\n" : "", parts.vertexCount);
	for (uint32_t i = 0; i < parts.vertexCount; ++i)
	{
		char* p = bsAtomicFile_Reserve(&w->file, bsVectorMax + 8);
		if (p == NULL)
		{
			break;
		}
		char* q = BS_PUT_LITERAL(p, ",\n\t\t");
		q = bsPutVector(q, parts.vertices[i], w->step);
		bsAtomicFile_Advance(&w->file, (size_t)(q - p));
	}
	bsPutString(w, "\n\t}\n");
	if (parts.colorIndices != NULL)
	{
		bsPov_PutTextureList(w, &parts, m->material);
	}
	bsPov_PutFaces(w, &parts, m->triangleCount);
	if (extra != NULL && extra->matrix != NULL)
	{
		bsPutMatrix(w, "\t", extra->matrix);
	}
	if ((extra == NULL || !extra->noTexture) && parts.colorIndices == NULL)
	{
		bsPutMaterial(w, "\t", m->material);
	}
	bsPutString(w, "}\n");
	bsPovMeshParts_Free(&parts);
	return true;
}

// ---- Particles ------------------------------------------------------------------------------------

// The particles' blob, cut into tiles (surface.h) of at most half POV-Ray's limit of components
// each, one blob object a tile. One pool splits the tiles and formats their components.

enum
{
	bs_blobPieceIds = 2048,     // particles a piece of a tile (below): about 400 KB of buffer
	bs_blobPiecesPerThread = 4, // a round of pieces: enough that the threads stay busy
};

// Writing the tiles. A tile's components are those of bsBlobTiles_Components' lists that reach the
// tile's cell (all its own particles): the same list in the same order whatever the threads. The list is cut into pieces of at most bs_blobPieceIds particles, each
// formatted into its own buffer on the pool's threads, a round of pieces at a time, and the buffers
// are written in piece order: byte-identical files for any thread count, and memory bounded by the
// round's buffers (bs_blobPieceIds x bs_componentLineMax bytes each, 4 a thread), not by the file.

// A coloured component's texture: the material's, declared once, with the particle's own pigment.
#define BS_TINT_BEGIN " texture { BlobsimParticleTexture pigment { rgbt <"
#define BS_TINT_END "> } } }\n"

enum
{
	bs_componentLineMax = 16 + bsVectorMax + 2 * bs_povNumberMax + 8 + sizeof(BS_TINT_BEGIN) + sizeof(BS_TINT_END) +
		4 * (bs_povNumberMax + 2),
};

typedef struct bsBlobPiece
{
	const uint32_t* ids;
	uint32_t count;
	bool own;  // the tile's own particles: every one; else only those reaching the tile's cell
} bsBlobPiece;

typedef struct bsBlobWriter
{
	bsPovWriter* w;
	const bsBlobTilesDef* def;
	bsPool* pool;           // NULL for the caller's thread alone
	const bsBlobTile* tile; // the tile being written
	char strength[bs_povNumberMax + 8];  // "S }\n", or "S" with colours (bsPutTint ends the line)
	size_t strengthLen;
	const float* colors;    // bsPovParticles.colors
	bsBlobPiece* pieces;    // the round: roundCapacity pieces, each with a buffer
	char** buffers;
	size_t* lengths;
	size_t pieceCount, roundCapacity;
} bsBlobWriter;

// The rest of a coloured component: its texture, then the closing brace.
static char* bsPutTint(char* q, const float* rgba)
{
	q = BS_PUT_LITERAL(q, BS_TINT_BEGIN);
	double parts[4] = {rgba[0], rgba[1], rgba[2], 1.0 - (double)rgba[3]};
	for (int k = 0; k < 4; ++k)
	{
		// To 6 decimals: far below a displayed step, and 0.1 stays "0.1" rather than its float's digits.
		q += bsPov_FormatDouble(q, round(parts[k] * 1e6) / 1e6);
		q = k < 3 ? BS_PUT_LITERAL(q, ", ") : q;
	}
	return BS_PUT_LITERAL(q, BS_TINT_END);
}

static size_t bsBlobWriter_Format(const bsBlobWriter* bw, const bsBlobPiece* piece, char* out)
{
	const bsBlobTilesDef* def = bw->def;
	char* q = out;
	for (uint32_t k = 0; k < piece->count; ++k)
	{
#if defined(__GNUC__)
		// The ids are in tree order, the particles' slots scattered: fetch ahead so the cache misses
		// overlap. A hint only.
		if (k + 8 < piece->count)
		{
			__builtin_prefetch(def->centers + piece->ids[k + 8], 0);
			if (def->radii != NULL)
			{
				__builtin_prefetch(def->radii + piece->ids[k + 8], 0);
			}
		}
#endif
		uint32_t id = piece->ids[k];
		double reach = bsBlobTilesDef_Reach(def, id);
		if (!piece->own && !bsBlobTile_Reaches(bw->tile, def->centers[id], reach))
		{
			continue;
		}
		q = BS_PUT_LITERAL(q, "\tsphere { ");
		q = bsPutVector(q, def->centers[id], bw->w->step);
		*q++ = ',';
		*q++ = ' ';
		q = bsPutDouble(q, reach, bw->w->step);
		*q++ = ',';
		*q++ = ' ';
		q = bsPutText(q, bw->strength, bw->strengthLen);
		if (bw->colors != NULL)
		{
			q = bsPutTint(q, bw->colors + 4 * (size_t)id);
		}
	}
	return (size_t)(q - out);
}

static void bsBlobWriter_Range(void* context, size_t begin, size_t end, int worker)
{
	(void)worker;
	bsBlobWriter* bw = context;
	for (size_t k = begin; k < end; ++k)
	{
		bw->lengths[k] = bsBlobWriter_Format(bw, bw->pieces + k, bw->buffers[k]);
	}
}

// Formats the round's pieces on the threads, then writes them in order.
static void bsBlobWriter_Flush(bsBlobWriter* bw)
{
	if (bw->pieceCount == 0)
	{
		return;
	}
	if (bw->pool != NULL)
	{
		bsPool_For(bw->pool, bw->pieceCount, 1, bsBlobWriter_Range, bw);
	}
	else
	{
		bsBlobWriter_Range(bw, 0, bw->pieceCount, 0);
	}
	for (size_t k = 0; k < bw->pieceCount; ++k)
	{
		bsAtomicFile_Write(&bw->w->file, bw->buffers[k], bw->lengths[k]);
	}
	bw->pieceCount = 0;
}

static void bsBlobWriter_Add(void* context, const uint32_t* ids, uint32_t count, bool own)
{
	bsBlobWriter* bw = context;
	for (uint32_t first = 0; first < count; first += bs_blobPieceIds)
	{
		if (bw->pieceCount == bw->roundCapacity)
		{
			bsBlobWriter_Flush(bw);
		}
		uint32_t n = count - first < bs_blobPieceIds ? count - first : bs_blobPieceIds;
		bsBlobPiece piece = {ids + first, n, own};
		bw->pieces[bw->pieceCount++] = piece;
	}
}

static void bsBlobWriter_WriteTiles(bsBlobWriter* bw, const bsBlobTiles* t, const char* threshold,
	const char* material)
{
	bsPovWriter* w = bw->w;
	uint32_t tiles = bsBlobTiles_Count(t);
	for (uint32_t k = 0; k < tiles; ++k)
	{
		const bsBlobTile* tile = bsBlobTiles_Tile(t, k);
		bsAtomicFile_Printf(&w->file, "\nblob\n{\n\tthreshold %s\n", threshold);
		bw->tile = tile;
		bsBlobTiles_Components(t, k, bsBlobWriter_Add, bw);
		bsBlobWriter_Flush(bw);
		bsAtomicFile_Printf(&w->file, "\ttexture { %s }\n", material);
		if (tiles > 1)
		{
			bsPutVectorLine(w, "\tclipped_by { box { ", bsV3(tile->lo[0], tile->lo[1], tile->lo[2]), ", ");
			bsPutVectorLine(w, "", bsV3(tile->hi[0], tile->hi[1], tile->hi[2]), " } }\n");
		}
		bsPutString(w, "}\n");
	}
}

static size_t bsBlobChunk(const bsPovParticles* ps)
{
	// Halves of POV-Ray's limit, so a tile's own components plus its neighbours' stay under it.
	size_t limit = bs_povMaxBlobComponents / 2;
	size_t chunk = ps->maxComponents;
	return chunk == 0 || chunk > limit ? limit : chunk;
}

static void bsBlobWriter_Free(bsBlobWriter* bw)
{
	for (size_t k = 0; bw->buffers != NULL && k < bw->roundCapacity; ++k)
	{
		free(bw->buffers[k]);
	}
	free(bw->buffers);
	free(bw->lengths);
	free(bw->pieces);
}

// The round's buffers; false when out of memory.
static bool bsBlobWriter_Init(bsBlobWriter* bw, bsPovWriter* w, const bsBlobTilesDef* def, bsPool* pool)
{
	memset(bw, 0, sizeof(*bw));
	bw->w = w;
	bw->def = def;
	bw->pool = pool;
	size_t pieces = def->count / bs_blobPieceIds + 1;
	int threads = bw->pool != NULL ? bsPool_ThreadCount(bw->pool) : 1;
	size_t capacity = (size_t)threads * bs_blobPiecesPerThread;
	bw->roundCapacity = capacity < pieces ? capacity : pieces;
	bw->pieces = malloc(bw->roundCapacity * sizeof(bsBlobPiece));
	bw->lengths = malloc(bw->roundCapacity * sizeof(size_t));
	bw->buffers = calloc(bw->roundCapacity, sizeof(char*));
	if (bw->pieces == NULL || bw->lengths == NULL || bw->buffers == NULL)
	{
		return false;
	}
	for (size_t k = 0; k < bw->roundCapacity; ++k)
	{
		bw->buffers[k] = malloc((size_t)bs_blobPieceIds * bs_componentLineMax);
		if (bw->buffers[k] == NULL)
		{
			return false;
		}
	}
	return true;
}

static bool bsPov_WriteParticles(bsPovWriter* w, const bsPovParticles* ps, const bsBlobTilesDef* def,
	const bsBlobTiles* t, bsPool* pool)
{
	bsBlobWriter bw;
	if (!bsBlobWriter_Init(&bw, w, def, pool))
	{
		bsBlobWriter_Free(&bw);
		return bsPovFail(w, "particles: out of memory");
	}
	bw.strengthLen = bsPov_FormatDouble(bw.strength, ps->strength);
	bw.colors = ps->colors;
	if (ps->colors == NULL)
	{
		memcpy(bw.strength + bw.strengthLen, " }\n", 4);
		bw.strengthLen += 3;
	}
	char threshold[bs_povNumberMax];
	bsPov_FormatDouble(threshold, ps->threshold);
	const char* material = ps->material != NULL ? ps->material : bsDefaultMaterial;
	if (ps->colors != NULL)
	{
		bsAtomicFile_Printf(&w->file, "\n#declare BlobsimParticleTexture = texture { %s }\n", material);
	}
	bsBlobWriter_WriteTiles(&bw, t, threshold, material);
	bsBlobWriter_Free(&bw);
	return true;
}

// Another particle set (bsPovScene.moreParticles): its own blob objects, tiled as the first set's.
static void bsPov_WriteParticleSet(bsPovWriter* w, const bsPovParticles* ps)
{
	if (ps->count == 0)
	{
		return;
	}
	bsBlobTilesDef def = {ps->centers, ps->radii, ps->radius, ps->radiusScale, ps->count, bsBlobChunk(ps)};
	int threads = bsResolveThreads(ps->threads, ps->count / bs_blobPieceIds + 1);
	bsPool* pool = threads > 1 ? bsPool_Create(threads) : NULL;
	bsBlobTiles* tiles = bsBlobTiles_Create(&def, pool);
	if (tiles == NULL)
	{
		bsPovFail(w, "particles: out of memory");
	}
	else
	{
		bsPov_WriteParticles(w, ps, &def, tiles, pool);
	}
	bsBlobTiles_Destroy(tiles);
	bsPool_Destroy(pool);
}

// ---- Instances -----------------------------------------------------------------------------------

// x, y or z, whichever is least aligned with the unit vector a, crossed with a and normalized: a unit
// vector perpendicular to a.
static bsVec3 bsPerpendicular(bsVec3 a)
{
	double ax = fabs(a.x), ay = fabs(a.y), az = fabs(a.z);
	bsVec3 e = ax <= ay && ax <= az ? bsV3(1.0, 0.0, 0.0) : ay <= az ? bsV3(0.0, 1.0, 0.0) : bsV3(0.0, 0.0, 1.0);
	return bsNormalize(bsCross(a, e));
}

void bsPov_AxisRotation(bsVec3 axis, bsVec3 v, double m[9])
{
	double speed = bsLength(v);
	// The quaternion (1 + a.b, a x b), normalized: the shortest arc from a to b. 1 + a.b is taken as
	// |a + b|^2 / 2, which keeps its relative precision as b nears -a (1 + a.b would round to 0 there),
	// so both parts vanish together only when b is -a to the last bit, and the arc is accurate
	// arbitrarily close to it.
	double w = 1.0, x = 0.0, y = 0.0, z = 0.0;
	if (speed > bs_povStillSpeed && isfinite(speed))
	{
		bsVec3 b = bsScale(1.0 / speed, v);
		bsVec3 k = bsCross(axis, b);
		bsVec3 sum = bsAdd(axis, b);
		w = 0.5 * bsDot(sum, sum);
		double n = sqrt(w * w + bsDot(k, k));
		if (n < 1e-150)
		{
			k = bsPerpendicular(axis);
			w = 0.0;
			n = 1.0;
		}
		w /= n;
		x = k.x / n;
		y = k.y / n;
		z = k.z / n;
	}
	bsQuat q = {x, y, z, w};
	bsPov_QuatRotation(q, m);
}

void bsPov_QuatRotation(bsQuat q, double m[9])
{
	double w = q.w, x = q.x, y = q.y, z = q.z;
	// Row i is the image of the i-th basis vector: column i of the rotation matrix.
	m[0] = 1.0 - 2.0 * (y * y + z * z);
	m[1] = 2.0 * (x * y + w * z);
	m[2] = 2.0 * (x * z - w * y);
	m[3] = 2.0 * (x * y - w * z);
	m[4] = 1.0 - 2.0 * (x * x + z * z);
	m[5] = 2.0 * (y * z + w * x);
	m[6] = 2.0 * (x * z + w * y);
	m[7] = 2.0 * (y * z - w * x);
	m[8] = 1.0 - 2.0 * (x * x + y * y);
}

static bool bsPov_ValidateInstances(bsPovWriter* w, const bsPovParticles* ps)
{
	const bsPovInstances* in = &ps->instances;
	const char* o = in->object;
	bool name = (o[0] >= 'a' && o[0] <= 'z') || (o[0] >= 'A' && o[0] <= 'Z');
	for (const char* c = o; name && *c != '\0'; ++c)
	{
		name = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
	}
	if (!name)
	{
		return bsPovFail(w, "particles: instance object \"%s\" is not a POV-Ray identifier", o);
	}
	for (const char* c = in->include != NULL ? in->include : ""; *c != '\0'; ++c)
	{
		if ((unsigned char)*c < 0x20 || *c == '"')
		{
			return bsPovFail(w, "particles: the instance include name holds a control character or '\"'");
		}
	}
	if (!(in->scale > 0.0 && isfinite(in->scale)) || !(fabs(bsLength(in->axis) - 1.0) < 1e-9))
	{
		return bsPovFail(w, "particles: instance scale %g is not positive or its axis is not a unit vector",
			in->scale);
	}
	for (size_t i = 0; in->velocities != NULL && i < ps->count; ++i)
	{
		if (!bsIsValidVec3(in->velocities[i]))
		{
			return bsPovFail(w, "particle %zu: non-finite velocity", i);
		}
	}
	for (size_t i = 0; in->orientations != NULL && i < ps->count; ++i)
	{
		bsQuat q = in->orientations[i];
		if (!(fabs(bsQuat_Dot(q, q) - 1.0) < 1e-9))
		{
			return bsPovFail(w, "particle %zu: the orientation is not a unit quaternion", i);
		}
	}
	return true;
}

// One particle's object, open: "\tobject { NAME scale S matrix <9 numbers, centre>" (translate <centre>
// without velocities); the caller closes it.
static void bsPov_WriteInstance(bsPovWriter* w, const bsPovParticles* ps, size_t i, const char* indent)
{
	const bsPovInstances* in = &ps->instances;
	size_t nameLen = strlen(in->object);
	char* p = bsAtomicFile_Reserve(&w->file, nameLen + 16 * bs_povNumberMax + 64);
	if (p == NULL)
	{
		return;
	}
	char* q = bsPutText(p, indent, strlen(indent));
	q = BS_PUT_LITERAL(q, "object { ");
	q = bsPutText(q, in->object, nameLen);
	q = BS_PUT_LITERAL(q, " scale ");
	q += bsPov_FormatDouble(q, in->scale * (ps->radii != NULL ? ps->radii[i] : ps->radius));
	if (in->velocities == NULL && in->orientations == NULL)
	{
		q = BS_PUT_LITERAL(q, " translate ");
		q = bsPutVector(q, ps->centers[i], w->step);
	}
	else
	{
		double m[9];
		if (in->orientations != NULL)
		{
			bsPov_QuatRotation(in->orientations[i], m);
		}
		else
		{
			bsPov_AxisRotation(in->axis, in->velocities[i], m);
		}
		q = BS_PUT_LITERAL(q, " matrix <");
		for (int k = 0; k < 9; ++k)
		{
			q += bsPov_FormatDouble(q, m[k]);
			*q++ = ',';
		}
		q = bsPutDouble(q, ps->centers[i].x, w->step);
		*q++ = ',';
		q = bsPutDouble(q, ps->centers[i].y, w->step);
		*q++ = ',';
		q = bsPutDouble(q, ps->centers[i].z, w->step);
		*q++ = '>';
	}
	bsAtomicFile_Advance(&w->file, (size_t)(q - p));
}

// The include or declaration, then the objects: in a union with the material (one object alone takes
// it itself: a union needs two).
static void bsPov_WriteInstances(bsPovWriter* w, const bsPovParticles* ps)
{
	const bsPovInstances* in = &ps->instances;
	bsAtomicFile_Printf(&w->file, "\n// the particles as instances of %s\n", in->object);
	if (in->include != NULL)
	{
		bsAtomicFile_Printf(&w->file, "#include \"%s\"\n", in->include);
	}
	if (in->declaration != NULL)
	{
		bsAtomicFile_Printf(&w->file, "%s\n", in->declaration);
	}
	if (ps->count == 0)
	{
		return;
	}
	const char* material = ps->material != NULL ? ps->material : bsDefaultMaterial;
	if (ps->count == 1)
	{
		bsPov_WriteInstance(w, ps, 0, "");
		bsAtomicFile_Printf(&w->file, " texture { %s } }\n", material);
		return;
	}
	bsPutString(w, "union\n{\n");
	for (size_t i = 0; i < ps->count; ++i)
	{
		bsPov_WriteInstance(w, ps, i, "\t");
		bsPutString(w, " }\n");
	}
	bsAtomicFile_Printf(&w->file, "\ttexture { %s }\n}\n", material);
}

// ---- The scene ------------------------------------------------------------------------------------

// A moving body: its include and an object with its matrix, or its shape inline.
static void bsPov_WriteMovingBody(bsPovWriter* w, const bsPovBody* b, size_t index)
{
	if (b->include == NULL)
	{
		bsPovMesh mesh = {b->name, b->triangles, b->triangleCount, b->material, NULL};
		bsPovMeshExtra extra = {NULL, b->matrix, false};
		bsPov_WriteMesh(w, &mesh, index, &extra);
		return;
	}
	bsAtomicFile_Write(&w->file, "\n// body ", 9);
	if (b->name != NULL)
	{
		bsPutCommentText(w, b->name);
	}
	bsAtomicFile_Printf(&w->file, "\n#include \"%s\"\nobject\n{\n\t%s\n", b->include, b->declared);
	bsPutMatrix(w, "\t", b->matrix);
	bsPutMaterial(w, "\t", b->material);
	bsPutString(w, "}\n");
}

// The sensor particles: one sphere each, coloured by the body they live on, glowing so that they show
// through nothing but stand out from the bodies' materials.
static void bsPov_WriteSensors(bsPovWriter* w, const bsPovScene* s)
{
	if (s->sensorCount == 0)
	{
		return;
	}
	char r[32];
	bsPov_FormatDouble(r, s->sensorRadius);
	bsPutString(w, "\n// sensor particles\n");
	for (size_t i = 0; i < s->sensorCount; ++i)
	{
		bool second = s->sensorSide != NULL && s->sensorSide[i] != 0;
		bsPutVectorLine(w, "sphere { ", s->sensors[i], ", ");
		bsAtomicFile_Printf(&w->file, "%s pigment { color rgb %s } finish { ambient 0.6 diffuse 0.4 } no_shadow }\n", r,
			second ? "<0.1, 0.9, 1>" : "<1, 0.85, 0.1>");
	}
}

static void bsPov_WriteBody(bsPovWriter* w, const bsPovScene* s)
{
	const bsPovParticles* ps = &s->particles;
	bool instances = ps->instances.object != NULL;
	bool gas = ps->gas.file != NULL;
	bool blobs = ps->count > 0 && ps->surfaceInclude == NULL && !instances && !gas;
	bsBlobTilesDef tilesDef = {ps->centers, ps->radii, ps->radius, ps->radiusScale, ps->count, bsBlobChunk(ps)};
	// A pool only when there is more than one piece to share out; one that cannot start leaves the
	// caller's thread alone (the same bytes).
	int threads = blobs ? bsResolveThreads(ps->threads, ps->count / bs_blobPieceIds + 1) : 1;
	bsPool* pool = threads > 1 ? bsPool_Create(threads) : NULL;
	bsBlobTiles* tiles = blobs ? bsBlobTiles_Create(&tilesDef, pool) : NULL;
	if (blobs && tiles == NULL)
	{
		bsPool_Destroy(pool);
		bsPovFail(w, "particles: out of memory");
		return;
	}
	size_t triangles = 0;
	for (size_t i = 0; i < s->meshCount; ++i)
	{
		triangles += s->meshes[i].triangleCount;
	}
	char num[bs_povNumberMax], drawn[64];
	size_t blobCount = blobs ? bsBlobTiles_Count(tiles) : 0;
	if (ps->surfaceInclude != NULL)
	{
		snprintf(drawn, sizeof(drawn), "as a mesh");
	}
	else if (instances)
	{
		snprintf(drawn, sizeof(drawn), "as instances");
	}
	else if (gas)
	{
		snprintf(drawn, sizeof(drawn), "as gas");
	}
	else
	{
		snprintf(drawn, sizeof(drawn), "in %zu blob%s", blobCount, blobCount == 1 ? "" : "s");
	}
	bsAtomicFile_Printf(&w->file,
		"#version 3.7;\n"
		"// blobsim %s scene: %zu particles %s, %zu mesh%s (%zu triangles), %zu plane%s, "
		"%zu light%s\n\n",
		BLOBSIM_VERSION, ps->count, drawn, s->meshCount,
		s->meshCount == 1 ? "" : "es", triangles, s->planeCount, s->planeCount == 1 ? "" : "s",
		s->lightCount, s->lightCount == 1 ? "" : "s");
	bsPov_FormatDouble(num, s->assumedGamma > 0.0 ? s->assumedGamma : 1.0);
	bsAtomicFile_Printf(&w->file, "global_settings { assumed_gamma %s }\n\n", num);

	const bsPovCamera* cam = &s->camera;
	bsPutString(w, "camera\n{\n\tperspective\n");
	bsPutVectorLine(w, "\tlocation ", cam->location, "\n");
	bsAtomicFile_Printf(&w->file, "\tright %sx*%d/%d\n\tup y\n", cam->rightHanded ? "-" : "", cam->width,
		cam->height);
	if (bsLengthSquared(cam->sky) > 0.0)
	{
		bsPutVectorLine(w, "\tsky ", cam->sky, "\n");
	}
	bsPov_FormatDouble(num, cam->angle);
	bsAtomicFile_Printf(&w->file, "\tangle %s\n", num);
	bsPutVectorLine(w, "\tlook_at ", cam->lookAt, "\n}\n\n");

	for (size_t i = 0; i < s->lightCount; ++i)
	{
		bsPutVectorLine(w, "light_source { ", s->lights[i].location, " ");
		bsPutVectorLine(w, "color rgb ", s->lights[i].color, " }\n");
	}
	bsPutVectorLine(w, "\nbackground { color rgb ", s->background, " }\n");

	for (size_t i = 0; i < s->meshCount; ++i)
	{
		if (s->meshes[i].triangleCount == 0)
		{
			bsAtomicFile_Printf(&w->file, "\n// mesh %zu has no triangles\n", i);
			continue;
		}
		if (!bsPov_WriteMesh(w, s->meshes + i, i, NULL))
		{
			bsBlobTiles_Destroy(tiles);
			bsPool_Destroy(pool);
			return;
		}
	}
	for (size_t i = 0; i < s->planeCount; ++i)
	{
		const bsPovPlane* pl = s->planes + i;
		bsVec3 n = bsNormalize(pl->normal);
		bsPutVectorLine(w, "\nplane { ", n, ", ");
		bsPov_FormatDoubleWithin(num, bsDot(n, pl->point), w->step);
		bsAtomicFile_Printf(&w->file, "%s\n", num);
		bsPutMaterial(w, "\t", pl->material);
		bsPutString(w, "}\n");
	}
	for (size_t i = 0; i < s->bodyCount && !w->failed; ++i)
	{
		bsPov_WriteMovingBody(w, s->bodies + i, i);
	}
	bsPov_WriteSensors(w, s);
	if (instances)
	{
		bsPov_WriteInstances(w, ps);
	}
	else if (gas)
	{
		bsPov_WriteGas(&w->file, ps, w->step);
	}
	else if (blobs)
	{
		bsPov_WriteParticles(w, ps, &tilesDef, tiles, pool);
	}
	else if (ps->surfaceInclude != NULL)
	{
		bsAtomicFile_Printf(&w->file,
			"\n// the particles' blob surface as a mesh\n"
			"#ifndef (BlobsimSurface)\n#declare BlobsimSurface = \"%s\";\n#end\n#include BlobsimSurface\n",
			ps->surfaceInclude);
	}
	for (size_t k = 0; k < s->moreParticleCount && !w->failed; ++k)
	{
		bsPov_WriteParticleSet(w, s->moreParticles + k);
	}
	bsBlobTiles_Destroy(tiles);
	bsPool_Destroy(pool);
}

// Runs with LC_NUMERIC "C" on this thread, whatever the program set, so that the library formatting
// (the rare fallback of bsPov_FormatDouble, Printf's %g) writes '.'.
typedef struct bsCLocale
{
	locale_t c;
	locale_t previous;
} bsCLocale;

static bsCLocale bsEnterCLocale(void)
{
	bsCLocale l = {newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), (locale_t)0};
	if (l.c != (locale_t)0)
	{
		l.previous = uselocale(l.c);
	}
	return l;
}

static void bsLeaveCLocale(bsCLocale l)
{
	if (l.c != (locale_t)0)
	{
		uselocale(l.previous);
		freelocale(l.c);
	}
}

double bsPov_PositionStep(const bsPovScene* s)
{
	if (s->positionStep > 0.0)
	{
		return s->positionStep;
	}
	double smallest = 0.0;
	for (size_t k = 0; k <= s->moreParticleCount; ++k)
	{
		const bsPovParticles* ps = k == 0 ? &s->particles : s->moreParticles + k - 1;
		for (size_t i = 0; i < ps->count; ++i)
		{
			double r = ps->radii != NULL ? ps->radii[i] : ps->radius;
			smallest = smallest == 0.0 || r < smallest ? r : smallest;
		}
	}
	return smallest * bs_povPositionFraction;
}

bool bsPov_WriteScene(const char* path, const bsPovScene* scene, char* errbuf, size_t errlen)
{
	bsPovWriter w;
	memset(&w, 0, sizeof(w));
	w.path = path != NULL ? path : "(null)";
	w.errbuf = errbuf;
	w.errlen = errlen;
	if (errbuf != NULL && errlen > 0)
	{
		errbuf[0] = '\0';
	}
	if (scene == NULL)
	{
		return bsPovFail(&w, "no scene");
	}
	if (!bsPov_Validate(&w, scene))
	{
		return false;
	}
	if (!bsAtomicFile_Open(&w.file, path, errbuf, errlen))
	{
		return false;
	}
	w.step = bsPov_PositionStep(scene);
	bsCLocale locale = bsEnterCLocale();
	bsPov_WriteBody(&w, scene);
	bsLeaveCLocale(locale);
	if (w.failed)
	{
		bsAtomicFile_Abort(&w.file);
		return false;
	}
	return bsAtomicFile_Commit(&w.file, 0);
}

bool bsPov_WriteMeshInclude(const char* path, const char* declared, const bsPovMesh* mesh, unsigned flags,
	char* errbuf, size_t errlen)
{
	bsPovWriter w;
	memset(&w, 0, sizeof(w));
	w.path = path;
	w.errbuf = errbuf;
	w.errlen = errlen;
	if (!bsAtomicFile_Open(&w.file, path, errbuf, errlen))
	{
		return false;
	}
	char declare[256];
	snprintf(declare, sizeof declare, "#declare %s =", declared);
	bsPovMeshExtra extra = {declare, NULL, true};
	bsCLocale locale = bsEnterCLocale();
	bsAtomicFile_Printf(&w.file, "// blobsim %s body mesh\n", BLOBSIM_VERSION);
	bsPov_WriteMesh(&w, mesh, 0, &extra);
	bsLeaveCLocale(locale);
	if (w.failed)
	{
		bsAtomicFile_Abort(&w.file);
		return false;
	}
	return bsAtomicFile_Commit(&w.file, flags);
}

// ---- Animation ------------------------------------------------------------------------------------

void bsPov_FrameFileName(char* out, size_t len, int frame)
{
	snprintf(out, len, "frame_%04d.pov", frame);
}

bool bsPov_WriteAnimationIni(const char* iniPath, int lastFrame, int width, int height, double antialias,
	double jitter,
	char* errbuf, size_t errlen)
{
	bsPovWriter w;
	memset(&w, 0, sizeof(w));
	w.path = iniPath != NULL ? iniPath : "(null)";
	w.errbuf = errbuf;
	w.errlen = errlen;
	if (iniPath == NULL || iniPath[0] == '\0')
	{
		return bsPovFail(&w, "no path");
	}
	if (lastFrame < 0 || lastFrame > 9999999)
	{
		return bsPovFail(&w, "last frame %d is not in 0 .. 9999999", lastFrame);
	}
	if (width < 1 || height < 1)
	{
		return bsPovFail(&w, "image size %dx%d is not positive", width, height);
	}
	if (!isfinite(jitter) || jitter < 0.0)
	{
		return bsPovFail(&w, "antialias jitter is not a finite number >= 0");
	}
	if (!isfinite(antialias))
	{
		return bsPovFail(&w, "antialias threshold is not finite");
	}

	// The master scene: iniPath with its extension replaced by ".pov".
	const char* slash = strrchr(iniPath, '/');
	const char* base = slash != NULL ? slash + 1 : iniPath;
	const char* dot = strrchr(base, '.');
	size_t stem = dot != NULL && dot != base ? (size_t)(dot - iniPath) : strlen(iniPath);
	if (dot != NULL && dot != base && strcmp(dot, ".pov") == 0)
	{
		return bsPovFail(&w, "the .ini must not end in .pov (the master scene takes that name)");
	}
	if (base[0] == '\0')
	{
		return bsPovFail(&w, "no file name");
	}
	for (const char* c = base; *c != '\0'; ++c)
	{
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == ';')
		{
			return bsPovFail(&w, "the file name must not hold control characters, '\"' or ';'");
		}
	}
	char* master = malloc(stem + 5);
	if (master == NULL)
	{
		return bsPovFail(&w, "out of memory");
	}
	memcpy(master, iniPath, stem);
	memcpy(master + stem, ".pov", 5);
	const char* masterBase = master + (size_t)(base - iniPath);

	char first[32], last[32];
	bsPov_FrameFileName(first, sizeof(first), 0);
	bsPov_FrameFileName(last, sizeof(last), lastFrame);
	// POV-Ray pads an output frame number to the digits of Final_Frame: a Final_Frame of 9999 (or 99999
	// ...) with the frames as a subset names the images like the scenes, frame_0003.png for
	// frame_0003.pov, and makes clock the frame number.
	int pad = 9999;
	while (pad < lastFrame)
	{
		pad = pad * 10 + 9;
	}
	bsAtomicFile f;
	bool ok = bsAtomicFile_Open(&f, master, errbuf, errlen);
	if (ok)
	{
		bsAtomicFile_Printf(&f,
			"// blobsim %s animation: each frame includes its own scene, %s ... %s\n"
			"#version 3.7;\n"
			"// a render of this file alone (no animation: clock_on is false) shows the last frame\n"
			"#if (clock_on)\n"
			"#declare BlobsimFrame = frame_number;\n"
			"#else\n"
			"#declare BlobsimFrame = %d;\n"
			"#end\n"
			"#include concat(\"frame_\", str(BlobsimFrame, -4, 0), \".pov\")\n",
			BLOBSIM_VERSION, first, last, lastFrame);
		ok = bsAtomicFile_Commit(&f, 0);
	}
	if (ok)
	{
		ok = bsAtomicFile_Open(&f, iniPath, errbuf, errlen);
	}
	if (ok)
	{
		bsCLocale locale = bsEnterCLocale();
		bsAtomicFile_Printf(&f,
			"; blobsim %s: renders %s ... %s to PNG (frame_0000.png ...). Run `povray %s` in this\n"
			"; directory; `povray %s +SF2 +EF3` renders frames 2 to 3 only.\n"
			"Input_File_Name=\"%s\"\n"
			"Output_File_Name=frame_\n"
			"Output_File_Type=N\n"
			"Width=%d\n"
			"Height=%d\n"
			"Initial_Frame=0\n"
			"Final_Frame=%d\n"
			"Initial_Clock=0\n"
			"Final_Clock=%d\n"
			"Subset_Start_Frame=0\n"
			"Subset_End_Frame=%d\n",
			BLOBSIM_VERSION, first, last, base, base, masterBase, width, height, pad, pad, lastFrame);
		if (antialias > 0.0)
		{
			char num[bs_povNumberMax];
			bsPov_FormatDouble(num, antialias);
			bsAtomicFile_Printf(&f, "Antialias=On\nAntialias_Threshold=%s\n", num);
			if (jitter > 0.0)
			{
				bsPov_FormatDouble(num, jitter);
				bsAtomicFile_Printf(&f, "Jitter=On\nJitter_Amount=%s\n", num);
			}
			else
			{
				bsAtomicFile_Printf(&f, "Jitter=Off\n");
			}
		}
		else
		{
			bsAtomicFile_Printf(&f, "Antialias=Off\n");
		}
		bsAtomicFile_Printf(&f, "Display=Off\nPause_When_Done=Off\n");
		bsLeaveCLocale(locale);
		ok = bsAtomicFile_Commit(&f, 0);
	}
	free(master);
	return ok;
}
