// --timeline and --plot of `run` (timeline_output.h).
#include "timeline_output.h"

#include "output_file.h"
#include "plot.h"

namespace ppsim::cli {

void check_timeline_options(const RunOptions& o) {
  if (o.timeline_processors > kMaxTimelineProcessors)
    throw UsageError("--timeline-processors must be from 1 to " + std::to_string(kMaxTimelineProcessors));
  require_distinct_outputs({{"--json", o.json}, {"--timeline", o.timeline}, {"--plot", o.plot}});
  if (!o.timeline.empty()) require_writable(o.timeline, "--timeline");
  if (!o.plot.empty()) {
    check_plot_file(o.plot);
    require_writable(o.plot, "--plot");
  }
}

void write_timeline(const RunOptions& o, const Timeline& t) {
  if (!o.plot.empty() && t.slices.size() > kMaxPlotSlices)
    throw ConfigError("--plot: the timeline holds " + std::to_string(t.slices.size()) + " slices, more than a chart can show (" +
                      std::to_string(kMaxPlotSlices) + "): keep fewer processors (--timeline-processors) or use --timeline");
  if (!o.timeline.empty()) write_json(o.timeline, timeline_json(t), "--timeline");
  if (!o.plot.empty()) plot_timeline(t, o.plot);
}

}  // namespace ppsim::cli
