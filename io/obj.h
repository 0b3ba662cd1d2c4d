// obj.h — a Wavefront OBJ loader for triangle environments that treats its input as hostile.
//
// Safe for untrusted input: every entry point here. The text is read in two passes (count, then
// allocate exactly and fill), so memory is bounded by the input (and by bsObjOptions); every limit is
// a real check that returns an error, never an assert(). No global state: the error goes to a
// caller-provided bsObjError, so parsing on several threads at once is fine.
//
// What is read
//   v x y z [w]      a vertex; w is parsed and checked but ignored.
//   v x y z r g b    a vertex with a colour (MeshLab, scanners): kept as written in colors (no range
//                    is imposed). Any other count of numbers is an error.
//   f a b c ...      a face; each vertex reference is v, v/vt, v//vn or v/vt/vn (forms may be mixed).
//                    Only v is used: vt and vn are checked to be non-zero integers that fit in 64 bits,
//                    but neither their range nor the vt/vn statements themselves are checked.
//                    Indices start at 1; negative ones count back from the last vertex defined so far
//                    (-1 is the latest). An index must name a vertex defined before the face (no
//                    forward references). Faces of n > 3 vertices are cut into n - 2 triangles by ear
//                    clipping on the polygon's best-fit (Newell) plane (polygon.h), which keeps the
//                    winding, covers concave and slightly non-planar polygons once, and gives a convex
//                    polygon the fan (v1 v2 v3), (v1 v3 v4), ... (v1 vn-1 vn).
//   o, g, usemtl     start a new group when the group key (below) changes.
//   l, p             ignored, counted (ignoredLines, ignoredPoints).
//   anything else    ignored, counted (ignoredStatements): vt, vn, vp, s, mtllib, and keywords OBJ does
//                    not define. Keywords are case-sensitive.
//
// Groups: each triangle belongs to one group, and each group can get its own material later. The
// parser keeps three names: the object (set by `o`), the group (set by `g`) and the material (set by
// `usemtl`). `o` also clears the group name; `usemtl` keeps its material across `o` and `g`. A
// statement with several names (`g a b`) joins them with one space; one with no name clears that
// name. The key of a triangle is
//     base = group name if set, else object name if set, else "default"
//     key  = base ":" material   when a material is set, else base
// Groups are unique by (base, material) and numbered in order of their first triangle; a group that
// would get no triangle (all dropped, or none at all) does not exist. `g default` is the same base as
// no name. Names may hold ':', so two groups can print alike ("a:b" with no material, and "a" with
// material "b"); they stay two groups.
//
// Lexical rules: a UTF-8 byte-order mark at the start is skipped (and not counted in columns); lines
// end in LF, CRLF or CR alone
// (old Mac files), mixed in any way; blanks are space, tab, VT and FF; `#` starts a comment
// anywhere, also right after a token; a backslash followed only by blanks up to the line break joins
// the next line to this one, everywhere (as in C, so also at the end of a comment). Tokens do not span
// a continuation. A NUL byte anywhere is an error. Numbers are decimal only: [+-] digits [. digits]
// [(e|E) [+-] digits], at least one mantissa digit, no hex, no nan/inf (an error), no digit separators;
// an overflow to infinity is an error, an underflow rounds to zero or a subnormal.
//
// Degenerate triangles (bsMakeTriangle says bs_errDegenerateTriangle, exactly as the collision core
// would) are dropped and counted in droppedDegenerate; a mesh with no triangle left is an error.
//
// Errors: bsObjError.message is "name:line:column: message" (the offending token, or the statement's
// keyword when the statement as a whole is at fault), "name:line: message" for a line too long, or
// "name: message" for the file as a whole. line is the first physical line of the
// statement (1-based); column the 1-based byte column of the offending token in the statement with
// each line continuation counted as one column (the space it stands for). Tokens are quoted with at
// most 40 bytes, bytes outside printable ASCII (and the backslash) as \xNN. When a file has several
// errors, the first one in the file is reported. The messages, and the bsResult returned:
//   name:L:C: malformed number 'T'                                        bs_errInvalidArgument
//   name:L:C: number out of range 'T'           (overflows a double)      bs_errNonFinite
//   name:L:C: non-finite number 'T'             (nan, inf, infinity)      bs_errNonFinite
//   name:L:C: vertex has N numbers 'T', expected 3 (x y z), 4 (x y z w) or 6 (x y z and an r g b
//             colour)                     (T: the numbers as written)  bs_errInvalidArgument
//   name:L:C: face has N vertices 'T', expected at least 3                bs_errInvalidArgument
//   name:L:C: malformed face vertex 'T' (expected v, v/vt, v//vn or v/vt/vn)   bs_errInvalidArgument
//   name:L:C: integer overflow in index 'T'     (beyond 64 bits)          bs_errInvalidArgument
//   name:L:C: vertex index 0 is invalid (indices start at 1)              bs_errInvalidArgument
//   name:L:C: texture coordinate index 0 is invalid (indices start at 1)  bs_errInvalidArgument
//   name:L:C: normal index 0 is invalid (indices start at 1)              bs_errInvalidArgument
//   name:L:C: vertex index I out of range (N vertices defined so far)     bs_errInvalidArgument
//   name:L:C: NUL byte in text                                            bs_errInvalidArgument
//   name:L: line longer than N bytes                                      bs_errTooLarge
//   name:L:C: more than N vertices | triangles | groups                   bs_errTooLarge
//   name:L:C: more than N o, g and usemtl statements                      bs_errTooLarge
//   name:L:C: group names exceed N bytes in total                         bs_errTooLarge
//   name: no triangles [(all N dropped as degenerate)]                    bs_errInvalidArgument
//   name: out of memory                                                   bs_errOutOfMemory
//   name: invalid argument                      (mesh NULL, text NULL with a length)
//   path: cannot open: <strerror> | cannot read: <strerror> | not a regular file   (bsObj_Load)
//   path: file too large                        (bigger than memory can address)   bs_errTooLarge
// (base.h has no parse or I/O code: bs_errInvalidArgument stands for both.)
#pragma once

