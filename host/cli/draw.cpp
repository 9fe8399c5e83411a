// `ppsim draw`: a small run drawn with Graphviz (DOT, rendered to SVG/PNG by neato):
//   messages   the machine's links with every message as an arrow labelled by its step (the style
//              of textbook Figs. 4-2, 4-5, 4-6, 4-9)
//   spacetime  processors down, steps across, each message an arrow from its sending step to its
//              arrival step (postal delay shows as a longer arrow)
//   heatmap    a mesh or torus with every link coloured and labelled by the messages it carried
#include "draw.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"

namespace ppsim::cli {

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
const char* step_colour(int64_t step) { return kPalette[size_t(step - 1) % 8]; }

struct Point {
  double x, y;
};

// Where physical node v is drawn (points; y grows upwards).
Point position(const Topology& t, int64_t v) {
  const LayoutPoint at = topology_layout(t, v);
  return {at.x, at.y};
}

std::string node_name(const Topology& t, int64_t v) { return v < t.p ? "n" + std::to_string(v) : "s" + std::to_string(v); }

std::string pos(Point p) {
  char text[64];
  std::snprintf(text, sizeof text, "\"%.1f,%.1f!\"", p.x, p.y);
  return text;
}

void emit_machine(std::ostringstream& dot, const Topology& t, bool bold_links) {
  for (int64_t v = 0; v < topology_nodes(t); ++v) {
    if (v < t.p) dot << "  " << node_name(t, v) << " [label=\"" << v << "\", pos=" << pos(position(t, v)) << "];\n";
    else
      dot << "  " << node_name(t, v)
          << " [label=\"\", shape=square, width=0.18, style=filled, fillcolor=\"#bbbbbb\", pos=" << pos(position(t, v)) << "];\n";
  }
  if (!bold_links) {
    std::set<std::pair<int64_t, int64_t>> drawn;
    const int64_t space = topology_link_ids(t);
    for (int64_t id = 0; id < space; ++id) {
      int64_t a, b;
      if (!topology_link_endpoints(t, id, a, b) || !drawn.insert({std::min(a, b), std::max(a, b)}).second) continue;
      dot << "  " << node_name(t, a) << " -> " << node_name(t, b) << " [dir=none, color=\"#c8c8c8\", penwidth=1.2];\n";
    }
  }
}

std::string draw_messages(const RunConfig& c, const RunResult& r) {
  const Topology& t = physical_topology(c);
  std::ostringstream dot;
  dot << "digraph ppsim {\n  graph [splines=curved, overlap=true, outputorder=edgesfirst, labelloc=t, fontname=\"sans\", label=\""
      << c.algorithm->name << " on " << topology_shape(t) << ": each arrow a message, labelled with its step\"];\n"
      << "  node [shape=circle, fontname=\"sans\", width=0.4, fixedsize=true];\n  edge [fontname=\"sans\", fontsize=11];\n";
  emit_machine(dot, t, false);
  for (const auto& step : r.trace)
    for (const auto& m : step.messages) {
      int64_t a = c.mapped ? map_node(c.mapping, m.from) : m.from, b = c.mapped ? map_node(c.mapping, m.to) : m.to;
      dot << "  " << node_name(t, a) << " -> " << node_name(t, b) << " [color=\"" << step_colour(m.sent) << "\", fontcolor=\""
          << step_colour(m.sent) << "\", label=\"" << m.sent << "\", penwidth=1.8];\n";
    }
  dot << "}\n";
  return dot.str();
}

std::string draw_spacetime(const RunConfig& c, const RunResult& r) {
  const int64_t p = c.topology.p, steps = r.steps;
  std::ostringstream dot;
  dot << "digraph ppsim {\n  graph [splines=false, labelloc=t, fontname=\"sans\", label=\"" << c.algorithm->name << ", p = " << p
      << ", lambda = " << c.params.lambda << ": processors down, steps across; an arrow runs from the end of the step before it is sent "
      << "to the end of the step it arrives in\"];\n  node [shape=point, width=0.08];\n  edge [fontname=\"sans\", fontsize=10];\n";
  auto at = [&](int64_t i, int64_t s) {
    std::string id = "t";
    id.append(std::to_string(i)).append("_").append(std::to_string(s));
    return id;
  };
  for (int64_t s = 0; s <= steps; ++s)
    dot << "  h" << s << " [shape=plaintext, label=\"" << (s == 0 ? std::string("start") : std::string("step ").append(std::to_string(s)))
        << "\", fontname=\"sans\", pos=" << pos({double(s) * 90 + 60, 40}) << "];\n";
  for (int64_t i = 0; i < p; ++i) {
    dot << "  l" << i << " [shape=plaintext, label=\"P" << i << "\", fontname=\"sans\", pos=" << pos({0, -double(i) * 40}) << "];\n";
    for (int64_t s = 0; s <= steps; ++s) {
      dot << "  " << at(i, s) << " [pos=" << pos({double(s) * 90 + 60, -double(i) * 40}) << "];\n";
      if (s > 0) dot << "  " << at(i, s - 1) << " -> " << at(i, s) << " [dir=none, color=\"#d0d0d0\"];\n";
    }
  }
  for (const auto& step : r.trace)
    for (const auto& m : step.messages)
      dot << "  " << at(m.from, m.sent - 1) << " -> " << at(m.to, m.arrives) << " [color=\"" << step_colour(m.sent)
          << "\", penwidth=1.6];\n";
  dot << "}\n";
  return dot.str();
}

std::string draw_heatmap(const RunConfig& c, const RunResult& r) {
  const Topology& t = physical_topology(c);
  if (!topology_is_grid(t.kind))
    throw UsageError("--kind heatmap draws meshes and tori (the machine here is " + std::string(topology_name(t.kind)) + ")");
  std::map<std::pair<int64_t, int64_t>, int64_t> load;  // undirected link -> messages over the run
  int64_t most = 0;
  for (const auto& step : r.trace)
    for (const auto& m : step.messages) {
      int64_t a = c.mapped ? map_node(c.mapping, m.from) : m.from, b = c.mapped ? map_node(c.mapping, m.to) : m.to;
      for (int64_t id : topology_route(t, a, b)) {
        int64_t x, y;
        topology_link_endpoints(t, id, x, y);
        most = std::max(most, ++load[{std::min(x, y), std::max(x, y)}]);
      }
    }
  std::ostringstream dot;
  dot << "digraph ppsim {\n  graph [splines=false, labelloc=t, fontname=\"sans\", label=\"" << c.algorithm->name << " on "
      << topology_shape(t) << ": messages per link over the run (busiest " << most << ")\"];\n"
      << "  node [shape=circle, fontname=\"sans\", width=0.4, fixedsize=true];\n  edge [fontname=\"sans\", fontsize=11, dir=none];\n";
  emit_machine(dot, t, true);
  std::set<std::pair<int64_t, int64_t>> links;
  const int64_t space = topology_link_ids(t);
  for (int64_t id = 0; id < space; ++id) {
    int64_t a, b;
    if (topology_link_endpoints(t, id, a, b)) links.insert({std::min(a, b), std::max(a, b)});
  }
  for (const auto& ends : links) {
    int64_t l = load.count(ends) ? load[ends] : 0;
    double f = most > 0 ? double(l) / double(most) : 0;
    char colour[16];
    std::snprintf(colour, sizeof colour, "#%02x%02x%02x", 255, int(235 - 200 * f), int(200 - 190 * f));
    dot << "  " << node_name(t, ends.first) << " -> " << node_name(t, ends.second) << " [color=\"" << (l ? colour : "#dddddd")
        << "\", penwidth=" << 1.5 + 6 * f << ", label=\"" << l << "\"];\n";
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace

int run_draw(const RunOptions& o, const std::string& kind, std::string format, std::string out) {
  namespace fs = std::filesystem;
  if (out.empty()) {  // DOT on stdout, as Graphviz tools expect; pictures need a file
    if (!format.empty() && format != "dot")
      throw UsageError("--format " + format + " needs --out FILE (without --out, DOT goes to stdout)");
    out = "-";
  }
  if (format.empty()) {
    std::string ext = out == "-" ? ".dot" : fs::path(out).extension().string();
    format = ext.empty() ? "" : ext.substr(1);
  }
  if (format != "dot" && format != "svg" && format != "png") throw UsageError("--format must be dot, svg or png");
  if (kind != "messages" && kind != "spacetime" && kind != "heatmap") throw UsageError("--kind must be messages, spacetime or heatmap");
  require_writable(out, "--out");
  Backend backend = Backend::cpu;
  RunConfig c = build_config(o, backend);
  if (c.topology.p > 64) throw UsageError("ppsim draw is for small machines: p <= 64 (got " + std::to_string(c.topology.p) + ")");
  c.trace = true;
  c.threads = 1;
  RunResult r = run_cpu(c);
  std::string dot = kind == "messages" ? draw_messages(c, r) : kind == "spacetime" ? draw_spacetime(c, r) : draw_heatmap(c, r);
  if (format == "dot" && out == "-") {
    std::fputs(dot.c_str(), stdout);
    return 0;
  }
  const fs::path target = fs::absolute(out), tmp = target.string() + ".tmp";
  if (format == "dot") {
    {
      std::ofstream f(tmp);
      f << dot;
      if (!f.good()) throw UsageError("cannot write " + out);
    }
    fs::rename(tmp, target);
    return 0;
  }
  if (std::system("command -v neato >/dev/null 2>&1") != 0)
    throw UsageError("--format " + format + " needs Graphviz (Debian package graphviz; scripts/setup.sh installs it)");
  const fs::path dot_file = target.string() + ".dot.tmp";
  {
    std::ofstream f(dot_file);
    f << dot;
  }
  int rc = std::system(("neato -n2 -T" + format + " '" + dot_file.string() + "' -o '" + tmp.string() + "' 2>/dev/null").c_str());
  fs::remove(dot_file);
  if (rc != 0 || !fs::exists(tmp)) {
    fs::remove(tmp);
    throw UsageError("Graphviz failed to render " + out);
  }
  fs::rename(tmp, target);
  return 0;
}

Subcommand add_draw_command(CLI::App& app) {
  struct DrawOptions {
    RunOptions run;
    std::string kind = "messages", format, out;
  };
  auto d = std::make_shared<DrawOptions>();
  auto* draw = app.add_subcommand("draw", "draw a small run with Graphviz: messages, space-time diagram or link heat map");
  add_run_options(draw, d->run);
  draw->add_option("--kind", d->kind, "messages | spacetime | heatmap")->capture_default_str();
  draw->add_option("--format", d->format, "dot | svg | png (default: from --out)");
  draw->add_option("--out", d->out, "output file: .dot, .svg or .png (default, or -: DOT on stdout)");
  return {draw, [d] { return run_draw(d->run, d->kind, d->format, d->out); }};
}

}  // namespace ppsim::cli
