// --timeline, --timeline-processors and --plot of `run`: checked before the run, written after it.
#pragma once
#include "options.h"
#include "report/timeline.h"

namespace ppsim::cli {

// The files are writable, the processors kept within bounds, the plot's name ends in .svg or .png
// and gnuplot is there. Throws UsageError.
void check_timeline_options(const RunOptions& o);
// Writes the timeline (--timeline) and its Gantt chart (--plot); the chart is refused before
// anything is written when it would hold too many slices to draw.
void write_timeline(const RunOptions& o, const Timeline& t);
// Most slices --plot draws.
inline constexpr size_t kMaxPlotSlices = 100000;

}  // namespace ppsim::cli
