// The CPU backend's pull step (pull_run.h). A step is one pass over the processors (two on routed
// topologies, whose link loads are all counted before any message is costed, unless every message
// of the round crosses one link, and a short third one where some processor defers its writes),
// each chunk of processors on a thread of its own:
//
//   for each processor i: its ops (once), checked; the failures applied;
//     for each receive of i, in receive order: the sender's ops (once per sender), the send that
//       meets the receive (rules::find_send_to), the message's figures and cost, and its words
//       applied from the sender's buffer, as the step began (rules/pull_rules.h says why they are).
//
// Every word is received_word applied to start-of-step values in the receiver's receive order, as
// on the record path, and every figure comes from the same rules (step_rules.h), so the two paths
// give the same buffers and reports bit for bit (tests/test_algorithms.cpp holds them to it).
#include "cpu/pull_run.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "algorithms/all.h"  // the units compiled into the pass, and their ids
#include "cpu/apply_words.h"
#include "cpu/cpu_rules.h"
#include "cpu/processor_buffers.h"
#include "cpu/pull_ops.h"
#include "cpu/step_cost.h"
#include "cpu/step_store.h"
#include "rules/pull_rules.h"
#include "rules/round_ops.h"

namespace ppsim::cpu {

namespace {

class PullRun {
 public:
  explicit PullRun(const RunConfig& c)
      : rules_(c), plan_(ChunkPlan::for_run(c.threads, 0, rules_.p)), bufs_(rules_, plan_),
        apply_(apply_for(c.combine)), apply_from_(apply_from_for(c.combine)), algorithm_(c.algorithm->id), ops_override_(c.test_ops_override),
        direct_(direct_links(rules_.topo())), agents_(rules_.ports.p > rules_.machine.topo.p), failures_(rules_.machine.failures != nullptr), guesses_(sampled_round_guesses(rules_)),
        // The exchange rules hold a step's sends against its arrivals: at lambda = 1 they are one step.
        check_exchange_(rules::checks_exchange(c.ports.model) && rules_.clock.lambda == 1), stragglers_(c.cost.stragglers.any()) {
    chunks_.resize(size_t(plan_.count));
    for (int k = 0; k < plan_.count; ++k) {
      chunks_[size_t(k)].first = std::min(rules_.p, k * plan_.len);
      chunks_[size_t(k)].last = std::min(rules_.p, (k + 1) * plan_.len);
    }
    for (int b = 0; b < rules_.nbuf(); ++b) generation_[b][0] = bufs_.slot(b, 0);
    parity_[0].assign(size_t(rules_.p), 0);
    parity_[1].assign(size_t(rules_.p), 0);
    choose_passes();
  }

  // False where the record path must run the configuration instead.
  bool run(RunResult& r) {
    const bool local = rules_.c.algorithm->has_local;
    if (local) bufs_.local_phase(rules_, plan_, LocalPhase::before_first_step);
    const int64_t total_steps = rules_.clock.total_steps();
    for (int64_t t = 1; t <= total_steps; ++t) {
      StepStats st;
      st.step = t;
      if (const int round = rules_.clock.round_sent_at(t); round > 0 && !pull_round(round, t, st)) return false;
      add_step(r, st, rules_.clock.lambda);
    }
    settle_generations();
    if (local) bufs_.local_phase(rules_, plan_, LocalPhase::after_last_step);
    r.steps = total_steps;
    add_local_folds(r, rules_.c.cost.gamma, rules_.c.algorithm->local_combined_words(rules_.c.params), rules_.clock.lambda);
    r.buffers = bufs_.release(rules_.a.p);
    return true;
  }

 private:
  template <class Body>
  void each_chunk(Body&& body) {
    const int n = plan_.count;
#if defined(PPSIM_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1) num_threads(n) if (n > 1)
#endif
    for (int k = 0; k < n; ++k) body(chunks_[size_t(k)]);
  }
  bool any_broken() const {
    for (const PullChunk& ch : chunks_)
      if (ch.broken) return true;
    return false;
  }

