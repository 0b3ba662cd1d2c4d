// checkpoint.c — the world's state as sections of bytes, and back (checkpoint.h).
#include "blobsim/checkpoint.h"

#include "array.h"
#include "collider_body.h"
#include "core.h"
#include "stuck_grid.h"
#include "world_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(bsVec3) == 24, "bsVec3 is written as 3 doubles");
_Static_assert(sizeof(bsRollingSpring) == 12, "a rolling spring is written as 3 floats");
// A checkpoint holds the whole state: a new particle array or a new field of the world fails here, to be
// saved and loaded below (a section of its own, BS_CHECKPOINT_VERSION up one; the particle cache's
// table in io/particle_cache.c too for a particle array), or to be named as rebuilt every step, and
// the sizes updated. Saved: every array of bsParticles, the spins (spin, with rotation) in 'SPIN', the
// species (species, with several: particles[k] of the config) in 'SPEC', the orientations
// (orientation, with instances turned by the spins) in 'ORNT'.
_Static_assert(sizeof(bsParticles) == 2 * sizeof(size_t) + 8 * sizeof(void*),
	"a new particle array: save it in the checkpoint (checkpoint.c) and the cache (particle_cache.c)");
#if UINTPTR_MAX == UINT64_MAX  // the world's size as a 64-bit build lays it out
// Not saved, rebuilt after a resume with the same answers: the pair kinds' neighbour lists (pairs: a
// fresh world's list is invalid, so the first update builds it, and a build gives the bytes a kept list
// does, neighbour_list.h) and the mesh candidates (meshCache: an empty entry walks the BVH, the same
// answer, mesh_candidates.h), and the neighbour grid's count of builds (8 bytes of grid, which a list
// built on it checks; a fresh world's list builds anyway), and spinBefore and spinCapacity (with
// rotation, the interaction phase's scratch copy of the spins, made anew in every phase). Saved: the
// rolling springs (rolling, rollingCapacity, epsd2) in 'ROLL' and the bonds' ages (bondAge,
// bondCapacity, sintered bonds) in 'BOND', beside the tangential springs of 'CONT'. Not saved, set
// again by the program after a resume: the substep observer (observer, observerContext: a callback of
// the program's, e.g. the run's motion-blur recorder; no state). Saved in 'TRAL' (not a field of the
// world: each bsWorldEmitter's): a trail emitter's accumulators (sources, sourceCount). Not saved,
// rebuilt every step: the splashes' contact records (splashes, splashCapacity: cleared after the emit
// phase, written in the move phase and used up after it, within the step). Refused
// (bsWorld_CheckpointGap names them, bsWorld_SaveState fails): the walls' bond ages (wallAge,
// wallAgeCapacity, wall_bond).
_Static_assert(sizeof(struct bsWorld) == 536 + 4 * sizeof(void*) + 6 * sizeof(size_t) + sizeof(bsNeighbourList) + sizeof(bsMeshCache),
	"a new field of the world: save it in the checkpoint (checkpoint.c) or say why the step rebuilds it");
#endif

// --- bytes ---

// A streaming buffer's bytes to its sink once it holds flushAt of them outside a back-patched section.
static void bsBytes_FlushIfFull(bsBytes* b)
{
	if (b->sink != NULL && b->open == 0 && b->count >= (b->flushAt > 0 ? b->flushAt : (size_t)1 << 20))
	{
		bsBytes_Flush(b);
	}
}

void bsBytes_Put(bsBytes* b, const void* data, size_t n)
{
	size_t piece = b->flushAt > 0 ? b->flushAt : (size_t)1 << 20;
	while (b->sink != NULL && b->open == 0 && n > piece && !b->failed)
	{
		// A large array streams in pieces: the buffer never holds much more than flushAt bytes.
		bsBytes_Put(b, data, piece);
		data = (const uint8_t*)data + piece;
		n -= piece;
	}
	if (b->failed || n == 0)
	{
		return;
	}
	if (n > SIZE_MAX - b->count || !BS_ARRAY_RESERVE(b->data, b->capacity, b->count + n))
	{
		b->failed = true;
		return;
	}
	memcpy(b->data + b->count, data, n);
	b->count += n;
	bsBytes_FlushIfFull(b);
}

void bsBytes_Flush(bsBytes* b)
{
	if (b->sink == NULL || b->failed || b->count == 0)
	{
		return;
	}
	b->hash = bsFnv1a(b->hash, b->data, b->count);
	b->failed = !b->sink(b->context, b->data, b->count);
	b->flushed += b->count;
	b->count = 0;
}

void bsBytes_PutU32(bsBytes* b, uint32_t v)
{
	bsBytes_Put(b, &v, sizeof(v));
}

void bsBytes_PutU64(bsBytes* b, uint64_t v)
{
	bsBytes_Put(b, &v, sizeof(v));
}

void bsBytes_PutF64(bsBytes* b, double v)
{
	bsBytes_Put(b, &v, sizeof(v));
}

