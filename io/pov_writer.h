// pov_writer.h — POV-Ray 3.7 scenes: the environment as mesh2 objects and planes, the particles as
// sphere components of blob objects, so that snow, slime or mud render as one smooth surface.
//
// A scene file holds, in this order: `#version 3.7;`, a comment header (blobsim version, counts),
// global_settings { assumed_gamma }, the camera, the light sources, the background, each mesh as a
// mesh2, each plane, then the particles as one or more `blob` objects. Numbers are printed as
// printf("%.9g") would in the "C" locale (bsPov_FormatDouble): 9 significant digits round-trip a float
// and keep a double to 1 part in 10^9 — far below a pixel — and the output never depends on the
// locale. Coordinates get more digits where 9 would round them by more than positionStep (1/2048 of
// the smallest particle radius: bsPov_FormatDoubleWithin), so a model at survey coordinates keeps
// its particles and mesh where they are. The same scene gives byte-identical files; the file is written through bsAtomicFile, so it
// is complete or not replaced.
//
// Blob components. A component of radius R and strength S adds S (1 - (d/R)^2)^2 to the field at
// distance d < R; the surface is where the field reaches the threshold T. A lone particle therefore
// renders as a sphere of radius R sqrt(1 - sqrt(T/S)); bsPov_BlobRadiusScale gives the radiusScale
// that makes this equal to the collision radius, and larger scales make neighbours merge sooner.
//
// Splitting. POV-Ray 3.7.0 refuses a blob of more than 1,000,000 components, and many smaller blobs
// render faster than one large one. When count > maxComponents (capped at half of POV-Ray's limit)
// the particles are cut by a k-d tree (median splits on the longest axis, ties by index:
// deterministic) until each leaf owns at most maxComponents; the leaves' cells tile the box of all
// components. Each tile is one blob holding every component whose sphere reaches its cell (its own
// and its neighbours'), clipped_by the cell. Fields of different blob objects do not add up, but
// inside each cell the tile's field is the whole field, so the clipped surfaces join without a seam
// (a 64-tile render of the snow figure matches the single blob to within 3 bytes of 1,440,000).
#pragma once

#include "blobsim/quat.h"
#include "blobsim/triangle.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum
{
	bs_povMaxBlobComponents = 1000000,  // POV-Ray 3.7.0's limit per blob
	bs_povNumberMax = 32,               // bytes a bsPov_FormatDouble output may need, with the NUL
};

// The fraction of the smallest particle radius by which a written position may be rounded at most
// (bsPovScene.positionStep's default): 2^-11, about 0.05% of the radius.
#define bs_povPositionFraction (1.0 / 2048.0)

typedef struct bsPovCamera
{
	bsVec3 location;
	bsVec3 lookAt;
	bsVec3 sky;         // the up direction look_at keeps vertical; the zero vector means <0,1,0>
	double angle;       // horizontal field of view, degrees, in (0, 180)
	int width, height;  // the image size the scene is meant for: `right x*width/height`, `up y`
	bool rightHanded;   // false: POV-Ray's left-handed `right x*W/H`; true: `right -x*W/H`, which
	                    // shows right-handed data (x right, y up, z towards the viewer) unmirrored
} bsPovCamera;

// Why POV-Ray cannot aim a camera from location at lookAt with sky up (the zero vector: <0,1,0>), or
// NULL when it can: the points coincide, their distance overflows, or the view direction is parallel
// to sky. The writer refuses such a camera; a config reader calls this to name its own key instead.
const char* bsPov_CameraViewProblem(bsVec3 location, bsVec3 lookAt, bsVec3 sky);

typedef struct bsPovLight
{
	bsVec3 location;
	bsVec3 color;  // rgb, linear (assumed_gamma 1.0)
} bsPovLight;

