// The CUDA backend's orchestration of a run, written once over an executor: DeviceExec
// (backend.cu: kernels and CUB on a stream of its own) or HostExec (host_rounds.cpp: the same
// bodies one index at a time, so CI checks this logic without a GPU). A step is steps.h's.
//
// A run on the pull step returns to the host once, at its end: its steps are queued back to back
// with no sizing pass (each round tallies its own figures), and the status word, the rounds'
// figures and the verification's count come back in one read. A run on the records returns twice:
//   1. sizing: every round's ops are a pure function of (processor, round), so one reduction of
//      count bodies gives every round's sends, receives and payload words; the host reads those
//      totals, checks the device memory they need and allocates everything once;
//   2. the steps are then queued back to back, each round's peak and the first broken rule kept on
//      the executor, and read back at the end. A round's messages, words and link-hops are the
//      sizing pass's totals: no step counts them again.
// Only --trace (small runs) reads the state back after every step.
//
// A run split across ranks (docs/DESIGN.md §8) builds on this class in split_rounds.h, which also
// holds run_rounds, the entry point of both.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "steps.h"

namespace ppsim {
namespace rounds {

// One run on an executor, in four phases: the plan (sizing every round), the memory (checked at
// once, then taken), the steps, and the figures and verification read back.
template <class Exec>
class RoundsRun {
 public:
  // generations: on the pull step, take the buffers' second generations whatever the operation
  // (a run that found it needed them goes again with them).
  RoundsRun(const RunConfig& c, Exec& exec, bool generations = false)
      : c_(c), exec_(exec), comm_(split_ranks(c)), p_(make_ctx(c).hi - make_ctx(c).lo), nrounds_(c.algorithm->rounds(c.params)),
        postal_(c.params), force_generations_(generations) {}

  // A run on the pull step waits for the executor once, at the end, when the status, the figures
  // and the verification's tallies come back together; on the records also after the sizing pass.
  RunResult run() {
    plan();
    choose_step_path();
    if (pl_.pull) plan_pulled_rounds();
    else size_rounds();
    allocate();
    RunResult result;
    result.backend = exec_.backend();
    result.step_path = pl_.pull ? "pull" : "records";
    run_steps(result);
    unsigned long long defers = 0, regenerates = 0;
    {
      QueuedCheck<Exec> check;  // verified where the buffers are, unless they come back anyway
      const bool on_device = c_.verify && !c_.keep_buffers;
      if (on_device) queue_check(check, c_, exec_, pl_.ctx, pool_.get(), uint64_t(pl_.store.words), c_.failures.any(), tallies());
      const std::vector<unsigned long long> end = read_end();
      check_status(RunStatus{end[0]});
      for (size_t r = 0; pl_.pull && r < size_t(nrounds_); ++r) {
        defers += end[1 + kTallyWords * r + 6];
        regenerates += end[1 + kTallyWords * r + 7];
      }
      if (defers == 0 && regenerates == 0) {
        read_figures(result, end);
        verify(result, check, end.data() + end_words() - kTallies);
        return result;
      }
    }
    // A processor could not take the pull step as the run was set up: the run goes again as it
    // needs, once this one has given its memory back.
    release_arrays();
    return again(defers > 0);
  }

 protected:
  template <class T>
  using Array = typename Exec::template Array<T>;

