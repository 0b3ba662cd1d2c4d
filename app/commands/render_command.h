// render_command.h — `blobsim render DIR`: renders the scenes of an existing output folder (scene.pov
// and the frames of an animation) without simulating, with the settings the run recorded in
// DIR/summary.json.
#pragma once

// `blobsim render DIR [--frames A-B | --scene] [--jobs N] [--threads N] [--force] [--movie] [--quiet]`.
// argv[0] is "render". Returns an exit status (cli.h).
int bsRenderMain(int argc, char** argv);
