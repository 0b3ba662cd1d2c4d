// placeholder: being written this session
#include "collide.h"
