// A run split across ranks (docs/DESIGN.md §8): each rank runs its block of processors on its
// executor, one step at a time, with rounds.h's bodies. The post, the match of the messages whose
// receivers the block holds and the counts of every sent message's links run on the executor;
// then, through host memory, the links' loads are summed over the ranks and the crossing messages
// shipped (rules/crossing.h, as the CPU passes do); then the imported messages are matched to
// their receives, and the costs taken, on the host and the executor.
#pragma once
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "rounds.h"
#include "rules/crossing.h"

namespace ppsim {
namespace rounds {

template <class Exec>
class SplitRoundsRun : RoundsRun<Exec> {
  using Base = RoundsRun<Exec>;
  using Base::allocate;
  using Base::c_;
  using Base::comm_;
  using Base::exec_;
  using Base::nrounds_;
  using Base::p_;
  using Base::pl_;
  using Base::plan;
  using Base::size_rounds;
  using Base::totals_;

 public:
  SplitRoundsRun(const RunConfig& c, Exec& exec) : Base(c, exec) {}

  // A run split across ranks: this rank's block, step by step (the one-launch paths and --trace
  // are one process's). Every pass that can fail ends on every rank together (agreed_phase); a
  // broken rule anywhere is reported as the CPU backend's split run reports it.
  RunResult run() {
    agreed_phase(*comm_, [&] {
      if (c_.trace) throw ConfigError("--trace keeps every processor's buffers after every step in one process: run it without mpirun");
      if (c_.test_ops_override) throw ConfigError("a test's replaced schedule runs in one process");
      plan();
      size_rounds();
    });
    if (split_failed()) return broken_rule();
    agreed_phase(*comm_, [&] { allocate(); });
    RunResult result;
    result.backend = exec_.backend();
    result.step_path = "records";
    import_peaks_.assign(size_t(std::max(1, nrounds_)), RoundPeak{0, 0.0});
    StepPlan host_pl = pl_;
    host_pl.totals = totals_.data();
    pl_.totals = this->dev_totals();
    agreed_phase(*comm_, [&] {
      if (pl_.has_local) exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::before_first_step});
    });
    for (int64_t t = 1; t <= pl_.total_steps; ++t) split_step(host_pl, t);
    if (pl_.total_steps == 0 && pl_.has_local) agreed_phase(*comm_, [&] { exec_.each(p_, LocalBody{pl_.ctx, LocalPhase::after_last_step}); });
    if (split_failed()) return broken_rule();
    std::vector<RoundPeak> peaks = this->read_peaks();
    combine_rounds(peaks);
    this->record_figures(result, peaks, this->read_lost());
    agreed_phase(*comm_, [&] { result.buffers = fetch_block(); });
    if (c_.verify) agreed_phase(*comm_, [&] { record_verification(c_, verify_block(c_, result.buffers, *comm_), result); });
    if (c_.keep_buffers) agreed_phase(*comm_, [&] { gather_blocks(*comm_, result.buffers); });
    else std::vector<std::vector<uint64_t>>().swap(result.buffers);
    return result;
  }

