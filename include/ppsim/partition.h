// One simulated machine split across processes (docs/DESIGN.md §8, "Past one process"): rank r of
// N owns the contiguous block of processors [begin(r), end(r)) and simulates it; a step is the
// local post, one exchange of the messages that cross blocks, then local match and delivery.
// The engines see MPI only through Collectives, so the step rules, the CPU backend and the
// reference stay free of it (host/dist/ implements it with Open MPI).
#pragma once
#include <climits>
#include <new>
#include <cstdint>
#include <string>
#include <vector>

#include "ppsim/errors.h"

namespace ppsim {

// What a distributed run needs of its ranks: every call is collective (all ranks make it, in the
// same order).
class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The ranks on this machine (they share its memory and its devices), and this one's index among them.
  virtual int local_size() const = 0;
  virtual int local_rank() const { return 0; }
  // Whether the transport takes device memory in its calls (a CUDA-aware MPI). The device rounds
  // of a split run stage what crosses through host memory either way (cuda/rounds.h).
  virtual bool takes_device_memory() const { return false; }
  // send[r] goes to rank r; recv[r] is what rank r sent this one.
  virtual void alltoall(const std::vector<std::vector<uint64_t>>& send, std::vector<std::vector<uint64_t>>& recv) = 0;
  // Every rank's words, in rank order.
  virtual std::vector<std::vector<uint64_t>> allgather(const std::vector<uint64_t>& mine) = 0;
  // root's words to every rank.
  virtual void broadcast(std::vector<uint64_t>& words, int root) = 0;
  // Element-wise over the ranks, in place.
  virtual void sum(int64_t* v, int n) = 0;
  virtual void min(int64_t* v, int n) = 0;
  virtual void max(double* v, int n) = 0;
  // Words this rank has handed to the others so far (all-to-all payloads and counts), for the
  // benchmark's check of what a step exchanges.
  virtual uint64_t words_sent() const { return 0; }
};

// The contiguous block of n items (processors) that rank r of `size` owns: n need not divide by
// size, and a block may be empty when n < size.
inline int64_t block_begin(int64_t n, int r, int size) { return int64_t((__int128(n) * r) / size); }
inline int64_t block_end(int64_t n, int r, int size) { return block_begin(n, r + 1, size); }
// The rank whose block holds item i.
inline int block_owner(int64_t n, int64_t i, int size) {
  int r = int((__int128(i) * size) / (n > 0 ? n : 1));
  while (r + 1 < size && block_begin(n, r + 1, size) <= i) ++r;
  while (r > 0 && block_begin(n, r, size) > i) --r;
  return r;
}

// Rank 0 gets every processor's buffers, in processor order, from the ranks' blocks (the others
// keep theirs). Collective.
inline void gather_blocks(Collectives& comm, std::vector<std::vector<uint64_t>>& buffers) {
  for (auto& b : buffers) {
    const std::vector<std::vector<uint64_t>> all = comm.allgather(b);
    if (comm.rank() != 0) continue;
    b.clear();
    for (const auto& part : all) b.insert(b.end(), part.begin(), part.end());
  }
}

// An error every rank of a distributed run agreed on (agree_on_error): each rank throws it, so
// each exits with the same line and none waits in a collective for another.
class AgreedError : public std::runtime_error {
 public:
  AgreedError(bool schedule, const std::string& what) : std::runtime_error(what), schedule(schedule) {}
  bool schedule;  // a ScheduleError (else a ConfigError or another refusal)
};

// A schedule error and the processor it is about: the error of the lowest processor is the one a
// run reports, whatever the split (threads or ranks).
class ProcessorError : public ScheduleError {
 public:
  ProcessorError(int64_t proc, const std::string& what) : ScheduleError(what), proc(proc) {}
  int64_t proc;
};

// Words <-> text, for the collectives' uint64_t payloads.
inline std::vector<uint64_t> text_words(const std::string& s) {
  std::vector<uint64_t> w(1 + (s.size() + 7) / 8, 0);
  w[0] = s.size();
  for (size_t i = 0; i < s.size(); ++i) w[1 + i / 8] |= uint64_t(uint8_t(s[i])) << (8 * (i % 8));
  return w;
}
inline std::string words_text_of(const std::vector<uint64_t>& w) {
  std::string s(w.empty() ? 0 : size_t(w[0]), '\0');
  for (size_t i = 0; i < s.size(); ++i) s[i] = char(uint8_t(w[1 + i / 8] >> (8 * (i % 8))));
  return s;
}

// The collective end of a phase that may have failed on some ranks: with no failure anywhere it
// returns (one reduction); otherwise every rank throws the same AgreedError, the failure with the
// lowest key (a schedule error's processor; other failures come after every processor, by rank).
inline void agree_on_error(Collectives& comm, bool failed, int64_t key, bool schedule, const std::string& what) {
  int64_t v[1] = {failed ? key : INT64_MAX};
  comm.min(v, 1);
  if (v[0] == INT64_MAX) return;
  int64_t who[1] = {failed && key == v[0] ? comm.rank() : INT64_MAX};
  comm.min(who, 1);
  std::vector<uint64_t> words;
  if (comm.rank() == int(who[0])) {
    words = text_words(what);
    words.push_back(schedule ? 1 : 0);
  }
  comm.broadcast(words, int(who[0]));
  const bool sched = !words.empty() && words.back() == 1;
  words.pop_back();
  throw AgreedError(sched, words_text_of(words));
}

// Runs body() on this rank, then agrees with the others on whether any failed (agree_on_error).
// Schedule errors are ordered by processor, other failures after them by rank.
template <class Body>
void agreed_phase(Collectives& comm, Body&& body) {
  bool failed = false, schedule = false;
  int64_t key = 0;
  std::string what;
  try {
    body();
  } catch (const AgreedError&) {
    throw;  // already agreed (a collective inside body)
  } catch (const ProcessorError& e) {
    failed = schedule = true;
    key = e.proc;
    what = e.what();
  } catch (const ScheduleError& e) {
    failed = schedule = true;
    key = INT64_MAX / 2;
    what = e.what();
  } catch (const std::bad_alloc&) {
    failed = true;
    key = INT64_MAX / 2 + 1 + comm.rank();
    what = "rank " + std::to_string(comm.rank()) + " ran out of memory";
  } catch (const std::exception& e) {
    failed = true;
    key = INT64_MAX / 2 + 1 + comm.rank();
    what = e.what();
  }
  agree_on_error(comm, failed, key, schedule, what);
}

}  // namespace ppsim
