// `ppsim draw`: a small run drawn with Graphviz (DOT, rendered to SVG/PNG by neato):
//   messages   the machine's links with every message as an arrow labelled by its step (the style
//              of textbook Figs. 4-2, 4-5, 4-6, 4-9)
//   spacetime  processors down, steps across, each message an arrow from its sending step to its
//              arrival step (postal delay shows as a longer arrow)
//   heatmap    a mesh or torus with every link coloured and labelled by the messages it carried
#include "draw_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "output_file.h"
#include "view_command.h"

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

std::string node_name(const Topology& t, int64_t v) {
  std::string name(1, v < t.p ? 'n' : 's');  // a processor, or a switch
  return name.append(std::to_string(v));
}

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
  std::vector<int64_t> rows;  // the processors, then the switch agents the messages use
  for (int64_t i = 0; i < p; ++i) rows.push_back(i);
  std::set<int64_t> switches;
  for (const auto& step : r.trace)
    for (const auto& m : step.messages)
      for (int64_t end : {m.from, m.to})
        if (end >= p) switches.insert(end);
  rows.insert(rows.end(), switches.begin(), switches.end());
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
  for (size_t row = 0; row < rows.size(); ++row) {
    const int64_t i = rows[row];
    const double y = -double(row) * 40;
    dot << "  l" << i << " [shape=plaintext, label=\"" << (i < p ? "P" : "switch ") << i << "\", fontname=\"sans\", pos=" << pos({0, y}) << "];\n";
    for (int64_t s = 0; s <= steps; ++s) {
      dot << "  " << at(i, s) << " [pos=" << pos({double(s) * 90 + 60, y}) << "];\n";
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

// The picture's format: --format, or the extension of --out; the two must agree.
std::string draw_format(const std::string& format, const std::string& out) {
  if (!format.empty() && format != "dot" && format != "svg" && format != "png") throw UsageError("--format must be dot, svg or png");
  if (out == "-") return format.empty() ? "dot" : format;
  const size_t dot = out.find_last_of('.'), slash = out.find_last_of('/');
  const std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : out.substr(dot + 1);
  const bool known = ext == "dot" || ext == "svg" || ext == "png";
  if (known && !format.empty() && format != ext)
    throw UsageError("--format " + format + " does not match --out " + out + " (." + ext + "): name the file ." + format +
                     ", or leave --format out");
  if (known) return ext;
  if (format.empty()) throw UsageError("--out " + out + ": name it .dot, .svg or .png, or give --format");
  return format;
}

}  // namespace

int run_draw(const RunOptions& o, const std::string& kind, const std::string& format_option, const std::string& out_option) {
  // Without --out: DOT on stdout, as Graphviz tools expect.
  if (out_option.empty() && !format_option.empty() && format_option != "dot")
    throw UsageError("--format " + format_option + " needs --out (FILE, or - for stdout)");
  const std::string out = out_option.empty() ? std::string(1, '-') : out_option;
  const std::string format = draw_format(format_option, out);
  if (kind != "messages" && kind != "spacetime" && kind != "heatmap") throw UsageError("--kind must be messages, spacetime or heatmap");
  check_step_run(o, "ppsim draw");
  require_writable(out, "--out");
  if (format != "dot" && std::system("command -v neato >/dev/null 2>&1") != 0)
    throw UsageError("--format " + format + " needs Graphviz (Debian package graphviz; scripts/setup.sh installs it)");
  Backend backend = Backend::cpu;
  RunConfig c = build_config(o, backend);
  if (c.topology.p > 64) throw UsageError("ppsim draw is for small machines: p <= 64 (got " + std::to_string(c.topology.p) + ")");
  c.trace = true;
  c.threads = 1;
  RunResult r = run_cpu(c);
  const std::string dot = kind == "messages" ? draw_messages(c, r) : kind == "spacetime" ? draw_spacetime(c, r) : draw_heatmap(c, r);
  if (format == "dot") {
    write_output(out, "--out", dot);
    return 0;
  }
  write_rendered(
      out, "--out", format, [&](const std::string&) { return dot; },
      [&](const std::string& input, const std::string& picture) {
        return "neato -n2 -T" + format + " '" + input + "' -o '" + picture + "' 2>/dev/null";
      },
      "Graphviz failed to render " + out);
  return 0;
}

Command draw_command() {
  struct DrawOptions {
    RunOptions run;
    std::string kind = "messages", format, out;
  };
  auto d = std::make_shared<DrawOptions>();
  Command draw("draw", "draw a small run with Graphviz: messages, space-time diagram or link heat map");
  add_run_options(draw, d->run);
  draw.text("--kind", d->kind, "messages | spacetime | heatmap", true);
  draw.text("--format", d->format, "dot | svg | png (default: from --out)");
  draw.text("--out", d->out, "output file: .dot, .svg or .png, or - for stdout (default: DOT on stdout)");
  draw.run = [d](const Command&) { return run_draw(d->run, d->kind, d->format, d->out); };
  return draw;
}

}  // namespace ppsim::cli
