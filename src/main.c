#include "blobsim_version.h"
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) { if (argc > 1 && strcmp(argv[1], "--version") == 0) { printf("blobsim %s\n", BLOBSIM_VERSION); return 0; } if (argc > 1 && strcmp(argv[1], "--help") == 0) return 0; return 2; }
