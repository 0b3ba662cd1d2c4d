// track.c — keyframe tracks (track.h): validation and linear interpolation.
#include "blobsim/track.h"

#include <math.h>
#include <string.h>

bsTrack bsConstantTrack(bsVec3 value)
{
	bsTrack track;
	memset(&track, 0, sizeof(track));
	track.count = 1;
	track.value[0] = value;
	return track;
}

int bsTrack_FirstBadKey(const bsTrack* track)
{
	if (track->count < 1 || track->count > BS_MAX_KEYS)
	{
		return 0;
	}
	for (int k = 0; k < track->count; ++k)
	{
		bsVec3 v = track->value[k];
		if (!isfinite(track->time[k]) || !isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z) ||
			(k > 0 && !(track->time[k] > track->time[k - 1])))
		{
			return k;
		}
	}
	return -1;
}

// The key k with time[k] <= t < time[k + 1], for time[0] <= t < time[last].
static int bsTrack_Span(const bsTrack* track, double t)
{
	int last = track->count - 1;
	int k = 0;
	int hi = last;
	while (hi - k > 1)
	{
		int mid = k + (hi - k) / 2;
		if (track->time[mid] <= t)
		{
			k = mid;
		}
		else
		{
			hi = mid;
		}
	}
	return k;
}

bsVec3 bsTrack_At(const bsTrack* track, double t)
{
	int last = track->count - 1;
	if (!(t > track->time[0]))
	{
		return track->value[0];
	}
	if (t >= track->time[last])
	{
		return track->value[last];
	}
	int k = bsTrack_Span(track, t);
	double u = (t - track->time[k]) / (track->time[k + 1] - track->time[k]);
	return bsLerp(track->value[k], track->value[k + 1], u);
}

bsVec3 bsTrack_Slope(const bsTrack* track, double t)
{
	int last = track->count - 1;
	if (!(t >= track->time[0]) || t >= track->time[last])
	{
		return bsV3(0.0, 0.0, 0.0);
	}
	int k = bsTrack_Span(track, t);
	double span = track->time[k + 1] - track->time[k];
	return bsScale(1.0 / span, bsSub(track->value[k + 1], track->value[k]));
}
