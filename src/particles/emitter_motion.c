// emitter_motion.c — emitters that move and rates that change (emitter.h): the emitter's frame at a
// particle's birth time, and the rate curve's integral and its inverse, the birth times.
#include "emitter_class.h"

#include "blobsim/quat.h"

#include <math.h>

bool bsEmitterMotion_IsMoving(const bsEmitterMotion* m)
{
	return m->translate.count > 0 || m->rotate.count > 0 || m->scale.count > 0;
}

// An absent track (count 0) or a valid one.
static bool bsOptionalTrack_IsValid(const bsTrack* track)
{
	return track->count == 0 || bsTrack_IsValid(track);
}

bool bsEmitterMotion_IsValid(const bsEmitterMotion* m)
{
	if (!bsOptionalTrack_IsValid(&m->translate) || !bsOptionalTrack_IsValid(&m->rotate) ||
		!bsOptionalTrack_IsValid(&m->scale))
	{
		return false;
	}
	for (int k = 0; k < m->scale.count; ++k)
	{
		bsVec3 s = m->scale.value[k];
		if (!(s.x > 0.0 && s.y > 0.0 && s.z > 0.0))
		{
			return false;
		}
	}
	return true;
}

static bsVec3 bsMat3_Apply(const double r[3][3], bsVec3 p)
{
	return bsV3(r[0][0] * p.x + r[0][1] * p.y + r[0][2] * p.z, r[1][0] * p.x + r[1][1] * p.y + r[1][2] * p.z,
		r[2][0] * p.x + r[2][1] * p.y + r[2][2] * p.z);
}

static bsVec3 bsMul3(bsVec3 a, bsVec3 b)
{
	return bsV3(a.x * b.x, a.y * b.y, a.z * b.z);
}

// A track's value and slope at t, or (when absent) the given value and no change.
static void bsOptionalTrack_Read(const bsTrack* track, double t, bsVec3 absent, bsVec3* value, bsVec3* slope)
{
	*value = track->count > 0 ? bsTrack_At(track, t) : absent;
	*slope = track->count > 0 ? bsTrack_Slope(track, t) : bsV3(0.0, 0.0, 0.0);
}

void bsEmitterMotion_Apply(const bsEmitterMotion* m, double t, bsVec3* position, bsVec3* velocity)
{
	if (!bsEmitterMotion_IsMoving(m))
	{
		return;
	}
	bsVec3 translate, translateRate, angles, angleRate, scale, scaleRate;
	bsOptionalTrack_Read(&m->translate, t, bsV3(0.0, 0.0, 0.0), &translate, &translateRate);
	bsOptionalTrack_Read(&m->rotate, t, bsV3(0.0, 0.0, 0.0), &angles, &angleRate);
	bsOptionalTrack_Read(&m->scale, t, bsV3(1.0, 1.0, 1.0), &scale, &scaleRate);
	double r[3][3];
	bsRotation_EulerXYZ(angles, r);
	// w = a' Rz Ry e_x + b' Rz e_y + c' e_z: Rz Ry e_x is R's first column (Rx leaves e_x).
	bsVec3 omega = bsV3(angleRate.x * r[0][0] - angleRate.y * sin(angles.z),
		angleRate.x * r[1][0] + angleRate.y * cos(angles.z), angleRate.x * r[2][0] + angleRate.z);
	bsVec3 arm = bsMat3_Apply(r, bsMul3(scale, *position));
	bsVec3 frame = bsAdd(bsAdd(translateRate, bsCross(omega, arm)), bsMat3_Apply(r, bsMul3(scaleRate, *position)));
	*position = bsAdd(translate, arm);
	*velocity = bsAdd(bsMat3_Apply(r, *velocity), frame);
}

// --- the rate curve ---

bool bsEmitterDef_OverTime(const bsEmitterDef* def)
{
	return def->rate > 0.0 || def->rateKeys.count > 0;
}