  // The step plan: context (its clock included), the run's status word and Lin–Yeh's G in the
  // executor's memory.
  void plan() {
    pl_ = StepPlan{};
    pl_.ctx = make_ctx(c_);
    pl_.ctx.ops_override = exec_.accepts_test_hook() ? c_.test_ops_override : nullptr;
    pl_.p = p_;
    pl_.lambda = pl_.ctx.clock.lambda;
    pl_.total_steps = pl_.ctx.clock.total_steps();
    pl_.has_local = c_.algorithm->has_local;
    pl_.check_exchange = rules::checks_exchange(c_.ports.model);
    // Messages in flight at once: a postal-native algorithm sends in every step (lambda stores); a
    // round-based one every lambda steps, and its messages arrive before its next round (one store).
    pl_.nstores = run_store_count(c_);
    control_.ensure(control_words());
    const RunStatus clear{kNoError};
    exec_.upload(status(), &clear, sizeof clear);
    pl_.ctx.status = status();
    postal_g_.ensure(postal_.values().size());
    exec_.upload(postal_g_.get(), postal_.values().data(), postal_.values().size() * sizeof(int64_t));
    postal_.attach(pl_.ctx.a, postal_g_.get());
    cost_.ensure(1);
    exec_.upload(cost_.get(), &c_.cost, sizeof(CostParams));
    pl_.ctx.cost = cost_.get();
    if (pl_.ctx.machine.failures) {
      failures_.ensure(1);
      exec_.upload(failures_.get(), &c_.failures, sizeof(Failures));
      pl_.ctx.machine.failures = failures_.get();
    }
  }

  // The run's control block in the executor's memory, each part read back in one download: the
  // rounds' totals with the status word after the sizing pass (the records only), and at the end
  // the status word, the rounds' figures (the pull step's tallies, or the records' peaks), the
  // messages the failures dropped and rerouted, and the verification's tallies. R = max(1, rounds).
  static constexpr size_t kTotalsWords = sizeof(RoundTotals) / sizeof(unsigned long long);
  static_assert(sizeof(RoundTotals) % sizeof(unsigned long long) == 0 && sizeof(RoundPeak) == 2 * sizeof(unsigned long long) &&
                    sizeof(RunStatus) == sizeof(unsigned long long) && kTallyWords >= 2,
                "the control block's parts are whole words, and a round's figures hold a RoundPeak");
  size_t slots() const { return size_t(std::max(1, nrounds_)); }
  // The figures: the pull step's tallies (kTallyWords a round) or the records' peaks (2 a round).
  static constexpr size_t kFigureWords = size_t(kTallyWords);
  size_t control_words() const { return (kTotalsWords + kFigureWords + 2) * slots() + 1 + kTallies + kTallyWords; }  // totals, status, figures, losses, tallies, a round costed again
  RoundTotals* dev_totals() { return reinterpret_cast<RoundTotals*>(control_.get()); }                     // kTotalsWords R
  RunStatus* status() { return reinterpret_cast<RunStatus*>(control_.get() + kTotalsWords * slots()); }    // after the totals
  unsigned long long* figures() { return control_.get() + kTotalsWords * slots() + 1; }                    // kFigureWords R
  unsigned long long* lost_counts() { return figures() + kFigureWords * slots(); }                         // 2R
  unsigned long long* tallies() { return lost_counts() + 2 * slots(); }                                    // the verification's
  unsigned long long* recost_tally() { return tallies() + kTallies; }                                      // kTallyWords
  size_t end_words() const { return (kFigureWords + 2) * slots() + 1 + kTallies; }                       // from the status word on
  std::vector<unsigned long long> lost_of_end(const std::vector<unsigned long long>& end) const {
    return std::vector<unsigned long long>(end.begin() + 1 + ptrdiff_t(kFigureWords * slots()), end.begin() + 1 + ptrdiff_t((kFigureWords + 2) * slots()));
  }

  // The end of the block (status, figures, losses, the verification's tallies), in one download.
  std::vector<unsigned long long> read_end() {
    std::vector<unsigned long long> end(end_words());
    exec_.download(end.data(), status(), end.size() * sizeof(unsigned long long));
    return end;
  }

  // A rule was broken: the CPU backend, running the same rules, gives the exact message.
  void read_status() {
    RunStatus s{};
    exec_.download(&s, status(), sizeof s);
    check_status(s);
  }
  void check_status(const RunStatus& s) {
    if (s.error == kNoError) return;
    run_cpu(c_);
    throw ScheduleError("step " + std::to_string(s.error >> 32) + ": processor " + std::to_string(s.error & 0xffffffffull) +
                        " breaks the schedule (detected by the " + exec_.name() + ")");
  }

