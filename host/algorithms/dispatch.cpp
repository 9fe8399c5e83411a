// The host's one copy of the per-processor dispatches (dispatch.h), compiled from all.h's bodies.
#define PPSIM_DISPATCH_BODIES
#include "algorithms/all.h"
