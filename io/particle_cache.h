// particle_cache.h — a frame's particle cache (`output.cache`): every particle and every attribute the
// run has, as a binary little-endian PLY point cloud that Blender, ParaView, Houdini and meshio read.
//
//     ply
//     format binary_little_endian 1.0
//     comment blobsim VERSION cache
//     comment frame F
//     comment time T                                  (seconds, %.17g: the world's time)
//     element vertex N
//     property double x / y / z                       (the centre)
//     property double vx / vy / vz                    (the velocity)
//     property double wx / wy / wz                    (the angular velocity, rad/s: only when the
//                                                      particles spin, bsParticleCache.spin)
//     property double qw / qx / qy / qz               (the orientation, a unit quaternion turned by the
//                                                      spins: only when the set keeps orientations,
//                                                      render.instances.orient "rotation")
//     property double radius
//     property double age                             (seconds since the particle was born)
//     property uchar species                          (the config's particles[k]: bsParticles.species)
//     property uint id                                (birth order, particles.h)
//     property uchar state                            (0 free, 1 stuck, 2 escaped, 3 sleeping)
//     property float red / green / blue / alpha       (the colour and opacity, 0..1: only with
//                                                      bsParticleCache.color, particles.over_life)
//     end_header
// then N records of 70 bytes (94 with wx wy wz, 32 more with
// qw qx qy qz, 16 more with the colour), every particle of the set in index order (escaped ones
// too: a reader filters by state). Doubles keep the run's values exactly. An attribute is one row of
// the table in particle_cache.c.
#pragma once

#include "blobsim/particles.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsParticleCache
{
	const bsParticles* particles;
	const double* age;        // per particle, seconds
	int frame;
	double time;
	bool spin;  // wx wy wz (a run with rotation: in every frame, 0 before the set has spins); they are
	            // there too whenever the set has a spin array
	// NULL: no colour. Else red green blue alpha, color(looks, i, age[i], rgba) for particle i, computed
	// as the file is written (nothing stored per particle).
	void (*color)(const void* looks, size_t i, double age, float rgba[4]);
	const void* looks;
} bsParticleCache;

// Writes the cache to path through atomic_file.h (so it joins the run's deferred group). False, with a
// message naming the file.
bool bsParticleCache_Write(const char* path, const bsParticleCache* cache, char* errbuf, size_t errlen);
