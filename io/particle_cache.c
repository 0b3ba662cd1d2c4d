// particle_cache.c — a frame's particle cache as binary little-endian PLY (particle_cache.h).
#include "particle_cache.h"

#include "atomic_file.h"
#include "core.h"

#include "blobsim/version.h"

#include <stdio.h>
#include <string.h>

typedef enum bsCacheType
{
	bs_cacheDouble,
	bs_cacheUchar,
	bs_cacheUint,
	bs_cacheFloat,
} bsCacheType;

// When the cache has a property.
typedef enum bsCacheWhen
{
	bs_cacheAlways = 0,
	bs_cacheSpin,   // when the particles spin (bsParticleCache.spin)
	bs_cacheColor,  // with colours (bsParticleCache.color)
	bs_cacheOrientation,  // when the particles keep orientations (bsParticles.orientation)
} bsCacheWhen;

// One property: its name, its PLY type, where particle i's value is, and when the cache has it.
typedef struct bsCacheProperty
{
	const char* name;
	bsCacheType type;
	double (*get)(const bsParticleCache* c, size_t i);
	bsCacheWhen when;
} bsCacheProperty;

static double bsCacheX(const bsParticleCache* c, size_t i) { return c->particles->position[i].x; }
static double bsCacheY(const bsParticleCache* c, size_t i) { return c->particles->position[i].y; }
static double bsCacheZ(const bsParticleCache* c, size_t i) { return c->particles->position[i].z; }
static double bsCacheVx(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].x; }
static double bsCacheVy(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].y; }
static double bsCacheVz(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].z; }
static bsVec3 bsCacheSpin(const bsParticleCache* c, size_t i)
{
	return c->particles->spin != NULL ? c->particles->spin[i] : bsV3(0.0, 0.0, 0.0);
}
static double bsCacheWx(const bsParticleCache* c, size_t i) { return bsCacheSpin(c, i).x; }
static double bsCacheWy(const bsParticleCache* c, size_t i) { return bsCacheSpin(c, i).y; }
static double bsCacheWz(const bsParticleCache* c, size_t i) { return bsCacheSpin(c, i).z; }
static double bsCacheQw(const bsParticleCache* c, size_t i) { return c->particles->orientation[i].w; }
static double bsCacheQx(const bsParticleCache* c, size_t i) { return c->particles->orientation[i].x; }
static double bsCacheQy(const bsParticleCache* c, size_t i) { return c->particles->orientation[i].y; }
static double bsCacheQz(const bsParticleCache* c, size_t i) { return c->particles->orientation[i].z; }
static double bsCacheRadius(const bsParticleCache* c, size_t i) { return c->particles->radius[i]; }
static double bsCacheAge(const bsParticleCache* c, size_t i) { return c->age[i]; }
static double bsCacheSpecies(const bsParticleCache* c, size_t i)
{
	return c->particles->species != NULL ? c->particles->species[i] : 0;
}
static double bsCacheColor(const bsParticleCache* c, size_t i, int k)
{
	float rgba[4];
	c->color(c->looks, i, c->age[i], rgba);
	return rgba[k];
}
static double bsCacheRed(const bsParticleCache* c, size_t i) { return bsCacheColor(c, i, 0); }
static double bsCacheGreen(const bsParticleCache* c, size_t i) { return bsCacheColor(c, i, 1); }
static double bsCacheBlue(const bsParticleCache* c, size_t i) { return bsCacheColor(c, i, 2); }
static double bsCacheAlpha(const bsParticleCache* c, size_t i) { return bsCacheColor(c, i, 3); }
static double bsCacheId(const bsParticleCache* c, size_t i) { return c->particles->id[i]; }
static double bsCacheState(const bsParticleCache* c, size_t i) { return c->particles->state[i]; }

