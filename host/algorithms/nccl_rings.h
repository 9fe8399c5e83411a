// NCCL's rings over channels, shared by the *_nccl_ring units. The data is split over C channels
// (AlgoParams::channels, --channels) and S loops (AlgoParams::segments, --segments): piece
// k = l C + c (loop l, channel c) of the S C pieces, split as EvenSplit does (the first ones one word
// longer). Every channel runs the same ring algorithm on its pieces at the same time, each on its
// own ring order; the loops follow one another, each the whole ring algorithm again, as NCCL's
// kernels loop over the buffer chunk by chunk.
//
// Ring order of channel c on a two-level machine of G accelerators per node (ranked node-major,
// AlgoParams::node_size): the nodes in order 0 .. N-1; an even node is entered at local index
// c mod G and crossed upwards, an odd node is entered at (c - 1) mod G and crossed downwards:
//
//   position j = n G + i  <->  rank n G + (c + i) mod G       (n even)
//                              rank n G + (c - 1 - i) mod G   (n odd)
//
// so every hop between nodes joins accelerators of the same local index, on the same rail: even
// node n leaves from (c - 1) mod G to the same accelerator of node n + 1, which leaves from c mod G
// to node n + 2. Channel c's traffic between nodes uses the NICs of accelerators c - 1 and c and
// never crosses the spine (but where N is odd, on the hop from node N - 1 back to node 0). NCCL's
// graph search likewise gives each channel its own NICs and keeps rings on their rails. Where G = 1
// (any other topology) every channel has the ring 0, 1, ..., p - 1.
//
// A processor sends (and receives) one message per channel in a step: C channels need C ports
// (--ports C, or more); under fewer the run stops at step 1 with the port model's schedule error.
// The channels' messages of a step share links wherever their rings do (all of them where G = 1;
// the accelerator's one link to its switch on a cluster): the closed forms charge each message for
// a load of C, t_w C per word (channel_cost), which is exact where G = 1.
#pragma once
#include "algorithms/recursive_halving.h"  // EvenSplit

