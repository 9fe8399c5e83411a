// The one way a run opens a file it reads: a GOAL schedule (--goal), a noise trace (--noise-trace)
// and an MSCCL program (--msccl), from the command line and the Python module alike.
//
// Only a regular file is read (symbolic links followed), and only up to a limit in bytes: a
// device such as /dev/zero never ends, a FIFO may never end or block, a folder holds no text, so
// each is refused with one line before a byte is read, and so is a file larger than the limit.
// Nothing is read without a bound.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ppsim {

// Why a file cannot be read: "PATH: is a directory, not a file", "PATH: is not a regular file
// (...)", "PATH: cannot be read: REASON", "PATH: is larger than ...".
struct InputFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The most a file that is read whole into memory may hold (noise traces, MSCCL programs): 1 GiB,
// the limit `ppsim goal` puts on the files it writes.
inline constexpr uint64_t kMaxInputBytes = uint64_t(1) << 30;

class InputFile {
 public:
  // Opens `path` (without blocking on a FIFO), and refuses anything but a regular file of at most
  // `max_bytes`. Throws InputFileError.
  InputFile(const std::string& path, uint64_t max_bytes);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  // Its size when it was opened (what is read, at most).
  uint64_t size() const { return size_; }
  // Its bytes, up to size() (a file cut short meanwhile gives what is left). Throws InputFileError.
  std::string read_all();

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole of a regular file of at most `max_bytes`, as InputFile reads it.
std::string read_input_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);

}  // namespace ppsim
