// The CPU backend: executes any registered algorithm step by step (docs/DESIGN.md §2-§3), with
// the rules of step_rules.h (the device rounds apply the same ones). This file orders the passes;
// each pass is a unit of its own:
//
// Per send step t (processors split into contiguous chunks, one per thread: step_store.h):
//   pass 1  every processor asks the algorithm for its sends and receives of this round, checks
//           them against the port model, and copies each payload into its chunk's pool, so sends
//           read the start-of-step state (post_step.cpp);
//   pass 2  every send finds its receive at the destination and tells it where the payload is
//           (match_step.cpp), and counts its figures and the load of each directed link on its
//           route (step_cost.h);
//   pass 3  every message's congestion (busiest link on its route) gives its cost (step_cost.cpp);
//           receives that no send matched are reported (match_step.cpp).
// At the end of step t, pass R applies the messages sent in step t - lambda + 1, in receive order
// (deliver_step.cpp). The buffers, their initial words and the algorithm's local work are
// processor_buffers.cpp's; the words of every error, schedule_errors.cpp's. After the run the
// buffers are verified against the reference (rules/reference.cpp).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/cpu_rules.h"
#include "cpu/deliver_step.h"
#include "cpu/dist_step.h"
#include "cpu/match_step.h"
#include "cpu/post_step.h"
#include "cpu/processor_buffers.h"
#include "cpu/pull_run.h"
#include "cpu/step_cost.h"
#include "cpu/step_store.h"
#include "ppsim/engine.h"

namespace ppsim {

namespace cpu {
namespace {

// The ranks of a run split across processes (null: one process).
Collectives* split_ranks(const RunConfig& c) { return c.ranks && c.ranks->size() > 1 ? c.ranks : nullptr; }

ChunkPlan plan_for(const RunConfig& c, int64_t procs) {
  Collectives* comm = split_ranks(c);
  if (!comm) return ChunkPlan::for_run(c.threads, 0, procs);
  // All the machine's cores (threads 0) are shared by the ranks on it.
  const int64_t lo = block_begin(procs, comm->rank(), comm->size()), hi = block_end(procs, comm->rank(), comm->size());
  const int cores = std::max(1, int(std::thread::hardware_concurrency()) / comm->local_size());
  return ChunkPlan::for_run(c.threads > 0 ? c.threads : ChunkPlan::automatic_threads(hi - lo, cores), lo, hi,
                            comm->size());
}

class CpuRun {
 public:
  explicit CpuRun(const RunConfig& c)
      : comm_(split_ranks(c)), rules_(c), plan_(plan_for(c, rules_.p)), bufs_(rules_, plan_),
        loads_(rules_.topo(), comm_ ? comm_->rank() : 0, comm_ ? comm_->size() : 1), delivery_(rules_, bufs_) {
    stores_.resize(size_t(run_store_count(c)));
    for (StepStore& s : stores_) plan_.shape(s);
  }

  RunResult run() {
    RunResult r;
    r.step_path = "records";
    const bool local = rules_.c.algorithm->has_local;
    if (local) bufs_.local_phase(rules_, plan_, LocalPhase::before_first_step);
    if (rules_.c.trace) record_trace(r, stores_[0], 0);
    const int64_t total_steps = rules_.clock.total_steps();
    for (int64_t t = 1; t <= total_steps; ++t) {
      StepStore& s = store_of(t);  // this step's sends (in flight: untouched until then)
      StepStats st;
      st.step = t;
      if (const int round = rules_.clock.round_sent_at(t); round > 0) st = send_round(s, round, t);
      deliver_arrivals(s, t);
      add_step(r, st, rules_.clock.lambda);
      if (t == total_steps && local) bufs_.local_phase(rules_, plan_, LocalPhase::after_last_step);
      if (rules_.c.trace) record_trace(r, s, t);
    }
    if (total_steps == 0 && local) {
      bufs_.local_phase(rules_, plan_, LocalPhase::after_last_step);
      if (rules_.c.trace) {
        r.trace.clear();
        record_trace(r, stores_[0], 0);
      }
    }
    r.steps = total_steps;
    add_local_folds(r, rules_.c.cost.gamma, rules_.c.algorithm->local_combined_words(rules_.c.params), rules_.clock.lambda);
    r.buffers = bufs_.release(rules_.a.p);
    return r;
  }

