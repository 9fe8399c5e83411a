// Reading a GOAL file (goal.h): the file is mapped, not copied, and the pages of the rank blocks
// already read are given back as the reader goes.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "goal/goal.h"
#include "io/input_file.h"

namespace ppsim::goal {

namespace {

// `read(bytes, consumed)` on the file mapped. No limit on the size: the file is mapped and its
// pages given back as they are read, so it never sits in memory whole (input_file.h refuses what
// is no regular file).
template <class Read>
Schedule read_mapped(const std::string& path, Read&& read) {
  size_t size = 0;
  void* map = nullptr;
  int error = 0;
  try {
    const InputFile file(path, UINT64_MAX);
    size = size_t(file.size());
    if (size == 0) return read(std::string_view(), std::function<void(size_t)>(), std::function<void(size_t, size_t)>());
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    error = errno;
  } catch (const InputFileError& e) {
    throw ParseError(e.what());
  }
  if (map == MAP_FAILED) throw ParseError(path + ": cannot be read: " + std::strerror(error));
  ::madvise(map, size, MADV_SEQUENTIAL);
  // Pages of rank blocks already read are dropped from memory (they would be read back from the
  // file if touched again): a mapped page counts in the process's resident memory as long as it is
  // mapped, and the pages read ahead of the one in use were a sixth of a run's peak when dropped
  // every 16 MB.
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t released = 0;
  auto consumed = [&](size_t n) {
    const size_t upto = n / page * page;
    if (upto >= released + (size_t(1) << 20)) {  // every MB
      ::madvise(static_cast<char*>(map) + released, upto - released, MADV_DONTNEED);
      released = upto;
    }
  };
  // The same for a reader on several threads, each of its own bytes [from, to): the whole pages
  // inside (madvise may be called from any thread).
  auto drop = [&](size_t from, size_t to) {
    const size_t a = (from + page - 1) / page * page, b = to / page * page;
    if (b > a) ::madvise(static_cast<char*>(map) + a, b - a, MADV_DONTNEED);
  };
  try {
    Schedule s = read(std::string_view(static_cast<const char*>(map), size), std::function<void(size_t)>(consumed),
                      std::function<void(size_t, size_t)>(drop));
    ::munmap(map, size);
    return s;
  } catch (...) {
    ::munmap(map, size);
    throw;
  }
}

}  // namespace

Schedule read_file(const std::string& path, int threads) {
  Schedule s =
      read_mapped(path, [&](std::string_view bytes, std::function<void(size_t)> consumed, const std::function<void(size_t, size_t)>& drop) {
        if (bytes.empty()) return parse(bytes, path);
        return is_binary_schedule(bytes) ? read_binary(bytes, path, std::move(consumed))
                                         : parse_file_text(bytes, path, std::move(consumed), threads, drop);
      });
  s.compact();  // (in 4 bytes an operation where its shapes are few, as a generator's are)
  return s;
}

std::vector<uint32_t> read_file_lines(const std::string& path) {
  return read_mapped(path, [&](std::string_view bytes, std::function<void(size_t)> consumed,
                               const std::function<void(size_t, size_t)>&) { return parse_file_lines(bytes, path, std::move(consumed)); })
      .lines;
}

}  // namespace ppsim::goal