namespace ppsim {

inline constexpr int kMaxChannels = kMaxOps;  // one send per channel and step

struct ChannelRing {
  int64_t p, g;  // processors; accelerators per node (g divides p)
  int32_t c;     // the channel
  PPSIM_HD int64_t rank(int64_t pos) const {
    pos = pos_mod(pos, p);
    const int64_t i = pos % g, base = pos - i;
    return base + ((pos / g) % 2 == 0 ? pos_mod(c + i, g) : pos_mod(c - 1 - i, g));
  }
  PPSIM_HD int64_t position(int64_t r) const {
    const int64_t local = r % g, base = r - local;
    return base + ((r / g) % 2 == 0 ? pos_mod(local - c, g) : pos_mod(c - 1 - local, g));
  }
};

PPSIM_HD inline ChannelRing channel_ring(const AlgoParams& a, int c) {
  const int64_t g = a.node_size >= 1 && a.p % a.node_size == 0 ? a.node_size : 1;
  return ChannelRing{a.p, g, c};
}

// Processor id's place on the channels' rings, taken once per call of an algorithm's ops (its node
// and its index there: the only division) and moved from channel to channel (next_channel), so
// that each channel's position and ring neighbours cost no division (ChannelRing's rank and
// position, in closed form). The ops of a ring run for every processor, channel and step, empty
// pieces included: with ChannelRing's divisions they took most of a run's time where m < C p.
struct ChannelPlace {
  int64_t p, g, base;  // base: the first rank of id's node
  bool odd;            // whether its node is odd (crossed downwards)
  int64_t cg, j;       // the channel mod g; id's position on its ring is base + j
  // v mod n for v in [-n, 2n).
  PPSIM_HD static int64_t wrap(int64_t v, int64_t n) { return v < 0 ? v + n : v >= n ? v - n : v; }
  // ChannelRing::position(id).
  PPSIM_HD int64_t position() const { return base + j; }
  PPSIM_HD void next_channel() {
    cg = cg + 1 == g ? 0 : cg + 1;
    j = odd ? (j + 1 == g ? 0 : j + 1) : (j == 0 ? g - 1 : j - 1);
  }
  // ChannelRing::rank of index k of the node at node_base.
  PPSIM_HD int64_t rank_at(int64_t node_base, bool node_odd, int64_t k) const {
    return node_base + (node_odd ? wrap(cg - 1 - k, g) : wrap(cg + k, g));
  }
  // ChannelRing::rank(position() + 1) and rank(position() - 1): its neighbours on the ring.
  PPSIM_HD int64_t next() const {
    if (j + 1 < g) return rank_at(base, odd, j + 1);
    return base + g == p ? rank_at(0, false, 0) : rank_at(base + g, !odd, 0);
  }
  PPSIM_HD int64_t prev() const {
    if (j > 0) return rank_at(base, odd, j - 1);
    return base == 0 ? rank_at(p - g, (p / g - 1) % 2 == 1, g - 1) : rank_at(base - g, !odd, g - 1);
  }
};

// Processor id's place on channel 0's ring.
PPSIM_HD inline ChannelPlace channel_place(const AlgoParams& a, int64_t id) {
  const int64_t g = channel_ring(a, 0).g, node = id / g, local = id - node * g;
  const bool odd = node % 2 == 1;
  return ChannelPlace{a.p, g, node * g, odd, 0, odd ? g - 1 - local : local};
}

// EvenSplit with its quotient taken once, and none where n < parts (blocks of 0 or 1 word).
struct SplitOnce {
  int64_t q, rem;
  PPSIM_HD int64_t offset(int64_t i) const { return i * q + (i < rem ? i : rem); }
  PPSIM_HD int64_t words(int64_t i) const { return q + (i < rem ? 1 : 0); }
};
PPSIM_HD inline SplitOnce split_once(int64_t n, int64_t parts) { return n < parts ? SplitOnce{0, n} : SplitOnce{n / parts, n % parts}; }

// The S C pieces of `words` words: piece (l, c) starts at offset(l, c) and has words(l, c) words.
struct ChannelPieces {
  EvenSplit split;
  int32_t channels;
  PPSIM_HD int64_t offset(int64_t loop, int c) const { return split.offset(loop * channels + c); }
  PPSIM_HD int64_t words(int64_t loop, int c) const { return offset(loop, c + 1) - offset(loop, c); }
};
PPSIM_HD inline ChannelPieces channel_pieces(const AlgoParams& a, int64_t words) {
  return ChannelPieces{EvenSplit{words, a.segments * a.channels}, a.channels};
}

// The limits the channel units share: 1 <= C <= 32, 1 <= S, and a step count that fits the clock.
inline const char* channels_rejects(const AlgoParams& a, int64_t steps_per_loop) {
  if (a.channels < 1 || a.channels > kMaxChannels) return "--channels must be between 1 and 32";
  if (a.segments < 1 || double(a.segments) * double(steps_per_loop) >= double(int64_t{1} << 30))
    return "--segments (the loops of NCCL's ring) must be at least 1, and loops times steps per loop below 2^30";
  return nullptr;
}

// The cost parameters the closed forms use: the C channels' messages share every link (load C).
inline CostParams channel_cost(const AlgoParams& a, CostParams c) {
  c.tw *= a.channels;
  return c;
}

// Step `round` of loop after loop of the ring all-gather (shift 1) or reduce-scatter (shift 0) of
// p blocks of m words on every channel at once: position x passes the piece of the block of the
// rank at position x - i + shift to x + 1 and takes the one of x - i - 1 + shift from x - 1 (copied,
// or folded in as `mode` says), i = 1..p-1 the step within the loop.
PPSIM_HD inline void channel_blocks_step(const AlgoParams& a, int64_t id, int round, int shift, RecvMode mode, StepOps& out) {
  const int64_t loop = (round - 1) / (a.p - 1);
  const int i = int((round - 1) % (a.p - 1)) + 1;
  const ChannelPieces pieces = channel_pieces(a, a.m);
  for (int c = 0; c < a.channels; ++c) {
    const int64_t words = pieces.words(loop, c);
    if (words == 0) continue;
    const ChannelRing ring = channel_ring(a, c);
    const int64_t x = ring.position(id), off = pieces.offset(loop, c);
    out.add_send(ring.rank(x + 1), kData, ring.rank(x - i + shift) * a.m + off, words);
    out.add_recv(ring.rank(x - 1), kData, ring.rank(x - i - 1 + shift) * a.m + off, words, mode);
  }
}
// Their time: p - 1 steps a loop, each as long as the loop's largest piece (under load C).
inline double channel_blocks_time(const AlgoParams& a, const CostParams& cost, bool combines) {
  const CostParams c = channel_cost(a, cost);
  const ChannelPieces pieces = channel_pieces(a, a.m);
  double t = 0;
  for (int64_t l = 0; l < a.segments; ++l) t += double(a.p - 1) * largest_message_time(c, pieces.words(l, 0), combines);
  return t;
}

// The largest piece's words (the pieces of loop 0, channel 0 are never smaller than any other).
inline int64_t largest_piece(const AlgoParams& a, int64_t words) { return channel_pieces(a, words).words(0, 0); }

}  // namespace ppsim
