// Reading a GOAL file (goal.h): the file is mapped, not copied, and the pages of the rank blocks
// already read are given back as the reader goes.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "goal/goal.h"

namespace ppsim::goal {

Schedule read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ParseError(path + ": cannot be read (a directory)");
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw ParseError(path + ": cannot be read");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw ParseError(path + ": cannot be read");
  }
  const size_t size = size_t(st.st_size);
  if (size == 0) {
    ::close(fd);
    return parse(std::string_view(), path);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw ParseError(path + ": cannot be read");
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
    Schedule s = parse_file_text(std::string_view(static_cast<const char*>(map), size), path, consumed);
    ::munmap(map, size);
    return s;
  } catch (...) {
    ::munmap(map, size);
    throw;
  }
}

}  // namespace ppsim::goal
