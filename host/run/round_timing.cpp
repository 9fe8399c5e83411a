// The linear model's time of a run from its rounds alone (ppsim/round_timing.h): lockstep, as the
// backends sum it step by step, and dataflow, where a processor goes on when its data is there.
#include "ppsim/round_timing.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ppsim/postal.h"
#include "rules/round_ops.h"
#include "rules/run_rules.h"

namespace ppsim {

std::string dataflow_refusal(const RunConfig& c) {
  const std::string what = c.timing == StepTiming::dataflow ? "--timing dataflow" : "a size timed but not carried";
  if (c.cost.model != CostModel::linear) return what + " applies to --model linear";
  if (c.params.lambda > 1 || c.algorithm->postal_native()) return what + " needs a round a step (no postal lambda > 1)";
  if (c.failures.any()) return what + " does not take --fail (failures name the lockstep steps)";
  if (c.ranks && c.ranks->size() > 1) return what + " runs in one process (not under mpirun)";
  return {};
}

namespace {

// When each word of one processor's buffer was last written (dataflow): disjoint ranges [lo, hi)
// with a time, sorted by lo; words in no range were there from the start (time 0). A processor's
// buffer holds few ranges (the chunks it received), so a sorted vector serves.
class WriteTimes {
 public:
  double latest(int64_t lo, int64_t hi) const {
    double t = 0;
    for (auto it = first_after(lo); it != ranges_.end() && it->lo < hi; ++it)
      if (it->hi > lo) t = std::max(t, it->time);
    return t;
  }
  // A copy replaces the words' times; a combining receive's words are ready when both the message
  // and the word it combines with are (the later of the two).
  void write(int64_t lo, int64_t hi, double t, bool combine) {
    if (lo >= hi) return;
    split(lo);
    split(hi);
    auto first = std::lower_bound(ranges_.begin(), ranges_.end(), lo, [](const Range& r, int64_t x) { return r.lo < x; });
    auto last = first;
    while (last != ranges_.end() && last->lo < hi) ++last;
    if (!combine) {
      first = ranges_.erase(first, last);
      ranges_.insert(first, Range{lo, hi, t});
      return;
    }
    // The gaps between the ranges covered become ranges of time t; the ranges take the later time.
    scratch_.clear();
    int64_t at = lo;
    for (auto it = first; it != last; ++it) {
      if (it->lo > at) scratch_.push_back(Range{at, it->lo, t});
      scratch_.push_back(Range{it->lo, it->hi, std::max(it->time, t)});
      at = it->hi;
    }
    if (at < hi) scratch_.push_back(Range{at, hi, t});
    first = ranges_.erase(first, last);
    ranges_.insert(first, scratch_.begin(), scratch_.end());
  }

 private:
  struct Range {
    int64_t lo, hi;
    double time;
  };
  // The first range that may overlap [x, ...): the one holding x, or the first after it.
  std::vector<Range>::const_iterator first_after(int64_t x) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), x, [](int64_t v, const Range& r) { return v < r.lo; });
    return it == ranges_.begin() ? it : std::prev(it);
  }
  void split(int64_t x) {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), x, [](int64_t v, const Range& r) { return v < r.lo; });
    if (it == ranges_.begin()) return;
    --it;
    if (it->lo < x && it->hi > x) {
      const Range right{x, it->hi, it->time};
      it->hi = x;
      ranges_.insert(std::next(it), right);
    }
  }
  std::vector<Range> ranges_;
  static thread_local std::vector<Range> scratch_;
};
thread_local std::vector<WriteTimes::Range> WriteTimes::scratch_;

// A strided range (runs of `run` words `stride` apart, `words` in all) as the ranges it covers: each
// run where there are a few, else the span from the first word to the last (a send then waits for
// every word of the span, a receive writes the span's times as a combining one: never earlier).
constexpr int64_t kRunsApart = 16;
template <class Visit>
void for_each_run(int64_t off, int64_t words, int64_t run, int64_t stride, Visit&& visit) {
  if (words <= 0) return;
  if (run <= 0 || run >= words) return visit(off, off + words, false);
  const int64_t runs = (words + run - 1) / run;
  if (runs > kRunsApart) return visit(off, off + (runs - 1) * stride + (words - (runs - 1) * run), true);
  for (int64_t k = 0; k < runs; ++k) visit(off + k * stride, off + k * stride + std::min(run, words - k * run), false);
}

