// output_gas.c — render.gas in a run: each particle's puff (radius and density) from its age
// (config.h: bsGasConfig), and their density grid beside the scene (pov_writer.h: bsPovGas).
#include "output_writers.h"

#include "array.h"
#include "atomic_file.h"

#include "blobsim/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void bsOutputGas_Puff(const bsGasConfig* gas, double radius, double age, double* puffRadius, double* density)
{
	age = fmax(age, 0.0);
	*puffRadius = gas->radiusScale * radius * (1.0 + gas->growth * age);
	*density = gas->fade > 0.0 ? gas->density * exp(-age / gas->fade) : gas->density;
}

bool bsOutputGas_Update(bsOutputContext* o, char* err, size_t errlen)
{
	const bsGasConfig* gas = &o->config->render.gas;
	if (!gas->enabled || o->world == NULL)
	{
		return true;
	}
	const bsParticles* p = o->particles;
	size_t need = p->count > 0 ? p->count : 1;
	size_t capacity = o->gasCapacity;
	if (!BS_ARRAY_RESERVE(o->gasRadii, capacity, need) || !BS_ARRAY_RESERVE(o->gasDensities, o->gasCapacity, need))
	{
		snprintf(err, errlen, "%s: render.gas: out of memory for %zu puffs", o->dir, p->count);
		return false;
	}
	double now = bsWorld_Time(o->world);
	for (size_t i = 0; i < p->count; ++i)
	{
		bsOutputGas_Puff(gas, p->radius[i], now - bsWorld_BirthTime(o->world, i), o->gasRadii + i, o->gasDensities + i);
	}
	o->gasCount = p->count;
	return true;
}

bsPovGas bsOutputGas_Pov(const bsRenderConfig* render)
{
	const bsGasConfig* gas = &render->gas;
	bsPovGas pov = {NULL, bsV3(0.0, 0.0, 0.0), bsV3(0.0, 0.0, 0.0), 0.0, gas->color, gas->emission, gas->absorption,
		gas->scattering, gas->samples};
	return pov;
}

bool bsOutputGas_WriteGrid(bsOutputContext* o, const double* densities, char* err, size_t errlen)
{
	bsPovParticles* ps = &o->scene->particles;
	ps->gas.file = NULL;
	if (ps->count == 0)
	{
		return true;  // nothing to draw: no box, no file
	}
	bsGasGrid grid;
	size_t size = 0;
	uint8_t* bytes = NULL;
	if (!bsGasGrid_Build(&grid, ps, densities, o->config->render.gas.resolution) ||
		(bytes = bsGasGrid_Df3(&grid, &size)) == NULL)
	{
		bsGasGrid_Free(&grid);
		snprintf(err, errlen, "%s: render.gas: out of memory for the density grid", o->dir);
		return false;
	}
	uint64_t h = bsFnv1a(BS_FNV1A_BASIS, bytes, size);
	snprintf(o->gasFile, sizeof o->gasFile, "gas_%016llx.df3", (unsigned long long)h);
	char path[bs_outputPathMax];
	bsOutput_Path(path, o->dir, o->gasFile);
	bool ok = true;
	if (!bsIsRegularFile(path))
	{
		bsAtomicFile f;
		ok = bsOutputSet_ListNow(o->dir, o->gasFile, err, errlen) && bsAtomicFile_Open(&f, path, err, errlen);
		if (ok && !bsAtomicFile_Write(&f, bytes, size))
		{
			bsAtomicFile_Abort(&f);
			ok = false;
		}
		ok = ok && bsAtomicFile_Commit(&f, bs_atomicFileNow);
	}
	ok = ok && bsAtomicFile_DeferKeep(path, err, errlen);
	free(bytes);
	ps->gas.file = o->gasFile;
	ps->gas.lo = grid.lo;
	ps->gas.hi = grid.hi;
	ps->gas.peak = grid.peak;
	bsGasGrid_Free(&grid);
	return ok;
}
