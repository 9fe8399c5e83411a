// Collective operations: their buffers, their initial contents and what "correct" means.
// Initial contents are PPSIM_HD so the device can fill buffers itself; the reference is host code.
#pragma once
#include "ppsim/barrier_token.h"
#include "ppsim/hd.h"
#include "ppsim/operators.h"
#include "ppsim/schedule.h"

namespace ppsim {

enum class Operation : int8_t {
  broadcast,
  reduce,
  allgather,
  reduce_scatter,
  allreduce,
  scan,
  scatter,
  gather,
  alltoall,
  shift,
  multicast,   // the root's m words to the members of a group (the group-operations slides): root + j*stride, j < size
  kbroadcast,  // k sources j*(p/k) broadcast their m words at once (textbook exercise 4.16)
  kscatter,    // k sources j*(p/k) scatter p blocks each at once (textbook exercise 4.20)
  barrier      // no processor leaves before every processor has entered; one knowledge token each (barrier_token.h)
};
inline constexpr int kOperationCount = 14;

// Multicast group: member j (j < size) is processor (root + j*stride) mod p.
PPSIM_HD inline int64_t multicast_size(const AlgoParams& a) { return a.group_size > 0 ? a.group_size : a.p; }
PPSIM_HD inline int64_t multicast_member(const AlgoParams& a, int64_t j) { return pos_mod(a.root + j * a.group_stride, a.p); }
// The member rank of processor id, or -1: the j in [0, size) with j*stride = id - root (mod p).
// With g = gcd(stride, p) there is one solution modulo p/g when g divides id - root, namely
// ((id - root)/g) * (stride/g)^-1 mod p/g; members are distinct (size <= p/g), so it is the rank
// when it is below size. O(log p), so that a step is not O(p) per processor.
PPSIM_HD inline int64_t multicast_rank(const AlgoParams& a, int64_t id) {
  const int64_t d = pos_mod(id - a.root, a.p);
  int64_t r0 = pos_mod(a.group_stride, a.p), r1 = a.p, s0 = 1, s1 = 0;  // extended Euclid on (stride, p)
  while (r1 != 0) {
    const int64_t q = r0 / r1, r = r0 - q * r1, s = s0 - q * s1;
    r0 = r1;
    r1 = r;
    s0 = s1;
    s1 = s;
  }
  const int64_t g = r0, period = a.p / g;  // s0 * stride = g (mod p)
  if (d % g != 0) return -1;
  uint64_t x = uint64_t(d / g), y = uint64_t(pos_mod(s0, period)), j = 0;
  const uint64_t n = uint64_t(period);
  if (n <= (uint64_t{1} << 31)) {
    j = x * y % n;
  } else {  // x * y would overflow: double-and-add
    for (; y != 0; y >>= 1, x = (x * 2) % n)
      if (y & 1) j = (j + x) % n;
  }
  return int64_t(j) < multicast_size(a) ? int64_t(j) : -1;
}
PPSIM_HD inline int64_t kbroadcast_spacing(const AlgoParams& a) { return a.p / (a.sources > 0 ? a.sources : 1); }

// Buffer indices used by algorithms. Every operation has buffer 0; see operation_buffer_count().
inline constexpr int32_t kData = 0;     // the operation's main buffer
inline constexpr int32_t kResult = 1;   // reduce-scatter result, alltoall/shift receive buffer
inline constexpr int32_t kPartial = 1;  // scan: the running partial a processor passes on (Lin–Yeh's c)
inline constexpr int32_t kPrefix = 2;   // scan: the prefix up to this processor's first element (Lin–Yeh's d)

PPSIM_HD inline bool operation_rooted(Operation op) {
  return op == Operation::broadcast || op == Operation::reduce || op == Operation::scatter || op == Operation::gather ||
         op == Operation::multicast;
}

PPSIM_HD inline int operation_buffer_count(Operation op) {
  switch (op) {
    case Operation::scan: return 3;
    case Operation::reduce_scatter:
    case Operation::alltoall:
    case Operation::shift:
    case Operation::kscatter: return 2;
    default: return 1;
  }
}

// Scan over n elements on p processors (Lin–Yeh §4): with q = n / p, processors
// 0 .. n - p*floor(q) - 1 hold ceil(q) consecutive elements, the others floor(q).
PPSIM_HD inline int64_t scan_elements(const AlgoParams& a) { return a.n > 0 ? a.n : a.p; }
PPSIM_HD inline int64_t scan_count(const AlgoParams& a, int64_t proc) {
  int64_t n = scan_elements(a), q = n / a.p, r = n - a.p * q;
  return q + (proc < r ? 1 : 0);
}
PPSIM_HD inline int64_t scan_first(const AlgoParams& a, int64_t proc) {
  int64_t n = scan_elements(a), q = n / a.p, r = n - a.p * q;
  return proc * q + (proc < r ? proc : r);
}

// Words per processor of buffer b.
PPSIM_HD inline int64_t operation_buffer_words(Operation op, int32_t b, const AlgoParams& a) {
  const int64_t p = a.p, m = a.m;
  switch (op) {
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::allreduce:
    case Operation::shift:
    case Operation::multicast: return m;
    case Operation::kbroadcast: return a.sources * m;
    case Operation::kscatter: return b == kData ? p * m : a.sources * m;
    case Operation::scan: {
      int64_t n = scan_elements(a);
      return b == kData ? ((n + p - 1) / p) * m : m;
    }
    case Operation::allgather:
    case Operation::scatter:
    case Operation::gather:
    case Operation::alltoall: return p * m;
    case Operation::reduce_scatter: return b == kData ? p * m : m;
    case Operation::barrier: return 1;  // the token: the operation has no data, m does not apply
  }
  return 0;
}

// The value word w of buffer b on processor `proc` holds before step 1.
PPSIM_HD inline uint64_t operation_initial_word(Operation op, OperatorKind k, InputSpec in, const AlgoParams& a, int32_t b, int64_t proc,
                                                int64_t w) {
  const int64_t p = a.p, m = a.m;
  uint64_t unset = operator_unset(k);
  switch (op) {
    case Operation::broadcast:
    case Operation::multicast: return proc == a.root ? input_word(k, in, proc, w, m) : unset;
    case Operation::kbroadcast:  // source j holds its message in block j
      return proc % kbroadcast_spacing(a) == 0 && w / m == proc / kbroadcast_spacing(a) ? input_word(k, in, proc, w % m, m) : unset;
    case Operation::reduce:
    case Operation::allreduce: return input_word(k, in, proc, w, m);
    case Operation::scan:  // element e of the n holds input e (for n = p: processor i holds input i)
      if (b != kData || w / m >= scan_count(a, proc)) return unset;
      return input_word(k, in, scan_first(a, proc) + w / m, w % m, m);
    case Operation::shift: return b == kData ? input_word(k, in, proc, w, m) : unset;
    case Operation::allgather:
    case Operation::gather: return w / m == proc ? input_word(k, in, proc, w % m, m) : unset;
    case Operation::scatter: return proc == a.root ? input_word(k, in, proc, w, p * m) : unset;
    case Operation::kscatter: return b == kData && proc % kbroadcast_spacing(a) == 0 ? input_word(k, in, proc, w, p * m) : unset;
    case Operation::reduce_scatter:
    case Operation::alltoall: return b == kData ? input_word(k, in, proc, w, p * m) : unset;
    case Operation::barrier: return token_make(proc, 1);  // knows itself; no operator or input applies
  }
  return unset;
}

}  // namespace ppsim
