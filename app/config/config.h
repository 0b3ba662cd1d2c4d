// config.h — a run's set-up: JSON text in, a validated, fully defaulted bsConfig out.
//
// The caller never sees JSON: every key of the schema (docs/config.md) has a field here, with its
// default filled in when the config leaves it out. Every file path in a config is relative to the
// config file's directory and is stored resolved (joined to that directory; absolute paths are kept).
//
// Ownership: every pointer in a bsConfig is owned by it and freed by bsConfig_Free. On failure the
// functions below leave *config zeroed (bsConfig_Free on it is a harmless no-op) and put a one-line
// message in error->message:
//   file:line:column: message      the text is not strict JSON, not UTF-8, or nested too deeply
//   file: json.path: message       a wrong type, a value out of range, an unknown or duplicate key
//   --set OVERRIDE: message        an override that cannot be applied
// Safe for untrusted input: every limit is a checked error, no recursion deeper than
// BS_JSON_MAX_DEPTH (json.h).
// Thread-safe (no global state; cJSON's global error pointer is never read).
#pragma once

#include "field_config.h"
#include "json.h"

#include "blobsim/base.h"
#include "blobsim/collide.h"
#include "blobsim/emitter.h"
#include "blobsim/step.h"
#include "blobsim/track.h"
#include "blobsim/vec3.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_CONFIG_MAX_PARTICLES 2147483647  // 2^31 - 1: the particle index fits an int32

// The one-line message of a failure, as for the config's JSON (json.h).
typedef bsJsonError bsConfigError;

// A surface look. Either a preset (preset is its name) or custom POV-Ray text (preset is NULL and at
// least one of pigment, finish, normal is set). texture is always set: the text to put inside
// `texture { }`, the preset's text or the custom parts composed as "pigment { P } finish { F }
// normal { N }" (absent parts left out). All strings are owned.
typedef struct bsMaterial
{
	char* preset;   // a preset name (see bsMaterialPreset), NULL for a custom material
	char* pigment;  // custom: text inside pigment { }, or NULL
	char* finish;   // custom: text inside finish { }, or NULL
	char* normal;   // custom: text inside normal { }, or NULL
	char* texture;  // never NULL: text inside texture { }
	// "vertex_colors": true: an environment mesh's groups take their pigment from the OBJ's vertex
	// colours (`v x y z r g b`), interpolated over each face; `look` is then the rest of the texture
	// (finish, normal; "" when neither), and `texture` the same with a white pigment for what has no
	// vertex colours (a plane, a body).
	bool vertexColors;
	char* look;
} bsMaterial;

// A material for one OBJ group of a mesh. The name is kept as given: a name that matches no group is
// the mesh loader's error to report.
typedef struct bsGroupMaterial
{
	char* group;
	bsMaterial material;
} bsGroupMaterial;

typedef struct bsMeshConfig
{
	char* file;          // the OBJ file, resolved against the config's directory
	bsVec3 translate;    // [0, 0, 0]
	bsVec3 rotate;       // degrees about x, then y, then z [0, 0, 0]
	bsVec3 scale;        // per axis, non-zero; a single number s is stored as <s, s, s> [1, 1, 1]
	bsMaterial material; // for groups not named in groups ["white"]
	bsGroupMaterial* groups;
	int groupCount;
} bsMeshConfig;

typedef struct bsPlaneConfig
{
	bsVec3 point;        // [0, 0, 0]
	bsVec3 normal;       // unit length (normalised on load) [0, 1, 0]
	bsMaterial material; // ["white"]
} bsPlaneConfig;

typedef struct bsEnvironmentConfig
{
	bsMeshConfig* meshes;
	int meshCount;
	bsPlaneConfig* planes;
	int planeCount;  // meshCount + planeCount >= 1
	struct bsBodyConfig* bodies;  // moving meshes (config_bodies.h) [none]
	int bodyCount;
	struct bsBodyDynamicsDef* bodyDynamics;  // environment.dynamics (config_bodies.h) [NULL: defaults]
} bsEnvironmentConfig;
typedef struct bsBodyConfig bsBodyConfig;

