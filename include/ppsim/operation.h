// Collective operations: their buffers, their initial contents and what "correct" means.
// Initial contents are PPSIM_HD so the device can fill buffers itself; the reference is host code.
#pragma once
#include "ppsim/hd.h"
#include "ppsim/operators.h"

namespace ppsim {

enum class Operation : int8_t {
  broadcast, reduce, allgather, reduce_scatter, allreduce, scan, scatter, gather, alltoall, shift
};
inline constexpr int kOperationCount = 10;

// Buffer indices used by algorithms. Every operation has buffer 0; see operation_buffers().
inline constexpr int32_t kData = 0;    // the operation's main buffer
inline constexpr int32_t kResult = 1;  // reduce-scatter result, alltoall/shift receive buffer
inline constexpr int32_t kPartial = 1; // scan: the partial sum a processor passes on

PPSIM_HD inline bool operation_rooted(Operation op) {
  return op == Operation::broadcast || op == Operation::reduce || op == Operation::scatter ||
         op == Operation::gather;
}

PPSIM_HD inline int operation_buffer_count(Operation op) {
  switch (op) {
    case Operation::reduce_scatter: case Operation::scan: case Operation::alltoall: case Operation::shift: return 2;
    default: return 1;
  }
}

// Words per processor of buffer b.
PPSIM_HD inline int64_t operation_buffer_words(Operation op, int32_t b, int64_t p, int64_t m) {
  switch (op) {
    case Operation::broadcast: case Operation::reduce: case Operation::allreduce: case Operation::scan:
    case Operation::shift:
      return m;
    case Operation::allgather: case Operation::scatter: case Operation::gather: case Operation::alltoall:
      return p * m;
    case Operation::reduce_scatter: return b == kData ? p * m : m;
  }
  return 0;
}

// The value word w of buffer b on processor `proc` holds before step 1.
PPSIM_HD inline uint64_t operation_initial_word(Operation op, OperatorKind k, InputSpec in, int64_t p,
                                                int64_t m, int64_t root, int32_t b, int64_t proc, int64_t w) {
  uint64_t unset = operator_unset(k);
  switch (op) {
    case Operation::broadcast: return proc == root ? input_word(k, in, proc, w, m) : unset;
    case Operation::reduce: case Operation::allreduce: return input_word(k, in, proc, w, m);
    case Operation::scan: return b == kData ? input_word(k, in, proc, w, m) : unset;
    case Operation::shift: return b == kData ? input_word(k, in, proc, w, m) : unset;
    case Operation::allgather: case Operation::gather:
      return w / m == proc ? input_word(k, in, proc, w % m, m) : unset;
    case Operation::scatter: return proc == root ? input_word(k, in, proc, w, p * m) : unset;
    case Operation::reduce_scatter: case Operation::alltoall:
      return b == kData ? input_word(k, in, proc, w, p * m) : unset;
  }
  return unset;
}

}  // namespace ppsim