  // Round `round`, sent in step t (its messages arrive before the next round is sent: a round-based
  // algorithm, or lambda = 1): its figures into st.
  bool pull_round(int round, int64_t t, StepStats& st) {
    const bool generations = generations_.load(std::memory_order_relaxed);
    for (PullChunk& ch : chunks_) ch.start_step();
    guess_ = guesses_.empty() ? rules::kCountLoads : guesses_[size_t(round - 1)];
    if (!direct_ && guess_ == rules::kCountLoads) {
      each_chunk([&](PullChunk& ch) { (this->*count_)(ch, round, t); });
      if (any_broken()) return false;
    }
    each_chunk([&](PullChunk& ch) { (this->*pull_)(ch, round, t, generations); });
    if (any_broken()) return false;
    if (guess_ != rules::kCountLoads) {  // the guess checked: a message that breaks it, and the round is costed again with its loads counted
      int64_t multi = 0;
      for (const PullChunk& ch : chunks_) multi += ch.tally.multi;
      if (multi > 0) {
        guess_ = rules::kCountLoads;
        each_chunk([&](PullChunk& ch) { count_links(ch, round, t); });
        each_chunk([&](PullChunk& ch) { recost_chunk(ch, round, t); });
        if (any_broken()) return false;
      }
    }
    bool deferred = false;
    for (const PullChunk& ch : chunks_) deferred |= !ch.deferred.empty();
    if (deferred) each_chunk([&](PullChunk& ch) { apply_deferred(ch, round, generations); });
    int64_t sent = 0, matched = 0;
    for (const PullChunk& ch : chunks_) {
      sent += ch.tally.sent;
      matched += ch.tally.matched;
      add_chunk_stats(st, ch.tally.stats);
    }
    ++pulls_;
    return sent == matched;  // a send no receive met breaks the schedule
  }

  // Processor i's ops of the round, checked, and what the failures leave of its sends; alike: they
  // have the slices that the chunk's checks last passed (ch.checked).
  template <class Ops>
  bool own_ops(const Ops& ops_of, PullChunk& ch, PullTally& tally, int64_t i, int round, int64_t t, typename Ops::Type& ops, int8_t* route,
               bool& alike) const {
    alike = false;
    if (!ops_of(rules_.a, i, round, ops)) return false;
    if (ops.nsend == 0 && ops.nrecv == 0) return true;  // nothing to check or lose: most processors of a rooted algorithm's round
    if (rules_.ports.model != PortModel::all && ch.checked.same(ops)) {
      alike = true;
      // check_ops's checks of the ends (the slices passed it for an earlier processor)
      // (agent_route_ok holds where both ends are processors, as on a machine with no switch agents)
      const int64_t to = ops.send[0].to, from = ops.recv[0].from, p = rules_.ports.p;
      const Topology& topo = rules_.machine.topo;
      if (to < 0 || to >= p || to == i || from < 0 || from >= p || from == i ||
          (agents_ && (!rules::agent_route_ok(topo, i, to) || !rules::agent_route_ok(topo, from, i))))
        return false;
    } else {
      if (rules::check_ops(rules_.ports, rules_.machine, ops, i).what != rules::Broken::none) return false;
      ch.checked.remember(ops, rules_.tokens, rules_.ports.shape);
    }
    if (failures_) {
      const rules::Losses lost = rules::drop_lost(rules_.machine, ops, i, t, rules_.clock.arrives(t), route);
      tally.stats.dropped += lost.dropped;
      tally.stats.rerouted += lost.rerouted;
    }
    return true;
  }

  // Routed topologies: every message of the round loads the links of its route before any is
  // costed. Only what the walk needs is checked here (each destination is a processor the sender
  // can reach); the pass that follows checks every rule.
  void count_links(PullChunk& ch, int round, int64_t t) {
    const DispatchedOps ops_of{algorithm_, ops_override_};
    const rules::Machine& m = rules_.machine;
    StepOps ops;
    int8_t route[kMaxOps] = {};
    const uint32_t stamp = uint32_t(t);
    unsigned long long* loads = link_counters();
    for (int64_t i = ch.first; i < ch.last; ++i) {
      bool ok = ops_of(rules_.a, i, round, ops);
      for (int n = 0; ok && n < ops.nsend; ++n)
        ok = ops.send[n].to >= 0 && ops.send[n].to < rules_.p && ops.send[n].to != i && rules::agent_route_ok(m.topo, i, ops.send[n].to);
      if (!ok) {
        ch.broken = true;
        return;
      }
      if (failures_) rules::drop_lost(m, ops, i, t, rules_.clock.arrives(t), route);
      for (int n = 0; n < ops.nsend; ++n)
        rules::for_each_message_link(m, i, ops.send[n].to, route[n], [&](int64_t id) { rules::count_link(&loads[id], stamp); });
    }
  }