// One emitter of the config: a `file` emitter (file set, emitter.type bs_emitterList) or a grid,
// random, nozzle or surface one (file NULL, emitter ready for bsEmitter_Count; a surface's triangles
// are the environment's, found when it is loaded: app/scene/emission.h).
typedef struct bsEmitterConfig
{
	char* file;             // file: the PLY, resolved against the config's directory; else NULL
	bsEmitter emitter;      // grid: type, min < max, count[0..2] >= 1, jitter in [0, 1] [0];
	                        // random: type, min < max, count[0] >= 1 (count[1], count[2] 0, jitter 0);
	                        // nozzle: type, nozzle (direction unit, cone angle in radians), count[0]
	                        // surface: type, surface's gap (>= 0 [1e-6 radius]), side, cone angle
	                        // (radians, 0..pi/2) and speeds, count[0] (its tables NULL)
	                        // (random, nozzle and surface: 0 with a rate)
	int mesh;               // surface: index into environment.meshes [0]
	int body;               // surface: index into environment.bodies, then no mesh; -1: a mesh [-1]
	char* group;            // surface: the OBJ group, matched as in `materials`; NULL: every triangle
	double start;           // seconds, >= 0 [0]
	double stop;            // seconds, > start, given with a rate [infinity]
	double rate;            // particles a second, > 0; 0 when absent (all at once at start) or keyed
	bsTrack rateKeys;       // rate keys (a rate curve: emitter.h), values >= 0 [count 0: none]
	bsEmitterMotion motion; // motion.translate, rotate (radians), scale tracks [count 0: none]
	int64_t particleCount;  // with a rate: floor(rate (stop - start)); grid: the product of the counts;
	                        // random, nozzle: count[0]; file: 0 (known when read)
	int species;            // the species it belongs to: the index k of particles[k] [0]
	char* trailSource;      // trail: its source species' name as given (emitter.trail.source its index)
} bsEmitterConfig;


// particles.over_life: the particles' look over their life, keyframed ramps whose times are ages
// (seconds since a particle was born). They shape only what is drawn and cached, never the motion: the
// collision radius stays the particle's. A ramp the config leaves out is off (its flag false).
typedef struct bsOverLifeConfig
{
	bool hasRadius, hasColor, hasOpacity;  // which ramps the config gives [none]
	bsTrack radiusScale;  // drawn radius / collision radius, values > 0 (in x)
	bsTrack color;        // rgb, values >= 0 [white where only opacity is given]
	bsTrack opacity;      // 0 (clear) .. 1 (opaque), in x [1 where only color is given]
} bsOverLifeConfig;

// Any ramp given.
static inline bool bsOverLife_Any(const bsOverLifeConfig* o)
{
	return o->hasRadius || o->hasColor || o->hasOpacity;
}

#define BS_MAX_SPECIES 16  // the most species a config has (particles as a list)

// One species: particles[k] when `particles` is a list (a single object is one species). Each has its
// own size, speed, lifetime, look and ramps; emitters belong to the species that lists them.
typedef struct bsSpeciesConfig
{
	char* name;             // particles[k].name: required in a list, unique ["particles"]
	double radius;          // as bsParticlesConfig's, per species
	double radiusSpread;
	bsVec3 velocity;
	double lifetime;
	bool hasLook;           // particles[k].look is given
	bsMaterial look;        // its render material [render.particle_material]
	bsOverLifeConfig overLife;
	bool hasBuoyancy;       // particles[k].buoyancy is given
	bsBuoyancyDef buoyancy; // its lift, in place of motion.buoyancy [motion.buoyancy]
	// Its own interaction settings (the pair kinds'; NaN: not given, the interaction's): cohesion and
	// cohesion_range with itself (and the weaker of two species' between them), density its particles'.
	double cohesion;        // >= 0
	double cohesionRange;   // 1 .. 1000
	double density;         // kg/m^3, > 0
} bsSpeciesConfig;

typedef struct bsParticlesConfig
{
	double radius;          // > 0 (required)
	double radiusSpread;    // radii uniform in radius * [1 - s, 1 + s], s in [0, 1] [0]
	bsVec3 velocity;        // initial velocity of every particle but a nozzle's or surface's [0, 0, 0]
	double lifetime;        // seconds a particle lives from the step it is emitted in, > 0 [infinity]
	bool accumulate;        // stuck and sleeping particles are colliders (snow on snow) [false]
	const char* material;   // particles.material: a fluid preset's name (docs/config.md), a static string
	                        // (not owned, not freed); it set step.interaction [NULL: none]
	bsOverLifeConfig overLife;  // particles.over_life [no ramps]
	// The fields above are the first species' (particles[0] of a list); accumulate, material and the
	// interaction are every species' (a list gives them in particles[0] only).
	bsSpeciesConfig* species;  // speciesCount of them, 1 .. BS_MAX_SPECIES
	int speciesCount;
	bool speciesList;       // particles is a list (emitters are then particles[s].emitters[j])
	bsEmitterConfig* emitters;  // every species' emitters, species after species
	int emitterCount;       // >= 1
	int64_t particleCount;  // total of the emitters known without their files, <= BS_CONFIG_MAX_PARTICLES
} bsParticlesConfig;

typedef struct bsMotionConfig
{
	int steps;  // >= 1 [1]
} bsMotionConfig;

typedef struct bsCameraConfig
{
	bsVec3 location;  // [0, 2, -5]
	bsVec3 lookAt;    // != location [0, 0, 0]
	double angle;     // horizontal field of view in degrees, [1, 179] [60]
} bsCameraConfig;

