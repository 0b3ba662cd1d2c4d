// surface_file.h — a blob surface mesh (surface.h) as a POV-Ray include file (mesh2) and as Wavefront
// OBJ, through bsAtomicFile (complete or not replaced; part of a deferred group when one is open).
//
// The POV-Ray include holds one mesh2 with vertex_vectors, normal_vectors (one per vertex, so POV-Ray
// takes face_indices for them too: smooth shading from the field's gradient) and face_indices, and the
// particles' texture. Numbers are fixed-point with a given number of decimals and no redundant
// characters ("-.0123", "2", "<.5,0,1.25>"): POV-Ray parses text, and the mesh's parse time grows with
// its bytes. The OBJ file keeps the leading zero ("-0.0123"), which every OBJ reader takes. A vertex quantized to 10^-d moves by at most 0.87 10^-d; the caller picks d from the grid
// spacing (docs/rendering.md). An empty mesh writes a comment only (POV-Ray rejects a mesh2 without
// triangles).
#pragma once

#include "blobsim/surface.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct bsSurfaceFileDef
{
	const bsSurfaceMesh* mesh;
	const char* material;    // POV-Ray text inside texture { }; NULL: grey
	int positionDecimals;    // 0 .. 9
	int normalDecimals;      // 1 .. 9
	const char* comment;     // one line for the file's header (e.g. the settings); may be NULL
	// Vertex colours (POV-Ray only), or NULL: paletteCount colours of 4 floats (red, green, blue >= 0,
	// opacity 0..1) and each vertex's index into them. The material is then declared as
	// BlobsimSurfaceTexture and the mesh2's texture_list holds it once a colour, with the pigment
	// `rgbt <r, g, b, 1 - opacity>`, interpolated over each face.
	const float* palette;
	uint32_t paletteCount;
	const uint32_t* vertexColor;
} bsSurfaceFileDef;

bsSurfaceFileDef bsDefaultSurfaceFileDef(void);

// The fewest decimals d with 10^-d <= spacing * fraction (0 .. 9).
int bsSurfaceFile_Decimals(double spacing, double fraction);

// "x" with d decimals and trailing zeros dropped; out needs 32 bytes; returns the length. leadingZero
// false drops the "0" before the point too ("-.0123", for POV-Ray); true keeps it ("-0.0123"), as the
// OBJ file does: other OBJ readers miscount "-.0123" (assimp 5.2: "vertex index out of range").
size_t bsSurfaceFile_FormatFixed(char* out, double x, int decimals, bool leadingZero);

bool bsSurfaceFile_WritePov(const char* path, const bsSurfaceFileDef* def, char* errbuf, size_t errlen);

// OBJ: `v x y z`, `vn nx ny nz` (the same decimals, with a leading zero: "0.5", "-0.25") and
// `f a//a b//b c//c`, 1-based.
bool bsSurfaceFile_WriteObj(const char* path, const bsSurfaceFileDef* def, char* errbuf, size_t errlen);
