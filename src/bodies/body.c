// body.c — bodies and their motion (body.h): keyframe tracks, the CSRBF deformation or a mesh
// sequence (sequence.c), and the one switch on the motion kind.
#include "csrbf.h"
#include "sequence.h"

#include "blobsim/body.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct bsBody
{
	bsMotionKind kind;
	bsTriangle* triangles;
	uint32_t triangleCount;
	bsVec3Key* translate;
	int translateCount;
	bsQuatKey* rotate;
	int rotateCount;
	bsVec3Key* scale;
	int scaleCount;
	bool loop;
	double maxAngle;
	bsCsrbf rbf;           // deforming, or dynamic with a deformation (rbf.count > 0)
	double* times;         // deforming: the displacement keys' times
	bsVec3* displacement;  // [k * controls + j]
	int keyCount;
	bsSequence seq;        // deforming by a mesh sequence (seq.frameCount > 0) instead of rbf
	bsVec3 velocity, angularVelocity;  // dynamic: the state at time 0
	double density;
	int sensorParticles;
	bool twoWay;                       // dynamic: particles push it (bsBody_TwoWay)
	double chordT0, chordT1;           // dynamic: the last substep's chord (bsBody_SetChord)
	bsTransform chord0, chord1;
	double chordSpeed;                 // its angular speed, radians per second
};

bsBodyDef bsDefaultBodyDef(void)
{
	bsBodyDef def;
	memset(&def, 0, sizeof def);
	def.kind = bs_motionKeyframed;
	def.maxAngle = 0.1;
	def.density = 1000.0;
	return def;
}

bsResult bsDeformDef_CheckControls(const bsDeformDef* def)
{
	bsCsrbf rbf;
	bsResult r = bsCsrbf_Init(&rbf, def->controls, def->controlCount, def->support);
	bsCsrbf_Free(&rbf);
	return r;
}

// --- keys ---

// Where time t falls in a track of `count` keys (count >= 1) read through time(k): the key k and the
// fraction u in [0, 1] towards key k + 1 (u = 0 and k the end key outside the span, unless looping).
typedef double (*bsKeyTime)(const void* keys, int k);

static double bsVec3KeyTime(const void* keys, int k)
{
	return ((const bsVec3Key*)keys)[k].time;
}

static double bsQuatKeyTime(const void* keys, int k)
{
	return ((const bsQuatKey*)keys)[k].time;
}

static int bsKeySpan(const void* keys, int count, bsKeyTime time, bool loop, double t, double* u)
{
	*u = 0.0;
	double first = time(keys, 0);
	double last = time(keys, count - 1);
	if (count == 1 || !(t > first))
	{
		return 0;
	}
	if (t >= last)
	{
		if (!loop)
		{
			return count - 1;
		}
		t = first + fmod(t - first, last - first);
	}
	int lo = 0, hi = count - 1;  // time(lo) <= t < time(hi)
	while (hi - lo > 1)
	{
		int mid = lo + (hi - lo) / 2;
		if (time(keys, mid) <= t)
		{
			lo = mid;
		}
		else
		{
			hi = mid;
		}
	}
	*u = (t - time(keys, lo)) / (time(keys, hi) - time(keys, lo));
	return lo;
}

static bsVec3 bsVec3Track(const bsVec3Key* keys, int count, bool loop, double t, bsVec3 none)
{
	if (count == 0)
	{
		return none;
	}
	double u;
	int k = bsKeySpan(keys, count, bsVec3KeyTime, loop, t, &u);
	return u > 0.0 ? bsLerp(keys[k].value, keys[k + 1].value, u) : keys[k].value;
}

static bsQuat bsQuatTrack(const bsQuatKey* keys, int count, bool loop, double t)
{
	if (count == 0)
	{
		return bsQuat_Identity();
	}
	double u;
	int k = bsKeySpan(keys, count, bsQuatKeyTime, loop, t, &u);
	return u > 0.0 ? bsQuat_Slerp(keys[k].value, keys[k + 1].value, u) : keys[k].value;
}

static bool bsIncreasing(const void* keys, int count, bsKeyTime time)
{
	for (int k = 0; k < count; ++k)
	{
		if (!isfinite(time(keys, k)) || (k > 0 && !(time(keys, k) > time(keys, k - 1))))
		{
			return false;
		}
	}
	return true;
}