// A triangle mesh. Only the triangles' p1, p2, p3 are used (n and delta are ignored; POV-Ray computes
// its own normals). Vertices that are bit-for-bit equal (0.0 and -0.0 count as equal) are written
// once, in order of first use, so vertex_vectors is as small as the mesh's real vertex count.
typedef struct bsPovMesh
{
	const char* name;             // written as a comment above the mesh2; may be NULL
	const bsTriangle* triangles;
	size_t triangleCount;         // a mesh without triangles is skipped (POV-Ray rejects it)
	const char* material;         // POV-Ray text inside texture { }, e.g.
	                              // "pigment { color rgb <1,1,1> } finish { diffuse 0.7 }"; NULL: grey
	const bsVec3* cornerColors;   // NULL, or each triangle's corners' rgb (3 a triangle): then the
	                              // mesh is coloured by its vertices (a texture_list interpolated over
	                              // each face) and `material` is the rest of the texture, no pigment
} bsPovMesh;

// The infinite plane through point with the given normal (any non-zero length).
typedef struct bsPovPlane
{
	bsVec3 point;
	bsVec3 normal;
	const char* material;  // as bsPovMesh.material
} bsPovPlane;

// A moving body at the scene's time (docs/bodies.md). A rigid one names an include file beside the
// scene that declares its mesh (bsPov_WriteMeshInclude) and is drawn as that object transformed by
// `matrix`; a deforming one (include NULL) is its shape's triangles at that time, inline, transformed
// by `matrix`.
typedef struct bsPovBody
{
	const char* name;          // a comment above it; may be NULL
	const char* include;       // rigid: the include file's name; NULL: the triangles inline
	const char* declared;      // rigid: the identifier the include declares
	const bsTriangle* triangles;  // deforming: the shape (as bsPovMesh.triangles)
	size_t triangleCount;
	double matrix[12];         // POV-Ray's matrix: the images of x, y, z (rows), then the translation
	const char* material;      // as bsPovMesh.material
} bsPovBody;

// render.instances: an object drawn at each particle instead of the blobs. Particle i becomes
// `object { OBJECT scale S matrix <R's rows, centre> }` (S = scale x its collision radius, R the
// rotation bsPov_AxisRotation gives for its velocity, or bsPov_QuatRotation for its orientation), or
// `object { OBJECT scale S translate <centre> }` without either; all of them in one union with the
// particles' material.
typedef struct bsPovInstances
{
	const char* object;        // NULL: blobs. The POV-Ray identifier each particle draws
	const char* declaration;   // POV-Ray text written before them (a built-in's #declare), or NULL
	const char* include;       // a file the scene includes before them (declaring object), or NULL
	const bsVec3* velocities;  // NULL: unrotated; else each object turned so that axis follows its velocity
	const bsQuat* orientations;  // NULL: as velocities says; else each object turned by its unit
	                             // quaternion (render.instances.orient "rotation"; not with velocities)
	bsVec3 axis;               // the object's axis turned along the velocity: a unit vector
	double scale;              // object units per collision radius, > 0
} bsPovInstances;

// Below this speed (scene units per second) a particle's object is left unrotated: its direction of
// motion is not defined.
#define bs_povStillSpeed 1e-9

// The rotation taking the unit vector axis to the direction of v, as POV-Ray's matrix rows (m[0..2]
// the image of x, m[3..5] of y, m[6..8] of z): the shortest arc, so the identity when |v| <=
// bs_povStillSpeed, and a half turn about an axis perpendicular to `axis` (the one of x, y, z least
// aligned with it, crossed with it) when v points exactly against it. Accurate to 1e-15 however near
// either case v is.
void bsPov_AxisRotation(bsVec3 axis, bsVec3 v, double m[9]);

// The rotation of the unit quaternion q as POV-Ray's matrix rows (as bsPov_AxisRotation).
void bsPov_QuatRotation(bsQuat q, double m[9]);

// render.gas: the particles as gas (pov_gas.c): one box holding POV-Ray media whose density is read from
// a df3 file beside the scene (a grid of the particles' puffs, bsGasGrid). Puff i, of radius radii[i]
// (not the collision radius) and density d_i, adds d_i (1 - |x - c_i| / r_i) at each point x within r_i
// of its centre c_i; the grid holds that sum at its cells' centres, as a fraction of peak. The media's
// emission is density x emission x color, its absorption density x absorption (grey) and, when
// scattering > 0, its isotropic scattering density x scattering (white). The box casts no shadow.
typedef struct bsPovGas
{
	const char* file;   // NULL: not gas; else the df3 file's name, relative to the scene
	bsVec3 lo, hi;      // the grid's box
	double peak;        // the density a 1 in the file stands for, >= 0
	bsVec3 color;       // rgb
	double emission;    // >= 0
	double absorption;  // >= 0
	double scattering;  // >= 0
	int samples;        // media samples, 1..100
} bsPovGas;

