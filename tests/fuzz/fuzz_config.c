// fuzz_config.c — libFuzzer target for bsConfig_Parse (JSON config text, app/config/config.h; uses cJSON).
//
// The path is a fixed fake one: bsConfig_Parse only joins relative paths to its directory, it opens
// no file (only bsConfig_Load does). On success (the parse also hashed the whole tree for
// config.hash) a few invariants the header promises are checked; on failure the config must be all
// zero and the message set.
#include "config.h"

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
	bsConfig config;
	bsConfigError error;
	bsResult result = bsConfig_Parse((const char*)data, size, "fuzz/c.json", &config, &error);
	bsFuzzCheck(memchr(error.message, '\0', sizeof error.message) != NULL);
	if (result != bs_ok)
	{
		static const bsConfig zero;
		bsFuzzCheck(memcmp(&config, &zero, sizeof config) == 0);
		bsFuzzCheck(error.message[0] != '\0');
		bsConfig_Free(&config);
		return 0;
	}
	bsFuzzCheck(config.environment.meshCount + config.environment.planeCount >= 1);
	bsFuzzCheck(config.particles.particleCount >= 0
		&& config.particles.particleCount <= BS_CONFIG_MAX_PARTICLES);
	bsFuzzCheck(config.particles.radius > 0.0);
	for (int i = 0; i < config.environment.meshCount; ++i)
	{
		bsFuzzCheck(config.environment.meshes[i].file != NULL);
		bsFuzzCheck(config.environment.meshes[i].material.texture != NULL);
	}
	for (int i = 0; i < config.environment.planeCount; ++i)
	{
		bsFuzzCheck(config.environment.planes[i].material.texture != NULL);
	}
	bsFuzzCheck(config.render.particleMaterial.texture != NULL);
	bsFuzzCheck(config.output.directory != NULL);
	bsConfig_Free(&config);
	return 0;
}