#include "blobsim/base.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bsObjOptions
{
	size_t maxLineBytes;    // one statement, continuations included, line break excluded (1 MiB)
	uint32_t maxVertices;   // (UINT32_MAX)
	uint32_t maxTriangles;  // counted before degenerates are dropped (UINT32_MAX)
	uint32_t maxGroups;     // (UINT32_MAX)
	size_t maxNameBytes;    // all group names together, terminating NULs included (64 MiB)
} bsObjOptions;

// The defaults above. A field left 0 in options passed to bsObj_ParseWithOptions also means its default.
bsObjOptions bsDefaultObjOptions(void);

typedef struct bsObjError
{
	uint64_t line;       // 1-based, 0 when the error is not about a line
	uint64_t column;     // 1-based byte column, 0 when none
	char message[512];   // "" on success; truncated if longer
} bsObjError;

typedef struct bsObjGroup
{
	char* name;  // the group key (see above), NUL-terminated
} bsObjGroup;

typedef struct bsObjMesh
{
	bsVec3* vertices;           // every `v`, in order (also those no face uses)
	bsVec3* colors;             // per vertex: its r g b as written, (1, 1, 1) for one without; NULL
	                            // when no `v` has a colour
	uint32_t vertexCount;
	uint32_t coloredVertexCount; // `v` statements with a colour
	uint32_t (*triangles)[3];   // 0-based vertex indices, in the file's winding
	uint32_t* triangleGroup;    // per triangle: index into groups
	uint32_t triangleCount;
	bsObjGroup* groups;
	uint32_t groupCount;
	uint32_t droppedDegenerate; // zero-area triangles dropped
	uint64_t ignoredLines;      // `l` statements
	uint64_t ignoredPoints;     // `p` statements
	uint64_t ignoredStatements; // every other statement skipped (vt, vn, s, mtllib, unknown, ...)
} bsObjMesh;

// Parses `length` bytes of OBJ text (need not be NUL-terminated; a NUL inside is an error). `name`
// prefixes the messages (NULL: "<obj>"). On success *mesh owns its arrays (free with bsObj_Free); on
// failure *mesh is all zero and *error (when not NULL) says why. *mesh is overwritten, not freed.
bsResult bsObj_Parse(const char* text, size_t length, const char* name, bsObjMesh* mesh,
	bsObjError* error);

// The same with limits (options NULL: bsDefaultObjOptions()).
bsResult bsObj_ParseWithOptions(const char* text, size_t length, const char* name,
	const bsObjOptions* options, bsObjMesh* mesh, bsObjError* error);

// Reads a regular file and parses it, naming it by `path` in messages. A file that cannot be opened or
// read fails with "path: cannot open: <strerror>" or "path: cannot read: <strerror>" (a directory:
// "cannot read: Is a directory"); any other kind of file with "path: not a regular file".
bsResult bsObj_Load(const char* path, bsObjMesh* mesh, bsObjError* error);

// Frees the arrays and zeroes *mesh. Safe on a zeroed mesh and on NULL.
void bsObj_Free(bsObjMesh* mesh);