  // The link counters, zeroed the first time a round counts (a run of one-hop rounds takes none).
  unsigned long long* link_counters() {
    std::call_once(counters_once_, [&] { loads_.assign(size_t(link_space(rules_.topo())), 0); });
    return loads_.data();
  }

  // A round run on the one-hop guess that proved wrong: its messages' congestion and times again,
  // from the link loads now counted (the words have moved; the other figures stand).
  void recost_chunk(PullChunk& ch, int round, int64_t t) {
    const DispatchedOps ops_of{algorithm_, ops_override_};
    StepOps own, peer;
    ch.tally.stats.max_link_load = 0;
    ch.tally.stats.time = 0;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      if (!ops_of(rules_.a, i, round, own)) {
        ch.broken = true;
        return;
      }
      int64_t peer_id = -1;
      for (int n = 0; n < own.nrecv; ++n) {
        const Recv& rv = own.recv[n];
        if (rv.from != peer_id && !ops_of(rules_.a, peer_id = rv.from, round, peer)) {
          ch.broken = true;
          return;
        }
        const int s = rules::find_send_to(peer, i, rules::earlier_receives_from(own, n));
        const int64_t words = rules::charged_words(rules_.tokens, peer.send[s].len);
        const rules::MessageCost c = rules::route_cost(rules_.machine, rules_.c.cost, rv.from, i, words, rules::message_hops(rules_.machine, rv.from, i, 0),
                                                       rules::charged_combined_words(rules_.tokens, rv.act, rv.nact, rv.len), 0, loads_.data(), uint32_t(t));
        ch.tally.stats.max_link_load = std::max(ch.tally.stats.max_link_load, int64_t(c.congestion));
        ch.tally.stats.time = std::max(ch.tally.stats.time, c.time);
      }
    }
  }

  // The passes for this run.
  using PullFn = void (PullRun::*)(PullChunk&, int, int64_t, bool);
  using CountFn = void (PullRun::*)(PullChunk&, int, int64_t);
  // The units of the hot list are compiled into the pass, on direct links and on routes.
  void choose_passes() {
    pull_ = direct_ ? &PullRun::pull_chunk<DispatchedOps, false> : &PullRun::pull_chunk<DispatchedOps, true>;
    count_ = &PullRun::count_links;
    rules::with_ops_source(algorithm_, !ops_override_ && !failures_, [&](auto src) {
      using Src = decltype(src);
      if constexpr (!Src::any)
        pull_ = direct_ ? &PullRun::pull_chunk<UnitOps<typename Src::Unit>, false> : &PullRun::pull_chunk<UnitOps<typename Src::Unit>, true>;
    });
  }

  template <class Ops>
  Ops ops_source() const {
    if constexpr (std::is_same_v<Ops, DispatchedOps>) return DispatchedOps{algorithm_, ops_override_};
    else return Ops{};
  }

