// The command line's drawings through gnuplot (a Debian package; nothing is drawn by hand): a
// sweep's curves, a crossover map's heat map, a timeline's Gantt chart (plot.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "plot.h"

#include "output_file.h"
#include "study/sweep.h"

namespace ppsim::cli {

void check_plot_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".svg" && ext != ".png") throw UsageError("--plot '" + path + "' must end in .svg or .png");
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    throw UsageError("--plot needs gnuplot (Debian package gnuplot-nox; scripts/setup.sh installs it)");
}

namespace {

namespace fs = std::filesystem;

const std::map<std::string, std::string> kYLabels = {{"time", "time (units of t_s, t_w, t_h)"},
                                                     {"steps", "steps"},
                                                     {"speedup", "speedup T_s / T_p"},
                                                     {"efficiency", "efficiency S / p"},
                                                     {"cost", "cost p T_p (time units)"},
                                                     {"parallel_time", "parallel time T_p (time units)"},
                                                     {"max_link_load", "busiest link (messages in one step)"},
                                                     {"link_hops", "link-hops"}};


}  // namespace

void check_plot_y(const std::string& y, bool chapter5) {
  if (!kYLabels.count(y))
    throw UsageError("--plot-y must be time, steps, speedup, efficiency, cost, parallel_time, max_link_load or link_hops");
  if (!chapter5 && (y == "speedup" || y == "efficiency" || y == "cost" || y == "parallel_time"))
    throw UsageError("--plot-y " + y + " needs --tc and --problem (Chapter 5 metrics)");
}

namespace {

// The x axis: p, or m when only m varies.
std::string x_field(const std::vector<nlohmann::json>& rows) {
  std::set<int64_t> ps, ms;
  for (const auto& r : rows) {
    ps.insert(r["p"].get<int64_t>());
    ms.insert(r["m"].get<int64_t>());
  }
  return ps.size() > 1 || ms.size() <= 1 ? "p" : "m";
}

using Series = std::map<std::string, std::vector<const nlohmann::json*>>;  // label -> its rows

// A series is every row that agrees on all varying fields except x; its label names those fields.
Series group_series(const std::vector<nlohmann::json>& rows, const std::string& x) {
  const std::vector<std::string> fields = {"topology", "logical", "algo", "p", "m", "ports", "lambda", "ts", "tw", "th"};
  std::map<std::string, std::set<std::string>> values;
  for (const auto& r : rows)
    for (const auto& f : fields) values[f].insert(r[f].dump());
  Series series;
  for (const auto& r : rows) {
    std::string label;
    for (const auto& f : fields) {
      if (f == x || values[f].size() <= 1) continue;
      std::string v = r[f].is_string() ? r[f].get<std::string>() : r[f].dump();
      if (!label.empty()) label += ' ';
      label += f == "algo" || f == "topology" || f == "logical" ? v : f + "=" + v;
    }
    if (label.empty()) label = r["algo"].get<std::string>();
    series[label].push_back(&r);
  }
  return series;
}

// gnuplot's inline data blocks ($s0, $s1, ...: x, y, closed form) and the plot command over them,
// with the ranges that decide the log scales.
struct PlotLines {
  std::string data, plot = "plot ";
  double lo_x = 1e300, hi_x = 0, lo_y = 1e300, hi_y = 0;
};

PlotLines plot_lines(Series& series, const std::string& x, const std::string& y) {
  PlotLines out;
  int i = 0;
  for (auto& [label, pts] : series) {
    std::sort(pts.begin(), pts.end(), [&](auto a, auto b) { return (*a)[x].template get<double>() < (*b)[x].template get<double>(); });
    out.data += "$s" + std::to_string(i) + " << EOD\n";
    bool has_formula = y == "time";
    for (const auto* r : pts) {
      double xv = (*r)[x].get<double>(), yv = (*r)[y].get<double>();
      const auto& f = (*r)["formula_time"];
      if (f.is_null()) has_formula = false;
      out.data +=
          std::to_string(xv) + " " + std::to_string(yv) + " " + (f.is_null() ? std::string("NaN") : std::to_string(f.get<double>())) + "\n";
      out.lo_x = std::min(out.lo_x, xv);
      out.hi_x = std::max(out.hi_x, xv);
      if (yv > 0) {
        out.lo_y = std::min(out.lo_y, yv);
        out.hi_y = std::max(out.hi_y, yv);
      }
    }
    out.data += "EOD\n";
    std::string quoted = label;
    for (auto& ch : quoted)
      if (ch == '"' || ch == '_') ch = ch == '_' ? '-' : '\'';
    out.plot += std::string(i ? ", " : "") + "$s" + std::to_string(i) + " using 1:2 with linespoints lw 2 lc " + std::to_string(i + 1) +
                " title \"" + quoted + "\"";
    if (has_formula)
      out.plot += ", $s" + std::to_string(i) + " using 1:3 with lines dt 2 lw 1.5 lc " + std::to_string(i + 1) + " title \"" + quoted +
                  " (formula)\"";
    ++i;
  }
  return out;
}

std::string gnuplot_script(const PlotLines& lines, const fs::path& tmp, const std::string& x, const std::string& y, const std::string& op) {
  std::string script = lines.data + gnuplot_output(tmp.string(), 900, 560);
  script += "set grid\nset key top left box opaque font ',10'\n";
  script += x == "p" ? "set xlabel 'processors p'\n" : "set xlabel 'message size m (words)'\n";
  script += "set ylabel '" + kYLabels.at(y) + "'\n";
  if (lines.hi_x >= 16 * lines.lo_x) script += "set logscale x 2\n";
  if (lines.hi_y >= 100 * lines.lo_y) script += "set logscale y 10\n";
  script += "set title 'ppsim: " + op + (y == "time" ? " (dashed: closed form)" : "") + "'\n";
  script += lines.plot + "\nunset output\n";
  return script;
}

}  // namespace

