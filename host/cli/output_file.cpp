// The one writer of output files (output_file.h).
#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.h"

namespace ppsim::cli {

namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// `path` with every symbolic link along its last component followed (a link to a link, ...);
// a link that points nowhere yet names the file to create.
std::string follow_links(const std::string& path, const std::string& option) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    std::vector<char> buf(size_t(st.st_size > 0 ? st.st_size : 255) + 1);
    const ssize_t n = ::readlink(at.c_str(), buf.data(), buf.size());
    if (n < 0) throw UsageError(option + ": cannot read the link " + path + ": " + std::strerror(errno));
    const std::string to(buf.data(), size_t(n));
    at = to[0] == '/' ? to : folder_of(at) + "/" + to;
  }
  throw UsageError(option + ": " + path + ": too many levels of symbolic links");
}

// The temporary files being written, for the signal handler below: a run stopped by Ctrl-C or
// SIGTERM leaves its targets as they were and no temporary file behind (SIGKILL cannot be caught).
constexpr int kMaxTemps = 8;
char g_temps[kMaxTemps][4096];
volatile sig_atomic_t g_temp_used[kMaxTemps];

void remove_temps_and_die(int sig) {
  for (int i = 0; i < kMaxTemps; ++i)
    if (g_temp_used[i]) ::unlink(g_temps[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int register_temp(const std::string& name) {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, remove_temps_and_die);
    return true;
  }();
  (void)installed;
  for (int i = 0; i < kMaxTemps; ++i)
    if (!g_temp_used[i] && name.size() < sizeof g_temps[i]) {
      std::memcpy(g_temps[i], name.c_str(), name.size() + 1);
      g_temp_used[i] = 1;
      return i;
    }
  return -1;  // more at once than kept: that one is not removed on a signal
}

void unregister_temp(int slot) {
  if (slot >= 0) g_temp_used[slot] = 0;
}

}  // namespace

OutputFile::OutputFile(const std::string& path, std::string option) : path_(path), option_(std::move(option)) {
  if (path_.empty()) throw UsageError(option_ + " is given an empty path");
  if (path_ == "-") {
    mode_ = Mode::stdout_;
    return;
  }
  target_ = follow_links(path_, option_);
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw UsageError(option_ + ": " + path_ + " is a directory");
    if (!S_ISREG(st.st_mode)) {  // a device, FIFO or socket: written where it is
      mode_ = Mode::in_place;
      if (::access(target_.c_str(), W_OK) != 0) fail("cannot write", errno);
      return;
    }
  }
  // A regular file or a new one: the temporary file must be possible beside it (made and removed).
  open();
  ::close(fd_);
  fd_ = -1;
  drop_temp();
}

void OutputFile::drop_temp() {
  if (temp_.empty()) return;
  ::unlink(temp_.c_str());
  unregister_temp(temp_slot_);
  temp_.clear();
  temp_slot_ = -1;
}

OutputFile::~OutputFile() {
  if (fd_ > 2) ::close(fd_);
  if (!committed_) drop_temp();
}

void OutputFile::fail(const std::string& what, int error) const {
  throw UsageError(option_ + ": " + what + " " + (mode_ == Mode::stdout_ ? std::string("standard output") : path_) + ": " +
                   std::strerror(error));
}

void OutputFile::open() {
  if (mode_ == Mode::stdout_) {
    std::cout.flush();  // what was printed before comes first
    if (std::fflush(stdout) != 0) fail("cannot write", errno);
    fd_ = 1;
    return;
  }
  if (mode_ == Mode::in_place) {
    fd_ = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot write", errno);
    return;
  }
  const size_t slash = target_.find_last_of('/');
  const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
  std::string name = folder_of(target_) + "/." + base + ".ppsim-XXXXXX";
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) fail("cannot write", errno);
  temp_ = name;
  temp_slot_ = register_temp(temp_);
  // mkstemp makes the file 0600: give it the mode of the file it replaces, or of a new file.
  struct stat st;
  mode_t mode = 0666;
  if (::stat(target_.c_str(), &st) == 0) mode = st.st_mode & 07777;
  else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  if (::fchmod(fd_, mode) != 0) fail("cannot write", errno);
}

void OutputFile::write(std::string_view bytes) {
  if (committed_) throw std::logic_error("OutputFile::write after commit");
  if (fd_ < 0) open();
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("failed writing", n < 0 ? errno : EIO);
    bytes.remove_prefix(size_t(n));
  }
}

void OutputFile::commit() {
  if (fd_ < 0) open();  // an empty output is still an output
  committed_ = true;
  if (mode_ == Mode::stdout_) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int error = errno;
    drop_temp();
    fail("failed writing", error);
  }
  if (mode_ == Mode::atomic) {
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
      const int error = errno;
      drop_temp();
      fail("cannot write", error);
    }
    unregister_temp(temp_slot_);
    temp_.clear();
  }
}

