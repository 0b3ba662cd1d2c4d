// test_obj.c — the OBJ loader: every error with its exact message, well-formed inputs of every kind,
// a %.17g round trip, files, random mutations (for the sanitizer build) and the parsing speed.
#include "test.h"

#include "array.h"
#include "obj.h"
#include "blobsim/rng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// The mesh's triangles for the collision core; every one must succeed for a parsed mesh (the parser
// dropped the degenerate ones with the same test).
static bsResult MeshTriangles(const bsObjMesh* m, bsTriangle* out)
{
	for (uint32_t i = 0; i < m->triangleCount; ++i)
	{
		const uint32_t* t = m->triangles[i];
		bsResult r = bsMakeTriangle(m->vertices[t[0]], m->vertices[t[1]], m->vertices[t[2]], out + i);
		if (r != bs_ok)
		{
			return r;
		}
	}
	return bs_ok;
}

static double Now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// A growable text buffer for generated OBJ files.
typedef struct Text
{
	char* data;
	size_t length;
	size_t capacity;
} Text;

static int Text_Append(Text* t, const char* s, size_t n)
{
	if (!BS_ARRAY_RESERVE(t->data, t->capacity, t->length + n + 1))
	{
		return 1;
	}
	memcpy(t->data + t->length, s, n);
	t->length += n;
	t->data[t->length] = '\0';
	return 0;
}

static int Text_Puts(Text* t, const char* s)
{
	return Text_Append(t, s, strlen(s));
}

// --- (a) malformed inputs ---

enum
{
	optDefault,
	optVertices2,
	optTriangles2,
	optGroups2,
	optNames8,
	optLine16,
	optCount
};

typedef struct BadCase
{
	const char* text;
	size_t length;
	int options;
	bsResult result;
	const char* message;
} BadCase;

#define TXT(s) s, sizeof(s) - 1
#define V3 "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
#define REF "(expected v, v/vt, v//vn or v/vt/vn)"
#define XYZ "expected 3 (x y z), 4 (x y z w) or 6 (x y z and an r g b colour)"

