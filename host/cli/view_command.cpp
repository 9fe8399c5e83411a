// `ppsim view`: a run replayed in the browser (view_command.h).
#include "view_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "dist/world.h"
#include "output_file.h"
#include "ppsim/report.h"
#include "ppsim/run.h"
#include "report/replay.h"

namespace ppsim::cli {

const char* view_page_template();  // view_page.html, built in (CMake writes view_page.cpp)

void check_step_run(const RunOptions& o, const std::string& command) {
  auto refuse = [&](const std::string& what) { throw UsageError(command + " shows the steps of a network run: " + what); };
  if (!o.goal.empty()) refuse("--goal schedules are timed by events, not steps");
  if (!o.msccl.empty()) refuse("--msccl programs are not step patterns");
  if (o.machine != "network") refuse("--machine " + o.machine + " is a shared-memory machine (use `ppsim run --trace`)");
  if (o.model == "loggp") refuse("--model loggp has no steps (use `ppsim run --timeline`)");
  if (dist::world()) refuse("it runs in one process, not under mpirun");
}

void add_view_options(Command& command, ViewOptions& v) {
  add_run_options(command, v.run);
  command.text("--html", v.html, "the page to write: FILE.html, or - for stdout (self-contained: open it offline, mail it, put it on a course page)");
  command.require("--html");
  command.flag("--aggregate", v.aggregate,
               "show aggregates (link-load heat map, messages per step, a processor sample) even for a run small enough to show every message "
               "(they are shown past p = " + std::to_string(kReplayDetailProcessors) + ")");
}

std::string view_html(const nlohmann::json& data) {
  std::string text = data.dump();
  // Inside <script>, "</" could end the element: JSON writes it "<\/" as well.
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) text.replace(at, 2, "<\\/");
  std::string page = view_page_template();
  const std::string slot = "PPSIM_VIEW_DATA";
  const size_t at = page.find(">" + slot + "<");
  if (at == std::string::npos) throw std::logic_error("view_page.html has no data slot");
  page.replace(at + 1, slot.size(), text);
  return page;
}

ViewPage make_view(const ViewOptions& v, const Command& parsed) {
  const RunOptions& o = v.run;
  check_step_run(o, "ppsim view");
  if (parsed.given("--trace")) throw UsageError("ppsim view keeps what it shows itself: leave --trace out");
  require_distinct_outputs({{"--html", v.html}, {"--json", o.json}});
  require_writable(v.html, "--html");
  if (!o.json.empty()) require_writable(o.json, "--json");
  Backend backend = Backend::automatic;
  RunConfig c = build_config(o, backend);
  const bool detail = replay_in_detail(c, v.aggregate);
  if (detail) {
    c.trace = true;  // every buffer after every step: the CPU backend keeps them
    backend = Backend::cpu;
  }
  // The sample's final buffers (aggregates) come back when the run is not too large to hold them.
  c.keep_buffers = detail || run_total_words(c) <= (uint64_t(1) << 26);
  std::string notice;
  RunResult r = run_simulation(c, backend, &notice);
  if (!notice.empty()) std::cerr << notice << "\n";
  nlohmann::json data = replay_json(c, r, detail);
  RunConfig shown = c;
  shown.trace = false;
  std::ostringstream summary;
  print_run_text(summary, shown, r);
  data["summary"] = summary.str();
  if (!o.json.empty()) write_json(o.json, run_json(shown, backend, r));
  ViewPage page;
  page.html = view_html(data);
  page.detail = detail;
  page.verified = r.verified;
  page.failures = c.failures.any();
  page.mismatches = r.mismatches;
  page.steps = r.steps;
  return page;
}

Command view_command() {
  auto v = std::make_shared<ViewOptions>();
  Command view("view", "write a run as a self-contained HTML page that replays it step by step on its topology");
  add_view_options(view, *v);
  view.run = [v](const Command& parsed) {
    const ViewPage page = make_view(*v, parsed);
    write_output(v->html, "--html", page.html);
    if (v->html != "-") {
      char size[32];
      std::snprintf(size, sizeof size, "%.1f MB", double(page.html.size()) / 1e6);
      std::cout << "ppsim view: wrote " << v->html << " (" << (page.detail ? "every message" : "aggregates") << ", " << page.steps
                << " steps, " << size << "): open it in a browser\n";
      check_stdout();
    }
    if (page.failures) return 0;  // the damage is the page's to show
    return verification_exit_code(page.verified, page.mismatches);
  };
  return view;
}

}  // namespace ppsim::cli