 private:
  // The benchmark's check (bench/split_traffic.sh, PPSIM_SPLIT_TRAFFIC=1): what this rank sent the
  // others in step t, the words the collectives carried, and what they must be: 6 words of record
  // and the payload of every crossing message, the link loads asked for and answered, and one count
  // per other rank for each all-to-all (the messages' sizes and batches, the loads' and their
  // answers').
  void report_traffic(int64_t t, const Traffic& x, uint64_t carried) const {
    const int others = comm_->size() - 1, link_exchanges = direct_links(rules_.topo()) ? 0 : 2;
    const int64_t expected = 6 * x.messages + x.payload + x.link_words + x.control + int64_t(others) * link_exchanges;
    std::fprintf(stderr, "ppsim traffic: rank %d step %lld: %lld crossing messages, %lld payload words, %lld link words; %llu words carried, %lld expected%s\n",
                 comm_->rank(), static_cast<long long>(t), static_cast<long long>(x.messages), static_cast<long long>(x.payload),
                 static_cast<long long>(x.link_words), static_cast<unsigned long long>(carried), static_cast<long long>(expected),
                 int64_t(carried) == expected ? "" : " (DIFFERENT)");
  }

  // The store that holds the messages sent in step t while they are in flight.
  StepStore& store_of(int64_t t) { return stores_[size_t(t % int64_t(stores_.size()))]; }

  // Passes 1-3 of `round`, sent in step t into store s: its messages posted, matched and costed.
  StepStats send_round(StepStore& s, int round, int64_t t) {
    s.active = true;
    s.send_step = t;
    if (comm_) return send_round_split(s, round, t);
    for_each_chunk(plan_, s, [&](Chunk& ch, int) { post_chunk(rules_, bufs_, s, ch, round, t); });
    const MessageCounter counter(rules_, loads_, t);
    for_each_chunk(plan_, s, [&](Chunk& ch, int k) { match_chunk(plan_, counter, s, ch, k, t); });
    if (!direct_links(rules_.topo())) for_each_chunk(plan_, s, [&](Chunk& ch, int) { routed_cost_chunk(rules_, loads_, ch, t); });
    if (!all_receives_matched(s)) for_each_chunk(plan_, s, [&](Chunk& ch, int) { report_unmatched_receives(rules_, ch, t); });
    return step_totals(s, t);
  }

  // The same passes on a run split across ranks: the local post, one exchange of the messages
  // that cross blocks, the match of local and imported messages (and on routed topologies the
  // links' loads summed by their owners), then the costs and the step's figures over all ranks.
  // Every rank ends each pass with the others (agreed_phase): a broken rule anywhere is reported by
  // all, as the lowest processor's, as one process reports it.
  StepStats send_round_split(StepStore& s, int round, int64_t t) {
    agreed_phase(*comm_, [&] { for_each_chunk(plan_, s, [&](Chunk& ch, int) { post_chunk(rules_, bufs_, s, ch, round, t); }); });
    const MessageCounter counter(rules_, loads_, t);
    clear_chunk_errors(s);
    run_chunks(plan_, s, [&](Chunk& ch, int k) { match_chunk(plan_, counter, s, ch, k, t); });
    const uint64_t words_before = comm_->words_sent();
    int64_t link_words = 0;
    const bool routed = !direct_links(rules_.topo());
    if (routed) link_words = combine_link_loads(*comm_, loads_, s, uint32_t(t));
    Traffic traffic = exchange_crossing(*comm_, rules_, plan_, loads_, s, t);
    traffic.link_words = link_words;
    for (int k = plan_.count; k < int(s.chunks.size()); ++k) match_imports(rules_, plan_, s, k, t);
    agreed_phase(*comm_, [&] { throw_chunk_errors(s); });
    if (routed) for_each_chunk(plan_, s, [&](Chunk& ch, int) { routed_cost_chunk(rules_, loads_, ch, t); });
    if (report_traffic_) report_traffic(t, traffic, comm_->words_sent() - words_before);
    agreed_phase(*comm_, [&] {
      if (!all_receives_matched(s)) for_each_chunk(plan_, s, [&](Chunk& ch, int) { report_unmatched_receives(rules_, ch, t); });
    });
    return combine_step_totals(*comm_, step_totals(s, t));
  }