typedef struct bsPovParticles
{
	const bsVec3* centers;
	const double* radii;      // collision radii; NULL: every particle has `radius`
	double radius;            // used when radii is NULL
	size_t count;
	double threshold;         // blob threshold T > 0
	double strength;          // component strength S > 0 (S > T for a lone particle to show)
	double radiusScale;       // component radius = collision radius * radiusScale, > 0
	size_t maxComponents;     // per blob object; 0 or more than bs_povMaxBlobComponents means the limit
	const char* material;     // as bsPovMesh.material
	const float* colors;      // NULL, or 4 a particle: red, green, blue (>= 0) and opacity (0..1). Each
	                          // blob component then carries its own texture, the material's with the
	                          // pigment `rgbt <r, g, b, 1 - opacity>` (to 6 decimals; POV-Ray blends the components'
	                          // textures by their share of the field); instances ignore it, and a
	                          // surface include (the mesh) colours its own vertices
	int threads;              // threads formatting the components (bsResolveThreads: <= 0 all cores);
	                          // the file is the same for any count. bsPovScene_Default: 1
	const char* surfaceInclude;  // NULL: the particles as blobs. Otherwise the name of an include file,
	                             // beside the scene, that draws them (a mesh, surface_file.h): the scene
	                             // includes the string BlobsimSurface, declared as this name unless it
	                             // is declared already (a wrapper that renders a pending file sets it)
	bsPovInstances instances;    // object != NULL: the particles as instances (surfaceInclude NULL)
	bsPovGas gas;                // file != NULL: the particles as gas (above)
} bsPovParticles;

// Everything a scene holds. Arrays are borrowed for the duration of the call.
typedef struct bsPovScene
{
	bsPovCamera camera;
	const bsPovLight* lights;
	size_t lightCount;
	bsVec3 background;        // rgb
	double assumedGamma;      // global_settings; 0 means 1.0
	const bsPovMesh* meshes;
	size_t meshCount;
	const bsPovPlane* planes;
	size_t planeCount;
	const bsPovBody* bodies;  // [none]
	size_t bodyCount;
	const bsVec3* sensors;    // sensor particles (docs/bodies.md), drawn as small spheres [none]
	const uint8_t* sensorSide;  // 0: on a pair's first body (yellow), 1: its second (cyan)
	size_t sensorCount;
	double sensorRadius;      // > 0 when sensorCount > 0
	bsPovParticles particles;
	// More particle sets (several species), each written after `particles` as blob objects of its own
	// with its own material: blob fields of different objects do not add up, so species do not merge.
	// Blobs only (no surfaceInclude, no instances). [none]
	const bsPovParticles* moreParticles;
	size_t moreParticleCount;
	double positionStep;      // the largest rounding of a written coordinate, scene units; 0: 1/2048 of
	                          // the smallest particle radius of every set (bsPov_PositionStep; 9 digits when there
	                          // is no particle)
} bsPovScene;

// A scene with sensible settings and nothing in it: camera at <0,2,-6> looking at the origin, 50°,
// 640x480, black background, gamma 1.0, threshold 0.5, strength 1, the radius scale for which a lone
// particle shows at its collision radius, maxComponents bs_povMaxBlobComponents, grey materials.
bsPovScene bsPovScene_Default(void);

// Writes an include file that declares `declared` as the mesh2 of `mesh` (no texture: the scene's
// object gives it), committed with the atomic file's flags (atomic_file.h). False with a message
// naming the file.
bool bsPov_WriteMeshInclude(const char* path, const char* declared, const bsPovMesh* mesh, unsigned flags,
	char* errbuf, size_t errlen);

// The component radius scale that makes a lone particle render at exactly its collision radius:
// 1 / sqrt(1 - sqrt(threshold / strength)). Needs 0 < threshold < strength; returns 0 otherwise.
double bsPov_BlobRadiusScale(double threshold, double strength);

