// Items spread over threads and ranks (spread.h).
//
// Alone, `jobs` threads take the next index from one counter. Under mpirun rank 0 keeps that
// counter: its own `jobs` threads take from it directly, while its main thread (the only one that
// may call MPI: MPI_THREAD_FUNNELED) polls for the other ranks' messages and answers each with the
// next index. A rank r > 0 runs `jobs` threads too; its main thread carries each thread's result
// with its request for the next index to rank 0 and the answer back. The polling sleeps while
// nothing comes (backing off to a millisecond), so rank 0 dispatching costs next to nothing and
// `mpirun -np 2` uses its two cores for items. When the items are out, every worker is answered
// "stop", each rank r > 0 says goodbye, and rank 0 broadcasts the failure, if any, that every rank
// then throws.
#include "study/spread.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "dist/world.h"
#include "ppsim/cuda_backend.h"
#include "study/sweep.h"

namespace ppsim::study {

bool lead_rank() { return dist::rank() == 0; }
int rank_count() { return dist::size(); }
int node_ranks() { return dist::world() ? std::max(1, dist::local_size()) : 1; }
int rank_cores() { return std::max(1, int(std::max(1u, std::thread::hardware_concurrency())) / node_ranks()); }
int lead_code(int code) {
  Collectives* w = dist::world();
  if (!w) return code;
  std::vector<uint64_t> words = {uint64_t(int64_t(code))};
  w->broadcast(words, 0);
  return int(int64_t(words.at(0)));
}

void on_every_rank(const std::function<void()>& body) {
  if (Collectives* w = dist::world()) agreed_phase(*w, body);
  else body();
}

namespace {

// Tags of the work queue (below 32767, the least MPI_TAG_UB an MPI may have).
constexpr int kAskTag = 2501, kAnswerTag = 2502;
// What a worker's message to rank 0 carries: [kind, thread, index, text_words(result or failure)].
enum : uint64_t { kFirst = 0, kResult = 1, kFailed = 2, kBye = 3 };
// The answer: [thread, next index or kStop].
constexpr uint64_t kStop = UINT64_MAX;

std::string failure_text(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& x) {
    return one_line(x.what());
  } catch (...) {
    return "unknown failure";
  }
}

// Sleeps between polls: short right after a message, doubling to a millisecond while none comes.
class Backoff {
 public:
  void reset() { wait_ = kLeast; }
  std::chrono::microseconds next() {
    const auto w = wait_;
    wait_ = std::min(wait_ * 2, kMost);
    return w;
  }

 private:
  static constexpr std::chrono::microseconds kLeast{20}, kMost{1000};
  std::chrono::microseconds wait_ = kLeast;
};

// The items and their outcome as rank 0 (or the one process) holds them.
class Dispatch {
 public:
  Dispatch(size_t n, const std::function<void(size_t, const std::string&)>& done) : n_(n), done_(done) {}
  // The next index, or n when none is left (or the work stopped).
  size_t take() {
    const size_t i = next_++;
    return i < n_ ? i : n_;
  }
  void finished(size_t i, const std::string& result) {
    std::lock_guard<std::mutex> g(lock_);
    if (!failure_.empty()) return;
    try {
      done_(i, result);
    } catch (...) {
      stop_locked(failure_text(std::current_exception()));
    }
  }
  void stop(const std::string& why) {
    std::lock_guard<std::mutex> g(lock_);
    stop_locked(why);
  }
  // The local threads' loop.
  void run_items(const std::function<std::string(size_t)>& work) {
    for (size_t i = take(); i < n_; i = take()) {
      std::string result;
      try {
        result = work(i);
      } catch (...) {
        stop(failure_text(std::current_exception()));
        return;
      }
      finished(i, result);
    }
  }
  std::string failure() {
    std::lock_guard<std::mutex> g(lock_);
    return failure_;
  }
  size_t size() const { return n_; }