  // Sizing: every round's totals, kept in the executor's memory (the steps read them there) and
  // read back once (the host sizes the stores and reports the figures from them).
  void size_rounds() {
    totals_.assign(static_cast<size_t>(nrounds_), RoundTotals{0, 0, 0, 0, 0});  // totals_[r - 1]: round r
    if (nrounds_ == 0) return;
    if (!comm_ && exec_.whole_run_fits(p_, 0)) exec_.size_in_one_launch(pl_, dev_totals(), nrounds_);
    else exec_.reduce_rounds(p_, nrounds_, RoundsCount{pl_.ctx}, dev_totals());  // every round in one pass
    std::vector<unsigned long long> head(kTotalsWords * slots() + 1);  // the totals and the status word: one download
    exec_.download(head.data(), control_.get(), head.size() * sizeof(unsigned long long));
    std::memcpy(totals_.data(), head.data(), totals_.size() * sizeof(RoundTotals));
    if (!comm_) check_status(RunStatus{head.back()});  // a split run's ranks agree on it first (split_failed)
  }

  // What the runs of each algorithm in this process found they needed (PullTally: a processor that
  // defers its writes, one that writes a second generation): later runs start as they need, and a
  // sweep's points do not each run twice.
  static std::atomic<uint8_t>& learned(AlgorithmId id) {
    static std::atomic<uint8_t> needs[size_t(AlgorithmId::count)] = {};
    return needs[size_t(id)];
  }
  static constexpr uint8_t kNeedsRecords = 1, kNeedsGenerations = 2;

  // The pull step where it applies (pull_step_refusal), unless runs of the algorithm found they
  // must defer their writes.
  void choose_step_path() {
    pl_.pull = !comm_ && c_.step_path == StepPath::automatic && !pull_step_refusal(c_, Backend::cuda) &&
               !(learned(c_.algorithm->id).load(std::memory_order_relaxed) & kNeedsRecords);
  }

  void release_arrays() {
    control_.release();
    postal_g_.release();
    cost_.release();
    failures_.release();
    for (int b = 0; b < kMaxBuffers; ++b) {
      bufs_[b].release();
      second_[b].release();
    }
    link_load_.release();
    guess_.release();
    slot_.release();
    sends_.release();
    recvs_.release();
    pool_.release();
    parity_.release();
  }

  // The run again: on the records where a processor would have to defer its writes, else on the
  // pull step with the buffers' second generations.
  RunResult again(bool on_records) {
    learned(c_.algorithm->id).fetch_or(on_records ? kNeedsRecords : kNeedsGenerations, std::memory_order_relaxed);
    RunConfig c = c_;
    if (on_records) c.step_path = StepPath::records;
    return RoundsRun(c, exec_, !on_records).run();
  }

