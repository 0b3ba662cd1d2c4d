// scene_surface.h — render.surface "mesh": the particles' blob field polygonized (blobsim/surface.h)
// and written beside each scene as an include file, instead of blob objects in the scene.
//
// For a scene DIR/NAME.pov: DIR/NAME_surface.inc (a mesh2, io/surface_file.h) and, with
// render.surface_files, DIR/NAME_surface.obj and DIR/NAME_surface.ply. The grid spacing is
// render.surface_spacing times the largest blob component radius (collision radius x
// render.blob.radius_scale); the mesh is decimated within render.mesh.simplify_error grid cells and
// render.mesh.simplify_angle (bsSurfaceMesh_Simplify) when the error is not 0; positions are written to the fewest decimals that keep them within
// 1/64 of the spacing, normals to 3 decimals (docs/rendering.md has the measurements).
#pragma once

#include "config.h"
#include "pov_writer.h"
#include "surface_cost.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct bsSceneSurface
{
	int mode;           // bs_surfaceBlobs, bs_surfaceMesh or bs_surfaceAuto
	double spacing;     // render.surface_spacing (component radii)
	double simplifyError;  // render.mesh.simplify_error (grid cells); 0: no decimation
	double simplifyAngle;  // render.mesh.simplify_angle (degrees)
	bool obj, ply;      // render.surface_files
	int threads;        // <= 0: all cores
	// Totals over the scenes written (statistics for summary.json).
	double seconds;     // polygonizing
	size_t triangles;   // of the last scene
	size_t vertices;
	size_t trianglesFull;     // of the last scene, before decimation
	double simplifySeconds;   // decimating, all scenes
	int notClosed;            // scenes whose decimated mesh failed the closed check and kept the full one
	int simplifyPasses;       // passes of collapses, all scenes
	int scenes;         // every surface written, motion-blur samples' included
	int blurScenes;     // the motion-blur samples' surfaces among them (bsSceneSurface_WriteSample)
	// Blobs: the components that cannot change the surface left out (render.blob.cull).
	bool cull;
	size_t cullComponents;  // of the last scene: its particles
	size_t cullLeftOut;     // of the last scene: those left out
	size_t cullLeftOutAll;  // over every scene
	int cullScenes;
	// Auto: the last scene's inputs, predicted costs and choice; counts over every scene.
	bsSurfaceCostInput autoInput;
	bsSurfaceCost autoCost;
	bool autoMesh;
	int autoScenes;
	int autoMeshScenes;
} bsSceneSurface;

bsSceneSurface bsSceneSurface_FromConfig(const bsRenderConfig* rc, int threads);

// Writes the scene at path: with blobs as bsPov_WriteScene does, without the components that cannot
// change the surface when cull is on (bsBlobCull, blobsim/surface.h); as a mesh, the surface files
// first, then the scene including them; in auto mode, either, as the cost model predicts cheaper
// (surface_cost.h). False with a message naming the file on failure.
bool bsSceneSurface_WriteScene(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen);

// A motion-blur sample's scene (motion_blur.h) at path, DIR/NAME_blurJ.pov, as bsSceneSurface_WriteScene
// writes the image's: in mesh mode its own surface files, DIR/NAME_blurJ_surface.inc (and .obj, .ply
// with render.surface_files), polygonized from the sample's particles with the same settings; in auto
// mode the choice of the image's scene, written just before (autoMesh), so the samples of an image never
// mix blobs and meshes. The summary's figures of the last scene stay the image's.
bool bsSceneSurface_WriteSample(bsSceneSurface* s, const char* path, bsPovScene* scene, char* err, size_t errlen);

// In mesh mode, adds "surface": {"spacing", "triangles", "vertices" (of the last scene), "scenes" (and
// "blur_scenes": the motion-blur samples' surfaces, not in "scenes"),
// "seconds" (polygonizing, all scenes), and with decimation "simplify": {"error" (grid cells), "angle" (degrees),
// "triangles_full" (the last scene's before decimation), "seconds", "not_closed" (scenes that kept
// their full mesh), "passes" (of collapses, all scenes)}} to summary.json's root object; with blobs and render.blob.cull,
// "blob_cull": {"components", "left_out" (of the last scene), "left_out_all" (every scene), "scenes"}
// (no timing: finding them is part of seconds.write, and a run's summary is otherwise the same bytes
// every time but for "seconds"); in auto mode "surface_auto": {"scenes", "mesh_scenes", "choice" (the
// last scene's), "inputs" and "predicted" (seconds: blob, blob_parse, blob_trace, polygonize,
// mesh_trace, and mesh, mesh_parse when it was polygonized) of the last scene}, and "surface" when
// some scene was a mesh.
void bsSceneSurface_AddSummary(const bsSceneSurface* s, cJSON* root);

// DIR/NAME.pov -> DIR/NAME_surface.inc: the include a scene in mesh mode names (under its final name:
// BlobsimSurface's default in the scene). False when it does not fit in size.
bool bsSceneSurface_IncludePath(const char* scenePath, char* out, size_t size);