typedef struct bsLightConfig
{
	bsVec3 location;  // required
	bsVec3 color;     // rgb, each >= 0 [1, 1, 1]
} bsLightConfig;

typedef struct bsBlobConfig
{
	double threshold;    // > 0 and < strength [0.6]
	double strength;     // > 0 [1]
	double radiusScale;  // blob component radius / collision radius, > 0 [1.6]
	int maxComponents;   // components per blob object before splitting into tiles, >= 1 [30000]
	bool cull;           // leave out the components that cannot change the surface [false; costly on dense sets: docs/performance.md]
} bsBlobConfig;

// render.mesh: the polygonized surface of render.surface "mesh" (and "auto" when it picks the mesh).
typedef struct bsMeshRenderConfig
{
	double simplifyError;  // decimation's error bound in grid cells (render.surface_spacing x radius), 0..1; 0: none [0]
	double simplifyAngle;  // degrees, 1..90: the normals around a removed vertex lie within this of its own [10]
} bsMeshRenderConfig;

// render.instances: an object drawn at each particle instead of the blobs (docs/rendering.md).
typedef struct bsInstancesConfig
{
	bool enabled;      // the key is given
	char* object;      // the POV-Ray identifier each particle draws (a built-in's BlobsimLeaf, ...);
	                   // NULL with obj
	const char* declaration;  // a built-in's #declare (static), else NULL
	char* include;     // render.instances.include, an absolute path; NULL: none
	char* obj;         // render.instances.obj, resolved; NULL: none
	double scale;      // object units per collision radius, > 0 [1]
	bool velocity;     // orient "velocity" [true]; "none": unrotated
	bool rotation;     // orient "rotation": turned by the particle's orientation (bsParticles.orientation,
	                   // integrated from its spin: needs particles.interaction.rotation)
	bsVec3 axis;       // the object's axis turned along the velocity: "+x" ... "-z" ["+z"]
} bsInstancesConfig;

// render.motion_blur: each image the average of `samples` renders of the particles at times spread over
// the shutter, which ends at the image's time (docs/rendering.md, "Motion blur").
typedef struct bsMotionBlurConfig
{
	bool enabled;         // the key is given
	double shutterAngle;  // degrees of a frame's interval the shutter is open, 0..360; 0: no blur [180]
	int samples;          // renders averaged per image, 2..64 [8]
} bsMotionBlurConfig;

// render.gas: the particles drawn as puffs of POV-Ray media instead of blobs (docs/rendering.md,
// "Gas"). A particle of age a (since it was emitted) is a sphere of radius radius_scale r (1 + growth a)
// holding media of density density exp(-a / fade) (fade 0: no fading), highest at its centre.
typedef struct bsGasConfig
{
	bool enabled;       // the key is given
	bsVec3 color;       // the emitted light's colour, rgb in [0, 1] [1, 0.55, 0.2]
	double density;     // > 0: the media's density at age 0 [4]
	double emission;    // >= 0: emission per unit density (times color) [1]
	double absorption;  // >= 0: absorption per unit density (grey) [1]
	double scattering;  // >= 0: isotropic scattering per unit density (white; slow) [0]
	double radiusScale; // > 0: a puff's radius per collision radius at age 0 [2]
	double growth;      // >= 0, per second: the radius grows by this fraction of itself each second [0]
	double fade;        // >= 0, seconds: the density's time constant; 0: no fading [0]
	int samples;        // POV-Ray media samples per interval, 1..100 [5]
	int resolution;     // the density grid's cells along its longest side, 8..512 [96]
} bsGasConfig;

typedef struct bsRenderConfig
{
	bsCameraConfig camera;
	bsLightConfig* lights;  // [one light at <5, 10, -5>, color <1, 1, 1>]; [] gives no light
	int lightCount;
	bsVec3 background;      // rgb in [0, 1] [1, 1, 1]
	int width;              // pixels, 16..16384 [800]
	int height;             // pixels, 16..16384 [600]
	double antialias;       // POV-Ray +A threshold, >= 0, 0 = off [0.3]
	double jitter;          // POV-Ray antialias jitter amount (+J), >= 0, 0 = off [1]
	bool movie;             // encode the rendered frames into animation.mp4 and preview.gif [false]
	int fps;                // the movie's frames per second, 1..240 [25]
	bsBlobConfig blob;
	bsMaterial particleMaterial;  // [particles.material's look (docs/config.md), else "snow"]
	int surface;            // how the particles are drawn: bs_surfaceBlobs, bs_surfaceMesh or bs_surfaceAuto ["blob"]
	double surfaceSpacing;  // mesh grid spacing / the largest blob component radius, in [0.05, 2] [0.3]
	bool surfaceObj;        // render.surface_files holds "obj": also write the mesh as OBJ [false]
	bool surfacePly;        // ... "ply": also as PLY [false]
	bsMeshRenderConfig mesh;
	double sensors;         // the bodies' sensor particles drawn as spheres of this radius; 0: not [0]
	bsInstancesConfig instances;  // [none: blobs]
	bsMotionBlurConfig motionBlur;  // [none]
	bsGasConfig gas;        // [none: blobs]
} bsRenderConfig;