 private:
  // Step t of a split run: the round sent in it posted and matched where the block is, the
  // exchange with the other ranks, the imported messages matched, the costs; then the arrivals
  // delivered (run_step's phases, with the exchange between match and cost).
  void split_step(const StepPlan& pl, int64_t t) {
    const int r = pl.round_sent_at(t);
    if (r > 0) {
      const RoundTotals& n = pl.totals[r - 1];
      agreed_phase(*comm_, [&] {
        exec_.exclusive_scan(pl.p + 1, SlotCount{pl.ctx, r, t}, SumOf{}, Slots{0, 0, 0}, pl.slot_of(t));
        exec_.groups(pl.p, PostBody{pl.ctx, r, t, pl.slot_of(t), pl.sends_of(t), pl.recvs_of(t), pl.pool_of(t), pl.lost_of(r)}, pl.width(r));
        if (n.sends > 0) exec_.each(n.sends, MatchBody{pl.ctx, t, pl.sends_of(t), pl.recvs_of(t), pl.slot_of(t), pl.link_load});
      });
      exchange(pl, t, r);
      agreed_phase(*comm_, [&] {
        if (n.sends > 0)
          exec_.reduce(n.sends, CostOf{pl.ctx, t, pl.sends_of(t), pl.slot_of(t), pl.link_load}, PeakOf{}, RoundPeak{0, 0.0},
                       pl.peaks + (r - 1));
        if (n.recvs > 0) exec_.each(n.recvs, UnmatchedBody{pl.ctx, t, pl.recvs_of(t)});
      });
    }
    agreed_phase(*comm_, [&] {
      const int64_t j = pl.ctx.clock.sent_before(t);
      if (j >= 1) {
        const int arrived = pl.round_sent_at(j);
        if (arrived > 0 && pl.totals[arrived - 1].recvs > 0)
          exec_.groups(pl.p,
                       DeliverBody{pl.ctx, t, r > 0 && pl.check_exchange, pl.recvs_of(j), pl.slot_of(j), pl.pool_of(j), pl.sends_of(t),
                                   pl.slot_of(t)},
                       pl.width(arrived));
      }
      if (t == pl.total_steps && pl.has_local) exec_.each(pl.p, LocalBody{pl.ctx, LocalPhase::after_last_step, t});
    });
  }

  // The exchange of step t (round r), through host memory: the links' loads summed over the ranks
  // (routed topologies), every message to another rank's processor shipped with the parts of its
  // cost its sender's rank knows, and the messages shipped here laid after the block's own in the
  // step's pool and matched with their receives (step_rules.h's rules, as for a local message).
  void exchange(const StepPlan& pl, int64_t t, int r) {
    std::vector<Slots> slot(size_t(p_ + 1));
    exec_.download(slot.data(), pl.slot_of(t), slot.size() * sizeof(Slots));
    if (!direct_links(pl.ctx.machine.topo)) sum_link_loads(pl, t);
    match_imports(pl, t, r, slot, ship_sends(pl, t, r, slot));
  }

  // The step's loads of the links summed over the ranks: each rank asks the owners of the links its
  // messages crossed, and every counter of the executor is left holding the links' totals.
  void sum_link_loads(const StepPlan& pl, int64_t t) {
    const uint32_t stamp = uint32_t(t);
    const int64_t space = link_space(pl.ctx.machine.topo);
    links_.resize(size_t(space));
    exec_.download(links_.data(), pl.link_load, links_.size() * sizeof(unsigned long long));
    const int64_t own_lo = block_begin(space, comm_->rank(), comm_->size()), own_hi = block_end(space, comm_->rank(), comm_->size());
    std::vector<std::pair<int64_t, int64_t>> asked;
    for (int64_t id = 0; id < space; ++id)
      if ((id < own_lo || id >= own_hi) && rules::link_load_at(links_[size_t(id)], stamp) > 0)
        asked.emplace_back(id, rules::link_load_at(links_[size_t(id)], stamp));
    int64_t link_words = 0;
    const std::vector<int64_t> totals = rules::sum_link_counts(
        *comm_, space, asked, [&](int64_t id) -> unsigned long long& { return links_[size_t(id)]; }, stamp, link_words);
    for (size_t i = 0; i < asked.size(); ++i)
      links_[size_t(asked[i].first)] = (static_cast<unsigned long long>(stamp) << 32) | uint64_t(totals[i]);
    exec_.upload(pl.link_load, links_.data(), links_.size() * sizeof(unsigned long long));
  }