static const BadCase badCases[] = {
	// numbers
	{TXT("v 1.0 abc 2\n"), optDefault, bs_errInvalidArgument, "t.obj:1:7: malformed number 'abc'"},
	{TXT("v 1.0.0 1 2\n"), optDefault, bs_errInvalidArgument, "t.obj:1:3: malformed number '1.0.0'"},
	{TXT("v 0 0 0\nv 1e999 0 0\n"), optDefault, bs_errNonFinite,
		"t.obj:2:3: number out of range '1e999'"},
	{TXT("v -2.5e308 0 0\n"), optDefault, bs_errNonFinite, "t.obj:1:3: number out of range '-2.5e308'"},
	{TXT("v 1e99999999999999999999 0 0\n"), optDefault, bs_errNonFinite,
		"t.obj:1:3: number out of range '1e99999999999999999999'"},
	{TXT("v nan 0 0\n"), optDefault, bs_errNonFinite, "t.obj:1:3: non-finite number 'nan'"},
	{TXT("v 0 -inf 0\n"), optDefault, bs_errNonFinite, "t.obj:1:5: non-finite number '-inf'"},
	{TXT("v 0 0 Infinity\n"), optDefault, bs_errNonFinite, "t.obj:1:7: non-finite number 'Infinity'"},
	{TXT("v 0x10 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:1:3: malformed number '0x10'"},
	{TXT("v 1e 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:1:3: malformed number '1e'"},
	{TXT("v 1.5e+ 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:1:3: malformed number '1.5e+'"},
	{TXT("v . 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:1:3: malformed number '.'"},
	{TXT("v 1 2 \x01\n"), optDefault, bs_errInvalidArgument, "t.obj:1:7: malformed number '\\x01'"},
	{TXT("v 1 2 3 \\ 4\n"), optDefault, bs_errInvalidArgument, "t.obj:1:9: malformed number '\\x5c'"},
	{TXT("v 0 0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"), optDefault,
		bs_errInvalidArgument, "t.obj:1:7: malformed number 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"},
	// vertex and face arity
	{TXT("v 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:1:1: vertex has 2 numbers '1 2', " XYZ},
	{TXT("v 1 2 3 4 5\n"), optDefault, bs_errInvalidArgument,
		"t.obj:1:1: vertex has 5 numbers '1 2 3 4 5', " XYZ},
	{TXT("v 0 0 0\n  v 1 2 3 0.5 0.5 0.5 1 # rgba\n"), optDefault, bs_errInvalidArgument,
		"t.obj:2:3: vertex has 7 numbers '1 2 3 0.5 0.5 0.5 1', " XYZ},
	{TXT("v\n"), optDefault, bs_errInvalidArgument, "t.obj:1:1: vertex has 0 numbers, " XYZ},
	{TXT(V3 "f 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:1: face has 2 vertices '1 2', expected at least 3"},
	{TXT("f\n"), optDefault, bs_errInvalidArgument, "t.obj:1:1: face has 0 vertices, expected at least 3"},
	// face vertices
	{TXT(V3 "f 1 2 x\n"), optDefault, bs_errInvalidArgument, "t.obj:4:7: malformed face vertex 'x' " REF},
	{TXT(V3 "f 1/ 2 3\n"), optDefault, bs_errInvalidArgument, "t.obj:4:3: malformed face vertex '1/' " REF},
	{TXT(V3 "f 1/2/3/4 2 3\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: malformed face vertex '1/2/3/4' " REF},
	{TXT(V3 "f 1.0 2 3\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: malformed face vertex '1.0' " REF},
	{TXT(V3 "f 99999999999999999999 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: integer overflow in index '99999999999999999999'"},
	{TXT(V3 "f 1 2/9223372036854775808 3\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:5: integer overflow in index '2/9223372036854775808'"},
	{TXT(V3 "f 9223372036854775807 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: vertex index 9223372036854775807 out of range (3 vertices defined so far)"},
	{TXT(V3 "f 0 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: vertex index 0 is invalid (indices start at 1)"},
	{TXT(V3 "f 1/0/1 2/1/1 3/1/1\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: texture coordinate index 0 is invalid (indices start at 1)"},
	{TXT(V3 "f 1//1 2//0 3//1\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:8: normal index 0 is invalid (indices start at 1)"},
	{TXT(V3 "f 1 2 4\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:7: vertex index 4 out of range (3 vertices defined so far)"},
	{TXT(V3 "f -4 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj:4:3: vertex index -4 out of range (3 vertices defined so far)"},
	{TXT("v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n"), optDefault, bs_errInvalidArgument,
		"t.obj:2:5: vertex index 2 out of range (1 vertex defined so far)"},
	{TXT("f 1 2 3\n"), optDefault, bs_errInvalidArgument,
		"t.obj:1:3: vertex index 1 out of range (0 vertices defined so far)"},
	// empty meshes
	{TXT(""), optDefault, bs_errInvalidArgument, "t.obj: no triangles"},
	{TXT(V3 "# no faces\n"), optDefault, bs_errInvalidArgument, "t.obj: no triangles"},
	{TXT("v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 1 2\n"), optDefault, bs_errInvalidArgument,
		"t.obj: no triangles (all 2 dropped as degenerate)"},
	// NUL bytes
	{TXT("v 0 0 0\nv 1\0 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:2:4: NUL byte in text"},
	{TXT("# ab\0c\n"), optDefault, bs_errInvalidArgument, "t.obj:1:5: NUL byte in text"},
	{TXT(V3 "f 1 2 3\nvn 0 0\0 1\n"), optDefault, bs_errInvalidArgument, "t.obj:5:7: NUL byte in text"},
	// line structure: the statement's first line, columns across continuations, CRLF
	{TXT("v 1 \\\n 2 \\\n abc\n"), optDefault, bs_errInvalidArgument, "t.obj:1:11: malformed number 'abc'"},
	{TXT("v 1 \\\n2 3\nv x 0 0\n"), optDefault, bs_errInvalidArgument, "t.obj:3:3: malformed number 'x'"},
	{TXT("v 0 0 0\r\nv 1 x 0\r\n"), optDefault, bs_errInvalidArgument, "t.obj:2:5: malformed number 'x'"},
	// the first error in the file wins, although the counting pass stops at a later one
	{TXT("v 0 0 x\nv 0 0 0\n\0\n"), optDefault, bs_errInvalidArgument, "t.obj:1:7: malformed number 'x'"},
	{TXT("v 0 0 0 9 9\nv 0 0 y\n"), optDefault, bs_errInvalidArgument,
		"t.obj:1:1: vertex has 5 numbers '0 0 0 9 9', " XYZ},
	// limits
	{TXT(V3 "f 1 2 3\n"), optVertices2, bs_errTooLarge, "t.obj:3:1: more than 2 vertices"},
	{TXT("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0.5 0\nf 1 2 3 4 5\n"), optTriangles2, bs_errTooLarge,
		"t.obj:6:1: more than 2 triangles"},
	{TXT(V3 "g a\nf 1 2 3\ng b\nf 1 2 3\ng c\nf 1 2 3\n"), optGroups2, bs_errTooLarge,
		"t.obj:9:1: more than 2 groups"},
	{TXT(V3 "g abc\nf 1 2 3\ng defgh\nf 1 2 3\n"), optNames8, bs_errTooLarge,
		"t.obj:7:1: group names exceed 8 bytes in total"},
	{TXT("v 0 0 0\n# this comment is long\n"), optLine16, bs_errTooLarge,
		"t.obj:2: line longer than 16 bytes"},
	{TXT("v 0 0 0 \\\n       \n"), optLine16, bs_errTooLarge, "t.obj:1: line longer than 16 bytes"},
	// arguments
	{NULL, 5, optDefault, bs_errInvalidArgument, "t.obj: invalid argument"},
};

static bsObjOptions TestOptions(int which)
{
	bsObjOptions o = {0};  // 0: the default
	switch (which)
	{
		case optVertices2:
			o.maxVertices = 2;
			break;
		case optTriangles2:
			o.maxTriangles = 2;
			break;
		case optGroups2:
			o.maxGroups = 2;
			break;
		case optNames8:
			o.maxNameBytes = 8;
			break;
		case optLine16:
			o.maxLineBytes = 16;
			break;
		default:
			break;
	}
	return o;
}

static int ExpectError(const char* text, size_t length, const bsObjOptions* options, bsResult result,
	const char* message)
{
	bsObjMesh mesh;
	bsObjError error;
	memset(&mesh, 0xab, sizeof(mesh));
	bsResult r = bsObj_ParseWithOptions(text, length, "t.obj", options, &mesh, &error);
	if (r != result || strcmp(error.message, message) != 0)
	{
		fprintf(stderr, "expected %d \"%s\"\n     got %d \"%s\"\n", (int)result, message, (int)r,
			error.message);
		return 1;
	}
	ENSURE(mesh.vertices == NULL && mesh.triangles == NULL && mesh.groups == NULL);
	ENSURE(mesh.triangleCount == 0 && mesh.vertexCount == 0 && mesh.groupCount == 0);
	return 0;
}

static int MalformedTest(void)
{
	int count = (int)(sizeof(badCases) / sizeof(badCases[0]));
	ENSURE(count >= 20);
	for (int i = 0; i < count; ++i)
	{
		const BadCase* c = badCases + i;
		bsObjOptions o = TestOptions(c->options);
		if (ExpectError(c->text, c->length, &o, c->result, c->message) != 0)
		{
			fprintf(stderr, "  in malformed case %d\n", i);
			return 1;
		}
	}

	// A line of exactly 1 MiB passes, one byte more fails (the default limit).
	Text t = {0};
	ENSURE(Text_Puts(&t, V3 "f 1 2 3\n") == 0);
	size_t start = t.length;
	ENSURE(Text_Puts(&t, "#") == 0);
	while (t.length - start < ((size_t)1 << 20))
	{
		ENSURE(Text_Puts(&t, "x") == 0);
	}
	ENSURE(Text_Puts(&t, "x\r\n") == 0);  // 1 MiB + 1 bytes; CRLF is one line break
	RUN_SUBTEST(ExpectError(t.data, t.length, NULL, bs_errTooLarge,
		"t.obj:5: line longer than 1048576 bytes"));
	t.length -= 3;
	ENSURE(Text_Puts(&t, "\r\n") == 0);
	bsObjMesh mesh;
	bsObjError error;
	ENSURE(bsObj_Parse(t.data, t.length, "t.obj", &mesh, &error) == bs_ok);
	ENSURE(mesh.triangleCount == 1 && error.message[0] == '\0');
	bsObj_Free(&mesh);
	free(t.data);

	// No mesh, no error struct.
	ENSURE(bsObj_Parse("v 0 0 0\n", 8, "t.obj", NULL, &error) == bs_errInvalidArgument);
	ENSURE(strcmp(error.message, "t.obj: invalid argument") == 0);
	ENSURE(bsObj_Parse("v 0 0 0\n", 8, NULL, &mesh, NULL) == bs_errInvalidArgument);
	ENSURE(bsObj_Parse("f 1 1 1\n", 8, NULL, &mesh, &error) == bs_errInvalidArgument);
	ENSURE(strcmp(error.message,
		"<obj>:1:3: vertex index 1 out of range (0 vertices defined so far)") == 0);
	ENSURE(error.line == 1 && error.column == 3);
	return 0;
}

// --- (b) well-formed inputs ---

static int Parse(const char* text, bsObjMesh* mesh)
{
	bsObjError error;
	bsResult r = bsObj_Parse(text, strlen(text), "t.obj", mesh, &error);
	if (r != bs_ok)
	{
		fprintf(stderr, "unexpected error: %s\n", error.message);
		return 1;
	}
	ENSURE(error.message[0] == '\0' && error.line == 0);
	return 0;
}

static int TriangleIs(const bsObjMesh* mesh, uint32_t i, uint32_t a, uint32_t b, uint32_t c)
{
	ENSURE(i < mesh->triangleCount);
	ENSURE(mesh->triangles[i][0] == a && mesh->triangles[i][1] == b && mesh->triangles[i][2] == c);
	return 0;
}

static int FaceFormsTest(void)
{
	bsObjMesh m;
	RUN_SUBTEST(Parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
		"vt 0 0\nvt 1 0\nvn 0 0 1\n"
		"f 1 2 3\n"
		"f 1/1 2/2 3/3\n"
		"f 1//1 2//1 3//1\n"
		"f 2/1/1 4/2/1 3/3/1\n"
		"f +1 2/+1 -2//-1\n",  // mixed forms, explicit signs
		&m));
	ENSURE(m.vertexCount == 4 && m.triangleCount == 5 && m.groupCount == 1);
	RUN_SUBTEST(TriangleIs(&m, 0, 0, 1, 2));
	RUN_SUBTEST(TriangleIs(&m, 1, 0, 1, 2));
	RUN_SUBTEST(TriangleIs(&m, 2, 0, 1, 2));
	RUN_SUBTEST(TriangleIs(&m, 3, 1, 3, 2));
	RUN_SUBTEST(TriangleIs(&m, 4, 0, 1, 2));
	ENSURE(strcmp(m.groups[0].name, "default") == 0);
	ENSURE(m.ignoredStatements == 3 && m.droppedDegenerate == 0);
	bsObj_Free(&m);
	ENSURE(m.vertices == NULL && m.triangleCount == 0);
	bsObj_Free(&m);  // twice is fine
	bsObj_Free(NULL);

	// Negative indices count back from the latest vertex at that line.
	RUN_SUBTEST(Parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"
		"v 5 5 5\nv 6 5 5\nv 5 6 5\nf -3 -2 -1\nf -1 -6 -5\n",
		&m));
	ENSURE(m.vertexCount == 6 && m.triangleCount == 3);
	RUN_SUBTEST(TriangleIs(&m, 0, 0, 1, 2));
	RUN_SUBTEST(TriangleIs(&m, 1, 3, 4, 5));
	RUN_SUBTEST(TriangleIs(&m, 2, 5, 0, 1));
	bsObj_Free(&m);

	// An n-gon is a fan around its first vertex, winding kept: a convex hexagon, clockwise.
	RUN_SUBTEST(Parse("v 0 0 0\nv 0 1 0\nv 1 2 0\nv 2 1 0\nv 2 0 0\nv 1 -1 0\nf 1 2 3 4 5 6\n", &m));
	ENSURE(m.triangleCount == 4);
	for (uint32_t i = 0; i < 4; ++i)
	{
		RUN_SUBTEST(TriangleIs(&m, i, 0, i + 1, i + 2));
	}
	bsTriangle tris[4];
	ENSURE(MeshTriangles(&m, tris) == bs_ok);
	for (int i = 0; i < 4; ++i)
	{
		ENSURE(tris[i].n.z == -1.0);  // clockwise seen from +z
	}
	bsObj_Free(&m);
	return 0;
}

static int GroupsTest(void)
{
	bsObjMesh m;
	RUN_SUBTEST(Parse(V3
		"f 1 2 3\n"                    // 0 default
		"usemtl red\nf 1 2 3\n"        // 1 default:red
		"o chair\nf 1 2 3\n"           // 2 chair:red
		"g leg\nf 1 2 3\n"             // 3 leg:red
		"g  leg\t back \nf 1 2 3\n"    // 4 leg back:red
		"usemtl\nf 1 2 3\n"            // 5 leg back
		"o table\nf 1 2 3\n"           // 6 table (o clears the group)
		"g\nf 1 2 3\n"                 // table again
		"g empty\ng leg\nusemtl red\nf 1 2 3\n"  // leg:red again; "empty" never gets a triangle
		"o\ng\nf 1 2 3\n"              // default:red again (usemtl outlives o and g)
		"g x\nv 0 0 1\nf 1 1 2\n"      // x: only a degenerate triangle, so no group
		"usemtl a:b\nf 1 2 4\n",       // 7 x:a:b
		&m));
	static const char* names[] = {"default", "default:red", "chair:red", "leg:red", "leg back:red",
		"leg back", "table", "x:a:b"};
	static const uint32_t groupOf[] = {0, 1, 2, 3, 4, 5, 6, 6, 3, 1, 7};
	ENSURE(m.groupCount == 8);
	for (uint32_t i = 0; i < 8; ++i)
	{
		ENSURE(strcmp(m.groups[i].name, names[i]) == 0);
	}
	ENSURE(m.triangleCount == 11 && m.droppedDegenerate == 1);
	for (uint32_t i = 0; i < 11; ++i)
	{
		ENSURE(m.triangleGroup[i] == groupOf[i]);
	}
	bsObj_Free(&m);

	// `g default` is the default group; a ':' in a name can make two groups print alike.
	RUN_SUBTEST(Parse(V3 "f 1 2 3\ng default\nf 1 2 3\ng a:b\nf 1 2 3\ng a\nusemtl b\nf 1 2 3\n", &m));
	ENSURE(m.groupCount == 3 && m.triangleCount == 4);
	ENSURE(strcmp(m.groups[0].name, "default") == 0);
	ENSURE(strcmp(m.groups[1].name, "a:b") == 0 && strcmp(m.groups[2].name, "a:b") == 0);
	ENSURE(m.triangleGroup[0] == 0 && m.triangleGroup[1] == 0);
	ENSURE(m.triangleGroup[2] == 1 && m.triangleGroup[3] == 2);
	bsObj_Free(&m);
	return 0;
}

static int LexicalTest(void)
{
	bsObjMesh m;
	// CRLF, tabs, leading and trailing blanks, blank lines, comments everywhere, w, continuations
	// (also CRLF ones and one ending a comment, which swallows the next line), no final line break.
	RUN_SUBTEST(Parse("# a header\r\n"
		"\r\n"
		"   \t\r\n"
		"mtllib scene.mtl\r\n"
		"  v\t0 0 0   \r\n"
		"v 1 0 0 1.0# w, then a comment\r\n"
		"v 0 1 \\\r\n"
		"  0\r\n"
		"# this comment continues \\\n"
		"v 9 9 9\n"
		"s off\n"
		"vn 0 0 1\n"
		"f 1 2 \\\n 3#comment\n"
		"l 1 2\nl 2 3 1\np 1\n"
		"unknown statement \\\n with a continued tail\n"
		"\\\n"
		"f\t1 \\  \n 2   3 \t",
		&m));
	ENSURE(m.vertexCount == 3 && m.triangleCount == 2);
	ENSURE(m.vertices[1].x == 1.0 && m.vertices[1].y == 0.0 && m.vertices[1].z == 0.0);
	ENSURE(m.vertices[2].x == 0.0 && m.vertices[2].y == 1.0 && m.vertices[2].z == 0.0);
	RUN_SUBTEST(TriangleIs(&m, 0, 0, 1, 2));
	RUN_SUBTEST(TriangleIs(&m, 1, 0, 1, 2));
	ENSURE(m.ignoredLines == 2 && m.ignoredPoints == 1);
	ENSURE(m.ignoredStatements == 4);  // mtllib, s, vn, unknown
	bsObj_Free(&m);

	// Numbers: every spelling of the grammar, the fast path and strtod's, exact.
	RUN_SUBTEST(Parse("v 1e-5 .5 5.\n"
		"v -0 +3 1E+2\n"
		"v 0.1 -0.000001 123456789012345678901234\n"
		"v 1e-400 4.9406564584124654e-324 -1.7976931348623157e308\n"
		"v 0.30000000000000004 9007199254740993 00012.50e-0001\n"
		"v 0e999999 2.2250738585072014e-308 1234567890123456789012e-30\n"
		V3 "f 7 8 9\n",
		&m));
	ENSURE(m.vertexCount == 9 && m.triangleCount == 1);
	const bsVec3* v = m.vertices;
	ENSURE(v[0].x == 1e-5 && v[0].y == 0.5 && v[0].z == 5.0);
	ENSURE(v[1].x == 0.0 && signbit(v[1].x) && v[1].y == 3.0 && v[1].z == 100.0);
	ENSURE(v[2].x == 0.1 && v[2].y == -0.000001 && v[2].z == 123456789012345678901234.0);
	ENSURE(v[3].x == 0.0 && !signbit(v[3].x) && v[3].y == 4.9406564584124654e-324);
	ENSURE(v[3].z == -1.7976931348623157e308);
	ENSURE(v[4].x == 0.30000000000000004 && v[4].y == 9007199254740992.0 && v[4].z == 1.25);
	ENSURE(v[5].x == 0.0 && v[5].y == 2.2250738585072014e-308 && v[5].z == 1234567890123456789012e-30);
	bsObj_Free(&m);

	// Numbers longer than strtod's stack copy: 0.(299 zeros)25 and 1(300 zeros).0.
	Text t = {0};
	ENSURE(Text_Puts(&t, "v 0.") == 0);
	for (int i = 0; i < 299; ++i)
	{
		ENSURE(Text_Puts(&t, "0") == 0);
	}
	ENSURE(Text_Puts(&t, "25 1") == 0);
	for (int i = 0; i < 300; ++i)
	{
		ENSURE(Text_Puts(&t, "0") == 0);
	}
	ENSURE(Text_Puts(&t, ".0 0\n" V3 "f 2 3 4\n") == 0);
	RUN_SUBTEST(Parse(t.data, &m));
	ENSURE(m.vertices[0].x == 2.5e-300 && m.vertices[0].y == 1e300 && m.vertices[0].z == 0.0);
	bsObj_Free(&m);
	free(t.data);
	return 0;
}

static int DegenerateTest(void)
{
	bsObjMesh m;
	// Coincident, collinear, a sliver far below bsMakeTriangle's 1e-14 and one so large the area
	// overflows: all dropped; a quad with a repeated vertex keeps its good half.
	RUN_SUBTEST(Parse("v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nv 0.5 1e-16 0\nv 1e300 0 0\nv 0 1e300 0\n"
		"f 1 1 1\nf 1 2 3\nf 1 2 5\nf 1 6 7\n"
		"f 1 2 2 4\n"
		"f 1 2 4\n",
		&m));
	ENSURE(m.triangleCount == 2 && m.droppedDegenerate == 5);
	RUN_SUBTEST(TriangleIs(&m, 0, 0, 1, 3));
	RUN_SUBTEST(TriangleIs(&m, 1, 0, 1, 3));
	bsTriangle t[2];
	ENSURE(MeshTriangles(&m, t) == bs_ok);
	bsObj_Free(&m);
	return 0;
}

// --- (c) round trip ---

static double RandomDouble(bsRng* rng)
{
	switch (bsRng_Below(rng, 4))
	{
		case 0:
			return bsRng_Range(rng, -1.0, 1.0);
		case 1:
			return (double)((int)bsRng_Below(rng, 2001) - 1000);
		case 2:
			return bsRng_Range(rng, -1.0, 1.0) * pow(10.0, bsRng_Range(rng, -30.0, 30.0));
		default:
			for (;;)
			{
				uint64_t bits = bsRng_Next(rng);
				double d;
				memcpy(&d, &bits, sizeof(d));
				if (isfinite(d))
				{
					return d;  // anything: subnormals, -0, 1e308
				}
			}
	}
}

static int RoundTripTest(void)
{
	bsRng rng = bsMakeRng(20240601);
	for (int round = 0; round < 20; ++round)
	{
		uint32_t vertexCount = 3 + bsRng_Below(&rng, 400);
		uint32_t faceCount = 1 + bsRng_Below(&rng, 800);
		bsVec3* verts = malloc(vertexCount * sizeof(bsVec3));
		uint32_t(*expected)[3] = malloc(faceCount * sizeof(*expected));
		ENSURE(verts != NULL && expected != NULL);
		Text t = {0};
		char line[256];
		for (uint32_t i = 0; i < vertexCount; ++i)
		{
			verts[i] = bsV3(RandomDouble(&rng), RandomDouble(&rng), RandomDouble(&rng));
			snprintf(line, sizeof(line), "v %.17g %.17g %.17g\n", verts[i].x, verts[i].y, verts[i].z);
			ENSURE(Text_Puts(&t, line) == 0);
		}
		uint32_t kept = 0, dropped = 0;
		for (uint32_t f = 0; f < faceCount; ++f)
		{
			ENSURE(Text_Puts(&t, "f") == 0);
			uint32_t idx[3];
			for (int k = 0; k < 3; ++k)
			{
				idx[k] = bsRng_Below(&rng, vertexCount);
				int64_t written = bsRng_Below(&rng, 2) ? (int64_t)idx[k] + 1
					: (int64_t)idx[k] - (int64_t)vertexCount;
				switch (bsRng_Below(&rng, 4))
				{
					case 0:
						snprintf(line, sizeof(line), " %lld", (long long)written);
						break;
					case 1:
						snprintf(line, sizeof(line), " %lld/%u", (long long)written, 1 + bsRng_Below(&rng, 9));
						break;
					case 2:
						snprintf(line, sizeof(line), " %lld//-%u", (long long)written, 1 + bsRng_Below(&rng, 9));
						break;
					default:
						snprintf(line, sizeof(line), " %lld/7/8", (long long)written);
						break;
				}
				ENSURE(Text_Puts(&t, line) == 0);
			}
			ENSURE(Text_Puts(&t, "\n") == 0);
			bsTriangle tri;
			if (bsMakeTriangle(verts[idx[0]], verts[idx[1]], verts[idx[2]], &tri) == bs_ok)
			{
				memcpy(expected[kept++], idx, sizeof(idx));
			}
			else
			{
				++dropped;
			}
		}
		bsObjMesh m;
		bsObjError error;
		bsResult r = bsObj_Parse(t.data, t.length, "round.obj", &m, &error);
		if (kept == 0)
		{
			ENSURE(r == bs_errInvalidArgument);
		}
		else
		{
			if (r != bs_ok)
			{
				fprintf(stderr, "%s\n", error.message);
			}
			ENSURE(r == bs_ok);
			ENSURE(m.vertexCount == vertexCount && m.triangleCount == kept && m.droppedDegenerate == dropped);
			ENSURE(memcmp(m.vertices, verts, vertexCount * sizeof(bsVec3)) == 0);  // bit for bit
			ENSURE(memcmp(m.triangles, expected, kept * sizeof(*expected)) == 0);
			bsObj_Free(&m);
		}
		free(t.data);
		free(verts);
		free(expected);
	}
	return 0;
}

// --- (d) files ---

static int LoadTest(void)
{
	bsObjMesh m;
	bsObjError error;
	char expected[600];

	const char* missing = "/nonexistent-blobsim-dir/scene.obj";
	ENSURE(bsObj_Load(missing, &m, &error) == bs_errInvalidArgument);
	snprintf(expected, sizeof(expected), "%s: cannot open: %s", missing, strerror(ENOENT));
	ENSURE(strcmp(error.message, expected) == 0);
	ENSURE(strcmp(error.message,
		"/nonexistent-blobsim-dir/scene.obj: cannot open: No such file or directory") == 0);
	ENSURE(m.vertices == NULL && m.triangleCount == 0);

	ENSURE(bsObj_Load("/", &m, &error) == bs_errInvalidArgument);
	snprintf(expected, sizeof(expected), "/: cannot read: %s", strerror(EISDIR));
	ENSURE(strcmp(error.message, expected) == 0);
	ENSURE(strcmp(error.message, "/: cannot read: Is a directory") == 0);

	ENSURE(bsObj_Load("/dev/null", &m, &error) == bs_errInvalidArgument);
	ENSURE(strcmp(error.message, "/dev/null: not a regular file") == 0);

	ENSURE(bsObj_Load("/etc/passwd/scene.obj", &m, &error) == bs_errInvalidArgument);
	snprintf(expected, sizeof(expected), "/etc/passwd/scene.obj: cannot open: %s", strerror(ENOTDIR));
	ENSURE(strcmp(error.message, expected) == 0);

	// A real file: its path names the errors.
	char path[] = "/tmp/blobsim-obj-XXXXXX";
	int fd = mkstemp(path);
	ENSURE(fd >= 0);
	const char* text = V3 "f 1 2 3\nf 1 2 4\n";
	ENSURE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ENSURE(bsObj_Load(path, &m, &error) == bs_errInvalidArgument);
	snprintf(expected, sizeof(expected), "%s:5:7: vertex index 4 out of range (3 vertices defined so far)",
		path);
	ENSURE(strcmp(error.message, expected) == 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	ENSURE(fd >= 0);
	text = V3 "f 1 2 3\n";
	ENSURE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ENSURE(bsObj_Load(path, &m, &error) == bs_ok);
	ENSURE(m.vertexCount == 3 && m.triangleCount == 1 && error.message[0] == '\0');
	bsObj_Free(&m);
	if (geteuid() != 0)  // root reads it anyway
	{
		ENSURE(chmod(path, 0) == 0);
		ENSURE(bsObj_Load(path, &m, &error) == bs_errInvalidArgument);
		snprintf(expected, sizeof(expected), "%s: cannot open: %s", path, strerror(EACCES));
		ENSURE(strcmp(error.message, expected) == 0);
	}
	unlink(path);
	return 0;
}

// --- random mutations: whatever the bytes, a mesh whose every index is valid, or a message ---

static int CheckMesh(const bsObjMesh* m)
{
	ENSURE(m->triangleCount > 0 && m->groupCount > 0);
	for (uint32_t i = 0; i < m->vertexCount; ++i)
	{
		ENSURE(bsIsValidVec3(m->vertices[i]));
	}
	for (uint32_t i = 0; i < m->triangleCount; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			ENSURE(m->triangles[i][k] < m->vertexCount);
		}
		ENSURE(m->triangleGroup[i] < m->groupCount);
	}
	for (uint32_t g = 0; g < m->groupCount; ++g)
	{
		ENSURE(m->groups[g].name != NULL && m->groups[g].name[0] != '\0');
	}
	return 0;
}

static int MutationTest(void)
{
	static const char seed[] = "# seed\nmtllib a.mtl\no thing\nv 0 0 0\nv 1 0 0\nv 0 1 0 1\nv 1 1 0\n"
		"vt 0 0\nvn 0 0 1\ng side\nusemtl red\nf 1/1/1 2/1/1 3/1/1\nf -1 -2 -3 1\n"
		"g other\nf 1//1 \\\n 2//1 4//1\nl 1 2\np 3\n";
	static const char alphabet[] = "0123456789/-+.eE \t\r\n\\#\0vfgou";
	bsRng rng = bsMakeRng(7);
	char buffer[512];
	int ok = 0;
	for (int round = 0; round < 30000; ++round)
	{
		size_t n = sizeof(seed) - 1;
		memcpy(buffer, seed, n);
		int edits = 1 + (int)bsRng_Below(&rng, 6);
		for (int e = 0; e < edits; ++e)
		{
			size_t at = bsRng_Below(&rng, (uint32_t)n);
			char c = bsRng_Below(&rng, 4) == 0 ? (char)bsRng_Below(&rng, 256)
				: alphabet[bsRng_Below(&rng, sizeof(alphabet) - 1)];
			switch (bsRng_Below(&rng, 3))
			{
				case 0:
					buffer[at] = c;
					break;
				case 1:
					if (n + 1 < sizeof(buffer))
					{
						memmove(buffer + at + 1, buffer + at, n - at);
						buffer[at] = c;
						++n;
					}
					break;
				default:
					memmove(buffer + at, buffer + at + 1, n - at - 1);
					--n;
					break;
			}
		}
		// Exact-size heap copy, so the sanitizer sees any read past the end.
		char* text = malloc(n > 0 ? n : 1);
		ENSURE(text != NULL);
		memcpy(text, buffer, n);
		bsObjMesh m;
		bsObjError error;
		bsObjOptions o = {0};
		o.maxLineBytes = 40 + bsRng_Below(&rng, 40);
		bsResult r = bsObj_ParseWithOptions(text, n, "m.obj", &o, &m, &error);
		free(text);
		if (r == bs_ok)
		{
			RUN_SUBTEST(CheckMesh(&m));
			bsObj_Free(&m);
			++ok;
		}
		else
		{
			ENSURE(strncmp(error.message, "m.obj:", 6) == 0 && strlen(error.message) > 8);
			ENSURE(m.vertices == NULL && m.triangles == NULL);
		}
	}
	ENSURE(ok > 100);  // the mutations do not all break the file
	return 0;
}

// --- (e) speed: a 1000 x 1000 vertex heightfield, 2 x 999^2 triangles, printed like exporters do ---

static int SpeedTest(void)
{
	const int n = 1000;
	Text t = {0};
	char line[128];
	bsRng rng = bsMakeRng(3);
	ENSURE(Text_Puts(&t, "# generated heightfield\no ground\nusemtl dirt\n") == 0);
	for (int j = 0; j < n; ++j)
	{
		for (int i = 0; i < n; ++i)
		{
			double x = (double)i / (double)(n - 1), z = (double)j / (double)(n - 1);
			snprintf(line, sizeof(line), "v %.6f %.6f %.6f\n", x, bsRng_Range(&rng, -0.1, 0.1), z);
			ENSURE(Text_Puts(&t, line) == 0);
		}
	}
	for (int j = 0; j + 1 < n; ++j)
	{
		for (int i = 0; i + 1 < n; ++i)
		{
			int a = j * n + i + 1, b = a + 1, c = a + n, d = c + 1;
			snprintf(line, sizeof(line), "f %d %d %d\nf %d %d %d\n", a, c, b, b, c, d);
			ENSURE(Text_Puts(&t, line) == 0);
		}
	}
	double best = 1e30;
	for (int run = 0; run < 3; ++run)
	{
		bsObjMesh m;
		bsObjError error;
		double t0 = Now();
		bsResult r = bsObj_Parse(t.data, t.length, "speed.obj", &m, &error);
		double t1 = Now();
		ENSURE(r == bs_ok);
		ENSURE(m.vertexCount == (uint32_t)(n * n));
		ENSURE(m.triangleCount == (uint32_t)(2 * (n - 1) * (n - 1)) && m.groupCount == 1);
		ENSURE(strcmp(m.groups[0].name, "ground:dirt") == 0);
		bsObj_Free(&m);
		best = t1 - t0 < best ? t1 - t0 : best;
	}
	printf("  obj: %.1f MB parsed in %.3f s (best of 3): %.0f MB/s (1M vertices, 2M triangles)\n",
		(double)t.length * 1e-6, best, (double)t.length * 1e-6 / best);
	free(t.data);
	return 0;
}

// --- (d) files as the world writes them ---

// A byte-order mark, CR-only and mixed line endings, vertex colours.
static int QuirksTest(void)
{
	bsObjMesh m;
	// The BOM is skipped: the first vertex is kept (it used to be an unknown statement).
	RUN_SUBTEST(Parse("\xef\xbb\xbfv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &m));
	ENSURE(m.vertexCount == 3 && m.triangleCount == 1 && m.ignoredStatements == 0);
	RUN_SUBTEST(TriangleIs(&m, 0, 0, 1, 2));
	bsObj_Free(&m);
	ENSURE(ExpectError(TXT("\xef\xbb\xbfv 0 x 0\n"), NULL, bs_errInvalidArgument,
		"t.obj:1:5: malformed number 'x'") == 0);

	// Old-Mac CR-only line endings, and LF, CR and CRLF mixed, a continuation ending in CR.
	RUN_SUBTEST(Parse("# cr\rv 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r", &m));
	ENSURE(m.vertexCount == 3 && m.triangleCount == 1);
	bsObj_Free(&m);
	RUN_SUBTEST(Parse("v 0 0 0\r\nv 1 0 \\\r0\rv 0 1 0\n\r\nf 1 2 3", &m));
	ENSURE(m.vertexCount == 3 && m.triangleCount == 1 && m.vertices[1].x == 1.0);
	bsObj_Free(&m);
	ENSURE(ExpectError(TXT("v 0 0 0\rv 0 0 0\r\n\rv 1 x 0\r"), NULL, bs_errInvalidArgument,
		"t.obj:4:5: malformed number 'x'") == 0);

	// Vertex colours (MeshLab, scanners): kept per vertex, white for a vertex without.
	RUN_SUBTEST(Parse("v 0 0 0 1 0 0\nv 1 0 0 0 0.5 0\nv 0 1 0\nf 1 2 3\n", &m));
	ENSURE(m.vertexCount == 3 && m.triangleCount == 1 && m.coloredVertexCount == 2);
	ENSURE(m.colors != NULL && m.vertices[1].x == 1.0 && m.vertices[1].y == 0.0);
	ENSURE(m.colors[0].x == 1.0 && m.colors[0].y == 0.0 && m.colors[1].y == 0.5);
	ENSURE(m.colors[2].x == 1.0 && m.colors[2].y == 1.0 && m.colors[2].z == 1.0);
	bsObj_Free(&m);
	RUN_SUBTEST(Parse(V3 "f 1 2 3\n", &m));
	ENSURE(m.colors == NULL && m.coloredVertexCount == 0);
	bsObj_Free(&m);
	return 0;
}

// The total area of a mesh's triangles, and whether each faces along n.
static double TriangleArea(const bsObjMesh* m, bsVec3 n, int* flipped)
{
	double area = 0.0;
	for (uint32_t i = 0; i < m->triangleCount; ++i)
	{
		const uint32_t* t = m->triangles[i];
		bsVec3 a = m->vertices[t[0]];
		bsVec3 c = bsCross(bsSub(m->vertices[t[1]], a), bsSub(m->vertices[t[2]], a));
		area += 0.5 * bsLength(c);
		*flipped += bsDot(c, n) < 0.0;
	}
	return area;
}

// The polygon (x[i], y[i], z[i]) turned into a tilted plane, written as one face starting at corner
// `start`; its triangles must cover its area (shoelace of x, y) once, each facing the same way.
static int PolygonArea(const double* x, const double* y, const double* z, int n, int start,
	double tolerance)
{
	double shoelace = 0.0;
	for (int i = 0; i < n; ++i)
	{
		int j = (i + 1) % n;
		shoelace += 0.5 * (x[i] * y[j] - x[j] * y[i]);
	}
	// An orthonormal frame tilted off every axis: e1, e2 span the plane, e3 its normal.
	bsVec3 e1 = bsNormalize(bsV3(0.8, 0.3, -0.2));
	bsVec3 e3 = bsNormalize(bsCross(e1, bsV3(0.1, 0.9, 0.4)));
	bsVec3 e2 = bsCross(e3, e1);
	Text t = {0};
	char line[200];
	for (int i = 0; i < n; ++i)
	{
		bsVec3 p = bsAdd(bsAdd(bsScale(x[i], e1), bsScale(y[i], e2)), bsScale(z[i], e3));
		snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", p.x + 10.0, p.y - 3.0, p.z);
		ENSURE(Text_Puts(&t, line) == 0);
	}
	ENSURE(Text_Puts(&t, "f") == 0);
	for (int i = 0; i < n; ++i)
	{
		snprintf(line, sizeof line, " %d", (start + i) % n + 1);
		ENSURE(Text_Puts(&t, line) == 0);
	}
	ENSURE(Text_Puts(&t, "\n") == 0);
	bsObjMesh m;
	int failed = Parse(t.data, &m);
	free(t.data);
	ENSURE(failed == 0);
	int flipped = 0;
	double area = TriangleArea(&m, shoelace > 0.0 ? e3 : bsNeg(e3), &flipped);
	uint32_t triangles = m.triangleCount + m.droppedDegenerate;
	bsObj_Free(&m);
	if (!(fabs(area - fabs(shoelace)) <= tolerance * fabs(shoelace)) || flipped != 0)
	{
		fprintf(stderr, "  %d-gon from corner %d: triangles cover %.17g, the polygon %.17g, %d flipped\n",
			n, start + 1, area, fabs(shoelace), flipped);
		return 1;
	}
	ENSURE(triangles == (uint32_t)n - 2);
	return 0;
}

// n-gons are cut into triangles that cover them once: concave ones (where a fan around the first
// corner covers area outside), slightly non-planar ones, from every starting corner, both windings.
static int PolygonTest(void)
{
	// A chevron (hexagon, reflex at (2, 1)) and a U-shaped footprint (8-gon, two reflex corners).
	static const double hx[] = {0, 2, 4, 4, 2, 0}, hy[] = {0, 1, 0, 3, 4, 3};
	static const double ux[] = {0, 6, 6, 4, 4, 2, 2, 0}, uy[] = {0, 0, 4, 4, 2, 2, 4, 4};
	// A comb: 12 corners, 4 reflex; a building outline with a collinear corner on an edge.
	static const double cx[] = {0, 8, 8, 7, 7, 5, 5, 3, 3, 1, 1, 0};
	static const double cy[] = {0, 0, 5, 5, 1, 1, 5, 5, 1, 1, 5, 5};
	static const double bx[] = {0, 3, 6, 6, 2, 2, 0}, by[] = {0, 0, 0, 2, 2, 6, 6};
	static const double flat[12] = {0};
	static const double bumpy[12] = {0.004, -0.003, 0.005, -0.004, 0.002, -0.005, 0.003, -0.002,
		0.001, -0.004, 0.005, -0.001};
	double rx[12], ry[12];
	for (int start = 0; start < 12; ++start)
	{
		RUN_SUBTEST(PolygonArea(hx, hy, flat, 6, start % 6, 1e-12));
		RUN_SUBTEST(PolygonArea(ux, uy, flat, 8, start % 8, 1e-12));
		RUN_SUBTEST(PolygonArea(cx, cy, flat, 12, start, 1e-12));
		RUN_SUBTEST(PolygonArea(bx, by, flat, 7, start % 7, 1e-12));
		RUN_SUBTEST(PolygonArea(ux, uy, bumpy, 8, start % 8, 1e-4));
		RUN_SUBTEST(PolygonArea(cx, cy, bumpy, 12, start, 1e-4));
		for (int i = 0; i < 12; ++i)  // the other winding
		{
			rx[i] = cx[11 - i];
			ry[i] = cy[11 - i];
		}
		RUN_SUBTEST(PolygonArea(rx, ry, bumpy, 12, start, 1e-4));
	}
	// A square with a square hole, joined by a bridge (corners repeated): 100 - 16.
	static const double qx[] = {0, 10, 10, 0, 0, 3, 3, 7, 7, 3};
	static const double qy[] = {0, 0, 10, 10, 0, 3, 7, 7, 3, 3};
	RUN_SUBTEST(PolygonArea(qx, qy, flat, 10, 0, 1e-12));

	// A zigzag ring of 6000 corners (3000 reflex): more work than a face may spend, so the end of it
	// is cut as a fan; still n - 2 triangles whose signed areas sum to the polygon's.
	Text zig = {0};
	char line[200];
	double shoelace = 0.0;
	for (int i = 0; i < 6000; ++i)
	{
		double r = i % 2 == 0 ? 10.0 : 9.0, a = 2.0 * BS_PI * i / 6000.0;
		double r2 = (i + 1) % 2 == 0 ? 10.0 : 9.0, a2 = 2.0 * BS_PI * (i + 1) / 6000.0;
		shoelace += 0.5 * (r * cos(a) * r2 * sin(a2) - r2 * cos(a2) * r * sin(a));
		snprintf(line, sizeof line, "v %.17g %.17g 0\n", r * cos(a), r * sin(a));
		ENSURE(Text_Puts(&zig, line) == 0);
	}
	ENSURE(Text_Puts(&zig, "f") == 0);
	for (int i = 0; i < 6000; ++i)
	{
		snprintf(line, sizeof line, " %d", i + 1);
		ENSURE(Text_Puts(&zig, line) == 0);
	}
	bsObjMesh ring;
	int failed = Parse(zig.data, &ring);
	free(zig.data);
	ENSURE(failed == 0);
	double ringArea = 0.0;
	for (uint32_t i = 0; i < ring.triangleCount; ++i)
	{
		const uint32_t* k = ring.triangles[i];
		bsVec3 a = ring.vertices[k[0]];
		ringArea += 0.5 * bsCross(bsSub(ring.vertices[k[1]], a), bsSub(ring.vertices[k[2]], a)).z;
	}
	uint32_t ringTriangles = ring.triangleCount + ring.droppedDegenerate;
	bsObj_Free(&ring);
	ENSURE(ringTriangles == 5998 && fabs(ringArea - shoelace) <= 1e-9 * shoelace);

	// A self-intersecting bow tie: cut without new vertices, its triangles' signed areas still sum
	// to the polygon's (zero: the lobes turn opposite ways).
	bsObjMesh m;
	RUN_SUBTEST(Parse("v 0 0 0\nv 2 2 0\nv 2 0 0\nv 0 2 0\nf 1 2 3 4\n", &m));
	ENSURE(m.triangleCount + m.droppedDegenerate == 2);
	double signedArea = 0.0;
	for (uint32_t i = 0; i < m.triangleCount; ++i)
	{
		const uint32_t* t = m.triangles[i];
		bsVec3 a = m.vertices[t[0]];
		signedArea += bsCross(bsSub(m.vertices[t[1]], a), bsSub(m.vertices[t[2]], a)).z;
	}
	ENSURE(signedArea == 0.0);
	bsObj_Free(&m);
	return 0;
}

int ObjTest(void)
{
	RUN_SUBTEST(MalformedTest());
	RUN_SUBTEST(FaceFormsTest());
	RUN_SUBTEST(GroupsTest());
	RUN_SUBTEST(LexicalTest());
	RUN_SUBTEST(DegenerateTest());
	RUN_SUBTEST(QuirksTest());
	RUN_SUBTEST(PolygonTest());
	RUN_SUBTEST(RoundTripTest());
	RUN_SUBTEST(LoadTest());
	RUN_SUBTEST(MutationTest());
	RUN_SUBTEST(SpeedTest());
	return 0;
}
