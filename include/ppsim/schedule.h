// The per-processor, per-round communication description that every algorithm produces.
// An algorithm is a pure function (params, processor, round) -> StepOps; docs/DESIGN.md §2.
#pragma once
#include "ppsim/hd.h"

namespace ppsim {

// Most sends (and most receives) one processor may post in one round.
inline constexpr int kMaxOps = 32;
// Most buffer slots one received message may update.
inline constexpr int kMaxActions = 2;

enum class RecvMode : int8_t {
  copy = 0,          // slot = received
  recv_op_slot = 1,  // slot = received ⊕ slot   (received data comes first in the fold)
  slot_op_recv = 2,  // slot = slot ⊕ received   (received data comes last in the fold)
};

// A message is `len` words taken from the sender's buffer in runs of `run` words whose starts are
// `stride` apart (run = stride = len: one contiguous slice), and written (or combined) into the
// receiver's slots the same way with the receiver's own run and stride. The last run may be cut
// short (len need not be a multiple of run): the blocks whose base-r digit at some position is z,
// among p blocks, are such a slice for any p (alltoall_bruck).
struct Send {
  int64_t to;
  int64_t src_off;  // first word in the sender's buffer
  int64_t len;      // words in all
  int64_t run;      // words per contiguous run (the last may be shorter)
  int64_t stride;   // distance between the starts of consecutive runs (>= run)
  int32_t buf;      // buffer index (see Operation buffers)
};

// No default member initializers: RecvAction{dst_off, run, stride, buf, mode} still zeroes the
// members it leaves out (aggregate initialization), while a StepOps (64 actions) is built without
// writing them all - on the device, once per processor per kernel.
struct RecvAction {
  int64_t dst_off;
  int64_t run;  // 0: one contiguous slice of the message's length
  int64_t stride;
  int32_t buf;
  RecvMode mode;
  int64_t msg_off;  // the action uses message words [msg_off, msg_off + words)
  int64_t words;    // 0: to the end of the message
};

struct Recv {
  int64_t from;
  int64_t len;
  int32_t nact;
  RecvAction act[kMaxActions];
};

// What one processor does in one round, in room for MaxSends sends and MaxRecvs receives.
// overflow is set if an algorithm posts more than that of either kind (the engine reports it as a
// schedule error). StepOps has room for what any algorithm may post (kMaxOps of each); an
// algorithm unit that declares smaller bounds (max_sends, max_recvs) can be read into a BasicOps
// of its own size, which a GPU thread keeps in registers.
template <int MaxSends, int MaxRecvs>
struct BasicOps {
  static constexpr int max_sends = MaxSends, max_recvs = MaxRecvs;
  int32_t nsend = 0;
  int32_t nrecv = 0;
  bool overflow = false;
  Send send[MaxSends];
  Recv recv[MaxRecvs];

