// fuzz_ply.c — libFuzzer target for bsPly_Parse (PLY bytes from memory, io/ply.h).
//
// On success the result's invariants are checked (particles NULL exactly when count is 0, only known
// field bits, finite values, radii >= 0,
// states that are bsParticleStates); on failure the output must be zeroed and the message
// set. The particles are freed by the caller, as the header says.
#include "ply.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void bsFuzzCheck(int ok)
{
	if (!ok)
	{
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	bsPlyData out;
	char message[256];
	message[0] = '\0';
	bool ok = bsPly_Parse(data, size, "fuzz.ply", &out, message, sizeof message);
	bsFuzzCheck(memchr(message, '\0', sizeof message) != NULL);
	if (!ok)
	{
		bsFuzzCheck(out.particles == NULL && out.count == 0 && out.fields == 0);
		bsFuzzCheck(message[0] != '\0');
		return 0;
	}
	bsFuzzCheck((out.count == 0) == (out.particles == NULL));
	bsFuzzCheck((out.fields & ~(unsigned)(bs_plyHasRadius | bs_plyHasVelocity | bs_plyHasState)) == 0);
	for (size_t i = 0; i < out.count; ++i)
	{
		const bsPlyParticle* q = &out.particles[i];
		bsFuzzCheck(isfinite(q->position.x) && isfinite(q->position.y) && isfinite(q->position.z));
		bsFuzzCheck(isfinite(q->velocity.x) && isfinite(q->velocity.y) && isfinite(q->velocity.z));
		bsFuzzCheck(isfinite(q->radius) && q->radius >= 0.0);
		bsFuzzCheck(q->state < bs_particleStateCount);
	}
	free(out.particles);
	return 0;
}
