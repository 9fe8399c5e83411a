// The drawings gnuplot makes for the command line (plot.cpp): a sweep's curves, a crossover map's
// heat map, a timeline's Gantt chart; each file written whole or not at all.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.h"
#include "report/timeline.h"
#include "study/tuning.h"

namespace ppsim::cli {

// Refuses (UsageError) a --plot-y that is no column, or a Chapter 5 one without --tc and --problem.
void check_plot_y(const std::string& y, bool chapter5);
// Refuses (UsageError) a --plot file that cannot be drawn: not .svg or .png, or no gnuplot here.
void check_plot_file(const std::string& path);
// Plots rows (time or steps against p, or against m when only m varies) with gnuplot: one curve per
// series, the closed form dashed in the same colour. Writes `path` (.svg or .png) atomically.
void plot_sweep(const std::vector<nlohmann::json>& rows, const std::string& path, const std::string& y);
// gnuplot's terminal for `tmp` (.svg or .png, width x height pixels) and its output file.
std::string gnuplot_output(const std::string& tmp, int width, int height);
// Runs gnuplot on script(tmp), the script writing tmp; then renames tmp to `path` (no partial file).
// Throws UsageError when gnuplot fails.
void run_gnuplot(const std::string& path, const std::function<std::string(const std::string& tmp)>& script);

// Draws the map as a heat map (m across, p up, one colour per winning algorithm) with gnuplot.
void plot_crossover(const study::CrossoverMap& map, const std::string& path);
// The Gantt chart of a timeline.
void plot_timeline(const Timeline& t, const std::string& path);

}  // namespace ppsim::cli