static double bsDoubleTime(const void* keys, int k)
{
	return ((const double*)keys)[k];
}

// --- creation ---

static bsResult bsKeyframes_Check(const bsKeyframes* k)
{
	if (k->translateCount < 0 || k->rotateCount < 0 || k->scaleCount < 0 ||
		(k->translateCount > 0 && k->translate == NULL) || (k->rotateCount > 0 && k->rotate == NULL) ||
		(k->scaleCount > 0 && k->scale == NULL) || !bsIncreasing(k->translate, k->translateCount, bsVec3KeyTime) ||
		!bsIncreasing(k->rotate, k->rotateCount, bsQuatKeyTime) || !bsIncreasing(k->scale, k->scaleCount, bsVec3KeyTime))
	{
		return bs_errInvalidArgument;
	}
	for (int i = 0; i < k->translateCount; ++i)
	{
		if (!bsIsValidVec3(k->translate[i].value))
		{
			return bs_errNonFinite;
		}
	}
	for (int i = 0; i < k->rotateCount; ++i)
	{
		bsQuat q = k->rotate[i].value;
		if (!(fabs(bsQuat_Dot(q, q) - 1.0) < 1e-9))
		{
			return bs_errInvalidArgument;
		}
	}
	for (int i = 0; i < k->scaleCount; ++i)
	{
		bsVec3 s = k->scale[i].value;
		if (!bsIsValidVec3(s) || !(s.x > 0.0 && s.y > 0.0 && s.z > 0.0))
		{
			return bs_errInvalidArgument;
		}
	}
	return bs_ok;
}

static void* bsCopy(const void* from, size_t count, size_t size, bool* failed)
{
	if (count == 0)
	{
		return NULL;
	}
	void* to = malloc(count * size);
	if (to == NULL)
	{
		*failed = true;
		return NULL;
	}
	memcpy(to, from, count * size);
	return to;
}

static bsResult bsBody_CreateDeform(bsBody* b, const bsDeformDef* d)
{
	if (d->keyCount < 1 || d->times == NULL || d->displacement == NULL ||
		!bsIncreasing(d->times, d->keyCount, bsDoubleTime))
	{
		return bs_errInvalidArgument;
	}
	size_t values = (size_t)d->keyCount * (size_t)d->controlCount;
	for (size_t i = 0; i < values; ++i)
	{
		if (!bsIsValidVec3(d->displacement[i]))
		{
			return bs_errNonFinite;
		}
	}
	bsResult r = bsCsrbf_Init(&b->rbf, d->controls, d->controlCount, d->support);
	if (r != bs_ok)
	{
		return r;
	}
	bool failed = false;
	b->times = bsCopy(d->times, (size_t)d->keyCount, sizeof(double), &failed);
	b->displacement = bsCopy(d->displacement, values, sizeof(bsVec3), &failed);
	b->keyCount = d->keyCount;
	return failed ? bs_errOutOfMemory : bs_ok;
}

