// field.c — the paper's spring, impact, drag and surface-flow rules over a distance/normal grid (see
// field.h).
#include "blobsim/field.h"

#include <math.h>
#include <string.h>

bsFieldDef bsDefaultFieldDef(void)
{
	bsFieldDef def;
	memset(&def, 0, sizeof def);
	def.threshold = -1.0;
	def.restitution = 0.0;
	return def;
}

bool bsFieldDef_IsValid(const bsFieldDef* def)
{
	// Every value finite (a threshold below 0 is "off"), and each rule that is on with its reach.
	bool finite = isfinite(def->spring) && isfinite(def->springDistance) && isfinite(def->threshold) &&
		isfinite(def->restitution) && isfinite(def->drag) && isfinite(def->contactDistance) &&
		isfinite(def->flowIn) && isfinite(def->flowOut) && isfinite(def->flowDistance);
	return finite && def->spring >= 0.0 && def->springDistance >= 0.0 && (def->spring == 0.0 || def->springDistance > 0.0) &&
		def->restitution >= 0.0 && def->restitution <= 1.0 && def->drag >= 0.0 && def->contactDistance >= 0.0 &&
		(def->drag == 0.0 || def->contactDistance > 0.0) && def->flowDistance >= 0.0 &&
		((def->flowIn == 0.0 && def->flowOut == 0.0) || def->flowDistance > 0.0);
}

// The surface flow's acceleration (the paper's pseudocode).
static bsVec3 bsField_Flow(const bsFieldDef* def, bsVec3 n, bsVec3 v)
{
	double gamma = bsDot(n, v);
	bsVec3 e = bsCross(bsCross(v, n), v);
	double len = bsLength(e);
	if (!(len > 1e-300))
	{
		return bsV3(0.0, 0.0, 0.0);  // moving straight along the normal: no tangent to turn to
	}
	return bsScale((gamma < 0.0 ? def->flowIn : def->flowOut) / len, e);
}

bool bsField_Apply(const bsDistanceGrid* grid, const bsFieldDef* def, bsVec3 x, double dt, bsVec3* v)
{
	bsGridCell cell;
	if (def->trilinear)
	{
		if (!bsDistanceGrid_Trilinear(grid, x, &cell))
		{
			return false;
		}
	}
	else
	{
		const bsGridCell* c = bsDistanceGrid_Nearest(grid, x);
		if (c == NULL)
		{
			return false;
		}
		cell = *c;
	}
	double d = cell.distance;
	bsVec3 n = bsV3(cell.normal[0], cell.normal[1], cell.normal[2]);
	bsVec3 a = bsV3(0.0, 0.0, 0.0);
	if (def->spring != 0.0 && d < def->springDistance)
	{
		a = bsMulAdd(a, def->spring * (def->springDistance - d), n);
	}
	bsVec3 flow = bsV3(0.0, 0.0, 0.0);
	bool flowing = (def->flowIn != 0.0 || def->flowOut != 0.0) && d < def->flowDistance;
	if (flowing)
	{
		flow = bsField_Flow(def, n, *v);
	}
	bsVec3 w = bsMulAdd(*v, dt, a);
	if (flowing)
	{
		// The flow only turns the velocity: it keeps the speed the other accelerations give, so the
		// explicit step does not add |F dt|^2 / 2|v| to it each time.
		double speed = bsLength(w);
		bsVec3 turned = bsMulAdd(w, dt, flow);
		double len = bsLength(turned);
		w = len > 0.0 ? bsScale(speed / len, turned) : w;
	}
	if (def->drag > 0.0 && d < def->contactDistance)
	{
		w = bsScale(exp(-def->drag * dt), w);
	}
	double vn = bsDot(w, n);
	if (def->threshold >= 0.0 && vn < 0.0 && d + vn * dt <= def->threshold)
	{
		w = bsMulAdd(w, -(1.0 + def->restitution) * vn, n);
	}
	*v = w;
	return true;
}
