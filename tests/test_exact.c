#include "test.h"
int ExactTest(void) { return 0; }