bsResult bsBody_Create(const bsBodyDef* def, bsBody** body)
{
	*body = NULL;
	bool sequence = def->kind == bs_motionDeforming && def->sequence.frameCount > 0;
	if (def->triangleCount == 0 || (def->triangles == NULL && !sequence) || (unsigned)def->kind >= (unsigned)bs_motionKindCount ||
		!(def->maxAngle > 0.0) || !(def->maxAngle <= BS_PI))
	{
		return bs_errInvalidArgument;
	}
	bsResult r = bsKeyframes_Check(&def->keys);
	bool dynamic = def->kind == bs_motionDynamic;
	if (r == bs_ok && dynamic && (def->keys.scaleCount > 0 || !(def->density > 0.0) || def->sensorParticles < 0 ||
		def->sequence.frameCount > 0))
	{
		r = bs_errInvalidArgument;
	}
	if (r == bs_ok && dynamic && !(bsIsValidVec3(def->velocity) && bsIsValidVec3(def->angularVelocity) && isfinite(def->density)))
	{
		r = bs_errNonFinite;
	}
	if (r != bs_ok)
	{
		return r;
	}
	bsBody* b = calloc(1, sizeof *b);
	if (b == NULL)
	{
		return bs_errOutOfMemory;
	}
	r = sequence ? bsSequence_Init(&b->seq, &def->sequence, def->triangleCount) : bs_ok;
	if (r != bs_ok)
	{
		free(b);
		return r;
	}
	bool failed = false;
	const bsKeyframes* k = &def->keys;
	b->kind = def->kind;
	b->triangles = bsCopy(sequence ? b->seq.rest : def->triangles, def->triangleCount, sizeof(bsTriangle), &failed);
	b->triangleCount = def->triangleCount;
	b->translate = bsCopy(k->translate, (size_t)k->translateCount, sizeof(bsVec3Key), &failed);
	b->translateCount = k->translateCount;
	b->rotate = bsCopy(k->rotate, (size_t)k->rotateCount, sizeof(bsQuatKey), &failed);
	b->rotateCount = k->rotateCount;
	b->scale = bsCopy(k->scale, (size_t)k->scaleCount, sizeof(bsVec3Key), &failed);
	b->scaleCount = k->scaleCount;
	b->loop = k->loop;
	b->maxAngle = def->maxAngle;
	b->velocity = def->velocity;
	b->angularVelocity = def->angularVelocity;
	b->density = def->density;
	b->sensorParticles = def->sensorParticles;
	b->twoWay = def->kind == bs_motionDynamic && def->twoWay;
	b->chordT0 = b->chordT1 = 0.0;
	b->chord0.rotation = bsQuatTrack(b->rotate, b->rotateCount, b->loop, 0.0);
	b->chord0.translation = bsVec3Track(b->translate, b->translateCount, b->loop, 0.0, bsV3(0.0, 0.0, 0.0));
	b->chord1 = b->chord0;
	r = failed ? bs_errOutOfMemory : bs_ok;
	// A dynamic body deforms when it is given control points (its shape in its own frame).
	bool deform = def->kind == bs_motionDeforming || (dynamic && def->deform.controlCount > 0);
	if (r == bs_ok && deform && b->seq.frameCount == 0)
	{
		r = bsBody_CreateDeform(b, &def->deform);
	}
	if (r != bs_ok)
	{
		bsBody_Destroy(b);
		return r;
	}
	*body = b;
	return bs_ok;
}

void bsBody_Destroy(bsBody* body)
{
	if (body == NULL)
	{
		return;
	}
	free(body->triangles);
	free(body->translate);
	free(body->rotate);
	free(body->scale);
	bsCsrbf_Free(&body->rbf);
	bsSequence_Free(&body->seq);
	free(body->times);
	free(body->displacement);
	free(body);
}

// --- queries ---

bsMotionKind bsBody_Kind(const bsBody* body)
{
	return body->kind;
}

const bsTriangle* bsBody_Triangles(const bsBody* body, uint32_t* count)
{
	*count = body->triangleCount;
	return body->triangles;
}

double bsBody_MaxAngle(const bsBody* body)
{
	return body->maxAngle;
}

bool bsBody_RigidShape(const bsBody* body)
{
	return body->kind != bs_motionDeforming && body->rbf.count == 0 && body->scaleCount <= 1;
}

// A dynamic body between the ends of its chord: linear translation, slerp rotation (constant
// angular velocity about one axis), as the particle sweep (collider_body.c) interpolates.
static bsTransform bsBody_ChordPose(const bsBody* body, double t)
{
	if (!(t > body->chordT0))
	{
		return body->chord0;
	}
	if (t >= body->chordT1)
	{
		return body->chord1;
	}
	double u = (t - body->chordT0) / (body->chordT1 - body->chordT0);
	bsTransform p = {bsQuat_Slerp(body->chord0.rotation, body->chord1.rotation, u),
		bsLerp(body->chord0.translation, body->chord1.translation, u)};
	return p;
}

bsRigidBodyDef bsBody_DynamicDef(const bsBody* body)
{
	bsRigidBodyDef def = bsDefaultRigidBodyDef();
	def.density = body->density;
	def.pose = body->chord0;
	def.velocity = body->velocity;
	def.angularVelocity = body->angularVelocity;
	return def;
}

int bsBody_SensorParticles(const bsBody* body)
{
	return body->sensorParticles;
}

bool bsBody_TwoWay(const bsBody* body)
{
	return body->twoWay;
}