  // The pull step's plan without a sizing pass: each round's width (who moves a processor's words)
  // from the ops of the host's sample of processors (rules::sampled_processor), asked for there (the
  // width is a matter of speed only; the figures come from the round's tallies), kept where the
  // steps read it.
  // On a routed topology the same sample says which rounds guess their link loads instead of
  // counting them (PullBodyOf::guess, rules::RoundGuess): those where every sampled message crosses
  // one link, or one XOR distance on the hypercube. A guess is checked: its round tallies the
  // messages that break it (PullTally::multi), and a round with any is costed again at the end with
  // its loads counted (peaks_from). With failures, whose
  // reroutes change routes, every round counts.
  void plan_pulled_rounds() {
    totals_.assign(static_cast<size_t>(nrounds_), RoundTotals{0, 0, 0, 0, 0});
    const rules::Machine& m = pl_.ctx.machine;
    const bool guess = !direct_links(m.topo) && !c_.failures.any() && nrounds_ > 0;
    guess_host_.assign(guess ? static_cast<size_t>(nrounds_) : 0, rules::kCountLoads);
    const int64_t sample = rules::round_sample_size(p_);
    StepOps ops;
    const AlgoParams a = postal_.attached(c_.params);  // (the context's points at the executor's copy of G)
    for (int r = 1; r <= nrounds_; ++r) {
      RoundTotals& t = totals_[size_t(r - 1)];
      rules::RoundGuess g;
      for (int64_t k = 0; k < sample; ++k) {
        const int64_t i = rules::sampled_processor(pl_.ctx.lo, p_, sample, k);
        if (!rules::read_round_ops(pl_.ctx.algo, c_.test_ops_override, a, i, r, ops)) continue;  // (the steps flag it)
        t.sends += ops.nsend;
        for (int n = 0; n < ops.nsend; ++n) t.words += ops.send[n].len;
        if (guess) g.add(m, pl_.ctx.ports.p, i, ops);
      }
      if (guess) guess_host_[size_t(r - 1)] = g.guess();
    }
    if (nrounds_ > 0) exec_.upload(dev_totals(), totals_.data(), totals_.size() * sizeof(RoundTotals));
    if (guess && exec_.guesses_every_round())
      for (int64_t& g : guess_host_) g = g == rules::kCountLoads ? rules::kOneHop : g;
    if (guess) {
      guess_.ensure(guess_host_.size());
      exec_.upload(guess_.get(), guess_host_.data(), guess_host_.size() * sizeof(int64_t));
      pl_.guess = guess_.get();
    }
    pl_.plain = exec_.plain_runs() && plain_kind(m.topo.kind) && pl_.ctx.ports.p == m.topo.p && !m.mapped && c_.cost.tw_class_set == 0 &&
                c_.cost.ts_class_set == 0 && c_.ports.model != PortModel::all && !c_.failures.any() && !counts_links();
  }

  // Whether a step counts link loads: on a routed topology, unless every round guesses them (where
  // the run takes no counters until a round is costed again).
  bool counts_links() const {
    return !direct_links(pl_.ctx.machine.topo) && (guess_host_.empty() || std::count(guess_host_.begin(), guess_host_.end(), rules::kCountLoads) > 0);
  }
  uint64_t link_counter_bytes() const { return uint64_t(std::max<int64_t>(1, link_space(pl_.ctx.machine.topo))) * 8; }
  // The link counters, zeroed (they are kept by stamps from then on).
  void take_link_counters() {
    const Topology& topo = pl_.ctx.machine.topo;
    link_load_.ensure(size_t(std::max<int64_t>(1, link_space(topo))));
    exec_.zero(link_load_.get(), size_t(link_space(topo)) * sizeof(unsigned long long));
    pl_.link_load = link_load_.get();
  }

  // Round r, whose one-hop guess its messages proved wrong, costed again with its link loads
  // counted: its peak. Its stamp is one no step of the run has used (stamps only grow).
  RoundPeak recost(int r, int64_t stamp) {
    if (!pl_.link_load) {  // (checked, then taken, as every other array)
      exec_.require(link_counter_bytes());
      take_link_counters();
    }
    unsigned long long* out = recost_tally();
    exec_.zero(out, kTallyWords * sizeof(unsigned long long));
    StepPlan host_pl = pl_;
    host_pl.totals = totals_.data();
    host_pl.guess = guess_host_.data();  // (a round is costed again only where it guessed)
    const int64_t t = pl_.step_of_round(r);
    with_pull_source<false>(host_pl, [&](auto src) { recost_round_of(src, host_pl, exec_, r, t, stamp, out); });
    unsigned long long w[kTallyWords];
    exec_.download(w, out, sizeof w);
    double time;
    std::memcpy(&time, &w[2], sizeof time);
    return RoundPeak{static_cast<long long>(w[1]), time};
  }