  // The cost of a message from f to i (hops, words, combined) in step t; congestion on direct links,
  // and on a routed round of one-hop messages, is its sender's sends to i.
  template <bool Routed, class PeerOps>
  [[gnu::always_inline]] rules::MessageCost message_cost(PullTally& ch, const PeerOps& peer, int64_t f, int64_t i, int route, int64_t words, int64_t hops, int64_t combined,
                                  int64_t t) const {
    const CostParams& cost = rules_.c.cost;
    if constexpr (Routed) {
      if (guess_ == rules::kCountLoads) return rules::route_cost(rules_.machine, cost, f, i, words, hops, combined, route, loads_.data(), uint32_t(t));
      ch.multi += !rules::keeps_guess(rules_.machine, guess_, f, i, hops);  // (the round is then costed again)
      const long long congestion = rules::direct_congestion(peer, i);
      if (stragglers_ || cost.tw_class_set || cost.ts_class_set) return rules::one_hop_cost(rules_.machine, cost, f, i, words, combined, congestion, hops);
      return remembered_cost(ch, words, hops, combined, congestion, [&] { return rules::one_hop_cost(rules_.machine, cost, f, i, words, combined, congestion, hops).time; });
    } else {
      const long long congestion = rules::direct_congestion(peer, i);
      if (stragglers_) return rules::direct_cost(cost, f, congestion, words, hops, combined);
      return remembered_cost(ch, words, hops, combined, congestion, [&] { return rules::direct_cost(cost, f, congestion, words, hops, combined).time; });
    }
  }
  // Where a message's time depends on its figures alone (no stragglers, one link class), the time of
  // the chunk's last message of the same figures.
  template <class Time>
  [[gnu::always_inline]] static rules::MessageCost remembered_cost(PullTally& ch, int64_t words, int64_t hops, int64_t combined, long long congestion, const Time& time) {
    if (words != ch.last_words || hops != ch.last_hops || combined != ch.last_combined || congestion != ch.last_congestion) {
      ch.last_words = words;
      ch.last_hops = hops;
      ch.last_combined = combined;
      ch.last_congestion = congestion;
      ch.last_time = time();
    }
    return rules::MessageCost{congestion, ch.last_time};
  }

  template <class Ops, bool Routed>
  void pull_chunk(PullChunk& ch, int round, int64_t t, bool generations) {
    const Ops ops_of = ops_source<Ops>();
    const rules::Machine& m = rules_.machine;
    const int64_t arrives = rules_.clock.arrives(t);
    const uint8_t* parity_now = parity_[pulls_ & 1].data();
    uint8_t* parity_next = parity_[(pulls_ + 1) & 1].data();
    typename Ops::Type own, peer;
    PullTally tally = ch.tally;
    int8_t own_route[kMaxOps] = {}, peer_route[kMaxOps] = {};
    bool arriving[kMaxOps];
    for (int n = 0; n < kMaxOps; ++n) arriving[n] = true;
    for (int64_t i = ch.first; i < ch.last; ++i) {
      bool alike;
      if (!own_ops(ops_of, ch, tally, i, round, t, own, own_route, alike)) {
        ch.broken = true;
        return;
      }
      tally.sent += own.nsend;
      const uint8_t now = generations ? parity_now[i] : 0;
      parity_next[i] = now;
      if (own.nrecv == 0) continue;
      if (failures_)
        for (int n = 0; n < own.nrecv; ++n) arriving[n] = !rules::receive_lost(m, own.recv[n].from, i, t, arrives);
      // (the writes of ops alike are those of the slices remembered, where every message arrives)
      const rules::StepWrites writes = alike && !failures_ ? ch.checked.writes : rules::step_writes(rules_.ports.shape, own, arriving);
      if (writes.new_generation) {
        make_generations(writes.new_generation & ~now);  // the buffers whose new generation is the second
        parity_next[i] = now ^ writes.new_generation;
      }
      if (writes.defer) ch.deferred.emplace_back(i, ch.staged_at.size());
      uint8_t begun = 0;  // buffers whose new generation this processor has begun to write
      int64_t peer_id = -1;
      bool exchange_checked = !check_exchange_ || own.nsend == 0;
      for (int n = 0; n < own.nrecv; ++n) {
        const Recv& rv = own.recv[n];
        const int64_t f = rv.from;
        if (f != peer_id) {
          peer_id = f;
          if (!ops_of(rules_.a, f, round, peer)) {
            ch.broken = true;
            return;
          }
          if (failures_) rules::drop_lost(m, peer, f, t, arrives, peer_route);
        }
        const int s = rules::find_send_to(peer, i, own.nrecv == 1 ? 0 : rules::earlier_receives_from(own, n));
        if (s < 0 && !arriving[n]) {  // lost to a failure
          if (writes.defer) ch.staged_at.push_back(-1);
          continue;
        }
        // (and the exchange rules, once: its first send against its first arrival)
        if (s < 0 || !arriving[n] || !meets(ch, peer.send[s], rv, f) ||
            (!std::exchange(exchange_checked, true) && rules::exchange_rule(rules_.c.ports.model, own.send[0].to, f) != rules::Exchange::ok)) {
          ch.broken = true;
          return;
        }
        const Send& x = peer.send[s];
        const int route = failures_ ? peer_route[s] : 0;
        // (The fully connected machine, the one direct-link topology, has a link between any two nodes.)
        const int64_t hops = !Routed && route == 0 ? int64_t(m.node(f) != m.node(i)) : rules::message_hops(m, f, i, route);
        const int64_t words = rules::charged_words(rules_.tokens, x.len);
        const int64_t combined = alike ? ch.checked.combined_of(rv.act[0].mode) : rules::charged_combined_words(rules_.tokens, rv.act, rv.nact, rv.len);
        const rules::MessageCost c = message_cost<Routed>(tally, peer, f, i, route, words, hops, combined, t);
        tally.matched += 1;
        tally.stats.messages += 1;
        tally.stats.words += words;
        tally.stats.link_hops += hops;
        tally.stats.max_link_load = std::max(tally.stats.max_link_load, int64_t(c.congestion));
        tally.stats.time = std::max(tally.stats.time, c.time);
        const uint64_t* src = sent_words(ch, x, f, generations ? (parity_now[f] >> x.buf) & 1 : 0);
        if (writes.defer) {
          ch.staged_at.push_back(int64_t(ch.staged.size()));
          ch.staged.insert(ch.staged.end(), src, src + x.len);
          continue;
        }
        apply_receive(rv, i, src, now, writes.new_generation, begun);
      }
    }
    ch.tally = tally;  // (a broken chunk's figures are not read: the record path runs the configuration)
  }