void write_output(const std::string& path, const std::string& option, std::string_view content) {
  OutputFile out(path, option);
  out.write(content);
  out.commit();
}

namespace {

// An ostream's buffer that hands full chunks to an OutputFile (whose errors are exceptions).
class OutputBuf : public std::streambuf {
 public:
  explicit OutputBuf(OutputFile& out) : out_(out) { setp(buf_, buf_ + sizeof buf_); }
  void flush_all() {
    out_.write(std::string_view(pbase(), size_t(pptr() - pbase())));
    setp(buf_, buf_ + sizeof buf_);
  }

 protected:
  int_type overflow(int_type ch) override {
    flush_all();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) sputc(traits_type::to_char_type(ch));
    return traits_type::not_eof(ch);
  }

 private:
  OutputFile& out_;
  char buf_[1 << 16];
};

}  // namespace

void write_output(const std::string& path, const std::string& option, const std::function<void(std::ostream&)>& produce) {
  OutputFile out(path, option);
  OutputBuf buf(out);
  std::ostream stream(&buf);
  stream.exceptions(std::ios::badbit);  // an OutputFile error reaches the caller, not a stream state
  produce(stream);
  buf.flush_all();
  out.commit();
}

void write_rendered(const std::string& path, const std::string& option, const std::string& extension,
                    const std::function<std::string(const std::string& picture)>& input,
                    const std::function<std::string(const std::string& input_file, const std::string& picture)>& command,
                    const std::string& failure) {
  OutputFile out(path, option);  // checked before the program runs
  const char* tmpdir = std::getenv("TMPDIR");
  std::string folder = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/ppsim-draw-XXXXXX";
  if (!::mkdtemp(folder.data())) throw UsageError(option + ": cannot make a temporary folder for " + path + ": " + std::strerror(errno));
  const std::string input_file = folder + "/input", picture = folder + "/picture." + extension;
  std::string bytes;
  bool drawn = false;
  {
    std::ofstream f(input_file);
    f << input(picture);
    if (f.good()) {
      f.close();
      drawn = std::system(command(input_file, picture).c_str()) == 0;
      std::ifstream in(picture, std::ios::binary);
      std::ostringstream all;
      all << in.rdbuf();
      drawn = drawn && in && !all.str().empty();
      bytes = all.str();
    }
  }
  ::unlink(input_file.c_str());
  ::unlink(picture.c_str());
  ::rmdir(folder.c_str());
  if (!drawn) throw UsageError(failure);
  out.write(bytes);
  out.commit();
}

void write_json(const std::string& path, const nlohmann::json& doc, const std::string& option) {
  write_output(path, option, doc.dump(1) + "\n");
}

void require_writable(const std::string& path, const std::string& option) { OutputFile check(path, option); }

namespace {

// What an output path names, to tell two apart: "-", the device and inode of a regular file, the
// absolute path of a file to create, or "" for a device, FIFO, socket or folder (written in place,
// or refused by require_writable).
std::string output_identity(const std::string& path) {
  if (path == "-") return "-";
  std::string target;
  try {
    target = follow_links(path, "");
  } catch (const UsageError&) {
    return "path " + path;
  }
  struct stat st;
  if (::stat(target.c_str(), &st) == 0) return S_ISREG(st.st_mode) ? "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) : "";
  char* folder = ::realpath(folder_of(target).c_str(), nullptr);
  if (!folder) return "path " + target;
  const std::string id = "path " + std::string(folder) + "/" + target.substr(target.find_last_of('/') + 1);
  std::free(folder);
  return id;
}

}  // namespace

void require_distinct_outputs(std::initializer_list<NamedOutput> outputs) {
  std::vector<std::pair<const NamedOutput*, std::string>> seen;
  for (const NamedOutput& o : outputs) {
    if (o.path.empty()) continue;
    const std::string id = output_identity(o.path);
    for (const auto& [other, other_id] : seen)
      if (!id.empty() && id == other_id)
        throw UsageError(std::string(other->option) + " " + other->path + " and " + o.option + " " + o.path +
                         (id == "-" ? " both want stdout: give one a file"
                                    : " are the same file: give each its own (only the one written last would be left)"));
    seen.emplace_back(&o, id);
  }
}

void check_stdout() {
  std::cout.flush();
  if (std::fflush(stdout) != 0) throw UsageError(std::string("cannot write standard output: ") + std::strerror(errno));
  if (std::ferror(stdout) || !std::cout) throw UsageError("cannot write standard output: a write failed");
}

}  // namespace ppsim::cli