void bsBody_SetChord(bsBody* body, double t0, bsTransform p0, double t1, bsTransform p1)
{
	body->chordT0 = t0;
	body->chordT1 = t1;
	body->chord0 = p0;
	body->chord1 = p1;
	double c = fabs(bsQuat_Dot(p0.rotation, p1.rotation));
	body->chordSpeed = t1 > t0 ? 2.0 * acos(fmin(c, 1.0)) / (t1 - t0) : 0.0;
}

void bsBody_Pose(const bsBody* body, double t, bsTransform* pose, bsVec3* scale)
{
	switch (body->kind)
	{
		case bs_motionDynamic:
			*pose = bsBody_ChordPose(body, t);
			*scale = bsV3(1.0, 1.0, 1.0);
			break;
		case bs_motionKeyframed:
		case bs_motionDeforming:
		default:
			pose->rotation = bsQuatTrack(body->rotate, body->rotateCount, body->loop, t);
			pose->translation = bsVec3Track(body->translate, body->translateCount, body->loop, t, bsV3(0.0, 0.0, 0.0));
			*scale = bsVec3Track(body->scale, body->scaleCount, body->loop, t, bsV3(1.0, 1.0, 1.0));
			break;
	}
}

int bsBody_DeformWeightCount(const bsBody* body)
{
	// Keyframed bodies have neither; a dynamic one may have control points (rbf), never a sequence.
	return body->seq.frameCount > 0 ? (int)body->seq.vertexCount : body->rbf.count;
}

static double bsSequenceTime(const void* keys, int k)
{
	return ((const bsSequence*)keys)->times[k];
}

void bsBody_DeformWeights(const bsBody* body, double t, bsVec3* weights)
{
	int n = bsBody_DeformWeightCount(body);
	if (n == 0)
	{
		return;
	}
	double u;
	if (body->seq.frameCount > 0)
	{
		int f = bsKeySpan(&body->seq, body->seq.frameCount, bsSequenceTime, body->loop, t, &u);
		bsSequence_Displacements(&body->seq, f, u, weights);
		return;
	}
	int k = bsKeySpan(body->times, body->keyCount, bsDoubleTime, body->loop, t, &u);
	const bsVec3* a = body->displacement + (size_t)k * (size_t)n;
	// The field is linear in its values, so the weights of blended values are the blended weights;
	// blending the values first costs one solve instead of two.
	bsVec3 values[64];
	bsVec3* v = n <= 64 ? values : malloc((size_t)n * sizeof(bsVec3));
	if (v == NULL)
	{
		memset(weights, 0, (size_t)n * sizeof(bsVec3));
		return;
	}
	for (int j = 0; j < n; ++j)
	{
		v[j] = u > 0.0 ? bsLerp(a[j], a[j + n], u) : a[j];
	}
	bsCsrbf_Solve(&body->rbf, v, weights);
	if (v != values)
	{
		free(v);
	}
}

bsVec3 bsBody_ShapePoint(const bsBody* body, const bsVec3* weights, bsVec3 scale, bsVec3 rest)
{
	bsVec3 x = rest;
	if (weights != NULL && bsBody_DeformWeightCount(body) > 0)
	{
		x = bsAdd(rest, body->seq.frameCount > 0 ? bsSequence_Field(&body->seq, weights, rest)
			: bsCsrbf_Eval(&body->rbf, weights, rest));
	}
	return bsV3(scale.x * x.x, scale.y * x.y, scale.z * x.z);
}

double bsBody_MaxAngularSpeed(const bsBody* body)
{
	// A dynamic body: the last substep's turn rate (contacts may change it within the next step).
	double fastest = body->kind == bs_motionDynamic ? body->chordSpeed : 0.0;
	for (int k = 0; k + 1 < body->rotateCount; ++k)
	{
		double c = fabs(bsQuat_Dot(body->rotate[k].value, body->rotate[k + 1].value));
		double angle = 2.0 * acos(fmin(c, 1.0));
		fastest = fmax(fastest, angle / (body->rotate[k + 1].time - body->rotate[k].time));
	}
	return fastest;
}

bsBodyDynamicsDef bsDefaultBodyDynamicsDef(void)
{
	bsBodyDynamicsDef def;
	def.step = bsDefaultRigidStepDef();
	def.method = bs_bodyContactExact;
	def.sensors = bsDefaultSensorDef();
	return def;
}