  // Whether the pull step takes the buffers' second generations: where the operation combines
  // (recursive doubling and the scans rewrite what they send) or shifts (every processor replaces
  // what it sends), or where a run of the algorithm found it needed them.
  bool pull_generations() const {
    const Operation op = c_.algorithm->op;
    return force_generations_ || (learned(c_.algorithm->id).load(std::memory_order_relaxed) & kNeedsGenerations) ||
           op == Operation::allreduce || op == Operation::reduce || op == Operation::reduce_scatter || op == Operation::scan ||
           op == Operation::barrier || op == Operation::shift;
  }

  // The pull step's arrays: the parity bytes, the buffers' second generations (where a round
  // rewrites a buffer it sends from), and the rounds' matched receives and peaks.
  void allocate_pull() {
    const bool rewrites = pull_generations();
    pl_.pulled.generations = rewrites;
    parity_.ensure(size_t(2 * std::max<int64_t>(1, p_)));  // (round 1 reads none: every word is in the first generation)
    pl_.pulled.parity = parity_.get();
    pl_.pulled.round_out = figures();
    for (int b = 0; b < pl_.ctx.nbuf() && rewrites; ++b) {
      second_[b].ensure(size_t(p_ * pl_.ctx.words(b)));
      pl_.pulled.second[b] = second_[b].get();
    }
  }

  // Memory: all of it checked at once, then taken; the buffers filled with the inputs.
  void allocate() {
    pl_.store = pl_.pull ? StoreSizes{0, 0, 0} : largest_round(totals_, comm_ != nullptr);
    // (the pull step scans and reduces nothing: no scratch)
    const uint64_t scratch =
        pl_.pull ? 0
                 : std::max(exec_.scan_scratch(p_ + 1, SlotCount{pl_.ctx, 1, 1}, SumOf{}, Slots{0, 0, 0}),
                            exec_.reduce_scratch(pl_.store.sends, CostOf{pl_.ctx, 1, nullptr, nullptr, nullptr}, PeakOf{}, RoundPeak{0, 0.0}));
    exec_.require(pl_.pull ? pull_run_bytes() : run_bytes(c_, pl_.store, pl_.nstores, scratch));
    exec_.reserve_scratch(scratch);
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      bufs_[b].ensure(size_t(p_ * pl_.ctx.words(b)));
      pl_.ctx.bufs[b] = bufs_[b].get();
    }
    if (counts_links()) take_link_counters();
    if (pl_.pull) allocate_pull();
    const size_t nstores = pl_.pull ? 0 : size_t(pl_.nstores);
    slot_.ensure(nstores * size_t(p_ + 1));
    sends_.ensure(nstores * size_t(pl_.store.sends));
    recvs_.ensure(nstores * size_t(pl_.store.recvs));
    pool_.ensure(nstores * size_t(pl_.store.words));
    pl_.slot = slot_.get();
    pl_.sends = sends_.get();
    pl_.recvs = recvs_.get();
    pl_.pool = pool_.get();
    exec_.zero(figures(), (end_words() - 1) * sizeof(unsigned long long));  // the figures, the losses and the tallies
    if (!pl_.pull) pl_.peaks = reinterpret_cast<RoundPeak*>(figures());
    if (pl_.ctx.machine.failures) {
      pl_.lost = lost_counts();
    }
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) exec_.each(p_ * pl_.ctx.words(b), InitBody{pl_.ctx, c_.algorithm->op, c_.input, b});
  }