void plot_sweep(const std::vector<nlohmann::json>& rows, const std::string& path, const std::string& y) {
  check_plot_file(path);
  const std::string x = x_field(rows);
  Series series = group_series(rows, x);
  const PlotLines lines = plot_lines(series, x, y);
  run_gnuplot(path, [&](const std::string& tmp) { return gnuplot_script(lines, tmp, x, y, rows.front()["op"].get<std::string>()); });
}

namespace {

// A slice's colour in the Gantt chart, by what it is.
unsigned slice_colour(const std::string& name) {
  static const std::map<std::string, unsigned> colours = {{"o send", 0x4e79a7}, {"send", 0x4e79a7},   {"o recv", 0x59a14f},
                                                          {"recv", 0x59a14f},   {"calc", 0x9c755f},   {"noise", 0xe15759},
                                                          {"g send", 0x76b7b2}, {"g recv", 0xedc948}};
  const auto it = colours.find(name);
  return it == colours.end() ? 0x888888u : it->second;
}

}  // namespace

void plot_timeline(const Timeline& t, const std::string& path) {
  check_plot_file(path);
  // A row per track each kept processor uses, top to bottom in the order of the processors.
  std::map<std::pair<int64_t, int>, int> row;
  for (const TimelineSlice& s : t.slices) row[{s.proc, s.track}] = 0;
  int n = 0;
  for (auto& [key, r] : row) r = n++;
  const double scale = t.unit == "ns" ? 1e-3 : 1.0;  // the x axis in us (LogGP) or the model's units
  std::string data = "$slices << EOD\n";
  std::set<std::string> kinds;
  for (const TimelineSlice& s : t.slices) {
    const double y = double(n - 1 - row[{s.proc, s.track}]);
    char line[160];
    std::snprintf(line, sizeof line, "%.9g %.9g %.3f %.3f %u\n", s.start * scale, (s.start + s.dur) * scale, y - 0.4, y + 0.4,
                  slice_colour(s.name));
    data += line;
    kinds.insert(s.name);
  }
  data += "EOD\n";
  std::string ytics;
  for (const auto& [key, r] : row) {
    const std::string label = "processor " + std::to_string(key.first) + " " + t.tracks.at(size_t(key.second));
    ytics += std::string(ytics.empty() ? "" : ", ") + "\"" + label + "\" " + std::to_string(n - 1 - r);
  }
  run_gnuplot(path, [&](const std::string& tmp) {
    std::string script = data + gnuplot_output(tmp, 1100, std::max(300, 120 + 18 * n));
    script += "set title \"ppsim: " + t.title + "\" noenhanced\n";
    script += std::string("set xlabel '") + (t.unit == "ns" ? "time (us)" : "time (units of the model)") + "'\n";
    script += "set yrange [-0.7:" + std::to_string(n) + "-0.3]\nset ytics (" + ytics + ") font ',8' noenhanced\n";
    script += "set grid xtics\nset key outside right top box\nset style fill solid 0.9 noborder\n";
    script += "plot $slices using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror lc rgb variable notitle";
    for (const std::string& k : kinds) {
      char entry[120];
      std::snprintf(entry, sizeof entry, ", keyentry with boxes lc rgb '#%06x' title '%s'", slice_colour(k), k.c_str());
      script += entry;
    }
    return script + "\nunset output\n";
  });
}