  // Every message of step t (round r) whose receiver another rank holds, shipped there with its
  // record (rules/crossing.h); returns what the other ranks shipped here.
  std::vector<std::vector<uint64_t>> ship_sends(const StepPlan& pl, int64_t t, int r, const std::vector<Slots>& slot) {
    const Ctx& ctx = pl.ctx;
    const uint32_t stamp = uint32_t(t);
    const bool direct = direct_links(ctx.machine.topo);
    std::vector<DevSend> sends(size_t(pl.totals[r - 1].sends));
    exec_.download(sends.data(), pl.sends_of(t), sends.size() * sizeof(DevSend));
    std::vector<uint64_t> words(size_t(slot.back().words));
    exec_.download(words.data(), pl.pool_of(t), words.size() * 8);
    auto sizes = [&](auto&& fn) {
      for (const DevSend& x : sends)
        if (!ctx.holds(x.to)) fn(x.to, x.len);
    };
    size_t next = 0;
    auto next_message = [&](rules::Crossing& out, const uint64_t*& payload) {
      while (next < sends.size() && ctx.holds(sends[next].to)) ++next;
      if (next == sends.size()) return false;
      const int64_t n = int64_t(next++);
      const DevSend& x = sends[size_t(n)];
      out = rules::crossing_record(ctx.machine, c_.cost, ctx.tokens, direct, sends.data(), slot[size_t(x.from - ctx.lo)].sends,
                                   slot[size_t(x.from - ctx.lo + 1)].sends, n,
                                   [&](int64_t id) { return rules::link_load_at(links_[size_t(id)], stamp); });
      payload = words.data() + x.pool_off;
      return true;
    };
    rules::SplitTraffic traffic;
    return rules::ship_crossing(*comm_, run_processors(c_), sizes, next_message, traffic);
  }

  // The messages shipped here: matched with their receives on the host, their payloads laid after
  // the block's own words in the step's pool, their costs taken into round r's peak. A message
  // that meets no receive of its length, or no room in the pool, is recorded as a broken rule of
  // its sender.
  void match_imports(const StepPlan& pl, int64_t t, int r, const std::vector<Slots>& slot, std::vector<std::vector<uint64_t>> imports) {
    const Ctx& ctx = pl.ctx;
    std::vector<DevRecv> recvs(size_t(pl.totals[r - 1].recvs));
    exec_.download(recvs.data(), pl.recvs_of(t), recvs.size() * sizeof(DevRecv));
    std::vector<uint64_t> payloads;
    const int64_t base = slot.back().words;
    bool matched = false;
    RoundPeak& peak = import_peaks_[size_t(r - 1)];
    for (const std::vector<uint64_t>& in : imports)
      rules::for_each_crossing(in, [&](const rules::Crossing& x, size_t at) {
        const Slots& first = slot[size_t(x.to - ctx.lo)];
        DevRecv* match = rules::matching_receive(recvs.data() + first.recvs, slot[size_t(x.to - ctx.lo + 1)].recvs - first.recvs, x.from,
                                                 int(x.occurrence));
        if (!match || match->len != x.len || base + int64_t(payloads.size()) + x.len > pl.store.words) {
          split_error_ = std::min(split_error_, (static_cast<unsigned long long>(t) << 32) | uint64_t(x.from));
          return;
        }
        match->pool_off = base + int64_t(payloads.size());
        payloads.insert(payloads.end(), in.data() + at, in.data() + at + x.len);
        matched = true;
        const int64_t combined = rules::charged_combined_words(ctx.tokens, match->act, match->nact, match->len);
        peak = PeakOf{}(peak, RoundPeak{x.congestion, message_time_of(c_.cost, x.startup, x.word_time, x.hops, combined)});
      });
    std::vector<std::vector<uint64_t>>().swap(imports);
    if (matched) {
      exec_.upload(pl.recvs_of(t), recvs.data(), recvs.size() * sizeof(DevRecv));
      exec_.upload(pl.pool_of(t) + base, payloads.data(), payloads.size() * 8);
    }
  }

