// The ranks, with Open MPI: Collectives over MPI_COMM_WORLD.
#include "dist/world.h"

// The C interface only (OMPI_SKIP_MPICXX, set by CMake: Open MPI's C++ bindings are deprecated).
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace ppsim::dist {

namespace {

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// Counts beyond INT_MAX do not fit MPI's int counts: words move as blocks of this many.
constexpr int64_t kMaxCount = int64_t{1} << 30;

class MpiWorld final : public Collectives {
 public:
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return std::max(1, env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1)); }
  int local_rank() const override { return std::max(0, env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0)); }
  bool takes_device_memory() const override { return cuda_aware(); }

  void alltoall(const std::vector<std::vector<uint64_t>>& send, std::vector<std::vector<uint64_t>>& recv) override {
    const int n = size_;
    std::vector<int64_t> scount(static_cast<size_t>(n)), rcount(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) scount[size_t(r)] = int64_t(send[size_t(r)].size());
    MPI_Alltoall(scount.data(), 1, MPI_INT64_T, rcount.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < n; ++r)
      if (r != rank_) sent_ += 1 + uint64_t(scount[size_t(r)]);
    recv.resize(size_t(n));
    for (int r = 0; r < n; ++r) recv[size_t(r)].resize(size_t(rcount[size_t(r)]));
    // Payloads point to point (each pair's words in pieces of at most kMaxCount).
    std::vector<MPI_Request> reqs;
    for (int r = 0; r < n; ++r)
      for (int64_t at = 0; at < rcount[size_t(r)]; at += kMaxCount) {
        reqs.emplace_back();
        MPI_Irecv(recv[size_t(r)].data() + at, int(std::min(kMaxCount, rcount[size_t(r)] - at)), MPI_UINT64_T, r, 7, MPI_COMM_WORLD,
                  &reqs.back());
      }
    for (int r = 0; r < n; ++r)
      for (int64_t at = 0; at < scount[size_t(r)]; at += kMaxCount) {
        reqs.emplace_back();
        MPI_Isend(send[size_t(r)].data() + at, int(std::min(kMaxCount, scount[size_t(r)] - at)), MPI_UINT64_T, r, 7, MPI_COMM_WORLD,
                  &reqs.back());
      }
    MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  }

  std::vector<std::vector<uint64_t>> allgather(const std::vector<uint64_t>& mine) override {
    std::vector<std::vector<uint64_t>> send(size_t(size_), mine), recv;
    alltoall(send, recv);
    return recv;
  }

  void broadcast(std::vector<uint64_t>& words, int root) override {
    int64_t n = int64_t(words.size());
    MPI_Bcast(&n, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    words.resize(size_t(n));
    for (int64_t at = 0; at < n; at += kMaxCount)
      MPI_Bcast(words.data() + at, int(std::min(kMaxCount, n - at)), MPI_UINT64_T, root, MPI_COMM_WORLD);
  }

  void sum(int64_t* v, int n) override { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); }
  uint64_t words_sent() const override { return sent_; }
  void min(int64_t* v, int n) override { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD); }
  void max(double* v, int n) override { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); }

 private:
  int rank_ = 0, size_ = 1;
  uint64_t sent_ = 0;
};

std::unique_ptr<MpiWorld> g_world;
bool g_joined = false;

}  // namespace

void start(int* argc, char*** argv) {
  if (!launched()) return;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_joined = true;
  // Open MPI's own error reports would print pages: every failure is ppsim's one line instead.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n > 1) g_world = std::make_unique<MpiWorld>();
}

void finish() {
  g_world.reset();
  if (g_joined) MPI_Finalize();
  g_joined = false;
}

Collectives* world() { return g_world.get(); }

int local_rank() { return env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0); }
int local_size() { return env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1); }

bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return g_joined && MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

void abort_all(int code) {
  if (g_joined) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void send_words(int to, int tag, const std::vector<uint64_t>& words) {
  const int64_t n = int64_t(words.size());
  MPI_Send(&n, 1, MPI_INT64_T, to, tag, MPI_COMM_WORLD);
  for (int64_t at = 0; at < n; at += kMaxCount)
    MPI_Send(words.data() + at, int(std::min(kMaxCount, n - at)), MPI_UINT64_T, to, tag, MPI_COMM_WORLD);
}

int recv_words(int from, int& tag, std::vector<uint64_t>& words) {
  MPI_Status st;
  int64_t n = 0;
  MPI_Recv(&n, 1, MPI_INT64_T, from < 0 ? MPI_ANY_SOURCE : from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  tag = st.MPI_TAG;
  words.resize(size_t(n));
  for (int64_t at = 0; at < n; at += kMaxCount)
    MPI_Recv(words.data() + at, int(std::min(kMaxCount, n - at)), MPI_UINT64_T, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return st.MPI_SOURCE;
}

bool probe_words(int from, int tag) {
  int flag = 0;
  MPI_Iprobe(from < 0 ? MPI_ANY_SOURCE : from, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  return flag != 0;
}

}  // namespace ppsim::dist