// The attributes in file order: a new one is a row (and its value in bsParticleCache).
static const bsCacheProperty bs_cacheProperties[] = {
	{"x", bs_cacheDouble, bsCacheX, bs_cacheAlways},
	{"y", bs_cacheDouble, bsCacheY, bs_cacheAlways},
	{"z", bs_cacheDouble, bsCacheZ, bs_cacheAlways},
	{"vx", bs_cacheDouble, bsCacheVx, bs_cacheAlways},
	{"vy", bs_cacheDouble, bsCacheVy, bs_cacheAlways},
	{"vz", bs_cacheDouble, bsCacheVz, bs_cacheAlways},
	{"wx", bs_cacheDouble, bsCacheWx, bs_cacheSpin},
	{"wy", bs_cacheDouble, bsCacheWy, bs_cacheSpin},
	{"wz", bs_cacheDouble, bsCacheWz, bs_cacheSpin},
	{"qw", bs_cacheDouble, bsCacheQw, bs_cacheOrientation},
	{"qx", bs_cacheDouble, bsCacheQx, bs_cacheOrientation},
	{"qy", bs_cacheDouble, bsCacheQy, bs_cacheOrientation},
	{"qz", bs_cacheDouble, bsCacheQz, bs_cacheOrientation},
	{"radius", bs_cacheDouble, bsCacheRadius, bs_cacheAlways},
	{"age", bs_cacheDouble, bsCacheAge, bs_cacheAlways},
	{"species", bs_cacheUchar, bsCacheSpecies, bs_cacheAlways},
	{"id", bs_cacheUint, bsCacheId, bs_cacheAlways},
	{"state", bs_cacheUchar, bsCacheState, bs_cacheAlways},
	{"red", bs_cacheFloat, bsCacheRed, bs_cacheColor},
	{"green", bs_cacheFloat, bsCacheGreen, bs_cacheColor},
	{"blue", bs_cacheFloat, bsCacheBlue, bs_cacheColor},
	{"alpha", bs_cacheFloat, bsCacheAlpha, bs_cacheColor},
};

static const char* const bs_cacheTypeNames[] = {"double", "uchar", "uint", "float"};
static const size_t bs_cacheTypeSizes[] = {8, 1, 4, 4};

// Little-endian bytes of an unsigned value.
static void bsStoreLE(char* p, uint64_t u, size_t size)
{
	for (size_t b = 0; b < size; ++b)
	{
		p[b] = (char)((u >> (8 * b)) & 0xffu);
	}
}

// The cache has property k: the spin's only when the particles spin, the colour's with colours.
static bool bsCacheHas(const bsParticleCache* c, int k)
{
	switch (bs_cacheProperties[k].when)
	{
	case bs_cacheSpin: return c->spin || c->particles->spin != NULL;
	case bs_cacheColor: return c->color != NULL;
	case bs_cacheOrientation: return c->particles->orientation != NULL;
	default: return true;
	}
}

static size_t bsCacheRecordSize(const bsParticleCache* c)
{
	size_t size = 0;
	for (int k = 0; k < BS_COUNT(bs_cacheProperties); ++k)
	{
		size += bsCacheHas(c, k) ? bs_cacheTypeSizes[bs_cacheProperties[k].type] : 0;
	}
	return size;
}

// Particle i's record into r.
static void bsCacheRecord(const bsParticleCache* c, size_t i, char* r)
{
	for (int k = 0; k < BS_COUNT(bs_cacheProperties); ++k)
	{
		const bsCacheProperty* p = bs_cacheProperties + k;
		if (!bsCacheHas(c, k))
		{
			continue;
		}
		double v = p->get(c, i);
		uint64_t u;
		if (p->type == bs_cacheDouble)
		{
			memcpy(&u, &v, sizeof(u));
		}
		else if (p->type == bs_cacheFloat)
		{
			float f = (float)v;
			uint32_t bits;
			memcpy(&bits, &f, sizeof(bits));
			u = bits;
		}
		else
		{
			u = (uint64_t)v;
		}
		bsStoreLE(r, u, bs_cacheTypeSizes[p->type]);
		r += bs_cacheTypeSizes[p->type];
	}
}

bool bsParticleCache_Write(const char* path, const bsParticleCache* c, char* errbuf, size_t errlen)
{
	bsAtomicFile f;
	if (!bsAtomicFile_Open(&f, path, errbuf, errlen))
	{
		return false;
	}
	size_t count = c->particles->count;
	bsAtomicFile_Printf(&f,
		"ply\n"
		"format binary_little_endian 1.0\n"
		"comment blobsim %s cache\n"
		"comment frame %d\n"
		"comment time %.17g\n"
		"element vertex %zu\n",
		BLOBSIM_VERSION, c->frame, c->time, count);
	for (int k = 0; k < BS_COUNT(bs_cacheProperties); ++k)
	{
		if (!bsCacheHas(c, k))
		{
			continue;
		}
		bsAtomicFile_Printf(&f, "property %s %s\n", bs_cacheTypeNames[bs_cacheProperties[k].type],
			bs_cacheProperties[k].name);
	}
	bsAtomicFile_Printf(&f, "end_header\n");
	size_t recordSize = bsCacheRecordSize(c);
	size_t perReserve = bs_atomicFileReserveMax / recordSize;
	for (size_t i = 0; i < count;)
	{
		size_t n = count - i < perReserve ? count - i : perReserve;
		char* out = bsAtomicFile_Reserve(&f, n * recordSize);
		if (out == NULL)
		{
			break;
		}
		for (size_t k = 0; k < n; ++k, ++i)
		{
			bsCacheRecord(c, i, out + k * recordSize);
		}
		bsAtomicFile_Advance(&f, n * recordSize);
	}
	return bsAtomicFile_Commit(&f, 0);
}