// When a link (or a sender's one port) is busy: disjoint intervals [start, end), kept by start. A
// message takes the earliest gap at or after the time it is ready that holds it, so messages of
// independent chains (NCCL's channels) share a link in the order they come, not in round order.
class Calendar {
 public:
  // The earliest start at or after s of a free interval of length d.
  double earliest(double s, double d) const {
    if (d <= 0) return s;
    auto it = std::upper_bound(busy_.begin(), busy_.end(), s, [](double v, const Busy& b) { return v < b.start; });
    if (it != busy_.begin() && std::prev(it)->end > s) s = std::prev(it)->end;
    for (; it != busy_.end() && it->start < s + d; ++it) s = std::max(s, it->end);
    return s;
  }
  void reserve(double s, double d) {
    if (d <= 0) return;
    double e = s + d;
    auto it = std::upper_bound(busy_.begin(), busy_.end(), s, [](double v, const Busy& b) { return v < b.start; });
    if (it != busy_.begin() && std::prev(it)->end >= s) {
      --it;
      s = it->start;
    }
    auto last = it;
    while (last != busy_.end() && last->start <= e) {
      e = std::max(e, last->end);
      ++last;
    }
    it = busy_.erase(it, last);
    busy_.insert(it, Busy{s, e});
  }

 private:
  struct Busy {
    double start, end;
  };
  std::vector<Busy> busy_;  // disjoint, not touching, by start
};

// One send of a round: when its words are there, what it costs alone on its route (load 1), and
// when it leaves.
struct Departure {
  int64_t from, to, words;
  double ready, word_time, depart;
  size_t order;
  size_t holds = 0;  // the end of its holds in the round's list
};

// One receive of a round: its sender, its receiver, the words charged and combined, and where it writes.
struct Arrival {
  int64_t from, to, words, combined;
  int32_t nact;
  RecvAction act[kMaxActions];
  int64_t len;
};

class RoundTimer {
 public:
  explicit RoundTimer(const RunConfig& c)
      : c_(c), machine_(run_machine(c)), postal_(c.params), a_(postal_.attached(c.params)), p_(run_processors(c)),
        rounds_(c.algorithm->rounds(c.params)), nbuf_(run_buffer_count(c)), direct_(direct_links(machine_.topo)),
        tokens_(rules::carries_tokens(c.algorithm->op)), one_port_(rules::port_limit(c.ports.model, c.ports.k) == 1),
        written_(size_t(p_ * nbuf_)) {
    if (!direct_) {
      const size_t links = size_t(link_space(machine_.topo));
      load_.assign(links, 0);
      stamp_.assign(links, 0);
    }
  }

  RoundTimes run() {
    RoundTimes t;
    t.rounds = rounds_;
    for (int r = 1; r <= rounds_; ++r) t.lockstep += round(r);
    t.dataflow = end_;
    return t;
  }

 private:
  // Round r: its sends leave (their data, their sender's port, their links), then its receives
  // arrive and write; returns the lockstep step's time.
  double round(int r) {
    sends_.clear();
    arrivals_.clear();
    pair_count_.clear();
    for (int64_t i = 0; i < p_; ++i) {
      if (!rules::read_round_ops(c_.algorithm->id, c_.test_ops_override, a_, i, r, ops_))
        throw ScheduleError("processor " + std::to_string(i) + ", round " + std::to_string(r) + ": more than " + std::to_string(kMaxOps) +
                            " sends or receives");
      for (int k = 0; k < ops_.nsend; ++k) send(i, ops_.send[k], r);
      for (int k = 0; k < ops_.nrecv; ++k) {
        const Recv& x = ops_.recv[k];
        Arrival a{x.from, i, rules::charged_words(tokens_, x.len), rules::charged_combined_words(tokens_, x.act, x.nact, x.len), x.nact, {}, x.len};
        for (int q = 0; q < x.nact && q < kMaxActions; ++q) a.act[q] = x.act[q];
        arrivals_.push_back(a);
      }
    }
    leave(r);
    match();
    double step = 0;
    for (size_t k = 0; k < arrivals_.size(); ++k) step = std::max(step, arrive(arrivals_[k], match_[k], r));
    return step;
  }