std::string gnuplot_output(const std::string& tmp, int width, int height) {
  const std::string size = std::to_string(width) + "," + std::to_string(height);
  std::string out = fs::path(tmp).extension() == ".svg"
                        ? "set terminal svg size " + size + " dynamic enhanced font 'sans,12' background rgb 'white'\n"
                        : "set terminal pngcairo size " + size + " enhanced font 'sans,11'\n";
  return out + "set output '" + tmp + "'\n";
}

void run_gnuplot(const std::string& path, const std::function<std::string(const std::string& tmp)>& script) {
  write_rendered(
      path, "--plot", fs::path(path).extension().string().substr(1), script,
      [](const std::string& input, const std::string&) { return "gnuplot '" + input + "' 2>/dev/null"; }, "gnuplot failed to draw " + path);
}

void plot_crossover(const study::CrossoverMap& map, const std::string& path) {
  check_plot_file(path);
  // One colour index per algorithm that wins somewhere, in order of first win.
  std::vector<std::string> winners;
  for (const auto& row : map.rows)
    for (const auto& r : row.ranking.rows) {
      const std::string& w = r.entries[size_t(r.best_sim)].name;
      if (std::find(winners.begin(), winners.end(), w) == winners.end()) winners.push_back(w);
    }
  if (winners.empty()) throw UsageError("--plot: no cell of the map ran");
  // The grid as an image: column i = the i-th m, row j = the j-th p, value = the winner's index (NaN: none ran).
  std::string data = "$map << EOD\n";
  for (size_t j = 0; j < map.rows.size(); ++j)
    for (size_t i = 0; i < map.ms.size(); ++i) {
      std::string v = "NaN";
      for (const auto& r : map.rows[j].ranking.rows)
        if (r.m == map.ms[i]) {
          const std::string& w = r.entries[size_t(r.best_sim)].name;
          v = std::to_string(std::find(winners.begin(), winners.end(), w) - winners.begin());
        }
      data += std::to_string(i) + " " + std::to_string(j) + " " + v + "\n";
    }
  data += "EOD\n";
  auto tics = [](const std::vector<int64_t>& values) {
    std::string t = "(";
    for (size_t i = 0; i < values.size(); ++i) t += (i ? ", \"" : "\"") + std::to_string(values[i]) + "\" " + std::to_string(i);
    return t + ")";
  };
  const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  // Colour k spans [k, k + 1] of the palette, which the colour box maps onto [k - 1/2, k + 1/2].
  std::string palette = "set palette defined (";
  std::string cbtics = "set cbtics (";
  for (size_t k = 0; k < winners.size(); ++k) {
    const std::string c = std::string("'") + colours[k % 10] + "'";
    palette += (k ? ", " : "") + std::to_string(k) + " " + c + ", " + std::to_string(k + 1) + " " + c;
    std::string label = winners[k];
    std::replace(label.begin(), label.end(), '_', ' ');
    cbtics += (k ? ", \"" : "\"") + label + "\" " + std::to_string(k);
  }
  palette += ")\n";
  cbtics += ")\n";
  run_gnuplot(path, [&](const std::string& tmp) {
    std::string s = data + gnuplot_output(tmp, 1000, 600);
    s += "set title 'ppsim: fastest " + std::string(operation_name(map.op)) + " algorithm (simulated) on " + map.topology + "'\n";
    s += "set xlabel 'message size m (words)'\nset ylabel 'processors p'\n";
    s += "set xtics " + tics(map.ms) + " rotate by 45 right font ',9'\n";
    s += "set ytics " + tics(map.ps) + "\n";
    s += "set xrange [-0.5:" + std::to_string(map.ms.size()) + "-0.5]\nset yrange [-0.5:" + std::to_string(map.ps.size()) + "-0.5]\n";
    s += "set cbrange [-0.5:" + std::to_string(winners.size()) + "-0.5]\n" + palette + cbtics;
    s += "set rmargin 28\nunset key\nplot $map using 1:2:3 with image\nunset output\n";
    return s;
  });
}

}  // namespace ppsim::cli