  // Pass R: the messages that arrive at the end of step t (sent in step sent_before(t)); sending
  // holds what step t sent, for the exchange rules.
  void deliver_arrivals(const StepStore& sending, int64_t t) {
    const int64_t j = rules_.clock.sent_before(t);
    if (j < 1) return;
    StepStore& arrived = store_of(j);
    if (!arrived.sent_in(j)) return;
    auto deliver = [&] { for_each_chunk(plan_, arrived, [&](Chunk& ch, int k) { delivery_.deliver_chunk(arrived, sending, ch, k, t); }); };
    if (!comm_) return deliver();
    agreed_phase(*comm_, deliver);
    for (size_t k = size_t(plan_.count); k < arrived.chunks.size(); ++k) std::vector<uint64_t>().swap(arrived.chunks[k].pool);
  }

  // The buffers after step t, and the messages sent in it (store s).
  void record_trace(RunResult& r, const StepStore& s, int64_t t) const {
    TraceStep ts;
    ts.step = t;
    ts.buffers = bufs_.copy(rules_.a.p);
    if (t > 0 && s.sent_in(t))
      for (int64_t i = 0; i < rules_.p; ++i) {
        const Chunk& ch = s.chunks[size_t(plan_.chunk_of(i))];
        for (int n = 0; n < s.send_count[s.at(i)]; ++n) {
          const StoredSend& x = ch.sends[size_t(s.send_begin[s.at(i)] + n)];
          ts.messages.push_back(TraceMessage{i, x.to, rules::charged_words(rules_.tokens, x.len), x.src_off, x.buf, t, rules_.clock.arrives(t)});
        }
      }
    r.trace.push_back(std::move(ts));
  }

  Collectives* const comm_;  // the ranks of a split run, or null
  const bool report_traffic_ = comm_ && std::getenv("PPSIM_SPLIT_TRAFFIC") != nullptr;
  const CpuRules rules_;
  const ChunkPlan plan_;
  ProcessorBuffers bufs_;
  LinkLoads loads_;
  const Delivery delivery_;
  std::vector<StepStore> stores_;
};

}  // namespace
}  // namespace cpu

namespace {

// A run split across ranks: each runs its block; every pass that can fail ends on every rank
// together (agreed_phase), so all report the same failure and none waits for another.
RunResult run_split(const RunConfig& c, Collectives& comm) {
  auto start = std::chrono::steady_clock::now();
  agreed_phase(comm, [&] {
    if (c.trace) throw ConfigError("--trace keeps every processor's buffers after every step in one process: run it without mpirun");
    if (c.test_ops_override) throw ConfigError("a test's replaced schedule runs in one process");
    validate_config(c);
  });
  std::unique_ptr<cpu::CpuRun> run;
  agreed_phase(comm, [&] {
    // Tests (tests/test_split_errors.sh): PPSIM_TEST_FAIL_RANK=r makes rank r fail here as if its
    // block did not fit in memory, to show that one rank's failure ends every rank with one line.
    if (const char* v = std::getenv("PPSIM_TEST_FAIL_RANK"); v && std::atoi(v) == comm.rank()) throw std::bad_alloc();
    run = std::make_unique<cpu::CpuRun>(c);
  });
  RunResult r = run->run();
  run.reset();
  if (c.verify) agreed_phase(comm, [&] { record_verification(c, verify_block(c, r.buffers, comm), r); });
  if (c.keep_buffers) agreed_phase(comm, [&] { gather_blocks(comm, r.buffers); });
  else std::vector<std::vector<uint64_t>>().swap(r.buffers);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

RunResult run_cpu(const RunConfig& c) {
  if (c.ranks && c.ranks->size() > 1) return run_split(c, *c.ranks);
  validate_config(c);
  auto start = std::chrono::steady_clock::now();
  // The pull step where it applies; the record path where it does not, or where a rule broke (its
  // report words the error).
  std::optional<RunResult> pulled;
  if (c.step_path == StepPath::automatic && !pull_step_refusal(c)) pulled = cpu::run_pull(c);
  RunResult r = pulled ? std::move(*pulled) : cpu::CpuRun(c).run();
  finish_verification(c, r);  // against the sequential reference (rules/reference.cpp)
  if (!c.keep_buffers && (r.verified || !c.verify)) std::vector<std::vector<uint64_t>>().swap(r.buffers);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ppsim
