// config_track.c — keyframe tracks from JSON (config_track.h).
#include "config_track.h"

#include <string.h>

#define BS_TRACK_WHAT "3 numbers or an array of keys {\"time\": t, \"value\": [x, y, z]}"

static const bsSchemaKey bsTrackKeyKeys[] = {BS_KEY("time", BS_VALUE), BS_KEY("value", BS_VALUE)};
const bsSchema bsTrackKeySchema = BS_ELEMENT(bsTrackKeyKeys, "an object (a key: {\"time\": t, \"value\": [x, y, z]})");
const bsSchema bsTrackArraySchema = BS_ARRAY(&bsTrackKeySchema);

// Key k of the track from the element e; the path is at the element.
static bool bsReadTrackKey(bsCtx* c, const cJSON* e, bool scalar, bsTrack* track, int k)
{
	if (!cJSON_IsObject(e))
	{
		return bsFailExpected(c, scalar ? "an object (a key: {\"time\": t, \"value\": x})" : bsTrackKeySchema.what, e);
	}
	track->value[k] = bsV3(0.0, 0.0, 0.0);
	if (!bsCheckKeys(c, e, bsTrackKeyKeys, BS_COUNT(bsTrackKeyKeys)) ||
		!bsReadNumber(c, e, "time", true, &bsAnyNumber, 0.0, &track->time[k]) ||
		(scalar ? !bsReadNumber(c, e, "value", true, &bsAnyNumber, 0.0, &track->value[k].x)
				: !bsReadVec3(c, e, "value", true, &bsAnyNumber, "3 numbers", bsV3(0.0, 0.0, 0.0), &track->value[k])))
	{
		return false;
	}
	if (k > 0 && !(track->time[k] > track->time[k - 1]))
	{
		char now[32];
		char before[32];
		bsFormatNumber(track->time[k], now);
		bsFormatNumber(track->time[k - 1], before);
		bsPushKey(c, "time");
		return bsFail(c, "times must increase from key to key: %s after %s", now, before);
	}
	return true;
}

bool bsIsKeys(const cJSON* v)
{
	return cJSON_IsArray(v) && v->child != NULL && cJSON_IsObject(v->child);
}

bool bsReadKeys(bsCtx* c, const cJSON* v, bool scalar, bsTrack* out)
{
	int n = cJSON_GetArraySize(v);
	if (n > BS_MAX_KEYS)
	{
		return bsFail(c, "at most %d keys, got %d", BS_MAX_KEYS, n);
	}
	bsTrack track;
	memset(&track, 0, sizeof(track));
	track.count = n;
	int k = 0;
	for (const cJSON* e = v->child; e != NULL; e = e->next, ++k)
	{
		size_t imark = bsPushIndex(c, k);
		if (!bsReadTrackKey(c, e, scalar, &track, k))
		{
			return false;
		}
		bsPop(c, imark);
	}
	*out = track;
	return true;
}

bool bsReadTrack(bsCtx* c, const cJSON* parent, const char* key, bool required, bsTrack* out)
{
	const cJSON* v = bsMember(parent, key);
	if (v == NULL)
	{
		return required ? bsMissing(c, key) : true;
	}
	size_t mark = bsPushKey(c, key);
	if (!cJSON_IsArray(v) || v->child == NULL)
	{
		return bsFailExpected(c, BS_TRACK_WHAT, v);
	}
	if (bsIsKeys(v))
	{
		if (!bsReadKeys(c, v, false, out))
		{
			return false;
		}
		bsPop(c, mark);
		return true;
	}
	bsVec3 value;
	if (!bsVec3FromValue(c, v, &bsAnyNumber, "3 numbers", &value))
	{
		return false;
	}
	*out = bsConstantTrack(value);
	bsPop(c, mark);
	return true;
}

// Every key's value of track in each (x alone when scalar): else an error at key[k].value (and its
// component when not scalar). The path is at the track.
static bool bsCheckRampValues(bsCtx* c, const cJSON* v, bool scalar, const bsRange* each, const bsTrack* track)
{
	for (int k = 0; k < track->count; ++k)
	{
		double x[3] = {track->value[k].x, track->value[k].y, track->value[k].z};
		for (int i = 0; i < (scalar ? 1 : 3); ++i)
		{
			if (bsInRange(x[i], each))
			{
				continue;
			}
			char got[32];
			bsFormatNumber(x[i], got);
			if (bsIsKeys(v))
			{
				bsPushIndex(c, k);
				bsPushKey(c, "value");
			}
			if (!scalar)
			{
				bsPushIndex(c, i);
			}
			return bsFail(c, "expected %s, got %s", each->what, got);
		}
	}
	return true;
}

bool bsReadRamp(bsCtx* c, const cJSON* parent, const char* key, bool scalar, const bsRange* each, bsTrack* out,
	bool* given)
{
	const cJSON* v = bsMember(parent, key);
	*given = v != NULL;
	if (v == NULL)
	{
		return true;
	}
	if (!bsIsKeys(v))
	{
		bsVec3 value = bsV3(0.0, 0.0, 0.0);
		bool ok = scalar ? bsReadNumber(c, parent, key, true, each, 0.0, &value.x)
						 : bsReadVec3(c, parent, key, true, each, "3 numbers", value, &value);
		*out = bsConstantTrack(value);
		return ok;
	}
	size_t mark = bsPushKey(c, key);
	if (!bsReadKeys(c, v, scalar, out) || !bsCheckRampValues(c, v, scalar, each, out))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}
