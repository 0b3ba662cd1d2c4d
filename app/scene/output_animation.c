// output_animation.c — animation.ini, POV-Ray's settings to render the frames (pov_writer.h), when
// the run wrote frames.
#include "output_writers.h"

static bool bsAnimationOutput_Write(bsOutputContext* o, int frame, char* err, size_t errlen)
{
	(void)frame;
	if (o->frames <= 0)
	{
		return true;
	}
	const bsRenderConfig* rc = &o->config->render;
	char path[bs_outputPathMax];
	bsOutput_Path(path, o->dir, "animation.ini");
	return bsPov_WriteAnimationIni(path, o->frames - 1, rc->width, rc->height, rc->antialias, rc->jitter, err, errlen);
}

const bsOutputWriter bs_animationOutput = {"animation", bs_outputScene, bsAnimationOutput_Write};
