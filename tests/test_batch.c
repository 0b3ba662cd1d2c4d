#include "test.h"
int BatchTest(void) { return 0; }