  // What a run on the pull step takes: the buffers (twice where a round rewrites one it sends
  // from), the link counters, the parity bytes and the verification's table.
  uint64_t pull_run_bytes() const {
    const bool rewrites = pull_generations();
    uint64_t bytes = 0;
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) bytes += uint64_t(p_ * pl_.ctx.words(b)) * 8 * (rewrites ? 2 : 1);
    if (counts_links()) bytes += link_counter_bytes();
    bytes += 2 * uint64_t(p_);
    if (c_.verify && !c_.keep_buffers) {
      bytes += verification_table_words(c_) * 8;
      if (c_.failures.any()) bytes += damage_bytes(c_);
    }
    return bytes;
  }

  std::vector<std::vector<uint64_t>> fetch_buffers() {
    std::vector<std::vector<uint64_t>> host(size_t(pl_.ctx.nbuf()));
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      host[size_t(b)].resize(size_t(c_.params.p * pl_.ctx.words(b)));  // switch agents' words stay behind
      exec_.download(host[size_t(b)].data(), pl_.ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  }

  // The steps: one launch for a run a thread block holds, else queued back to back; the step code
  // reads the totals where it runs.
  void run_steps(RunResult& result) {
    if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::before_first_step});
    if (c_.trace) result.trace.push_back(TraceStep{0, fetch_buffers(), {}});
    StepPlan host_pl = pl_;
    host_pl.totals = totals_.data();
    host_pl.guess = guess_host_.empty() ? nullptr : guess_host_.data();
    pl_.totals = dev_totals();
    if (!c_.trace && exec_.whole_run_fits(p_, pl_.store.words)) {
      exec_.steps_in_one_launch(pl_);
    } else if (!c_.trace && pl_.pull && pl_.total_steps > 0 && one_lane_rounds(host_pl) && exec_.grid_run_fits(p_)) {
      exec_.steps_in_one_grid(pl_);
    } else {
      exec_.start_of_steps();
      for (int64_t t = 1; t <= pl_.total_steps; ++t) {
        run_step(host_pl, exec_, t);
        exec_.end_of_step();
        if (c_.trace) result.trace.push_back(trace_step(host_pl, exec_, t, fetch_buffers(), [&] { read_status(); }));
      }
    }
    if (pl_.total_steps == 0) {
      if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::after_last_step});
      if (c_.trace) {
        result.trace.clear();
        result.trace.push_back(TraceStep{0, fetch_buffers(), {}});
      }
    }
  }

  // Whether every round of the run moves its words one lane a processor (StepPlan::width): the
  // rounds a team of threads runs as a step's launches would.
  bool one_lane_rounds(const StepPlan& host_pl) const {
    for (int r = 1; r <= nrounds_; ++r)
      if (host_pl.width(r) != GroupWidth::thread) return false;
    return true;
  }

  // Back on the host (the block's end, read once, its status word checked): every step's figures.
  void read_figures(RunResult& result, const std::vector<unsigned long long>& end) {
    record_figures(result, peaks_from(end.data() + 1), lost_of_end(end));
  }
  // The rounds' peaks from the block's figures: the records' RoundPeaks, or the pull step's matched
  // receives and peaks, with its check that every send met its receive (a round's receives that met
  // a send are as many as its sends, or a rule broke: the CPU backend words it).
  std::vector<RoundPeak> peaks_from(const unsigned long long* fig) {
    std::vector<RoundPeak> peaks(slots());
    if (!pl_.pull) {
      std::memcpy(peaks.data(), fig, slots() * sizeof(RoundPeak));
      return peaks;
    }
    int64_t stamp = pl_.total_steps;  // (the steps' stamps are 1 .. total_steps)
    for (size_t r = 0; r < size_t(nrounds_); ++r) {
      const unsigned long long* t = fig + kTallyWords * r;  // PullTally's words
      if (t[0] != t[3]) {
        run_cpu(c_);
        throw ScheduleError("round " + std::to_string(r + 1) + ": a send met no receive (detected by the " + exec_.name() + ")");
      }
      double time;
      std::memcpy(&time, &t[2], sizeof time);  // (the device compiles this file as C++17: no bit_cast)
      peaks[r] = RoundPeak{static_cast<long long>(t[1]), time};
      if (!guess_host_.empty() && guess_host_[r] != rules::kCountLoads && t[8] > 0) peaks[r] = recost(int(r + 1), ++stamp);
      totals_[r].sends = static_cast<long long>(t[3]);  // the figures the sizing pass gives the records
      totals_[r].words = static_cast<long long>(t[4]);
      totals_[r].hops = static_cast<long long>(t[5]);
    }
    return peaks;
  }
  // The records' peaks and the losses, read alone (a run split across ranks combines them first).
  std::vector<RoundPeak> read_peaks() {
    const std::vector<unsigned long long> end = read_end();
    return peaks_from(end.data() + 1);
  }
  std::vector<unsigned long long> read_lost() {
    const std::vector<unsigned long long> end = read_end();
    return lost_of_end(end);
  }

  // Every step's figures from the rounds' totals and peaks (a split run's summed over its ranks)
  // and the failures' losses ([dropped, rerouted] a round).
  void record_figures(RunResult& result, const std::vector<RoundPeak>& peaks, const std::vector<unsigned long long>& lost) {
    for (int64_t t = 1; t <= pl_.total_steps; ++t) {
      StepStats st;
      st.step = t;
      if (const int r = pl_.round_sent_at(t); r > 0) {
        const RoundTotals& n = totals_[size_t(r - 1)];
        st.messages = int64_t(n.sends);
        st.words = rules::charged_words(pl_.ctx.tokens, int64_t(n.words));  // a sum of payloads: charged alike
        st.link_hops = int64_t(n.hops);
        st.max_link_load = peaks[size_t(r - 1)].max_load;
        st.time = peaks[size_t(r - 1)].max_time;
        st.dropped = int64_t(lost[size_t(2 * (r - 1))]);
        st.rerouted = int64_t(lost[size_t(2 * (r - 1) + 1)]);
      }
      add_step(result, st, pl_.lambda);
    }
    result.steps = pl_.total_steps;
    add_local_folds(result, c_.cost.gamma, c_.algorithm->local_combined_words(c_.params), pl_.lambda);
  }

  // Verified where the buffers are (check, queued before the end was read; n its tallies), unless
  // they come back anyway. A run with failures counts its damage there too; a run with mismatches
  // and no failures is verified again on the host for the exact report (which words, what was
  // expected).
  void verify(RunResult& result, QueuedCheck<Exec>& check, const unsigned long long* n) {
    if (c_.keep_buffers || !c_.verify) {
      if (c_.keep_buffers) result.buffers = fetch_buffers();
      finish_verification(c_, result);
      return;
    }
    Verification v = finish_check(check, c_, exec_, pl_.ctx, n);
    if (c_.failures.any() || v.mismatches == 0) {
      record_verification(c_, std::move(v), result);
    } else {
      result.buffers = fetch_buffers();
      finish_verification(c_, result);
    }
  }

  const RunConfig& c_;
  Exec& exec_;
  Collectives* const comm_;  // the ranks of a split run, or null
  const int64_t p_;          // the processors held here
  const int nrounds_;
  const PostalTable postal_;  // Lin–Yeh's G for the run: the postal algorithms' steps read it
  const bool force_generations_;
  StepPlan pl_{};
  std::vector<RoundTotals> totals_;
  Array<unsigned long long> control_;  // see control_words()
  Array<int64_t> postal_g_;
  Array<CostParams> cost_;
  Array<Failures> failures_;
  Array<uint64_t> bufs_[kMaxBuffers];
  Array<unsigned long long> link_load_;
  Array<int64_t> guess_;
  std::vector<int64_t> guess_host_;  // [rounds] as guess_, on the host (empty: every round counts its loads)
  Array<Slots> slot_;
  Array<DevSend> sends_;
  Array<DevRecv> recvs_;
  Array<uint64_t> pool_;
  Array<uint8_t> parity_;
  Array<uint64_t> second_[kMaxBuffers];
};

}  // namespace rounds
}  // namespace ppsim
