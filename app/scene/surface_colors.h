// surface_colors.h — particles.over_life's colours on render.surface "mesh": each vertex of the
// polygonized surface takes the blend of the particles' colours weighted by their share of the blob
// field there, S (1 - (d/R)^2)^2 for a component of radius R at distance d < R, as POV-Ray blends the
// components' textures of a blob. Colours are quantized to 1/255 a channel and gathered into a palette,
// so the mesh2's texture_list holds each distinct colour once.
#pragma once

#include "pov_writer.h"

#include "blobsim/surface.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct bsSurfaceColors
{
	float* palette;        // 4 a colour: red, green, blue, opacity
	uint32_t paletteCount;
	uint32_t* vertexColor; // each vertex's index into the palette
} bsSurfaceColors;

// The colours of mesh's vertices from the particles (ps->colors, not NULL; their components as the
// surface was built from). False when out of memory (*out then empty).
bool bsSurfaceColors_Build(const bsPovParticles* ps, const bsSurfaceMesh* mesh, bsSurfaceColors* out);

void bsSurfaceColors_Free(bsSurfaceColors* colors);
