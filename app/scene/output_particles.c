// output_particles.c — particles.ply, every particle of the final state (ply.h).
#include "output_writers.h"

#include "ply.h"

static bool bsParticlesOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	(void)frame;
	char path[bs_outputPathMax];
	bsOutput_Path(path, o->dir, "particles.ply");
	return bsPly_WriteParticles(path, o->particles, err, errlen);
}

const bsOutputWriter bs_particlesOutput = {"particles", bs_outputScene, bsParticlesOutput_Write};
