// checkpoint.h — a world's whole state between two steps, as bytes, and back (`blobsim run --resume`).
//
// A checkpoint is the state a run needs to go on exactly as if it had never stopped: the time, the
// emitters' random stream and progress, the lifetimes, every particle array, the birth times (ages),
// the sleep counts, the tangential springs (contact histories), with rotation the particles' spins and
// the rolling springs (epsd2), the stuck collider's cell, and the moving bodies' kept shapes and the
// particles stuck to them. What the world rebuilds from these
// every step (the neighbour grid, the Morton order, the stuck grid's spheres, the bodies' poses at a
// time) is not kept. Restored into a world made from the same settings (the same config: the caller
// checks that with its own hash), the next steps give the same bytes as the uninterrupted run, at any
// thread count.
//
// The bytes are a sequence of sections, each a 4-letter tag, its length and its payload, written in a
// fixed order for a given world; arrays are written as the machine holds them (little-endian, IEEE
// doubles: bsCheckpoint_Begin writes a marker that the reader checks). The reader treats its input as
// hostile: every count is checked against the bytes there, every particle passes bsParticleDef_Check,
// every index is checked against its range, and a wrong or missing section is an error that names it.
//
// Adding a kind of state (as the spins' 'SPIN', the rolling springs' 'ROLL', the bond ages' 'BOND'
// and the orientations' 'ORNT' were) is a section of its own: a tag, one save and one load in checkpoint.c, in the same place of
// the order; bump BS_CHECKPOINT_VERSION.
#pragma once

#include "blobsim/base.h"
#include "blobsim/particles.h"
#include "blobsim/step.h"
#include "blobsim/world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_CHECKPOINT_MAGIC "blobsim checkpoint\n"  // the file's first bytes (19)
#define BS_CHECKPOINT_VERSION 4u  // 2: the spins ('SPIN') and the rolling springs ('ROLL'); 3: species ('SPEC') and the bond ages ('BOND'); 4: the orientations ('ORNT')

// A growable byte buffer. A failed allocation makes it `failed` (sticky) and every later put a no-op.
// With a sink, it streams: once it holds flushAt bytes (0: 1 MiB) and no back-patched section is open,
// its bytes go to the sink and it starts again empty, so a checkpoint of millions of particles is never
// held in memory whole; a sink that returns false makes it failed.
typedef struct bsBytes
{
	uint8_t* data;
	size_t count, capacity;
	bool failed;
	bool (*sink)(void* context, const void* data, size_t n);  // NULL: everything stays in data
	void* context;
	size_t flushAt;
	uint64_t flushed;  // bytes handed to the sink
	uint64_t hash;     // FNV-1a 64 of those bytes (from bsCheckpoint_Begin on)
	int open;          // back-patched sections open (no flush meanwhile)
} bsBytes;

void bsBytes_Put(bsBytes* b, const void* data, size_t n);
void bsBytes_PutU32(bsBytes* b, uint32_t v);
void bsBytes_PutU64(bsBytes* b, uint64_t v);
void bsBytes_PutF64(bsBytes* b, double v);
void bsBytes_Free(bsBytes* b);

// Starts a section tagged `tag` (4 letters); its length is filled in by bsBytes_EndSection(mark)
// (the section stays in memory until then: for small sections).
size_t bsBytes_BeginSection(bsBytes* b, const char tag[4]);
void bsBytes_EndSection(bsBytes* b, size_t mark);

// The same for a section whose length is known before it is written (a large one, which may stream):
// bsBytes_EndSizedSection(mark) checks that exactly `length` bytes came (else the buffer fails).
uint64_t bsBytes_BeginSizedSection(bsBytes* b, const char tag[4], uint64_t length);
void bsBytes_EndSizedSection(bsBytes* b, uint64_t mark);

// Hands what the buffer holds to its sink (none: nothing).
void bsBytes_Flush(bsBytes* b);

// Reads bytes in order. A read past the end fails (sticky), returns zeros and sets `failed`.
typedef struct bsByteReader
{
	const uint8_t* data;
	size_t count, at;
	bool failed;
} bsByteReader;

bool bsByteReader_Get(bsByteReader* r, void* out, size_t n);
uint32_t bsByteReader_U32(bsByteReader* r);
uint64_t bsByteReader_U64(bsByteReader* r);
double bsByteReader_F64(bsByteReader* r);

// The next section, which must be tagged `tag`: its payload as a reader of its own. False, with
// "section 'TAG': ..." (missing, another tag, longer than the bytes left) in err.
bool bsByteReader_Section(bsByteReader* r, const char tag[4], bsByteReader* section, char* err, size_t errlen);

// The checkpoint's frame: the magic, the version, the byte-order marker and the caller's hash of its
// settings (bsCheckpoint_Begin); then the caller's sections; then bsCheckpoint_End, which adds a last
// section 'END ' holding the FNV-1a 64 of every byte before it, and flushes a streaming buffer.
void bsCheckpoint_Begin(bsBytes* b, uint64_t settingsHash);
void bsCheckpoint_End(bsBytes* b);

// Checks the frame of n bytes (magic, version, byte order, the final hash: a truncated or altered
// checkpoint fails here) and opens a reader over the sections between. *settingsHash is the caller's
// hash as written. False with the reason in err.
bool bsCheckpoint_Open(const uint8_t* data, size_t n, bsByteReader* sections, uint64_t* settingsHash, char* err,
	size_t errlen);

// NULL when a checkpoint of this world, stepped with def, holds all of its state; else what it cannot
// hold yet ("the dynamic bodies' rigid states", ...), for the caller's message.
const char* bsWorld_CheckpointGap(const bsWorld* world, const bsStepDef* def);

// Appends the world's and the particles' state as sections. bs_errInvalidArgument when
// bsWorld_CheckpointGap names something, bs_errOutOfMemory.
bsResult bsWorld_SaveState(const bsWorld* world, const bsParticles* particles, bsBytes* out);

// Reads the sections bsWorld_SaveState wrote into a world made from the same settings (its colliders,
// emitters and bodies added, no step taken) and an empty particle set. False with the reason in err
// ("section 'PART': particle 12: radius -1 is not positive"); the world and the particles are then
// to be destroyed, not stepped.
bool bsWorld_LoadState(bsWorld* world, bsParticles* particles, bsByteReader* in, char* err, size_t errlen);