  // The n-th send from a to b of the round meets the n-th receive at b from a: both sorted by
  // (a, b) in the order posted, and paired in turn. match_[k]: the send of receive k (none: -1).
  void match() {
    send_keys_.resize(sends_.size());
    for (size_t k = 0; k < sends_.size(); ++k) send_keys_[k] = {pair_key(sends_[k].from, sends_[k].to), k};
    recv_keys_.resize(arrivals_.size());
    for (size_t k = 0; k < arrivals_.size(); ++k) recv_keys_[k] = {pair_key(arrivals_[k].from, arrivals_[k].to), k};
    std::sort(send_keys_.begin(), send_keys_.end());  // (key, order): the order posted within a pair
    std::sort(recv_keys_.begin(), recv_keys_.end());
    match_.assign(arrivals_.size(), -1);
    for (size_t i = 0, j = 0; j < recv_keys_.size(); ++j) {
      while (i < send_keys_.size() && send_keys_[i].first < recv_keys_[j].first) ++i;
      if (i < send_keys_.size() && send_keys_[i].first == recv_keys_[j].first) match_[recv_keys_[j].second] = int64_t(send_keys_[i++].second);
    }
  }

  // A send: when the words it sends are there, and the loads of its links in the round.
  void send(int64_t i, const Send& s, int r) {
    Departure d{i, s.to, rules::charged_words(tokens_, s.len), 0.0, 0.0, 0.0, sends_.size()};
    if (s.buf >= 0 && s.buf < nbuf_)
      for_each_run(s.src_off, s.len, s.run, s.stride, [&](int64_t lo, int64_t hi, bool) {
        d.ready = std::max(d.ready, written_[size_t(i * nbuf_ + s.buf)].latest(lo, hi));
      });
    if (s.to >= 0 && s.to < p_ && s.to != i) {
      if (direct_) {
        ++pair_count_[pair_key(i, s.to)];
      } else {
        rules::for_each_message_link(machine_, i, s.to, 0, [&](int64_t id) {
          if (stamp_[size_t(id)] != uint32_t(r)) {
            stamp_[size_t(id)] = uint32_t(r);
            load_[size_t(id)] = 0;
          }
          ++load_[size_t(id)];
        });
      }
    }
    sends_.push_back(d);
  }

  // The round's sends leave: each at the earliest time from when its words are there that its
  // links (and a one-port sender's port) are free of earlier rounds' messages for its per-word term.
  // The messages of one round that share a link share its bandwidth, as in the step model: the
  // message takes its route's most loaded link's time (load times as long), and each link of its
  // route is held for its own share (its load, its class's t_w), so a link carries its round's words
  // in the time they take on it, and a message slowed at one end does not hold the other end's
  // links longer. A round whose sends all leave at once lasts as its lockstep step, and every hold
  // is within its message's time, so the dataflow time is never more than the lockstep one.
  void leave(int r) {
    for (Departure& d : sends_) {
      held_.clear();
      d.word_time = parts(d.from, d.to, d.words, r).word_time;
      if (one_port_ && d.from < machine_.topo.p) held_.push_back({&port(d.from), d.word_time});
      if (d.to >= 0 && d.to < p_ && d.to != d.from) {
        if (direct_) held_.push_back({&pair_links_[pair_key(d.from, d.to)], d.word_time});
        else hold_route(d, r);
      }
      double t = d.ready;
      for (bool moved = true; moved;) {
        moved = false;
        for (const Hold& h : held_) {
          const double e = h.cal->earliest(t, h.time);
          if (e > t) {
            t = e;
            moved = true;
          }
        }
      }
      d.depart = t;
      holds_.insert(holds_.end(), held_.begin(), held_.end());
      d.holds = holds_.size();
    }
    size_t from = 0;
    for (const Departure& d : sends_) {
      for (size_t k = from; k < d.holds; ++k) holds_[k].cal->reserve(d.depart, holds_[k].time);
      from = d.holds;
    }
    holds_.clear();
  }

  // The links of d's route, each with its share of d's per-word term: the term scaled by the link's
  // load and t_w against the route's most loaded (in time) link's.
  void hold_route(const Departure& d, int r) {
    const bool classes = c_.cost.tw_class_set != 0;
    const auto weight = [&](int64_t id) {
      const double load = double(stamp_[size_t(id)] == uint32_t(r) ? load_[size_t(id)] : 0);
      return load * (classes ? c_.cost.tw_of_class(link_class(machine_.topo, id)) : 1.0);
    };
    const size_t first = held_.size();
    double most = 0;
    rules::for_each_message_link(machine_, d.from, d.to, 0, [&](int64_t id) {
      const double w = weight(id);
      most = std::max(most, w);
      held_.push_back({&link(id), w});  // (its weight until the most is known)
    });
    for (size_t k = first; k < held_.size(); ++k) held_[k].time = most > 0 ? d.word_time * held_[k].time / most : d.word_time;
  }