// The grid: n[0] x n[1] x n[2] cubic cells of side `cell` from lo (to hi), x fastest; values at the
// cells' centres.
typedef struct bsGasGrid
{
	bsVec3 lo, hi;
	double cell;
	int n[3];
	double* values;
	double peak;  // the largest value
} bsGasGrid;

// The grid round the puffs of ps (centres, radii) with densities[i] each: resolution cells along the
// box's longest side. False when out of memory (the grid then empty); no particles: an empty grid.
bool bsGasGrid_Build(bsGasGrid* grid, const bsPovParticles* ps, const double* densities, int resolution);
void bsGasGrid_Free(bsGasGrid* grid);

// The grid as a df3 file's bytes (three big-endian 16-bit sizes, then each cell as a big-endian 16-bit
// fraction of the peak, x fastest), malloc'ed; NULL when out of memory.
uint8_t* bsGasGrid_Df3(const bsGasGrid* grid, size_t* size);

// The gas's settings are valid (above): NULL, else what is wrong into out.
const char* bsPovGas_Check(const bsPovGas* gas, char* out, size_t size);

// Writes the gas's box of ps (ps->gas.file not NULL) to file, coordinates rounded within step.
struct bsAtomicFile;
void bsPov_WriteGas(struct bsAtomicFile* file, const bsPovParticles* ps, double step);

// Writes the scene (see the top of this file). Fails with `path: message` on invalid input (a
// non-finite number, a non-positive radius, a camera angle outside (0, 180), ...) or an I/O error.
bool bsPov_WriteScene(const char* path, const bsPovScene* scene, char* errbuf, size_t errlen);

// Animation. Frame k (0 = the initial state) of a sequence is the scene file bsPov_FrameFileName(k),
// e.g. "frame_0003.pov", written with bsPov_WriteScene into the directory of iniPath. This writes
// iniPath and, beside it, a master scene (iniPath with its extension replaced by ".pov") that includes
// the frame's file: `#include concat("frame_", str(frame_number, -4, 0), ".pov")` (the last frame when
// rendered alone). Then, in that directory, `povray animation.ini` renders frames 0 .. lastFrame to
// PNG named like the scenes, frame_0000.png ... (Final_Frame is 9999 with the frames as a subset, so
// POV-Ray pads to 4 digits; clock is the frame number), and `povray animation.ini +SF2 +EF3` frames 2
// and 3. antialias <= 0 turns anti-aliasing off, otherwise it is the threshold (0.3 is POV-Ray's
// usual); jitter is the antialiasing jitter amount (POV-Ray's default 1; 0 turns jitter off).
bool bsPov_WriteAnimationIni(const char* iniPath, int lastFrame, int width, int height, double antialias,
	double jitter, char* errbuf, size_t errlen);

// "frame_%04d.pov" of frame (0: the initial state); out needs at least 24 bytes.
void bsPov_FrameFileName(char* out, size_t len, int frame);

// Formats x exactly as snprintf("%.9g") does in the "C" locale (correctly rounded, ties to even, "-0",
// "inf", "nan"), several times faster: scaled integer digits on the common range, the C library for
// the rare near-tie and for extreme exponents. out needs bs_povNumberMax bytes; returns the length
// (the text is NUL-terminated).
size_t bsPov_FormatDouble(char* out, double x);

// x as bsPov_FormatDouble writes it when its 9 significant digits round it by at most step (always
// near the origin: |x| 5e-9 <= step), else with the fewest digits, 10 to 17, that do (17 round-trip
// a double). So a model far from the origin (survey coordinates: x = 5.8e5, z = 5.8e6) keeps its
// positions exact to step, and a scene near it is the same bytes as with 9 digits. step <= 0: 9.
size_t bsPov_FormatDoubleWithin(char* out, double x, double step);

// The step a scene's coordinates are written within: positionStep when > 0, else
// bs_povPositionFraction of the smallest particle radius (0, 9 digits, without particles).
double bsPov_PositionStep(const bsPovScene* scene);

// Writes v in decimal at p (at most 20 bytes, no NUL) and returns the end.
char* bsPov_PutUnsigned(char* p, uint64_t v);
