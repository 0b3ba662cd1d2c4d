#include "test.h"
int ReferenceTest(void) { return 0; }