  Calendar& link(int64_t id) {
    if (links_.empty()) links_.resize(load_.size());
    return links_[size_t(id)];
  }
  Calendar& port(int64_t i) {
    if (ports_.empty()) ports_.resize(size_t(machine_.topo.p));
    return ports_[size_t(i)];
  }

  // A message's startup and per-word term in round r, with the round's loads (the step model's).
  rules::CostParts parts(int64_t from, int64_t to, int64_t words, int r) {
    if (direct_) return rules::direct_parts(c_.cost, from, pair_count_[pair_key(from, to)], words);
    return rules::route_parts_with(machine_, c_.cost, from, to, words, rules::message_hops(machine_, from, to, 0), 0, [&](int64_t id) {
      return (long long)(stamp_[size_t(id)] == uint32_t(r) ? load_[size_t(id)] : 0);
    });
  }

  // A receive: its message's cost in the round (as the step model charges it, with the loads of the
  // round), its arrival (dataflow), and the times of the words it writes. Returns the step model's cost.
  double arrive(const Arrival& x, int64_t sent, int r) {
    if (x.from < 0 || x.from >= p_ || sent < 0) return 0;  // a broken or unmatched schedule: the backend's checks report it
    const Departure& d = sends_[size_t(sent)];
    const int64_t hops = rules::message_hops(machine_, x.from, x.to, 0);
    const rules::CostParts c = parts(x.from, x.to, x.words, r);
    const double cost = message_time_of(c_.cost, c.startup, c.word_time, hops, x.combined);
    const double arrival = d.depart + cost;
    end_ = std::max(end_, arrival);
    for (int q = 0; q < x.nact && q < kMaxActions; ++q) {
      const RecvAction& a = x.act[q];
      if (a.buf < 0 || a.buf >= nbuf_) continue;
      const int64_t words = a.words > 0 ? a.words : x.len - a.msg_off;
      for_each_run(a.dst_off, words, a.run, a.stride, [&](int64_t lo, int64_t hi, bool span) {
        written_[size_t(x.to * nbuf_ + a.buf)].write(lo, hi, arrival, span || a.mode != RecvMode::copy);
      });
    }
    return cost;
  }

  uint64_t pair_key(int64_t from, int64_t to) const { return uint64_t(from) * uint64_t(p_ + 1) + uint64_t(to + 1); }

  const RunConfig& c_;
  const rules::Machine machine_;
  const PostalTable postal_;
  const AlgoParams a_;
  const int64_t p_;
  const int rounds_, nbuf_;
  const bool direct_, tokens_, one_port_;
  StepOps ops_;
  std::vector<Departure> sends_;
  std::vector<Arrival> arrivals_;
  // The round's sends and receives by sender and receiver (in the order posted), and the send each
  // receive meets.
  std::vector<std::pair<uint64_t, size_t>> send_keys_, recv_keys_;
  std::vector<int64_t> match_;
  std::vector<WriteTimes> written_;  // [processor * buffers + buffer]
  // Calendars of the links (direct topologies: by sender-receiver pair) and of one-port senders.
  std::vector<Calendar> links_, ports_;
  std::unordered_map<uint64_t, Calendar> pair_links_;
  // A calendar held by a send, and for how long.
  struct Hold {
    Calendar* cal;
    double time;
  };
  std::vector<Hold> held_, holds_;
  // Lockstep: each link's load in the round (valid where its stamp is the round); direct
  // topologies: the messages of each sender-receiver pair.
  std::vector<long long> load_;
  std::vector<uint32_t> stamp_;
  std::unordered_map<uint64_t, long long> pair_count_;
  double end_ = 0;
};

}  // namespace

RoundTimes time_rounds(const RunConfig& c) {
  if (const std::string why = dataflow_refusal(c); !why.empty()) throw ConfigError(why);
  RoundTimes t = RoundTimer(c).run();
  const double once = c.base_latency + (c.cost.gamma > 0 ? c.cost.gamma * double(c.algorithm->local_combined_words(c.params)) : 0.0);
  t.lockstep += once;
  t.dataflow += once;
  return t;
}

}  // namespace ppsim
