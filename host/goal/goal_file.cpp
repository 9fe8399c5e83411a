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

Schedule read_file(const std::string& path) {
  // No limit on the size: the file is mapped and its pages given back as they are read, so it never
  // sits in memory whole (input_file.h refuses what is no regular file).
  size_t size = 0;
  void* map = nullptr;
  int error = 0;
  try {
    const InputFile file(path, UINT64_MAX);
    size = size_t(file.size());
    if (size == 0) return parse(std::string_view(), path);
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    error = errno;
  } catch (const InputFileError& e) {
    throw ParseError(e.what());
  }
  if (map == MAP_FAILED) throw ParseError(path + ": cannot be read: " + std::strerror(error));
  ::madvise(map, size, MADV_SEQUENTIAL);
  // Pages of rank blocks already read are dropped from memory (they would be read back from the
  // file if touched again), so a large file never sits in memory whole.
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t released = 0;
  auto consumed = [&](size_t n) {
    const size_t upto = n / page * page;
    if (upto >= released + (size_t(1) << 24)) {  // every 16 MB
      ::madvise(static_cast<char*>(map) + released, upto - released, MADV_DONTNEED);
      released = upto;
    }
  };
  try {
    const std::string_view bytes(static_cast<const char*>(map), size);
    Schedule s = is_binary_schedule(bytes) ? read_binary(bytes, path, consumed) : parse_file_text(bytes, path, consumed);
    ::munmap(map, size);
    return s;
  } catch (...) {
    ::munmap(map, size);
    throw;
  }
}

}  // namespace ppsim::goal
