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
} bsCacheType;

// One property: its name, its PLY type and where particle i's value is.
typedef struct bsCacheProperty
{
	const char* name;
	bsCacheType type;
	double (*get)(const bsParticleCache* c, size_t i);
} bsCacheProperty;

static double bsCacheX(const bsParticleCache* c, size_t i) { return c->particles->position[i].x; }
static double bsCacheY(const bsParticleCache* c, size_t i) { return c->particles->position[i].y; }
static double bsCacheZ(const bsParticleCache* c, size_t i) { return c->particles->position[i].z; }
static double bsCacheVx(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].x; }
static double bsCacheVy(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].y; }
static double bsCacheVz(const bsParticleCache* c, size_t i) { return c->particles->velocity[i].z; }
static double bsCacheRadius(const bsParticleCache* c, size_t i) { return c->particles->radius[i]; }
static double bsCacheAge(const bsParticleCache* c, size_t i) { return c->age[i]; }
static double bsCacheSpecies(const bsParticleCache* c, size_t i) { return c->species != NULL ? c->species[i] : 0; }
static double bsCacheId(const bsParticleCache* c, size_t i) { return c->particles->id[i]; }
static double bsCacheState(const bsParticleCache* c, size_t i) { return c->particles->state[i]; }

// The attributes in file order: a new one is a row (and its value in bsParticleCache).
static const bsCacheProperty bs_cacheProperties[] = {
	{"x", bs_cacheDouble, bsCacheX},
	{"y", bs_cacheDouble, bsCacheY},
	{"z", bs_cacheDouble, bsCacheZ},
	{"vx", bs_cacheDouble, bsCacheVx},
	{"vy", bs_cacheDouble, bsCacheVy},
	{"vz", bs_cacheDouble, bsCacheVz},
	{"radius", bs_cacheDouble, bsCacheRadius},
	{"age", bs_cacheDouble, bsCacheAge},
	{"species", bs_cacheUchar, bsCacheSpecies},
	{"id", bs_cacheUint, bsCacheId},
	{"state", bs_cacheUchar, bsCacheState},
};

static const char* const bs_cacheTypeNames[] = {"double", "uchar", "uint"};
static const size_t bs_cacheTypeSizes[] = {8, 1, 4};

// Little-endian bytes of an unsigned value.
static void bsStoreLE(char* p, uint64_t u, size_t size)
{
	for (size_t b = 0; b < size; ++b)
	{
		p[b] = (char)((u >> (8 * b)) & 0xffu);
	}
}

static size_t bsCacheRecordSize(void)
{
	size_t size = 0;
	for (int k = 0; k < BS_COUNT(bs_cacheProperties); ++k)
	{
		size += bs_cacheTypeSizes[bs_cacheProperties[k].type];
	}
	return size;
}

// Particle i's record into r.
static void bsCacheRecord(const bsParticleCache* c, size_t i, char* r)
{
	for (int k = 0; k < BS_COUNT(bs_cacheProperties); ++k)
	{
		const bsCacheProperty* p = bs_cacheProperties + k;
		double v = p->get(c, i);
		uint64_t u;
		if (p->type == bs_cacheDouble)
		{
			memcpy(&u, &v, sizeof(u));
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
		bsAtomicFile_Printf(&f, "property %s %s\n", bs_cacheTypeNames[bs_cacheProperties[k].type],
			bs_cacheProperties[k].name);
	}
	bsAtomicFile_Printf(&f, "end_header\n");
	size_t recordSize = bsCacheRecordSize();
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
