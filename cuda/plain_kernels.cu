// The plain runs' pull kernels (rules::PlainUnit: no call, no frame), compiled apart from
// backend.cu so that the two build side by side: the launches tally_launch.h declares.
#include "tally_launch.h"

namespace ppsim {
namespace kernels {

#define PPSIM_PLAIN_LAUNCHES_DEFINED(unit) PPSIM_PLAIN_LAUNCHES(unit, )
PPSIM_PULL_UNITS(PPSIM_PLAIN_LAUNCHES_DEFINED)
#undef PPSIM_PLAIN_LAUNCHES_DEFINED

}  // namespace kernels
}  // namespace ppsim