  // Whether a rule was broken on any rank (on the executor, or by a message shipped here).
  bool split_failed() {
    RunStatus s{};
    exec_.download(&s, this->status(), sizeof s);
    split_error_ = std::min(split_error_, s.error);
    int64_t any[1] = {split_error_ != kNoError ? 1 : 0};
    comm_->sum(any, 1);
    return any[0] > 0;
  }

  // A rule was broken: the CPU backend's split run, under the same rules, reports it as one
  // process does (every rank throws the same AgreedError). Should it find none, the lowest
  // processor's record is reported.
  RunResult broken_rule() {
    run_cpu(c_);
    agreed_phase(*comm_, [&] {
      if (split_error_ == kNoError) return;
      const int64_t proc = int64_t(split_error_ & 0xffffffffull);
      throw ProcessorError(proc, "step " + std::to_string(split_error_ >> 32) + ": processor " + std::to_string(proc) +
                                     " breaks the schedule (detected by the " + exec_.name() + ")");
    });
    throw AgreedError(true, "a rank's record of a broken rule was lost");  // (not reached: some rank had one)
  }

  // Rounds' messages, words and link-hops summed, and their peaks maximized, over the ranks.
  void combine_rounds(std::vector<RoundPeak>& peaks) {
    std::vector<int64_t> sums;
    std::vector<double> maxima;
    for (int r = 0; r < nrounds_; ++r) {
      const RoundTotals& n = totals_[size_t(r)];
      sums.insert(sums.end(), {int64_t(n.sends), int64_t(n.words), int64_t(n.hops)});
      const RoundPeak pk = PeakOf{}(peaks[size_t(r)], import_peaks_[size_t(r)]);
      maxima.insert(maxima.end(), {double(pk.max_load), pk.max_time});
    }
    if (nrounds_ == 0) return;
    comm_->sum(sums.data(), int(sums.size()));
    comm_->max(maxima.data(), int(maxima.size()));
    for (int r = 0; r < nrounds_; ++r) {
      RoundTotals& n = totals_[size_t(r)];
      n.sends = sums[size_t(3 * r)];
      n.words = sums[size_t(3 * r + 1)];
      n.hops = sums[size_t(3 * r + 2)];
      peaks[size_t(r)] = RoundPeak{static_cast<long long>(maxima[size_t(2 * r)]), maxima[size_t(2 * r + 1)]};
    }
  }

  // The block's buffers, switch agents left out.
  std::vector<std::vector<uint64_t>> fetch_block() {
    std::vector<std::vector<uint64_t>> host(size_t(pl_.ctx.nbuf()));
    const int64_t held = std::max<int64_t>(0, std::min(c_.params.p, pl_.ctx.hi) - pl_.ctx.lo);
    for (int b = 0; b < pl_.ctx.nbuf(); ++b) {
      host[size_t(b)].resize(size_t(held * pl_.ctx.words(b)));
      exec_.download(host[size_t(b)].data(), pl_.ctx.bufs[b], host[size_t(b)].size() * 8);
    }
    return host;
  }

  // A split run's host side: the links' stamped loads, the peaks of the messages shipped here, and
  // the first rule one of them broke.
  std::vector<unsigned long long> links_;
  std::vector<RoundPeak> import_peaks_;
  unsigned long long split_error_ = kNoError;
};

template <class Exec>
RunResult run_rounds(const RunConfig& c, Exec& exec) {
  if (Collectives* comm = split_ranks(c)) {
    agreed_phase(*comm, [&] { validate_config(c, false); });
    const auto start = std::chrono::steady_clock::now();
    RunResult result = SplitRoundsRun<Exec>(c, exec).run();
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  validate_config(c, false);
  if (c.keep_buffers) require_host_memory(state_bytes(c), "the final buffers, copied back");
  const auto start = std::chrono::steady_clock::now();
  RunResult result = RoundsRun<Exec>(c, exec).run();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace rounds
}  // namespace ppsim
