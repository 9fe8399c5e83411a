// Running an MSCCL program (execute.h): threadblocks as sequential workers, steps taken in order of
// their start times, FIFO connections, and the linear model's clock on every threadblock.
#include "msccl/execute.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <queue>
#include <tuple>

#include "msccl/dataflow.h"
#include "msccl/verify.h"
#include "ppsim/config.h"
#include "ppsim/errors.h"

namespace ppsim::msccl {

std::string step_text(const Program& p, const StepRef& s) {
  if (s.gpu < 0) return "the initial data";
  const Step& st = p.gpus[size_t(s.gpu)].tbs[size_t(s.tb)].steps[size_t(s.step)];
  return "gpu " + std::to_string(s.gpu) + " tb " + std::to_string(s.tb) + " step " + std::to_string(s.step) + " (" +
         step_traits(st.type).name + ", line " + std::to_string(st.line) + ")";
}

namespace {

struct Message {
  StepRef from;
  std::vector<ChunkValue> chunks;
  double arrival;
};

// What one transfer costs under the linear model, per ordered pair of GPUs (computed once): the
// largest startup and per-word time of the link classes on its route.
class TransferCost {
 public:
  explicit TransferCost(const Machine& m) : m_(m) {}
  double operator()(int from, int to, int64_t words) {
    auto [it, fresh] = routes_.try_emplace({from, to});
    Route& r = it->second;
    if (fresh) {
      const std::vector<int64_t> links = topology_route(m_.topology, from, to);
      r.hops = int64_t(links.size());
      r.startup = links.empty() || !m_.cost.ts_class_set ? m_.cost.ts : 0.0;
      for (int64_t l : links) {
        const int k = topology_link_class(m_.topology, l);
        r.tw = std::max(r.tw, m_.cost.tw_of_class(k));
        if (m_.cost.ts_class_set) r.startup = std::max(r.startup, m_.cost.ts_of_class(k));
      }
    }
    return message_time_of(m_.cost, r.startup, r.tw * double(words), r.hops);
  }

 private:
  struct Route {
    int64_t hops = 0;
    double tw = 0, startup = 0;
  };
  const Machine& m_;
  std::map<std::pair<int, int>, Route> routes_;
};

// The threadblocks, their connections and clocks, and the queue of steps ready to start.
class Scheduler {
 public:
  Scheduler(const Program& p, const Machine& m, DataState& data) : p_(p), m_(m), data_(data), cost_(m) {
    for (const Gpu& g : p.gpus) {
      first_.push_back(int(tbs_.size()));
      for (const Threadblock& tb : g.tbs) {
        tbs_.push_back({g.id, tb.id});
        done_.emplace_back(tb.steps.size(), NAN);
      }
    }
    first_.push_back(int(tbs_.size()));
    next_.assign(tbs_.size(), 0);
    free_.assign(tbs_.size(), 0.0);
    queued_.assign(tbs_.size(), false);
  }

  void run(Outcome& out);

 private:
  const Threadblock& tb_of(int x) const { return p_.gpus[size_t(tbs_[size_t(x)].first)].tbs[size_t(tbs_[size_t(x)].second)]; }
  std::tuple<int, int, int> send_key(int x) const {
    return {tbs_[size_t(x)].first, tb_of(x).send, tb_of(x).chan};
  }
  std::tuple<int, int, int> recv_key(int x) const {
    return {tb_of(x).recv, tbs_[size_t(x)].first, tb_of(x).chan};
  }
  void try_start(int x);
  void take(int x, Outcome& out);
  void report_stuck(Outcome& out) const;

