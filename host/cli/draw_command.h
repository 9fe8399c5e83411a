// `ppsim draw`: pictures of small runs through Graphviz.
#pragma once
#include <string>

#include "options.h"

namespace ppsim::cli {

// kind: messages | spacetime | heatmap; format: dot | svg | png (empty: from out's extension).
int run_draw(const RunOptions& o, const std::string& kind, const std::string& format, const std::string& out);

}  // namespace ppsim::cli