  PPSIM_HD void add_send(int64_t to, int32_t buf, int64_t off, int64_t len) { add_send_strided(to, buf, off, len, len, 1); }
  // count runs of `run` words, `stride` words apart.
  PPSIM_HD void add_send_strided(int64_t to, int32_t buf, int64_t off, int64_t run, int64_t stride, int64_t count) {
    if (nsend == MaxSends) {
      overflow = true;
      return;
    }
    send[nsend++] = Send{to, off, run * count, run, stride, buf};
  }
  PPSIM_HD void add_recv(int64_t from, int32_t buf, int64_t off, int64_t len, RecvMode mode) {
    add_recv_strided(from, buf, off, len, len, 1, mode);
  }
  PPSIM_HD void add_recv_strided(int64_t from, int32_t buf, int64_t off, int64_t run, int64_t stride, int64_t count, RecvMode mode) {
    if (nrecv == MaxRecvs) {
      overflow = true;
      return;
    }
    Recv& r = recv[nrecv++];
    r.from = from;
    r.len = run * count;
    r.nact = 1;
    r.act[0] = RecvAction{off, run, stride, buf, mode, 0, 0};
    // The second action is unused (nact = 1); in a small ops, kept in registers, it is set so that
    // no compiler sees its words read unset.
    if constexpr (MaxRecvs < kMaxOps) r.act[1] = RecvAction{0, 0, 0, 0, RecvMode::copy, 0, 0};
  }
  // A second slot updated by the most recent receive (e.g. prefix: result and outgoing partial).
  PPSIM_HD void add_action(int32_t buf, int64_t off, RecvMode mode) {
    if (nrecv == 0) {
      overflow = true;
      return;
    }
    add_action_strided(buf, off, recv[nrecv - 1].len, recv[nrecv - 1].len, mode);
  }
  PPSIM_HD void add_action_strided(int32_t buf, int64_t off, int64_t run, int64_t stride, RecvMode mode) {
    if (nrecv == 0) {
      overflow = true;
      return;
    }
    Recv& r = recv[nrecv - 1];
    if (r.nact == kMaxActions) {
      overflow = true;
      return;
    }
    r.act[r.nact++] = RecvAction{off, run, stride, buf, mode, 0, 0};
  }
  // Restricts the most recent receive's last action to message words [msg_off, msg_off + words).
  PPSIM_HD void restrict_last_action(int64_t msg_off, int64_t words) {
    if (nrecv == 0) {
      overflow = true;
      return;
    }
    Recv& r = recv[nrecv - 1];
    RecvAction& a = r.act[r.nact - 1];
    a.msg_off = msg_off;
    a.words = words;
    if (a.run == r.len) a.run = a.stride = words;
  }
};
using StepOps = BasicOps<kMaxOps, kMaxOps>;

// Everything an algorithm may look at besides its processor id and round number.
struct AlgoParams {
  int64_t p = 1;      // processors
  int64_t m = 1;      // words per message unit
  int64_t root = 0;   // source / destination of rooted operations
  int32_t ndims = 0;  // mesh/torus dimensions (row-major; dims[ndims-1] varies fastest)
  int64_t dims[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int32_t lambda = 1;        // postal latency
  int32_t kports = 1;        // ports per processor (k-port): postal algorithms send to up to k partners
  bool all_port = false;     // the run is under all-port: alltoall_linear posts up to kMaxOps sends a round
  int64_t n = 0;             // scan: elements in all (0: one per processor); spread as Lin–Yeh §4 says
  bool exclusive = false;    // scan: processor i gets v(0) ⊕ ... ⊕ v(i-1) (processor 0: the identity)
  int64_t shift = 1;         // circular shift distance q (0 < q < p)
  int64_t group_stride = 1;  // multicast: members root + j*stride (mod p), j < group_size
  int64_t group_size = 0;    // multicast: 0 means every processor
  int64_t sources = 1;       // k-to-all broadcast: sources j*(p/k), j < k
  int32_t radix = 2;         // Bruck all-to-all, k-nomial trees: the base the ranks are written in
  int64_t segments = 1;      // pipelined broadcast: the message travels as this many segments
  int32_t channels = 1;      // NCCL's algorithms: the data is split over this many channels (rings, tree pairs)
  int64_t node_size = 1;     // accelerators per node of a two-level machine (cluster kinds; 1 elsewhere)
  int16_t inter = -1;        // allreduce_hierarchical: the all-reduce between nodes, an AlgorithmId (-1: allreduce_ring)
  // Lin–Yeh's G(0) .. G(postal_g_len - 1) for (kports, lambda), when the engine has tabulated it for
  // the run (postal.h: PostalTable), and postal_steps = min{ j | G(j) >= p }. The postal algorithms
  // read G here instead of running the recurrence again for every processor and step. Host memory
  // on the CPU backend, device memory on the GPU; null when not tabulated.
  const int64_t* postal_g_tab = nullptr;
  int32_t postal_g_len = 0;
  int32_t postal_steps = 0;
};

// Words and buffers a processor can see in a local (non-communicating) phase of an algorithm.
inline constexpr int kMaxBuffers = 4;  // the operation's (up to 3) and an algorithm's scratch
struct ProcBuffers {
  uint64_t* buf[kMaxBuffers] = {nullptr, nullptr, nullptr, nullptr};
  int64_t words[kMaxBuffers] = {0, 0, 0, 0};
};

// Words a strided slice touches: from its first word to the end of its last (possibly short) run.
PPSIM_HD inline int64_t slice_extent(int64_t len, int64_t run, int64_t stride) {
  return run <= 0 ? len : ((len - 1) / run) * stride + (len - 1) % run + 1;
}
enum class LocalPhase : int8_t { before_first_step, after_last_step };

}  // namespace ppsim