  const Program& p_;
  const Machine& m_;
  DataState& data_;
  TransferCost cost_;
  std::vector<std::pair<int, int>> tbs_;  // global threadblock index -> (gpu, tb)
  std::vector<int> first_;                // gpu -> its first global threadblock
  std::vector<std::vector<double>> done_;  // finish time of every step, NaN until it runs
  std::vector<size_t> next_;
  std::vector<double> free_;  // when the threadblock's last step finished
  std::vector<bool> queued_;
  std::map<std::tuple<int, int, int>, std::deque<Message>> fifo_;  // (from, to, channel)
  using Ready = std::pair<double, int>;                             // start time, threadblock
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
};

// Queues threadblock x's next step if everything it waits for has happened.
void Scheduler::try_start(int x) {
  const Threadblock& tb = tb_of(x);
  if (queued_[size_t(x)] || next_[size_t(x)] >= tb.steps.size()) return;
  const Step& s = tb.steps[size_t(next_[size_t(x)])];
  double start = free_[size_t(x)];
  if (s.dep_tb >= 0) {
    const double dep = done_[size_t(first_[size_t(tbs_[size_t(x)].first)] + s.dep_tb)][size_t(s.dep_step)];
    if (std::isnan(dep)) return;
    start = std::max(start, dep);
  }
  if (step_traits(s.type).receives) {
    auto it = fifo_.find(recv_key(x));
    if (it == fifo_.end() || it->second.empty()) return;
    start = std::max(start, it->second.front().arrival);
  }
  queued_[size_t(x)] = true;
  ready_.push({start, x});
}

// Runs threadblock x's next step at its start time: data, clock, the message it sends.
void Scheduler::take(int x, Outcome& out) {
  const double start = ready_.top().first;
  ready_.pop();
  queued_[size_t(x)] = false;
  const Threadblock& tb = tb_of(x);
  const StepRef at{tbs_[size_t(x)].first, tb.id, int(next_[size_t(x)])};
  const Step& s = tb.steps[size_t(at.step)];
  const StepTraits& t = step_traits(s.type);
  Message in, sent;
  if (t.receives) {
    auto& q = fifo_[recv_key(x)];
    in = std::move(q.front());
    q.pop_front();
    if (int64_t(in.chunks.size()) != s.count)
      throw ScheduleError(step_text(p_, at) + " receives " + std::to_string(s.count) + " chunks, but the message it takes from " +
                          step_text(p_, in.from) + " has " + std::to_string(in.chunks.size()));
  }
  const int64_t combined = data_.apply(at, s, t.receives ? &in.chunks : nullptr, t.sends ? &sent.chunks : nullptr);
  double finish = start + m_.cost.gamma * double(combined);
  out.words_combined += combined;
  if (t.sends) {
    const int64_t words = s.count * data_.chunk_words();
    finish += cost_(at.gpu, tb.send, words);
    sent.from = at, sent.arrival = finish;
    fifo_[send_key(x)].push_back(std::move(sent));
    ++out.messages, out.words_sent += words;
  }
  done_[size_t(x)][size_t(at.step)] = finish;
  free_[size_t(x)] = finish;
  ++next_[size_t(x)], ++out.steps_run;
  out.finish[size_t(at.gpu)] = std::max(out.finish[size_t(at.gpu)], finish);
  try_start(x);
  if (s.has_dep)  // a threadblock of this GPU may wait for it
    for (int y = first_[size_t(at.gpu)]; y < first_[size_t(at.gpu) + 1]; ++y) try_start(y);
  if (t.sends)  // the receiving threadblock of the connection
    for (int y = first_[size_t(tb.send)]; y < first_[size_t(tb.send) + 1]; ++y)
      if (tb_of(y).recv == at.gpu && tb_of(y).chan == tb.chan) try_start(y);
}

void Scheduler::run(Outcome& out) {
  out.finish.assign(size_t(p_.ngpus), 0.0);
  for (int x = 0; x < int(tbs_.size()); ++x) try_start(x);
  try {
    while (!ready_.empty()) take(ready_.top().second, out);
  } catch (const ScheduleError& e) {
    out.stuck_text = e.what();
    return;
  }
  report_stuck(out);
  if (!out.stuck_text.empty()) return;
  out.completed = true;
  out.time = *std::max_element(out.finish.begin(), out.finish.end());
}

// After the queue ran dry: the first threadblock with steps left and what it waits for, or a
// message that no step took.
void Scheduler::report_stuck(Outcome& out) const {
  for (int x = 0; x < int(tbs_.size()); ++x) {
    const Threadblock& tb = tb_of(x);
    if (next_[size_t(x)] >= tb.steps.size()) continue;
    const StepRef at{tbs_[size_t(x)].first, tb.id, int(next_[size_t(x)])};
    const Step& s = tb.steps[size_t(at.step)];
    out.stuck = at;
    const std::string what = step_text(p_, at) + (step_traits(s.type).writes_dst ? " on " + operand_text(s.dst_buf, s.dst_off, s.count) : "");
    if (s.dep_tb >= 0 && std::isnan(done_[size_t(first_[size_t(at.gpu)] + s.dep_tb)][size_t(s.dep_step)]))
      out.stuck_text = what + " waits for " + step_text(p_, {at.gpu, s.dep_tb, s.dep_step}) + ", which never runs (a dependency cycle, or a wait on a step that is stuck)";
    else
      out.stuck_text = what + " waits for a message from gpu " + std::to_string(tb.recv) + " on channel " + std::to_string(tb.chan) +
                       " that never comes";
    return;
  }
  for (const auto& [key, q] : fifo_)
    if (!q.empty()) {
      out.stuck = q.front().from;
      out.stuck_text = step_text(p_, q.front().from) + " sends to gpu " + std::to_string(std::get<1>(key)) + " on channel " +
                       std::to_string(std::get<2>(key)) + " a message that no step receives";
      return;
    }
}

// The size rule of every run (ppsim/config.h), met before anything is allocated: the words of every
// GPU's storages, and the bytes they take with each chunk's lineage slot and the input's nodes, and
// a GPU's words twice over in flight (a message, and the copy of its chunks a step reads).
void require_fits(const Program& p, int64_t w) {
  double words = 0, bytes = 0, most = 0;
  const double input_chunks = double(collective_shape(p).input_chunks);
  for (int g = 0; g < p.ngpus; ++g) {
    const Layout l = buffer_layout(p, g);
    double chunks = 0;
    for (int b = 0; b < kBuffers; ++b) chunks += double(l.storage_chunks[b]);
    words += chunks * double(w);
    most = std::max(most, chunks * double(w));
    bytes += chunks * (8.0 * double(w) + sizeof(uint32_t)) + input_chunks * double(sizeof(Node) + 16);
  }
  bytes += 2 * 8.0 * most;
  require_simulable_words(words, std::to_string(p.ngpus) + " GPUs x up to " + real_text(most) + " words");
  require_host_memory(bytes < 1.8e19 ? uint64_t(bytes) : UINT64_MAX, "");
}

}  // namespace

Outcome execute(const Program& p, const Machine& m) {
  if (m.topology.p != p.ngpus)
    throw ConfigError(p.file + " names " + std::to_string(p.ngpus) + " GPUs; the machine " + topology_shape(m.topology) + " has " +
                      std::to_string(m.topology.p) + " accelerators");
  if (!operator_commutative(m.combine) && (p.coll == Collective::allreduce || p.coll == Collective::reduce_scatter))
    throw ConfigError(std::string("--combine ") + kOperatorNames[int(m.combine)] +
                      " is not commutative: an MSCCL program reduces in the order its schedule takes (sum, prod, min, max, and, or, "
                      "xor, fsum, fsum32)");
  if (m.chunk_words < 1) throw ConfigError("a chunk must hold at least one word");
  require_fits(p, m.chunk_words);
  Outcome out;
  DataState data(p, m);
  Scheduler(p, m, data).run(out);
  if (out.completed) verify_result(data, out);
  return out;
}

}  // namespace ppsim::msccl