void bsBytes_Free(bsBytes* b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

size_t bsBytes_BeginSection(bsBytes* b, const char tag[4])
{
	b->open += 1;
	bsBytes_Put(b, tag, 4);
	bsBytes_PutU64(b, 0);
	return b->count;
}

void bsBytes_EndSection(bsBytes* b, size_t mark)
{
	if (!b->failed)
	{
		uint64_t length = (uint64_t)(b->count - mark);
		memcpy(b->data + mark - sizeof(length), &length, sizeof(length));
	}
	b->open -= 1;
	bsBytes_FlushIfFull(b);
}

uint64_t bsBytes_BeginSizedSection(bsBytes* b, const char tag[4], uint64_t length)
{
	bsBytes_Put(b, tag, 4);
	bsBytes_PutU64(b, length);
	return b->flushed + b->count + length;
}

void bsBytes_EndSizedSection(bsBytes* b, uint64_t mark)
{
	if (b->flushed + b->count != mark)
	{
		b->failed = true;
	}
}

bool bsByteReader_Get(bsByteReader* r, void* out, size_t n)
{
	if (n == 0)
	{
		return !r->failed;
	}
	if (r->failed || n > r->count - r->at)
	{
		r->failed = true;
		memset(out, 0, n);
		return false;
	}
	memcpy(out, r->data + r->at, n);
	r->at += n;
	return true;
}

uint32_t bsByteReader_U32(bsByteReader* r)
{
	uint32_t v;
	bsByteReader_Get(r, &v, sizeof(v));
	return v;
}

uint64_t bsByteReader_U64(bsByteReader* r)
{
	uint64_t v;
	bsByteReader_Get(r, &v, sizeof(v));
	return v;
}

double bsByteReader_F64(bsByteReader* r)
{
	double v;
	bsByteReader_Get(r, &v, sizeof(v));
	return v;
}

// A tag for messages: its letters, '?' for what is not printable.
static void bsTagText(const uint8_t* tag, char out[5])
{
	for (int k = 0; k < 4; ++k)
	{
		out[k] = tag[k] >= 0x20 && tag[k] < 0x7f ? (char)tag[k] : '?';
	}
	out[4] = '\0';
}

bool bsByteReader_Section(bsByteReader* r, const char tag[4], bsByteReader* section, char* err, size_t errlen)
{
	uint8_t found[4];
	uint64_t length = 0;
	bool header = bsByteReader_Get(r, found, 4);
	header = header && bsByteReader_Get(r, &length, sizeof(length));
	char text[5];
	bsTagText(found, text);
	if (!header)
	{
		snprintf(err, errlen, "section '%.4s' is missing: the checkpoint ends before it", tag);
		return false;
	}
	if (memcmp(found, tag, 4) != 0)
	{
		snprintf(err, errlen, "section '%.4s' expected, '%s' found", tag, text);
		return false;
	}
	if (length > r->count - r->at)
	{
		snprintf(err, errlen, "section '%.4s' is %" PRIu64 " bytes, more than the %zu left", tag, length,
			r->count - r->at);
		r->failed = true;
		return false;
	}
	*section = (bsByteReader){r->data + r->at, (size_t)length, 0, false};
	r->at += (size_t)length;
	return true;
}

// --- the frame ---

enum
{
	bs_checkpointMagicLength = sizeof(BS_CHECKPOINT_MAGIC) - 1,
	bs_checkpointHeader = bs_checkpointMagicLength + 4 + 4 + 8,
	bs_checkpointTrailer = 4 + 8 + 8,  // 'END ', its length, the hash
};

static const uint32_t bs_byteOrder = 0x01020304u;

void bsCheckpoint_Begin(bsBytes* b, uint64_t settingsHash)
{
	b->hash = BS_FNV1A_BASIS;
	bsBytes_Put(b, BS_CHECKPOINT_MAGIC, bs_checkpointMagicLength);
	bsBytes_PutU32(b, BS_CHECKPOINT_VERSION);
	bsBytes_PutU32(b, bs_byteOrder);
	bsBytes_PutU64(b, settingsHash);
}

void bsCheckpoint_End(bsBytes* b)
{
	uint64_t hash = b->failed ? 0 : bsFnv1a(b->hash, b->data, b->count);
	uint64_t mark = bsBytes_BeginSizedSection(b, "END ", sizeof(hash));
	bsBytes_PutU64(b, hash);
	bsBytes_EndSizedSection(b, mark);
	bsBytes_Flush(b);
}

bool bsCheckpoint_Open(const uint8_t* data, size_t n, bsByteReader* sections, uint64_t* settingsHash, char* err,
	size_t errlen)
{
	if (n < bs_checkpointMagicLength || memcmp(data, BS_CHECKPOINT_MAGIC, bs_checkpointMagicLength) != 0)
	{
		snprintf(err, errlen, "not a blobsim checkpoint (it does not start with \"blobsim checkpoint\")");
		return false;
	}
	bsByteReader r = {data, n, bs_checkpointMagicLength, false};
	uint32_t version = bsByteReader_U32(&r);
	uint32_t order = bsByteReader_U32(&r);
	*settingsHash = bsByteReader_U64(&r);
	if (r.failed || n < bs_checkpointHeader + bs_checkpointTrailer)
	{
		snprintf(err, errlen, "cut short: %zu bytes, too few for a checkpoint", n);
		return false;
	}
	if (version != BS_CHECKPOINT_VERSION)
	{
		snprintf(err, errlen, "checkpoint version %u; this blobsim reads version %u", version, BS_CHECKPOINT_VERSION);
		return false;
	}
	if (order != bs_byteOrder)
	{
		snprintf(err, errlen, "written on a machine of another byte order");
		return false;
	}
	size_t body = n - bs_checkpointTrailer;
	bsByteReader trailer = {data + body, bs_checkpointTrailer, 0, false};
	uint8_t tag[4];
	bsByteReader_Get(&trailer, tag, 4);
	uint64_t length = bsByteReader_U64(&trailer);
	uint64_t hash = bsByteReader_U64(&trailer);
	if (memcmp(tag, "END ", 4) != 0 || length != 8)
	{
		snprintf(err, errlen, "cut short or altered: it does not end with its 'END ' section");
		return false;
	}
	if (hash != bsFnv1a(BS_FNV1A_BASIS, data, body))
	{
		snprintf(err, errlen, "altered or damaged: its bytes do not match the hash it ends with");
		return false;
	}
	*sections = (bsByteReader){data + bs_checkpointHeader, body - bs_checkpointHeader, 0, false};
	return true;
}

// --- the world ---

static bool bsWorld_HasDynamicBody(const bsWorld* world)
{
	for (int k = 0; k < bsWorldBodies_Count(world->bodies); ++k)
	{
		if (bsBody_Kind(bsWorldBodies_Body(world->bodies, k)) == bs_motionDynamic)
		{
			return true;
		}
	}
	return false;
}

const char* bsWorld_CheckpointGap(const bsWorld* world, const bsStepDef* def)
{
	if (bsWorld_HasDynamicBody(world))
	{
		return "the dynamic bodies' rigid states and contact caches";
	}
	if (def->interaction.type == bs_interactionFluid || world->fluid != NULL)
	{
		return "the fluid solver's state (its warm starts and the last step's substep plan)";
	}
	if ((def->interaction.type == bs_interactionGranular && def->interaction.wallBond > 0.0) || world->wallAge != NULL)
	{
		return "the bonds to walls' ages (particles.interaction.wall_bond)";
	}
	return NULL;
}

// A particle's bytes in 'PART': position, velocity, radius, state, id.
enum
{
	bs_particleBytes = 2 * sizeof(bsVec3) + sizeof(double) + sizeof(uint8_t) + sizeof(uint32_t),
};

// An array of count elements of size bytes, as the machine holds them.
static void bsSaveArray(bsBytes* out, const void* data, size_t count, size_t size)
{
	bsBytes_Put(out, data, count * size);
}

static void bsSaveParticles(const bsParticles* p, bsBytes* out)
{
	bsBytes_PutU64(out, (uint64_t)p->count);
	bsSaveArray(out, p->position, p->count, sizeof(bsVec3));
	bsSaveArray(out, p->velocity, p->count, sizeof(bsVec3));
	bsSaveArray(out, p->radius, p->count, sizeof(double));
	bsSaveArray(out, p->state, p->count, sizeof(uint8_t));
	bsSaveArray(out, p->id, p->count, sizeof(uint32_t));
}

// The set has spins to save: a step with rotation gave it its spin array (a set of none has nothing).
static bool bsHasSpin(const bsParticles* p)
{
	return p->spin != NULL && p->count > 0;
}

// 'SPIN', after 'PART' when the set has spins: their count and every particle's angular velocity.
static void bsSaveSpin(const bsParticles* p, bsBytes* out)
{
	uint64_t sized = bsBytes_BeginSizedSection(out, "SPIN", 8 + (uint64_t)p->count * sizeof(bsVec3));
	bsBytes_PutU64(out, (uint64_t)p->count);
	bsSaveArray(out, p->spin, p->count, sizeof(bsVec3));
	bsBytes_EndSizedSection(out, sized);
}

// 'SPEC', after 'PART' and 'SPIN' when the set has a species array: their count and every particle's species.
static void bsSaveSpecies(const bsParticles* p, bsBytes* out)
{
	uint64_t sized = bsBytes_BeginSizedSection(out, "SPEC", 8 + (uint64_t)p->count);
	bsBytes_PutU64(out, (uint64_t)p->count);
	bsSaveArray(out, p->species, p->count, sizeof(uint8_t));
	bsBytes_EndSizedSection(out, sized);
}

// 'ORNT', after 'SPEC' when the set has orientations: their count and every particle's quaternion.
static void bsSaveOrientation(const bsParticles* p, bsBytes* out)
{
	uint64_t sized = bsBytes_BeginSizedSection(out, "ORNT", 8 + (uint64_t)p->count * sizeof(bsQuat));
	bsBytes_PutU64(out, (uint64_t)p->count);
	bsSaveArray(out, p->orientation, p->count, sizeof(bsQuat));
	bsBytes_EndSizedSection(out, sized);
}

static void bsSaveEmitters(const bsWorld* world, bsBytes* out)
{
	bsBytes_PutU32(out, (uint32_t)world->emitterCount);
	for (int e = 0; e < world->emitterCount; ++e)
	{
		bsBytes_PutU64(out, world->emitters[e].born);
	}
	bsBytes_PutU64(out, (uint64_t)world->birthCount);
	for (size_t b = 0; b < world->birthCount; ++b)
	{
		bsBytes_PutU64(out, (uint64_t)world->births[b].first);
		bsBytes_PutU64(out, (uint64_t)world->births[b].count);
		bsBytes_PutF64(out, world->births[b].expires);
	}
	bsBytes_PutU64(out, (uint64_t)world->batchCount);
	for (size_t b = 0; b < world->batchCount; ++b)
	{
		bsBytes_PutU64(out, (uint64_t)world->batches[b].first);
		bsBytes_PutF64(out, world->batches[b].time);
	}
}

// The world's trail emitters (bs_emitterTrail), in the order added.
static int bsWorld_TrailCount(const bsWorld* world)
{
	int n = 0;
	for (int e = 0; e < world->emitterCount; ++e)
	{
		n += world->emitters[e].def.shape.type == bs_emitterTrail;
	}
	return n;
}

// 'TRAL', after 'EMIT' when the world has trail emitters: their count, then each one's sources (its
// slots with an accumulator) and every slot's births so far, not rounded (bsWorldEmitter.sources).
static void bsSaveTrails(const bsWorld* world, bsBytes* out)
{
	size_t mark = bsBytes_BeginSection(out, "TRAL");
	bsBytes_PutU32(out, (uint32_t)bsWorld_TrailCount(world));
	for (int e = 0; e < world->emitterCount; ++e)
	{
		const bsWorldEmitter* em = world->emitters + e;
		if (em->def.shape.type == bs_emitterTrail)
		{
			bsBytes_PutU64(out, (uint64_t)em->sourceCount);
			bsSaveArray(out, em->sources, em->sourceCount, sizeof(double));
		}
	}
	bsBytes_EndSection(out, mark);
}

// An array kept beside each particle's tangential springs, BS_CONTACT_SPRINGS elements of `size`
// bytes (whole floats) a particle, as the loader fills it: 'ROLL' the rolling springs (epsd2), 'BOND'
// the bonds' ages (sintered bonds).
typedef struct bsBeside
{
	char tag[5];
	const char* what;  // one element, in messages
	void* slot;        // the world's array (a pointer to it)
	size_t* capacity;  // the particles it has room for
	size_t size;
} bsBeside;

static bsBeside bsBeside_Rolling(bsWorld* world)
{
	return (bsBeside){"ROLL", "rolling spring", &world->rolling, &world->rollingCapacity, sizeof(bsRollingSpring)};
}

static bsBeside bsBeside_Bonds(bsWorld* world)
{
	return (bsBeside){"BOND", "bond age", &world->bondAge, &world->bondCapacity, sizeof(float)};
}

// After 'CONT', the section `tag` of `array` (room for `capacity` particles, NULL without it): its
// count of particles (0 without it) and BS_CONTACT_SPRINGS elements of `size` bytes a particle, those
// after the end of its spring list written as 0.
static void bsSaveBeside(const bsWorld* world, const bsParticles* p, const char tag[4], const void* array,
	size_t capacity, size_t size, bsBytes* out)
{
	const uint8_t* data = array;
	size_t rows = data != NULL && world->springs != NULL ? p->count : 0;
	size_t row = BS_CONTACT_SPRINGS * size;
	uint64_t sized = bsBytes_BeginSizedSection(out, tag, 8 + (uint64_t)rows * row);
	bsBytes_PutU64(out, (uint64_t)rows);
	for (size_t i = 0; i < rows; ++i)
	{
		const bsContactSpring* list = world->springs + i * BS_CONTACT_SPRINGS;
		uint8_t kept[BS_CONTACT_SPRINGS * sizeof(bsRollingSpring)];  // the largest element
		memset(kept, 0, row);
		for (int k = 0; k < BS_CONTACT_SPRINGS && i < capacity && list[k].partner != UINT32_MAX; ++k)
		{
			memcpy(kept + k * size, data + (i * BS_CONTACT_SPRINGS + k) * size, size);
		}
		bsBytes_Put(out, kept, row);
	}
	bsBytes_EndSizedSection(out, sized);
}

static void bsSaveContacts(const bsWorld* world, const bsParticles* p, bsBytes* out)
{
	size_t calm = world->calm != NULL ? p->count : 0;
	bsBytes_PutU64(out, (uint64_t)calm);
	bsSaveArray(out, world->calm, calm, sizeof(uint32_t));
	size_t springs = world->springs != NULL ? p->count : 0;
	bsBytes_PutU64(out, (uint64_t)springs);
	for (size_t i = 0; i < springs; ++i)
	{
		// A list ends at its first free entry; what lies after it is never read, and is written as free.
		const bsContactSpring* list = world->springs + i * BS_CONTACT_SPRINGS;
		bsContactSpring row[BS_CONTACT_SPRINGS];
		bool ended = false;
		for (int k = 0; k < BS_CONTACT_SPRINGS; ++k)
		{
			ended = ended || list[k].partner == UINT32_MAX;
			row[k] = ended ? (bsContactSpring){UINT32_MAX, {0.0f, 0.0f, 0.0f}} : list[k];
		}
		bsBytes_Put(out, row, sizeof(row));
	}
	double cell = 0.0, maxRadius = 0.0;
	if (world->stuck != NULL)
	{
		bsStuckGrid_Shape(world->stuck, &cell, &maxRadius);
	}
	bsBytes_PutU32(out, world->stuck != NULL);
	bsBytes_PutF64(out, cell);
	bsBytes_PutF64(out, maxRadius);
}

bsResult bsWorld_SaveState(const bsWorld* world, const bsParticles* p, bsBytes* out)
{
	// bsWorld_CheckpointGap with the world's own interaction: a fluid world has its solver by now.
	if (world->fluid != NULL || bsWorld_HasDynamicBody(world) || world->wallAge != NULL)
	{
		return bs_errInvalidArgument;
	}
	size_t mark = bsBytes_BeginSection(out, "TIME");
	bsBytes_PutF64(out, world->time);
	bsBytes_Put(out, world->rng.s, sizeof(world->rng.s));
	bsBytes_EndSection(out, mark);
	uint64_t sized = bsBytes_BeginSizedSection(out, "PART", 8 + (uint64_t)p->count * bs_particleBytes);
	bsSaveParticles(p, out);
	bsBytes_EndSizedSection(out, sized);
	if (bsHasSpin(p))
	{
		bsSaveSpin(p, out);
	}
	if (p->species != NULL && p->count > 0)
	{
		bsSaveSpecies(p, out);
	}
	if (p->orientation != NULL && p->count > 0)
	{
		bsSaveOrientation(p, out);
	}
	mark = bsBytes_BeginSection(out, "EMIT");
	bsSaveEmitters(world, out);
	bsBytes_EndSection(out, mark);
	if (bsWorld_TrailCount(world) > 0)
	{
		bsSaveTrails(world, out);
	}
	uint64_t calm = world->calm != NULL ? p->count : 0, springs = world->springs != NULL ? p->count : 0;
	sized = bsBytes_BeginSizedSection(out, "CONT",
		8 + calm * sizeof(uint32_t) + 8 + springs * BS_CONTACT_SPRINGS * sizeof(bsContactSpring) + 4 + 8 + 8);
	bsSaveContacts(world, p, out);
	bsBytes_EndSizedSection(out, sized);
	bsSaveBeside(world, p, "ROLL", world->rolling, world->rollingCapacity, sizeof(bsRollingSpring), out);
	bsSaveBeside(world, p, "BOND", world->bondAge, world->bondCapacity, sizeof(float), out);
	mark = bsBytes_BeginSection(out, "BODY");
	bsResult r = bs_ok;
	if (world->bodies != NULL)
	{
		r = bsWorldBodies_SaveState(world->bodies, out);
	}
	else
	{
		bsBytes_PutU32(out, 0);
		bsBytes_PutU64(out, 0);
	}
	bsBytes_EndSection(out, mark);
	return r == bs_ok && out->failed ? bs_errOutOfMemory : r;
}

// The section's whole payload read, nothing left over, else the message.
static bool bsSectionDone(const bsByteReader* s, const char* tag, char* err, size_t errlen)
{
	if (s->failed)
	{
		snprintf(err, errlen, "section '%s' is cut short", tag);
		return false;
	}
	if (s->at != s->count)
	{
		snprintf(err, errlen, "section '%s' has %zu bytes more than its content", tag, s->count - s->at);
		return false;
	}
	return true;
}

// count elements of size bytes, when the section has them.
static bool bsLoadArray(bsByteReader* s, void* data, size_t count, size_t size)
{
	return count <= (s->count - s->at) / size && bsByteReader_Get(s, data, count * size);
}

static bool bsLoadTime(bsWorld* world, bsByteReader* s, char* err, size_t errlen)
{
	world->time = bsByteReader_F64(s);
	bsByteReader_Get(s, world->rng.s, sizeof(world->rng.s));
	if (!(world->time >= 0.0) || !isfinite(world->time))
	{
		snprintf(err, errlen, "section 'TIME': time %g is not a finite time >= 0", world->time);
		return false;
	}
	return bsSectionDone(s, "TIME", err, errlen);
}

static bool bsLoadEmitters(bsWorld* world, const bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint32_t emitters = bsByteReader_U32(s);
	if (emitters != (uint32_t)world->emitterCount)
	{
		snprintf(err, errlen, "section 'EMIT': %u emitters, not the config's %d", emitters, world->emitterCount);
		return false;
	}
	for (int e = 0; e < world->emitterCount; ++e)
	{
		uint64_t born = bsByteReader_U64(s), total = 0;
		if (bsEmitterDef_Count(&world->emitters[e].def, UINT64_MAX, &total) != bs_ok || born > total)
		{
			snprintf(err, errlen, "section 'EMIT': emitter %d has emitted %" PRIu64 ", more than its %" PRIu64, e,
				born, total);
			return false;
		}
		world->emitters[e].born = born;
	}
	uint64_t births = bsByteReader_U64(s);
	if (births > (s->count - s->at) / 24 || !BS_ARRAY_RESERVE(world->births, world->birthCapacity, (size_t)births))
	{
		snprintf(err, errlen, "section 'EMIT': %" PRIu64 " lifetimes: more than the bytes", births);
		return false;
	}
	for (uint64_t b = 0; b < births; ++b)
	{
		uint64_t first = bsByteReader_U64(s), count = bsByteReader_U64(s);
		double expires = bsByteReader_F64(s);
		if (first > p->count || count > p->count - first || isnan(expires))
		{
			snprintf(err, errlen, "section 'EMIT': lifetime %" PRIu64 " is not a run of the particles", b);
			return false;
		}
		world->births[world->birthCount++] = (bsBirth){(size_t)first, (size_t)count, expires};
	}
	uint64_t batches = bsByteReader_U64(s);
	if (batches > (s->count - s->at) / 16 || !BS_ARRAY_RESERVE(world->batches, world->batchCapacity, (size_t)batches))
	{
		snprintf(err, errlen, "section 'EMIT': %" PRIu64 " birth times: more than the bytes", batches);
		return false;
	}
	for (uint64_t b = 0; b < batches; ++b)
	{
		uint64_t first = bsByteReader_U64(s);
		double time = bsByteReader_F64(s);
		bool ordered = b == 0 || (first > world->batches[b - 1].first && time > world->batches[b - 1].time);
		if (first >= p->count || !ordered || !isfinite(time))
		{
			snprintf(err, errlen, "section 'EMIT': birth time %" PRIu64 " is out of order or range", b);
			return false;
		}
		world->batches[world->batchCount++] = (bsBornBatch){(size_t)first, time};
	}
	return bsSectionDone(s, "EMIT", err, errlen);
}

// The next section is tagged tag (for a section that is there only with some state: 'SPIN').
static bool bsByteReader_Next(const bsByteReader* r, const char tag[4])
{
	return !r->failed && r->count - r->at >= 4 && memcmp(r->data + r->at, tag, 4) == 0;
}

// Each trail's accumulators: no more slots than particles, each finite and >= 0.
static bool bsLoadTrails(bsWorld* world, const bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint32_t trails = bsByteReader_U32(s);
	if (trails != (uint32_t)bsWorld_TrailCount(world))
	{
		snprintf(err, errlen, "section 'TRAL': %u trail emitters, not the config's %d", trails, bsWorld_TrailCount(world));
		return false;
	}
	for (int e = 0; e < world->emitterCount; ++e)
	{
		bsWorldEmitter* em = world->emitters + e;
		if (em->def.shape.type != bs_emitterTrail)
		{
			continue;
		}
		uint64_t count = bsByteReader_U64(s);
		if (count > p->count || count > (s->count - s->at) / sizeof(double) ||
			!BS_ARRAY_RESERVE(em->sources, em->sourceCapacity, (size_t)count))
		{
			snprintf(err, errlen, "section 'TRAL': emitter %d: %" PRIu64 " sources for %zu particles, or more than "
				"the bytes or the memory", e, count, p->count);
			return false;
		}
		em->sourceCount = (size_t)count;
		bsLoadArray(s, em->sources, em->sourceCount, sizeof(double));
		for (size_t i = 0; i < em->sourceCount; ++i)
		{
			if (!(em->sources[i] >= 0.0) || !isfinite(em->sources[i]))
			{
				snprintf(err, errlen, "section 'TRAL': emitter %d: particle %zu's births %g are not a count >= 0", e,
					i, em->sources[i]);
				return false;
			}
		}
	}
	return bsSectionDone(s, "TRAL", err, errlen);
}

// 'TRAL' when the world has trail emitters (a file of a world without has none).
static bool bsLoadTrailSection(bsWorld* world, const bsParticles* p, bsByteReader* in, char* err, size_t errlen)
{
	bsByteReader s;
	if (!bsByteReader_Next(in, "TRAL") && bsWorld_TrailCount(world) == 0)
	{
		return true;
	}
	return bsByteReader_Section(in, "TRAL", &s, err, errlen) && bsLoadTrails(world, p, &s, err, errlen);
}

// Particle i with the spin passes bsParticleDef_Check, else the message names the section and the fault.
static bool bsCheckParticle(const bsParticles* p, size_t i, bsVec3 spin, const char* tag, char* err, size_t errlen)
{
	bsParticleDef def = {p->position[i], p->velocity[i], p->radius[i], p->state[i], spin};
	bsParticleFault fault = bsParticleDef_Check(&def);
	if (fault != bs_particleOk)
	{
		char why[160];
		bsParticleFault_Describe(fault, &def, why, sizeof(why));
		snprintf(err, errlen, "section '%s': particle %zu: %s", tag, i, why);
		return false;
	}
	return true;
}

static bool bsLoadParticles(bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint64_t count = bsByteReader_U64(s);
	if (p->count != 0 || count > (s->count - s->at) / bs_particleBytes || bsParticles_Reserve(p, (size_t)count) != bs_ok)
	{
		snprintf(err, errlen, "section 'PART': %" PRIu64 " particles: more than the bytes or the memory", count);
		return false;
	}
	size_t n = (size_t)count;
	bsLoadArray(s, p->position, n, sizeof(bsVec3));
	bsLoadArray(s, p->velocity, n, sizeof(bsVec3));
	bsLoadArray(s, p->radius, n, sizeof(double));
	bsLoadArray(s, p->state, n, sizeof(uint8_t));
	bsLoadArray(s, p->id, n, sizeof(uint32_t));
	for (size_t i = 0; i < n; ++i)
	{
		if (!bsCheckParticle(p, i, bsV3(0.0, 0.0, 0.0), "PART", err, errlen))
		{
			return false;
		}
	}
	p->count = n;
	return bsSectionDone(s, "PART", err, errlen);
}

static bool bsLoadSpin(bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint64_t count = bsByteReader_U64(s);
	if (count != p->count || count == 0 || count > (s->count - s->at) / sizeof(bsVec3) ||
		bsParticles_EnableSpin(p) != bs_ok)
	{
		snprintf(err, errlen, "section 'SPIN': %" PRIu64 " spins for %zu particles, or more than the bytes or the memory",
			count, p->count);
		return false;
	}
	for (size_t i = 0; i < p->count; ++i)
	{
		bsVec3 spin;
		bsByteReader_Get(s, &spin, sizeof(spin));
		if (!bsCheckParticle(p, i, spin, "SPIN", err, errlen))
		{
			return false;
		}
		bsParticles_SetSpin(p, i, spin);
	}
	return bsSectionDone(s, "SPIN", err, errlen);
}

// Any byte is a species the set can hold; whether the config has it is the caller's to check.
static bool bsLoadSpecies(bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint64_t count = bsByteReader_U64(s);
	if (count != p->count || count == 0 || count > s->count - s->at ||
		bsParticles_SetSpecies(p, 0, p->count, 1) != bs_ok)
	{
		snprintf(err, errlen, "section 'SPEC': %" PRIu64 " species for %zu particles, or more than the bytes or the memory",
			count, p->count);
		return false;
	}
	bsLoadArray(s, p->species, p->count, sizeof(uint8_t));
	return bsSectionDone(s, "SPEC", err, errlen);
}

// Each quaternion must be finite and of unit length (to 1e-9): anything else is a damaged file.
static bool bsLoadOrientation(bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint64_t count = bsByteReader_U64(s);
	if (count != p->count || count == 0 || count > (s->count - s->at) / sizeof(bsQuat) ||
		bsParticles_EnableOrientation(p) != bs_ok)
	{
		snprintf(err, errlen, "section 'ORNT': %" PRIu64 " orientations for %zu particles, or more than the bytes or the memory",
			count, p->count);
		return false;
	}
	bsLoadArray(s, p->orientation, p->count, sizeof(bsQuat));
	for (size_t i = 0; i < p->count; ++i)
	{
		double n = bsQuat_Dot(p->orientation[i], p->orientation[i]);
		if (!(fabs(n - 1.0) <= 1e-9))
		{
			snprintf(err, errlen, "section 'ORNT': particle %zu: the orientation is not a unit quaternion", i);
			return false;
		}
	}
	return bsSectionDone(s, "ORNT", err, errlen);
}

static bool bsLoadContacts(bsWorld* world, const bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	uint64_t calm = bsByteReader_U64(s);
	if (calm != 0 && calm != p->count)
	{
		snprintf(err, errlen, "section 'CONT': %" PRIu64 " sleep counts for %zu particles", calm, p->count);
		return false;
	}
	if (calm > 0)
	{
		world->restCapacity = (size_t)calm;
		if (!BS_ARRAY_RESIZE(world->restVelocity, (size_t)calm) || !BS_ARRAY_RESIZE(world->calm, (size_t)calm) ||
			!bsLoadArray(s, world->calm, (size_t)calm, sizeof(uint32_t)))
		{
			world->restCapacity = 0;
			snprintf(err, errlen, "section 'CONT': the sleep counts are cut short");
			return false;
		}
	}
	uint64_t springs = bsByteReader_U64(s);
	size_t row = BS_CONTACT_SPRINGS * sizeof(bsContactSpring);
	if ((springs != 0 && springs != p->count) || springs > (s->count - s->at) / row)
	{
		snprintf(err, errlen, "section 'CONT': %" PRIu64 " particles' springs for %zu particles", springs, p->count);
		return false;
	}
	if (springs > 0)
	{
		if (!bsArray_Reserve(&world->springs, &world->springCapacity, (size_t)springs, row))
		{
			snprintf(err, errlen, "section 'CONT': out of memory for the springs");
			return false;
		}
		bsLoadArray(s, world->springs, (size_t)springs * BS_CONTACT_SPRINGS, sizeof(bsContactSpring));
		for (size_t k = 0; k < (size_t)springs * BS_CONTACT_SPRINGS; ++k)
		{
			bsContactSpring c = world->springs[k];
			bool finite = isfinite(c.xi[0]) && isfinite(c.xi[1]) && isfinite(c.xi[2]);
			if ((c.partner != UINT32_MAX && c.partner >= p->count) || !finite)
			{
				snprintf(err, errlen, "section 'CONT': particle %zu's spring %zu: no particle or not finite",
					k / BS_CONTACT_SPRINGS, k % BS_CONTACT_SPRINGS);
				return false;
			}
		}
		for (size_t i = (size_t)springs; i < world->springCapacity; ++i)
		{
			world->springs[i * BS_CONTACT_SPRINGS].partner = UINT32_MAX;
		}
	}
	uint32_t stuck = bsByteReader_U32(s);
	double cell = bsByteReader_F64(s), maxRadius = bsByteReader_F64(s);
	if (stuck != (world->stuck != NULL) || (world->stuck != NULL && !bsStuckGrid_SetShape(world->stuck, cell, maxRadius)))
	{
		snprintf(err, errlen, "section 'CONT': the stuck particles' grid is not the config's");
		return false;
	}
	return bsSectionDone(s, "CONT", err, errlen);
}

static bool bsLoadBeside(bsWorld* world, const bsParticles* p, bsBeside a, bsByteReader* s, char* err,
	size_t errlen)
{
	uint64_t rows = bsByteReader_U64(s);
	size_t row = BS_CONTACT_SPRINGS * a.size;
	bool springs = world->springs != NULL && world->springCapacity >= p->count;
	if ((rows != 0 && (rows != p->count || !springs)) || rows > (s->count - s->at) / row)
	{
		snprintf(err, errlen, "section '%s': %" PRIu64 " particles' %ss for %zu particles%s", a.tag, rows, a.what,
			p->count, springs ? "" : " without tangential springs");
		return false;
	}
	if (rows > 0)
	{
		if (!bsArray_Reserve(a.slot, a.capacity, world->springCapacity, row))
		{
			snprintf(err, errlen, "section '%s': out of memory for the %ss", a.tag, a.what);
			return false;
		}
		float* data = *(float**)a.slot;
		memset(data, 0, *a.capacity * row);
		bsLoadArray(s, data, (size_t)rows * BS_CONTACT_SPRINGS, a.size);
		size_t floats = a.size / sizeof(float);
		for (size_t k = 0; k < (size_t)rows * BS_CONTACT_SPRINGS * floats; ++k)
		{
			if (!isfinite(data[k]))
			{
				snprintf(err, errlen, "section '%s': particle %zu's %s %zu is not finite", a.tag,
					k / floats / BS_CONTACT_SPRINGS, a.what, k / floats % BS_CONTACT_SPRINGS);
				return false;
			}
		}
	}
	return bsSectionDone(s, a.tag, err, errlen);
}

static bool bsLoadBodies(bsWorld* world, const bsParticles* p, bsByteReader* s, char* err, size_t errlen)
{
	char why[256];
	if (world->bodies != NULL ? !bsWorldBodies_LoadState(world, p, s, why, sizeof(why))
							  : (bsByteReader_U32(s) != 0 || bsByteReader_U64(s) != 0))
	{
		snprintf(err, errlen, "section 'BODY': %s", world->bodies != NULL ? why : "bodies, but the config has none");
		return false;
	}
	return bsSectionDone(s, "BODY", err, errlen);
}


bool bsWorld_LoadState(bsWorld* world, bsParticles* p, bsByteReader* in, char* err, size_t errlen)
{
	bsByteReader s;
	return bsByteReader_Section(in, "TIME", &s, err, errlen) && bsLoadTime(world, &s, err, errlen) &&
		bsByteReader_Section(in, "PART", &s, err, errlen) && bsLoadParticles(p, &s, err, errlen) &&
		(!bsByteReader_Next(in, "SPIN") ||
			(bsByteReader_Section(in, "SPIN", &s, err, errlen) && bsLoadSpin(p, &s, err, errlen))) &&
		(!bsByteReader_Next(in, "SPEC") ||
			(bsByteReader_Section(in, "SPEC", &s, err, errlen) && bsLoadSpecies(p, &s, err, errlen))) &&
		(!bsByteReader_Next(in, "ORNT") ||
			(bsByteReader_Section(in, "ORNT", &s, err, errlen) && bsLoadOrientation(p, &s, err, errlen))) &&
		bsByteReader_Section(in, "EMIT", &s, err, errlen) && bsLoadEmitters(world, p, &s, err, errlen) &&
		bsLoadTrailSection(world, p, in, err, errlen) &&
		bsByteReader_Section(in, "CONT", &s, err, errlen) && bsLoadContacts(world, p, &s, err, errlen) &&
		bsByteReader_Section(in, "ROLL", &s, err, errlen) &&
		bsLoadBeside(world, p, bsBeside_Rolling(world), &s, err, errlen) &&
		bsByteReader_Section(in, "BOND", &s, err, errlen) &&
		bsLoadBeside(world, p, bsBeside_Bonds(world), &s, err, errlen) &&
		bsByteReader_Section(in, "BODY", &s, err, errlen) && bsLoadBodies(world, p, &s, err, errlen);
}
