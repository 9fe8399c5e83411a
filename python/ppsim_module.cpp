// ppsim._core: the simulator as a Python extension. Each entry point takes the command line's
// options as arguments ("--p", "1024", ...; ppsim/__init__.py turns keywords into them), parses them
// with the very options the CLI registers, and returns the CLI's JSON documents as Python objects.
// Runs release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "ppsim/algorithm.h"
#include "ppsim/cuda_backend.h"
#include "ppsim/errors.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "study/ranking.h"
#include "study/run_options.h"
#include "study/sweep.h"
// The command line's option tables (the keywords are its options, read by its rules) and the
// documents of its subcommands that the module returns as they print them.
#include "cli/best_command.h"
#include "cli/bounds_command.h"
#include "cli/goal_command.h"
#include "cli/msccl_command.h"
#include "cli/nccl_tests_command.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/pram_command.h"
#include "cli/sweep_command.h"
#include "cli/timeline_output.h"
#include "cli/view_command.h"

namespace py = pybind11;
using namespace ppsim;
using namespace ppsim::cli;
using namespace ppsim::study;

namespace {

PyObject* config_error = nullptr;    // ppsim.ConfigError (a ValueError): a bad option, as the CLI words it
PyObject* schedule_error = nullptr;  // ppsim.ScheduleError (a RuntimeError): an algorithm broke a step rule

// nlohmann::json -> the Python object json.loads would give.
py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(to_python(item));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = to_python(value);
      return out;
    }
    default: return py::none();  // binary and discarded values: no report holds them
  }
}

// Parses `args` (the options, without the command name) as the CLI's subcommand `name`, whose
// options `add` registers on it; a bad option is a UsageError with the command line's message.
// The command returned records which options were given.
template <class Add>
Command parse_command(const char* name, const std::vector<std::string>& args, Add add) {
  Command command(name, "");
  add(command);
  parse_options(command, args);
  return command;
}

py::object run(const std::vector<std::string>& args) {
  RunOptions o;
  const Command run = parse_command("run", args, [&](Command& c) {
    add_run_options(c, o);
    add_timeline_options(c, o);
    add_time_limit_option(c, o);
  });
  nlohmann::json doc;
  if (!o.goal.empty()) {  // as `ppsim run --goal FILE`
    check_goal_options(o, run);
    check_timeline_options(o);
    GoalTiming t;
    {
      py::gil_scoped_release unlocked;
      t = time_goal_file(o);
    }
    if (t.timeline) write_timeline(o, *t.timeline);
    doc = std::move(t.json);
  } else if (!o.msccl.empty()) {  // as `ppsim run --msccl FILE`
    MscclReport r;
    {
      py::gil_scoped_release unlocked;
      r = run_msccl(o, run);
    }
    if (!r.cannot_finish.empty()) throw ScheduleError(r.cannot_finish);
    doc = std::move(r.json);  // (a wrong result is the document's "verified": false, as for an algorithm)
  } else if (o.machine != "network") {  // as `ppsim run` does for --machine pram-*
    const PramConfig c = build_pram_config(o, parse_pram_machine_option(o.machine), run);
    PramResult r;
    {
      py::gil_scoped_release unlocked;
      r = run_pram(c);
    }
    doc = pram_json(c, r, o.machine, o.input);
  } else {
    Backend backend = Backend::automatic;
    RunConfig c = build_config(o, backend);
    check_timeline_options(o);
    check_run_time(o, c, 1, false);
    c.keep_buffers = run_total_words(c) <= kReportFinalWords;  // as `ppsim run`: final buffers when this small
    RunResult r;
    {
      py::gil_scoped_release unlocked;
      r = run_simulation(c, backend);
    }
    if (!o.timeline.empty() || !o.plot.empty()) write_timeline(o, run_timeline(c, r, o.timeline_processors));
    doc = run_json(c, backend, r);
  }
  if (!o.json.empty()) write_json(o.json, doc);
  return to_python(doc);
}

// The page `ppsim view --html` writes (its text), made with the options of `view` less --html.
std::string view_page(const std::vector<std::string>& args) {
  ViewOptions v;
  std::vector<std::string> with_html = args;
  with_html.insert(with_html.end(), {"--html", "-"});  // (the page comes back here, it is not written)
  const Command view = parse_command("view", with_html, [&](Command& c) { add_view_options(c, v); });
  py::gil_scoped_release unlocked;
  return make_view(v, view).html;
}

// An algorithm's rounds as GOAL text, as `ppsim goal --out -` prints it.
std::string goal_schedule(const std::vector<std::string>& args) {
  RunOptions o;
  parse_command("goal", args, [&](Command& c) { add_goal_options(c, o); });
  return goal_text(o);
}