  // Whether send x of processor f, to i, fits receive rv: as long, and a slice that send_ok passes
  // (it holds where check_ops passed the same slices: the ends are f and i, both checked).
  [[gnu::always_inline]] bool meets(const PullChunk& ch, const Send& x, const Recv& rv, int64_t f) const {
    return x.len == rv.len && (ch.checked.same_send(x) || rules::send_ok(rules_.ports.shape, x, f, rules_.ports.p));
  }

  // The words of send x of processor f, as its buffer held them when the step began (generation g
  // of the buffer): in place where they are contiguous, else gathered into the chunk's scratch.
  [[gnu::always_inline]] const uint64_t* sent_words(PullChunk& ch, const Send& x, int64_t f, int g) const {
    const uint64_t* src = generation_[x.buf][g] + f * rules_.words(x.buf) + x.src_off;
    if (x.run == 0 || x.run >= x.len) return src;
    ch.scratch.resize(size_t(x.len));
    for (int64_t at = 0; at < x.len; at += x.run)  // the last run may be short
      std::copy(src + (at / x.run) * x.stride, src + (at / x.run) * x.stride + std::min(x.run, x.len - at), ch.scratch.begin() + at);
    return ch.scratch.data();
  }

  // Receive rv of processor i applied from its message's words src: each action in place, or in
  // the new generation of a buffer that i rewrites (the first action there reads the old one).
  [[gnu::always_inline]] void apply_receive(const Recv& rv, int64_t i, const uint64_t* src, uint8_t now, uint8_t new_generation, uint8_t& begun) const {
    for (int q = 0; q < rv.nact; ++q) {
      const RecvAction& act = rv.act[q];
      const int b = act.buf;
      const uint8_t bit = uint8_t(1u << b);
      const int g = (now >> b) & 1;
      const int64_t at = i * rules_.words(b) + act.dst_off;
      if (!(new_generation & bit)) {
        apply_action(generation_[b][g] + at, act, src, rv.len);
      } else if (begun & bit) {
        apply_action(generation_[b][g ^ 1] + at, act, src, rv.len);
      } else {  // the action that rewrites all of b (rules::step_writes)
        begun |= bit;
        rewrite(generation_[b][g ^ 1] + at, generation_[b][g] + at, src + act.msg_off, rules_.words(b), act.mode);
      }
    }
  }

  // dst[w] as old[w] becomes when src[w] arrives.
  [[gnu::always_inline]] void rewrite(uint64_t* dst, const uint64_t* old, const uint64_t* src, int64_t len, RecvMode mode) const {
    if (len == 1 && !rules_.tokens) {
      *dst = rules::received_word(rules_.c.combine, mode, *src, *old);
      return;
    }
    if (!rules_.tokens) return apply_from_(dst, old, src, len, mode);
    for (int64_t w = 0; w < len; ++w) dst[w] = rules::received_token(mode, src[w], old[w], rules_.p);
  }