enum
{
	bs_surfaceBlobs = 0,  // "blob": POV-Ray blob objects
	bs_surfaceMesh = 1,   // "mesh": the same field polygonized by blobsim, a mesh2 (surface.h)
	bs_surfaceAuto = 2,   // "auto": either, per scene, by the cost model of app/scene/surface_cost.h
};

typedef struct bsOutputConfig
{
	char* directory;  // resolved against the config's directory ["out"]
	int frameEvery;   // 0: only the last state; N: a frame every N steps [0]
	bool cache;       // a particle cache (particle_cache.h) in DIR/cache/ for every frame [false]
	int checkpointEvery;  // 0: none; N: a checkpoint (`run --resume`) every N frames [0]
} bsOutputConfig;

typedef struct bsConfig
{
	char* path;       // the config file's path as given ("<config>" when parsed without one)
	uint64_t seed;    // 0 .. 2^53 - 1 [1]
	// A stable 64-bit hash of the config's JSON tree after overrides: FNV-1a over a canonical
	// encoding (object keys sorted, whitespace and number spelling ignored; see docs/config.md). Same
	// text and overrides, same hash, on every platform; any changed value changes it. Defaults are not
	// hashed: a config that spells out a default hashes differently from one that leaves it out.
	uint64_t hash;
	bsEnvironmentConfig environment;
	bsParticlesConfig particles;
	bsMotionConfig motion;
	bsStepDef step;   // the engine's step settings, read straight into it: motion.dt, motion.gravity,
	                  // motion.drag and every collision key; bsDefaultStepDef() gives the defaults
	                  // (dt 1, gravity 0, drag 0, karabassi, stick, restitution 0.5, friction 0,
	                  // max_contacts 4, no bounds)
	bsRenderConfig render;
	bsOutputConfig output;
	bsFieldConfig field;  // the distance/normal grid's effects [none: enabled false]
	// interactions: the rules between species, speciesCount^2 (step.speciesPairs points here) [NULL: none]
	bsSpeciesPair* speciesPairs;
	// particles[k].density: each species' (step.speciesDensity points here) [NULL: the interaction's]
	double* speciesDensity;
	// particles[k].buoyancy, when a species gives one: every species' lift, speciesCount of them
	// (step.speciesBuoyancy points here) [NULL: motion.buoyancy for all]
	bsBuoyancyDef* speciesBuoyancy;
} bsConfig;

// Parses and validates `length` bytes of config text (no terminating NUL needed). path names the
// config in messages and gives the directory relative file paths are resolved against; NULL means
// "<config>" and the current directory. error may be NULL. Returns bs_ok, bs_errInvalidArgument
// (invalid text or config), bs_errTooLarge (too many particles) or bs_errOutOfMemory.
bsResult bsConfig_Parse(const char* text, size_t length, const char* path, bsConfig* config,
	bsConfigError* error);

// As bsConfig_Parse, with overrides applied to the JSON tree before validation. Each override is
// "dotted.path=VALUE": path segments are keys, or indices into arrays (an index equal to the array's
// length appends); VALUE is parsed as JSON, and taken as a string when it is not JSON. Missing
// objects and arrays on the path are created. A key the schema does not know is an error (with a
// did-you-mean). Later overrides win.
bsResult bsConfig_ParseWithOverrides(const char* text, size_t length, const char* path,
	const char* const* overrides, int overrideCount, bsConfig* config, bsConfigError* error);

// Reads the file at path (at most BS_JSON_MAX_FILE_SIZE bytes) and parses it.
bsResult bsConfig_Load(const char* path, bsConfig* config, bsConfigError* error);
bsResult bsConfig_LoadWithOverrides(const char* path, const char* const* overrides,
	int overrideCount, bsConfig* config, bsConfigError* error);

// Frees everything the config owns and zeroes it. NULL and zeroed configs are fine.
void bsConfig_Free(bsConfig* config);

// The JSON path of emitter k (an index into particles.emitters) for messages: "particles.emitters[K]",
// or "particles[S].emitters[J]" when particles is a list; into out.
void bsEmitterConfig_Path(const bsParticlesConfig* pc, int k, char* out, size_t size);

// --- Material presets ---

// The POV-Ray text of a preset, to put inside `texture { }`, e.g. for "white"
// "pigment { color rgb <0.92, 0.92, 0.92> } finish { ambient 0.05 diffuse 0.85 }". NULL when name
// is not a preset.
const char* bsMaterialPreset(const char* name);
