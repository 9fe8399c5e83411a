// Opening and reading the files a run reads (input_file.h).
#include "io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ppsim {

namespace {

std::string bytes_text(uint64_t n) {
  if (n >= (uint64_t(1) << 30) && n % (uint64_t(1) << 30) == 0) return std::to_string(n >> 30) + " GiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

InputFile::InputFile(const std::string& path, uint64_t max_bytes) : path_(path) {
  // O_NONBLOCK: opening a FIFO nobody writes to would otherwise wait forever, before fstat could
  // say what it is. It changes nothing for a regular file.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw InputFileError(path + ": cannot be read: " + std::strerror(errno));
  struct stat st {};
  std::string refusal;
  if (::fstat(fd_, &st) != 0) refusal = path + ": cannot be read: " + std::strerror(errno);
  else if (S_ISDIR(st.st_mode)) refusal = path + ": is a directory, not a file";
  else if (!S_ISREG(st.st_mode)) refusal = path + ": is not a regular file (a device, FIFO or socket, which may never end)";
  else if (uint64_t(st.st_size) > max_bytes)
    refusal = path + ": is larger than " + bytes_text(max_bytes) + " (" + std::to_string(uint64_t(st.st_size)) + " bytes)";
  if (!refusal.empty()) {
    ::close(fd_);
    throw InputFileError(refusal);
  }
  size_ = uint64_t(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_all() {
  std::string text(size_t(size_), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd_, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputFileError(path_ + ": cannot be read: " + std::strerror(errno));
    if (n == 0) break;
    got += size_t(n);
  }
  text.resize(got);
  return text;
}

std::string read_input_file(const std::string& path, uint64_t max_bytes) { return InputFile(path, max_bytes).read_all(); }

}  // namespace ppsim