  // One action's words applied to the slots at dst.
  void apply_action(uint64_t* dst, const RecvAction& act, const uint64_t* src, int64_t len) const {
    apply_action_words(dst, act, src, len, rules_.tokens, rules_.p, apply_);
  }

  // The processors that deferred their writes apply what arrived, once every reader has read.
  void apply_deferred(PullChunk& ch, int round, bool generations) {
    StepOps own;
    const uint8_t* parity_now = parity_[pulls_ & 1].data();
    for (const auto& [i, first] : ch.deferred) {
      rules::read_round_ops(algorithm_, ops_override_, rules_.a, i, round, own);
      const uint8_t now = generations ? parity_now[i] : 0;
      for (int n = 0; n < own.nrecv; ++n) {
        const int64_t at = ch.staged_at[first + size_t(n)];
        if (at < 0) continue;
        const Recv& rv = own.recv[n];
        for (int q = 0; q < rv.nact; ++q) {
          const int b = rv.act[q].buf;
          apply_action(generation_[b][(now >> b) & 1] + i * rules_.words(b) + rv.act[q].dst_off, rv.act[q], ch.staged.data() + at, rv.len);
        }
      }
    }
  }

  // The second generation of the buffers in `bits`, taken the first time a processor writes one.
  // Left uninitialised: a processor writes all of its words before anyone reads them.
  [[gnu::always_inline]] void make_generations(uint8_t bits) {
    for (int b = 0; b < rules_.nbuf(); ++b)
      if ((bits & (1u << b)) && !made_[b].load(std::memory_order_acquire)) take_generation(b);
  }
  void take_generation(int b) {
    std::call_once(second_once_[b], [&] {
      second_[b].reset(new uint64_t[size_t(rules_.p * rules_.words(b))]);
      generation_[b][1] = second_[b].get();
      generations_.store(true, std::memory_order_relaxed);
      made_[b].store(true, std::memory_order_release);
    });
  }

  // After the last step every processor's words are in the first generation.
  void settle_generations() {
    if (!generations_.load()) return;
    const uint8_t* parity = parity_[pulls_ & 1].data();
    for (int b = 0; b < rules_.nbuf(); ++b) {
      if (!second_[b]) continue;
      const int64_t w = rules_.words(b);
      for (int64_t i = 0; i < rules_.p; ++i)
        if ((parity[i] >> b) & 1) std::memcpy(generation_[b][0] + i * w, generation_[b][1] + i * w, size_t(w) * sizeof(uint64_t));
    }
  }

  const CpuRules rules_;
  const ChunkPlan plan_;
  ProcessorBuffers bufs_;
  std::vector<unsigned long long> loads_;  // the stamped link counters (rules::count_link), taken by link_counters()
  const ApplyFn apply_;
  const ApplyFromFn apply_from_;
  const AlgorithmId algorithm_;
  const rules::OpsOverride ops_override_;
  const bool direct_;
  const bool agents_;  // processors beyond the topology's: switch agents (rules::agent_route_ok)
  const bool failures_;
  const std::vector<int64_t> guesses_;   // sampled_round_guesses
  int64_t guess_ = rules::kCountLoads;  // the guess the round under way runs on
  std::once_flag counters_once_;
  const bool check_exchange_, stragglers_;
  PullFn pull_ = nullptr;
  CountFn count_ = nullptr;
  std::vector<PullChunk> chunks_;
  // Buffer b's generations: [0] the buffers' own, [1] taken when first needed; a processor's
  // parity byte has bit b set where its words of b are in generation 1. parity_[k & 1] holds them
  // as the k-th pulled round begins, and that round writes the other.
  uint64_t* generation_[kMaxBuffers][2] = {};
  std::unique_ptr<uint64_t[]> second_[kMaxBuffers];
  std::once_flag second_once_[kMaxBuffers];
  std::atomic<bool> made_[kMaxBuffers] = {};
  std::atomic<bool> generations_{false};
  std::vector<uint8_t> parity_[2];
  int64_t pulls_ = 0;
};

}  // namespace

std::optional<RunResult> run_pull(const RunConfig& c) {
  RunResult r;
  r.step_path = "pull";
  if (!PullRun(c).run(r)) return std::nullopt;
  return r;
}

}  // namespace ppsim::cpu
