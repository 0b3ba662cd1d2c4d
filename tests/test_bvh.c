#include "test.h"
int BvhTest(void) { return 0; }
