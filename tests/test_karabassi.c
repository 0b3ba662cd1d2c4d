#include "test.h"
int KarabassiTest(void) { return 0; }
