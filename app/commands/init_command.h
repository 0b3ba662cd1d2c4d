// init_command.h — `blobsim init MODEL.obj`: a first config that renders a material on a model at once
// (app/commands/init_command.c).
#pragma once

// argv[0] is "init". Returns the exit status (cli.h).
int bsInitMain(int argc, char** argv);