 private:
  void stop_locked(const std::string& why) {
    if (failure_.empty()) failure_ = why.empty() ? "unknown failure" : why;
    next_ = n_;
  }
  const size_t n_;
  const std::function<void(size_t, const std::string&)>& done_;
  std::atomic<size_t> next_{0};
  std::mutex lock_;
  std::string failure_;
};

std::vector<std::thread> start_threads(int count, const std::function<void()>& body) {
  std::vector<std::thread> pool;
  for (int j = 0; j < count; ++j) pool.emplace_back(body);
  return pool;
}

// Rank 0 under mpirun: its own threads work while this thread answers the other ranks.
void dispatch_ranks(Dispatch& d, int jobs, const std::function<std::string(size_t)>& work) {
  std::vector<std::thread> pool = start_threads(int(std::min<size_t>(size_t(jobs), d.size())), [&] { d.run_items(work); });
  int goodbyes = 0;
  Backoff backoff;
  std::vector<uint64_t> msg;
  while (goodbyes < dist::size() - 1) {
    if (!dist::probe_words(-1, kAskTag)) {
      std::this_thread::sleep_for(backoff.next());
      continue;
    }
    backoff.reset();
    int tag = 0;
    const int from = dist::recv_words(-1, tag, msg);
    const uint64_t kind = msg.at(0), thread = msg.at(1), index = msg.at(2);
    if (kind == kBye) {
      ++goodbyes;
      continue;
    }
    const std::string text = words_text_of(std::vector<uint64_t>(msg.begin() + 3, msg.end()));
    if (kind == kResult && index < d.size()) d.finished(size_t(index), text);
    if (kind == kFailed) d.stop(text + " (rank " + std::to_string(from) + ")");
    const size_t i = d.take();
    dist::send_words(from, kAnswerTag, {thread, i < d.size() ? uint64_t(i) : kStop});
  }
  for (auto& t : pool) t.join();
}

// A rank r > 0: `jobs` threads work; this thread carries their messages to rank 0 and back.
void work_for_rank0(int jobs, const std::function<std::string(size_t)>& work) {
  struct Slot {
    bool asking = false, answered = false;
    std::vector<uint64_t> ask;
    uint64_t next = 0;
  };
  std::vector<Slot> slots(static_cast<size_t>(jobs));
  std::mutex lock;
  std::condition_variable to_main, to_workers;
  auto worker = [&](size_t j) {
    std::vector<uint64_t> ask = {kFirst, j, 0, 0};
    for (;;) {
      uint64_t next;
      {
        std::unique_lock<std::mutex> g(lock);
        slots[j].ask = std::move(ask);
        slots[j].asking = true;
        to_main.notify_one();
        to_workers.wait(g, [&] { return slots[j].answered; });
        slots[j].answered = false;
        next = slots[j].next;
      }
      if (next == kStop) return;
      uint64_t kind = kResult;
      std::string text;
      try {
        text = work(size_t(next));
      } catch (...) {
        kind = kFailed;
        text = failure_text(std::current_exception());
      }
      ask = {kind, j, next};
      const std::vector<uint64_t> words = text_words(text);
      ask.insert(ask.end(), words.begin(), words.end());
    }
  };
  std::vector<std::thread> pool;
  for (size_t j = 0; j < slots.size(); ++j) pool.emplace_back(worker, j);
  int stopped = 0;
  Backoff backoff;
  std::vector<std::vector<uint64_t>> outgoing;
  std::vector<uint64_t> msg;
  while (stopped < jobs) {
    {
      std::unique_lock<std::mutex> g(lock);
      auto any = [&] { return std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.asking; }); };
      if (!any()) to_main.wait_for(g, backoff.next(), any);
      for (Slot& s : slots)
        if (s.asking) {
          s.asking = false;
          outgoing.push_back(std::move(s.ask));
        }
    }
    if (!outgoing.empty()) backoff.reset();
    for (const auto& ask : outgoing) dist::send_words(0, kAskTag, ask);
    outgoing.clear();
    while (dist::probe_words(0, kAnswerTag)) {
      int tag = 0;
      dist::recv_words(0, tag, msg);
      std::lock_guard<std::mutex> g(lock);
      Slot& s = slots.at(size_t(msg.at(0)));
      s.next = msg.at(1);
      s.answered = true;
      if (s.next == kStop) ++stopped;
      to_workers.notify_all();
      backoff.reset();
    }
  }
  for (auto& t : pool) t.join();
  dist::send_words(0, kAskTag, {kBye, 0, 0});
}

}  // namespace

void spread_work(size_t n, int jobs, const std::function<std::string(size_t)>& work,
                 const std::function<void(size_t, const std::string&)>& done, const std::string& stopped) {
  jobs = std::max(1, jobs);
  Collectives* world = dist::world();
  if (!world) {
    Dispatch d(n, done);
    if (jobs == 1) d.run_items(work);
    else {
      std::vector<std::thread> pool = start_threads(int(std::min<size_t>(size_t(jobs), n)), [&] { d.run_items(work); });
      for (auto& t : pool) t.join();
    }
    if (const std::string why = d.failure(); !why.empty()) throw UsageError(stopped + ": " + why);
    return;
  }
  cuda_use_rank_device(dist::local_rank());  // --backend cuda: a node's ranks share out its devices
  std::vector<uint64_t> failure;
  // The queue's own messages cannot be agreed on (a rank waits on rank 0's answer): a failure of
  // the queue itself (not of an item) ends every rank.
  try {
    if (world->rank() == 0) {
      Dispatch d(n, done);
      dispatch_ranks(d, jobs, work);
      failure = text_words(d.failure());
    } else {
      work_for_rank0(jobs, work);
    }
  } catch (const std::exception& e) {
    std::cerr << "ppsim: error: " << stopped << " on rank " << world->rank() << ": " << one_line(e.what()) << "\n";
    dist::abort_all(2);
  }
  world->broadcast(failure, 0);
  if (const std::string why = words_text_of(failure); !why.empty()) throw AgreedError(false, stopped + ": " + why);
}

}  // namespace ppsim::study