// A sweep planned at once and run a point at a time, so that Python iterates over rows as they come.
class Sweep {
 public:
  explicit Sweep(const std::vector<std::string>& args) {
    parse_command("sweep", args, [&](Command& c) { add_sweep_options(c, s_); });
    if (!s_.csv.empty() || !s_.jsonl.empty() || !s_.plot.empty())
      throw UsageError("csv, jsonl and plot do not apply to ppsim.sweep: iterate over its rows (or call .to_pandas())");
    device_ = s_.run.backend != "cpu" && cuda_status().usable;
    points_ = sweep_points(s_, device_);
    check_points(points_, device_);
  }
  size_t size() const { return points_.size(); }
  py::object row(size_t i) const {
    if (i >= points_.size()) throw py::index_error("no point " + std::to_string(i));
    nlohmann::json row;
    {
      py::gil_scoped_release unlocked;
      row = sweep_row(s_, int64_t(i), points_[i], run_point(points_[i], device_));
    }
    return to_python(row);
  }

 private:
  SweepOptions s_;
  bool device_ = false;
  std::vector<SweepPoint> points_;
};

py::object best(const std::vector<std::string>& args) {
  BestOptions b;
  parse_command("best", args, [&](Command& c) { add_best_options(c, b); });
  BestResult result;
  {
    py::gil_scoped_release unlocked;
    result = rank_algorithms(b);
  }
  return to_python(best_json(result));
}

py::object nccl_tests(const std::vector<std::string>& args) {
  NcclTestsOptions o;
  const Command command = parse_command("nccl-tests", args, [&](Command& c) { add_nccl_tests_options(c, o); });
  nlohmann::json doc;
  {
    py::gil_scoped_release unlocked;
    doc = nccl_tests_json(o, command);
  }
  return to_python(doc);
}

py::object bounds(const std::vector<std::string>& args) {
  BoundsOptions o;
  parse_command("bounds", args, [&](Command& c) { add_bounds_options(c, o); });
  return to_python(bounds_json(o));
}

// Names of the topologies an algorithm runs on (or is the default on).
py::list topology_list(const AlgorithmInfo& a, bool (AlgorithmInfo::*on)(TopologyKind) const) {
  py::list names;
  for (int k = 0; k < kTopologyCount; ++k)
    if ((a.*on)(TopologyKind(k))) names.append(topology_name(TopologyKind(k)));
  return names;
}

py::list algorithm_list() {
  py::list out;
  for (int o = 0; o < kOperationCount; ++o)  // in `ppsim list` order: by operation
    for (const auto& a : algorithms()) {
      if (a.op != Operation(o)) continue;
      py::dict d;
      d["name"] = a.name;
      d["op"] = operation_name(a.op);
      d["description"] = a.description;
      d["formula"] = a.formula_text;
      d["topologies"] = topology_list(a, &AlgorithmInfo::runs_on);
      d["default_on"] = topology_list(a, &AlgorithmInfo::native_on);
      d["needs_pow2"] = a.needs_pow2();
      d["commutative_only"] = a.commutative_only();
      out.append(d);
    }
  return out;
}

py::list topology_dicts() {
  py::list out;
  for (int k = 0; k < kTopologyCount; ++k) {
    const auto kind = TopologyKind(k);
    py::dict d;
    d["name"] = topology_name(kind);
    d["hint"] = topology_hint(kind);
    d["link_classes"] = topology_link_classes_text(kind);
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ppsim's simulator (use the ppsim package, which wraps this module)";
  config_error = PyErr_NewException("ppsim.ConfigError", PyExc_ValueError, nullptr);
  schedule_error = PyErr_NewException("ppsim.ScheduleError", PyExc_RuntimeError, nullptr);
  m.attr("ConfigError") = py::handle(config_error);
  m.attr("ScheduleError") = py::handle(schedule_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UsageError& e) {
      PyErr_SetString(config_error, e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(config_error, e.what());
    } catch (const ScheduleError& e) {
      PyErr_SetString(schedule_error, e.what());
    }
  });

  m.def("run", &run, "one run, as `ppsim run --json` reports it");
  py::class_<Sweep>(m, "Sweep")
      .def(py::init<const std::vector<std::string>&>())
      .def("__len__", &Sweep::size)
      .def("row", &Sweep::row, "runs point i and returns its row");
  m.attr("sweep_columns") = kSweepColumns;
  m.def("view", &view_page, "the page of `ppsim view --html`, as text");
  m.def("best", &best, "as `ppsim best --json`");
  m.def("goal", &goal_schedule, "an algorithm's rounds as GOAL text, as `ppsim goal --out -`");
  m.def("bounds", &bounds, "as `ppsim bounds --json`");
  m.def("nccl_tests", &nccl_tests, "as `ppsim nccl-tests --json -`");
  m.def("algorithms", &algorithm_list);
  m.def("topologies", &topology_dicts);
  m.def("cuda_usable", [] { return cuda_status().usable; });
}