bool bsEmitterDef_RateKeysValid(const bsEmitterDef* def)
{
	const bsTrack* keys = &def->rateKeys;
	if (keys->count == 0)
	{
		return true;
	}
	if (def->rate != 0.0 || !bsTrack_IsValid(keys))
	{
		return false;
	}
	for (int k = 0; k < keys->count; ++k)
	{
		if (!(keys->value[k].x >= 0.0))
		{
			return false;
		}
	}
	return true;
}

// The curve r as pieces: piece j (0 .. count) runs from the key j - 1 to key j (piece 0 from -inf,
// piece count to +inf), r linear on it. Its ends a, b (clipped to [lo, hi]) and r at a, and r's slope.
typedef struct bsRatePiece
{
	double a, b;
	double ra, slope;
} bsRatePiece;

static bsRatePiece bsRatePiece_Of(const bsTrack* keys, int j, double lo, double hi)
{
	bsRatePiece piece;
	double t0 = j == 0 ? -(double)INFINITY : keys->time[j - 1];
	double t1 = j == keys->count ? (double)INFINITY : keys->time[j];
	piece.a = fmax(t0, lo);
	piece.b = fmin(t1, hi);
	piece.slope = j == 0 || j == keys->count ? 0.0 : (keys->value[j].x - keys->value[j - 1].x) / (t1 - t0);
	piece.ra = bsTrack_At(keys, piece.a).x;
	return piece;
}

// The integral of r over the piece, from a to a + x (0 <= x <= b - a).
static double bsRatePiece_Integral(const bsRatePiece* piece, double x)
{
	return x * (piece->ra + 0.5 * piece->slope * x);
}

// The x in [0, b - a] at which the piece's integral reaches need (0 <= need <= its whole integral):
// the root of ra x + slope x^2 / 2 = need, written without cancellation.
static double bsRatePiece_Solve(const bsRatePiece* piece, double need)
{
	double disc = fmax(piece->ra * piece->ra + 2.0 * piece->slope * need, 0.0);
	double denominator = piece->ra + sqrt(disc);
	double x = denominator > 0.0 ? 2.0 * need / denominator : 0.0;
	return fmin(x, piece->b - piece->a);
}

double bsEmitterDef_Integral(const bsEmitterDef* def, double t)
{
	double hi = fmin(t, def->stop);
	if (!bsEmitterDef_OverTime(def) || !(hi > def->start))
	{
		return 0.0;
	}
	if (def->rateKeys.count == 0)
	{
		return def->rate * (hi - def->start);
	}
	double sum = 0.0;
	for (int j = 0; j <= def->rateKeys.count; ++j)
	{
		bsRatePiece piece = bsRatePiece_Of(&def->rateKeys, j, def->start, hi);
		if (piece.b > piece.a)
		{
			sum += bsRatePiece_Integral(&piece, piece.b - piece.a);
		}
	}
	return sum;
}

double bsEmitterDef_BirthTime(const bsEmitterDef* def, uint64_t k)
{
	return bsEmitterDef_OverTime(def) ? bsEmitterDef_TimeOfIntegral(def, (double)k + 1.0) : def->start;
}

double bsEmitterDef_TimeOfIntegral(const bsEmitterDef* def, double target)
{
	if (def->rateKeys.count == 0)
	{
		return fmin(def->start + target / def->rate, def->stop);
	}
	double sum = 0.0;
	for (int j = 0; j <= def->rateKeys.count; ++j)
	{
		bsRatePiece piece = bsRatePiece_Of(&def->rateKeys, j, def->start, def->stop);
		if (!(piece.b > piece.a))
		{
			continue;
		}
		double whole = bsRatePiece_Integral(&piece, piece.b - piece.a);
		if (sum + whole >= target)
		{
			return piece.a + bsRatePiece_Solve(&piece, target - sum);
		}
		sum += whole;
	}
	return def->stop;
}
