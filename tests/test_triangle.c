#include "test.h"
int TriangleTest(void) { return 0; }
