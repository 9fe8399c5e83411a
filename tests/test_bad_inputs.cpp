// Bad and extreme inputs through the real executable, one test per defect a probe found (473
// inputs to the CLI and the Python module): every one ends with its exit code and exactly one
// line on stderr, and leaves the output path as the rules of README "Output files" say — a
// regular file keeps its bytes, a link stays a link to a file with the new content, a device
// stays a device. Nothing here touches a path outside its own temporary folder but /dev/full (and
// /dev/zero, which is only opened).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ppsim/algorithm.h"
#include "ppsim/engine.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ppsim;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Outcome {
  int code = -1;           // the exit code; -1 when a signal ended it
  std::string out, err;    // stdout (unless redirected elsewhere) and stderr
  long peak_kib = 0;       // the largest resident set of the process
  int lines() const { return int(std::count(err.begin(), err.end(), '\n')); }
};

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ppsim_bad_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `ppsim ARGS` in the test's folder (stdout to `stdout_to` when given), with `env` set, for
  // at most 120 s (a command that hangs fails its test with exit code 124).
  Outcome ppsim(const std::string& args, const std::string& stdout_to = "", const std::string& env = "") {
    const fs::path out = dir_ / ".stdout", err = dir_ / ".stderr";
    const std::string cmd = "cd '" + dir_.string() + "' && exec env " + env + " timeout 120 '" + PPSIM_EXE + "' " + args + " >'" +
                            (stdout_to.empty() ? out.string() : stdout_to) + "' 2>'" + err.string() + "' </dev/null";
    Outcome o;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    struct rusage use {};
    ::wait4(pid, &status, 0, &use);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.peak_kib = use.ru_maxrss;
    o.out = stdout_to.empty() ? slurp(out) : "";
    o.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return o;
  }

  // The refusal every bad input must get: exit 2 and one line "ppsim: ..." on stderr.
  static void expect_refused(const Outcome& o, const std::string& what) {
    EXPECT_EQ(o.code, 2) << what << "\n" << o.err;
    EXPECT_EQ(o.lines(), 1) << what << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("ppsim: ", 0), 0u) << what << "\n" << o.err;
    EXPECT_EQ(o.err.find("terminate called"), std::string::npos) << what;
  }

  // Everything in the test's folder but `keep`: what a command left behind.
  std::vector<std::string> strays(const std::vector<std::string>& keep) const {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name != ".stdout" && name != ".stderr" && std::find(keep.begin(), keep.end(), name) == keep.end()) left.push_back(name);
    }
    return left;
  }

  fs::path dir_;
};

// The commands that write an output file, each with what the file should start with.
struct Writer {
  const char* name;
  std::string args;  // the command; FILE stands for the output path
  const char* starts_with;
};
const std::vector<Writer> kWriters = {
    {"run --json", "run --topology ring --p 8 --json FILE", "{"},
    {"best --emit", "best --op allreduce --topology hypercube --p 4,8 --m 1,2 --emit ompi-rules FILE --quiet", "#"},
    {"draw --out", "draw --topology ring --p 4 --op broadcast --format dot --out FILE", "digraph"},
    {"goal --out", "goal --topology ring --p 4 --op broadcast --out FILE", "//"},
    {"view --html", "view --topology ring --p 4 --op broadcast --html FILE", "<!DOCTYPE html>"},
    {"run --timeline", "run --topology full --p 8 --model loggp --timeline FILE", "{"},
    {"run --goal --timeline", std::string("run --goal '") + PPSIM_TEST_DATA + "/goal/allreduce_ring-p8-d4096.goal' --timeline FILE", "{"},
};

std::string with_file(std::string args, const std::string& file) { return args.replace(args.find("FILE"), 4, "'" + file + "'"); }

}  // namespace

// Defect 1: output by rename replaced what the path named.
TEST_F(BadInput, AnOutputThroughALinkWritesTheFileItNames) {
  for (const Writer& w : kWriters) {
    const fs::path target = dir_ / "target", link = dir_ / "link";
    std::ofstream(target) << "old bytes\n";
    fs::create_symlink("target", link);
    const Outcome o = ppsim(with_file(w.args, link.string()));
    ASSERT_EQ(o.code, 0) << w.name << ": " << o.err;
    EXPECT_TRUE(fs::is_symlink(link)) << w.name << ": the link was replaced";
    EXPECT_EQ(fs::read_symlink(link), "target") << w.name;
    EXPECT_EQ(slurp(target).rfind(w.starts_with, 0), 0u) << w.name << ": the file the link names holds the new output";
    EXPECT_EQ(strays({"target", "link"}), std::vector<std::string>{}) << w.name;
    fs::remove(link);
    fs::remove(target);
  }
}

TEST_F(BadInput, AnOutputToADeviceWritesItInPlace) {
  const fs::path device = dir_ / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0)  // the null device's numbers
    GTEST_SKIP() << "cannot make a device node here (needs root): " << std::strerror(errno);
  for (const Writer& w : kWriters) {
    const Outcome o = ppsim(with_file(w.args, device.string()));
    EXPECT_EQ(o.code, 0) << w.name << ": " << o.err;
    struct stat st {};
    ASSERT_EQ(::stat(device.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << w.name << ": the device became a regular file";
    EXPECT_EQ(strays({"null"}), std::vector<std::string>{}) << w.name;
  }
}

TEST_F(BadInput, AFullDeviceIsAnErrorNamingThePath) {
  for (const Writer& w : kWriters) {
    const Outcome o = ppsim(with_file(w.args, "/dev/full"));
    expect_refused(o, w.name);
    EXPECT_NE(o.err.find("/dev/full"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << o.err;
  }
}

TEST_F(BadInput, ARegularFileIsReplacedWholeOrKeptWhole) {
  const fs::path file = dir_ / "r.json";
  std::ofstream(file) << "old bytes\n";
  ::chmod(file.c_str(), 0640);
  // A run that fails after its options were read leaves the old file as it was...
  expect_refused(ppsim("run --topology ring --p 8 --ts 1e308 --json '" + file.string() + "'"), "an infinite time");
  EXPECT_EQ(slurp(file), "old bytes\n");
  // ...and one that completes replaces it with the whole document, keeping its mode.
  ASSERT_EQ(ppsim("run --topology ring --p 8 --json '" + file.string() + "'").code, 0);
  EXPECT_TRUE(json::accept(slurp(file)));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(strays({"r.json"}), std::vector<std::string>{});
}

// Defect 2: a sweep whose rows could not be written ended with std::terminate (134).
TEST_F(BadInput, ASweepToAFullDeviceIsAnError) {
  for (const char* format : {"--jsonl -", "--csv -", "--jsonl /dev/full", ""}) {
    const Outcome o = ppsim(std::string("sweep --op allgather --topology ring --p 8 --quiet ") + format, "/dev/full");
    expect_refused(o, format);
  }
}

// Defect 3: failed writes to stdout were ignored (exit 0, the output lost).
TEST_F(BadInput, AFailedWriteToStdoutIsAnError) {
  for (const char* args : {"run --topology ring --p 8 --json -", "run --topology ring --p 8", "goal --topology ring --p 8 --out -", "list",
                           "best --op allreduce --topology ring --p 8 --m 1,2 --json --quiet", "bounds --n 1000 --json",
                           "draw --topology ring --p 4 --op broadcast --out -", "view --topology ring --p 4 --op broadcast --html -",
                           "view --topology ring --p 4 --op broadcast --html /dev/null"}) {
    const Outcome o = ppsim(args, "/dev/full");
    expect_refused(o, args);
    EXPECT_NE(o.err.find("standard output"), std::string::npos) << args << ": " << o.err;
  }
}

// Defect 4: an empty number read as 0 (--ts '' gave time 7 where the default gives 14).
TEST_F(BadInput, AnEmptyValueIsRefused) {
  for (const char* option : {"--ts", "--tw", "--th", "--gamma", "--m", "--p", "--root", "--lambda", "--algo", "--json"}) {
    const Outcome o = ppsim(std::string("run --topology ring --p 8 ") + option + " ''");
    expect_refused(o, option);
    EXPECT_NE(o.err.find(option), std::string::npos) << o.err;
  }
}

// Defect 5: a time that overflowed was reported as "inf" and "verified yes", exit 0, JSON null.
TEST_F(BadInput, AnInfiniteTimeIsAnError) {
  for (const char* args : {"run --topology ring --p 8 --ts 1e308", "run --topology ring --p 8 --tw 1e308 --m 4 --json -"}) {
    const Outcome o = ppsim(args);
    expect_refused(o, args);
    EXPECT_NE(o.err.find("overflows"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
  // A sweep's points refuse it one by one: no row reports a time.
  const Outcome sweep = ppsim("sweep --topology ring --p 8 --ts 1e308 --jsonl -");
  expect_refused(sweep, "sweep --ts 1e308");
  std::istringstream rows(sweep.out);
  int refused = 0;
  for (std::string line; std::getline(rows, line); ++refused) {
    const json row = json::parse(line);
    EXPECT_EQ(row["status"], "refused") << line;
    EXPECT_TRUE(row["time"].is_null()) << line;
  }
  EXPECT_GT(refused, 0);
  expect_refused(ppsim("run --topology ring --p 8 --ts 1e999"), "a value past the format");
  expect_refused(ppsim("run --topology ring --p 8 --ts inf"), "inf");
  expect_refused(ppsim("run --topology ring --p 8 --ts nan"), "nan");
}

// Defect 6: `draw --format png --out -` wrote a file named "-" and printed nothing.
TEST_F(BadInput, DrawToStdoutWritesThePicture) {
  if (!have("neato")) GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs it)";
  const Outcome o = ppsim("draw --topology ring --p 4 --op broadcast --format png --out -");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("\x89PNG", 0), 0u) << "PNG bytes on stdout";
  EXPECT_EQ(strays({}), std::vector<std::string>{});
}

// Defect 7: `best` over p = 2^2..2^62 printed nothing for 300 s and grew to 8.4 GB.
TEST_F(BadInput, WorkThatCannotEndIsRefusedBeforeItStarts) {
  for (const char* args : {"best --op allreduce --topology full --p 2^2..2^62 --m 1", "best --op allreduce --topology full --p 2^20 --m 1",
                           "sweep --op allreduce --topology full --p 2^2..2^62 --m 1 --jsonl -"}) {
    const Outcome o = ppsim(args);
    expect_refused(o, args);
    EXPECT_NE(o.err.find("--time-limit"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
}

// Defect 8: `goal` at p = 2^16 all-to-all would have written about 430 GB.
TEST_F(BadInput, AGoalFilePastTheLimitIsRefused) {
  const Outcome o = ppsim("goal --topology full --p 2^16 --op alltoall --out big.goal");
  expect_refused(o, "goal p = 2^16");
  EXPECT_NE(o.err.find("--max-size"), std::string::npos) << o.err;
  EXPECT_EQ(strays({}), std::vector<std::string>{});
  // The limit is an option: the same export at p = 2^6 is refused below its size, written above it.
  expect_refused(ppsim("goal --topology full --p 2^6 --op alltoall --out small.goal --max-size 1000"), "--max-size 1000");
  ASSERT_EQ(ppsim("goal --topology full --p 2^6 --op alltoall --out small.goal --max-size 2^30").code, 0);
  EXPECT_GT(fs::file_size(dir_ / "small.goal"), 1000u);
}

// Defect 9: a bad --plot-y was reported after the whole sweep had printed its rows.
TEST_F(BadInput, OptionErrorsComeBeforeAnyRow) {
  for (const char* args : {"sweep --op allgather --topology ring --p 8 --jsonl - --plot-y joy --plot a.svg",
                           "sweep --op allgather --topology ring --p 8 --jsonl - --plot-y speedup --plot a.svg",
                           "sweep --op allgather --topology ring --p 8 --jsonl - --plot a.gif"}) {
    const Outcome o = ppsim(args);
    expect_refused(o, args);
    EXPECT_EQ(o.out, "") << args;
    EXPECT_EQ(strays({}), std::vector<std::string>{}) << args;
  }
}

// Defect 10: wrong or inconsistent answers.
TEST_F(BadInput, EachOptionIsReadOneWay) {
  struct Case {
    const char* args;
    const char* says;  // a piece of the one line
  };
  const Case cases[] = {
      {"sweep --topology ring --p 8 --op reduce --tc -1 --problem 100", "--tc must not be negative"},
      {"run --topology ring --p 010", "leading zeros"},
      {"run --topology ring --p 8 --root 010", "leading zeros"},
      {"run --topology ring --p 8 --ts 01.5", "leading zeros"},
      {"run --topology full --p 8 --op scan --n 0", "--n must be at least 1"},
      {"sweep --topology ring --p 8, --op allgather", "empty item"},
      {"sweep --topology ring, --p 8 --op allgather", "empty item"},
      {"sweep --topology ring --p 8,,16 --op allgather", "empty item"},
      {"run --topology ring --p 8 --op broadcast --algo ''", "--algo is given an empty value"},
      {"draw --topology ring --p 4 --op broadcast --format png --out x.svg", "does not match"},
      {"run --topology full --p 8 --lambda 2^40", "--lambda must be at most"},
  };
  for (const Case& c : cases) {
    const Outcome o = ppsim(c.args);
    expect_refused(o, c.args);
    EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << ": " << o.err;
    EXPECT_EQ(o.err.find("Could not convert"), std::string::npos) << o.err;
  }
  EXPECT_EQ(strays({}), std::vector<std::string>{});
}

// Defect 10, last: a GOAL file with a byte-order mark got a message with a garbled character. A
// byte-order mark is skipped, and a message quotes any other byte outside printable ASCII as \xHH.
TEST_F(BadInput, AGoalFileWithAByteOrderMarkReads) {
  const std::string goal = "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 1\n}\nrank 1 {\nl1: recv 8b from 0 tag 1\n}\n";
  std::ofstream(dir_ / "plain.goal") << goal;
  std::ofstream(dir_ / "bom.goal") << "\xEF\xBB\xBF" << goal;
  const Outcome plain = ppsim("run --goal plain.goal --json -"), bom = ppsim("run --goal bom.goal --json -");
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(bom.code, 0) << bom.err;
  EXPECT_EQ(json::parse(bom.out)["time"], json::parse(plain.out)["time"]);
  std::ofstream(dir_ / "stray.goal") << "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 1 \xE9\n}\n";
  const Outcome stray = ppsim("run --goal stray.goal");
  expect_refused(stray, "a stray byte");
  EXPECT_TRUE(std::all_of(stray.err.begin(), stray.err.end(), [](char ch) { return (unsigned char)ch < 0x80; })) << stray.err;
}

// Defect 11: the memory check of `sweep --jobs N` looked at free memory once per point, so points
// that did not fit together ran together. Two points that each fit, but not both, under a limit
// (PPSIM_MEMORY_BYTES) run one after the other: the peak is that of one, not of two.
TEST_F(BadInput, ParallelPointsFitTheirMemoryTogether) {
  RunConfig c;
  c.topology = make_topology(TopologyKind::full, 2048, "");
  c.algorithm = find_algorithm("allgather_ring");
  c.params = params_for(c.topology, 8, 0);
  const uint64_t estimate = estimate_run_bytes(c);  // what the gate admits by
  const std::string point = "sweep --topology full --p 2048 --m 8 --op allgather --algo allgather_ring --jobs 2 --quiet --jsonl -";
  const std::string two = "sweep --topology full --p 2048,2048 --m 8 --op allgather --algo allgather_ring --jobs 2 --quiet --jsonl -";
  // Usable memory is the limit less a tenth: room for one point's estimate and a half.
  const std::string limit = "PPSIM_MEMORY_BYTES=" + std::to_string(uint64_t(double(estimate) * 1.5 / 0.9));
  const Outcome one = ppsim(point), gated = ppsim(two, "", limit), both = ppsim(two);
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(gated.code, 0) << gated.err;
  ASSERT_EQ(both.code, 0) << both.err;
  EXPECT_LT(double(gated.peak_kib), 1.3 * double(one.peak_kib)) << "one point at a time";
  EXPECT_GT(double(both.peak_kib), 1.6 * double(one.peak_kib)) << "with room for both, both ran at once";
  // A point larger than the limit alone is refused (as a row; the sweep then has none that runs).
  expect_refused(ppsim(two, "", "PPSIM_MEMORY_BYTES=" + std::to_string(estimate / 2)), "no point fits");
}

// The AI-cluster options: an unknown protocol, a protocol under LogGP, channels out of
// range, and a node size that does not divide p each get one line and exit 2.
TEST_F(BadInput, ClusterOptionsAreChecked) {
  expect_refused(ppsim("run --topology cluster --p 16 --op allreduce --algo allreduce_nccl_ring --protocol ll256"), "unknown protocol");
  expect_refused(ppsim("run --topology full --p 8 --protocol ll --model loggp"), "protocol under loggp");
  expect_refused(ppsim("run --topology cluster --p 16 --op allreduce --algo allreduce_nccl_ring --channels 33 --ports 8"), "33 channels");
  expect_refused(ppsim("run --topology cluster --p 12"), "G = 8 does not divide 12");
  expect_refused(ppsim("run --topology cluster --dims 3x5x2"), "K = 2 does not divide G = 5");
  expect_refused(ppsim("run --topology cluster --op allreduce --algo allreduce_nccl_tree --dims 2x4 --m 4 --segments 5 --ports 8"),
                 "more segments than words");
  expect_refused(ppsim("run --topology cluster --dims 64x8 --op allreduce --algo allreduce_nvls --ports 3"),
                 "a rail leaf folding 64 nodes' messages in one step");
  expect_refused(ppsim("run --topology ring --p 8 --op allreduce --algo allreduce_collnet --ports 15"), "switches a ring lacks");
  expect_refused(ppsim("run --topology cluster --dims 2x4 --logical cluster --map identity --op allgather --algo allgather_nvls --ports 2"),
                 "switch agents mapped");
}

// run --msccl: a malformed program names its file and line; a program for more GPUs than the
// machine has is refused; one that cannot finish ends with exit 1 and one line, not a hang.
TEST_F(BadInput, AnMscclProgramThatIsMalformedTooLargeOrStuckGetsOneLine) {
  const std::string step = "<step s=\"0\" type=\"STEP\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>";
  auto write = [&](const char* name, const std::string& type, int ngpus) {
    std::ofstream f(dir_ / name);
    f << "<algo name=\"x\" nchunksperloop=\"1\" ngpus=\"" << ngpus << "\" coll=\"allreduce\" inplace=\"1\">\n";
    for (int g = 0; g < ngpus; ++g)
      f << "<gpu id=\"" << g << "\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"><tb id=\"0\" send=\"-1\" recv=\"" << (g + 1) % ngpus
        << "\" chan=\"0\">\n"
        << std::string(step).replace(step.find("STEP"), 4, type) << "\n</tb></gpu>\n";
    f << "</algo>\n";
  };
  write("bad.xml", "rx", 2);
  Outcome o = ppsim("run --msccl bad.xml");
  expect_refused(o, "unknown step type");
  EXPECT_NE(o.err.find("bad.xml:3: unknown step type \"rx\""), std::string::npos) << o.err;
  write("eight.xml", "nop", 8);
  o = ppsim("run --msccl eight.xml --dims 1x4");
  expect_refused(o, "8 GPUs on 4 accelerators");
  EXPECT_NE(o.err.find("names 8 GPUs"), std::string::npos) << o.err;
  expect_refused(ppsim("run --msccl missing.xml"), "no such file");
  expect_refused(ppsim("run --msccl eight.xml --algo allreduce_ring"), "--algo with --msccl");
  write("stuck.xml", "r", 2);  // every GPU waits for a message nobody sends
  o = ppsim("run --msccl stuck.xml --json out.json");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(o.lines(), 1) << o.err;
  EXPECT_NE(o.err.find("cannot finish: gpu 0 tb 0 step 0"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));  // no partial output
}

// The hierarchical all-reduce's --inter (on run, sweep, best and goal): an unknown name, a unit that
// is no all-reduce, the hierarchical one itself, one written for rings and tori, one with local work,
// p' = N = 3 where 2^d is needed, an uneven slice where equal parts are, and a non-commutative
// operator each get one line and exit 2.
TEST_F(BadInput, HierarchicalInterIsChecked) {
  const std::string run = "run --topology cluster --dims 3x4 --op allreduce --algo allreduce_hierarchical --m 24 ";
  for (const char* args :
       {"--inter nope", "--inter broadcast_binomial", "--inter allreduce_hierarchical", "--inter allreduce_swing_latency",
        "--inter allreduce_ring_allgather", "--inter allreduce_rs_ag", "--combine interval"})
    expect_refused(ppsim(run + args), args);
  expect_refused(ppsim("run --topology cluster --dims 4x4 --op allreduce --algo allreduce_hierarchical --m 20 --inter allreduce_rs_ag"),
                 "slices of 5 words in 4 parts");
  for (const char* command :
       {"sweep --op allreduce --topology cluster --dims 2x2 --m 4 --quiet", "best --op allreduce --topology cluster --p 16 --m 4 --quiet",
        "goal --op allreduce --topology cluster --dims 2x2 --algo allreduce_hierarchical --out -"}) {
    const Outcome o = ppsim(std::string(command) + " --inter nope");
    expect_refused(o, command);
    EXPECT_NE(o.err.find("--inter 'nope' is unknown"), std::string::npos) << command << ": " << o.err;
  }
}

// Every file a run reads goes through one reader that opens only a regular file, and reads a file
// read whole only up to 1 GiB: /dev/zero given to --msccl or --noise-trace used to be read until
// memory ran out, a FIFO nobody writes to would block, and a folder was "not well-formed XML".
TEST_F(BadInput, AFileARunReadsIsARegularFileOfBoundedSize) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  ASSERT_TRUE(fs::create_directory(dir_ / "folder"));
  {  // a sparse file just past the limit: no disk space taken
    std::ofstream big(dir_ / "big");
  }
  fs::resize_file(dir_ / "big", (uint64_t(1) << 30) + 1);
  const std::string noise = "run --topology full --p 64 --op allreduce --model loggp --json out.json --noise-trace ";
  const std::vector<std::string> readers = {"run --json out.json --msccl ", noise, "run --json out.json --goal "};
  struct Input {
    const char* path;
    const char* says;
  };
  for (const std::string& reader : readers)
    for (const Input& in : {Input{"/dev/zero", "is not a regular file"}, Input{"fifo", "is not a regular file"},
                            Input{"folder", "is a directory"}, Input{"missing", "cannot be read: No such file"}}) {
      const Outcome o = ppsim(reader + in.path);
      expect_refused(o, reader + in.path);
      EXPECT_NE(o.err.find(in.says), std::string::npos) << reader << in.path << ": " << o.err;
      EXPECT_LT(o.peak_kib, 200 * 1024) << reader << in.path;
      EXPECT_EQ(strays({"fifo", "folder", "big"}), std::vector<std::string>{}) << reader << in.path;
    }
  for (const std::string& reader : {readers[0], readers[1]}) {  // (a GOAL file is mapped, not read whole: no limit)
    const Outcome o = ppsim(reader + "big");
    expect_refused(o, reader + "big");
    EXPECT_NE(o.err.find("is larger than 1 GiB"), std::string::npos) << o.err;
    EXPECT_LT(o.peak_kib, 200 * 1024) << reader;
  }
}

// run --msccl meets the size rule of every run before it allocates: --m 2^40 ended with
// "std::bad_alloc", a file of 2^32 input chunks too, and --m 2^30 grew past 6 GB before failing.
TEST_F(BadInput, AnMscclRunTooLargeIsRefusedBeforeItAllocates) {
  const std::string ring = std::string(PPSIM_TEST_DATA) + "/msccl/allreduce_ring_2ch.xml";
  std::string xml = slurp(ring);
  for (size_t at = xml.find("i_chunks=\""); at != std::string::npos; at = xml.find("i_chunks=\"", at + 1)) {
    const size_t value = at + 10, end = xml.find('"', value);
    xml.replace(value, end - value, "4294967296");
  }
  std::ofstream(dir_ / "huge.xml") << xml;
  const std::string limit = "PPSIM_MEMORY_BYTES=" + std::to_string(uint64_t(1) << 30);
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {Case{"--msccl '" + ring + "' --m 2^40", "too large to simulate (4 GPUs"},
                        Case{"--msccl '" + ring + "' --m 2^30", "this run needs about"}, Case{"--msccl huge.xml", "this run needs about"},
                        Case{"--msccl '" + ring + "' --m 2^30 --model loggp", "this run needs about"}}) {
    const Outcome o = ppsim("run " + c.args + " --json out.json", "", limit);
    expect_refused(o, c.args);
    EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << ": " << o.err;
    EXPECT_EQ(o.err.find("bad_alloc"), std::string::npos) << o.err;
    EXPECT_LT(o.peak_kib, 200 * 1024) << c.args;
    EXPECT_EQ(strays({"huge.xml"}), std::vector<std::string>{}) << c.args;
  }
  // The plain run of the same size is refused by the same rule, in the same words.
  const Outcome plain = ppsim("run --topology cluster --dims 1x4 --op allreduce --m 2^40");
  expect_refused(plain, "a plain run of the same size");
  EXPECT_NE(plain.err.find("too large to simulate (4 processors"), std::string::npos) << plain.err;
}

// Detours that add up past 2^64 wrapped: six of 2^64/6 ns (each below the trace's 2^62) summed to
// 0, and the run exited 0 with the time of its noiseless operations. Every sum of detours is held
// at 2^62 and refused as a clock that wrapped, by every timing (lockstep, windows, events); and
// under --goal a wrapped clock exits 2, as it does for an algorithm, not 1 as a stuck schedule.
TEST_F(BadInput, DetoursThatAddUpPast2To64AreRefused) {
  auto trace = [&](const char* name, const char* length) {
    std::ofstream f(dir_ / name);
    for (int i = 0; i < 64; ++i) f << i * 100 << "\t" << length << "\n";
  };
  trace("sixth.trace", "3074457345618259456");  // 2^64 / 6
  trace("large.trace", "4000000000000000000");
  std::ofstream(dir_ / "two.goal") << "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 1\n}\nrank 1 {\nl1: recv 8b from 0 tag 1\n}\n";
  for (const char* t : {"sixth.trace", "large.trace"})
    for (const char* args :
         {"--topology full --p 2 --op broadcast --model loggp --o 500", "--topology full --p 2 --op broadcast --model loggp --o 500 --threads 1",
          "--topology full --p 64 --op allreduce --model loggp --threads 2", "--topology full --p 64 --op allreduce --model loggp --noise-cosched",
          "--goal two.goal --o 500"}) {
      const std::string command = std::string("run ") + args + " --json out.json --noise-trace " + t;
      const Outcome o = ppsim(command);
      expect_refused(o, command);
      EXPECT_NE(o.err.find("a clock wrapped past 2^64"), std::string::npos) << command << ": " << o.err;
      EXPECT_EQ(strays({"sixth.trace", "large.trace", "two.goal"}), std::vector<std::string>{}) << command;
    }
}

// A failed write names the option it was for: --timeline's said "--json: failed writing".
TEST_F(BadInput, AFailedWriteNamesItsOption) {
  for (const Writer& w : kWriters) {
    const std::string name = w.name, option = name.substr(name.rfind(' ') + 1);
    const Outcome o = ppsim(with_file(w.args, "/dev/full"));
    expect_refused(o, w.name);
    EXPECT_EQ(o.err.rfind("ppsim: error: " + option + ": failed writing /dev/full", 0), 0u) << w.name << ": " << o.err;
    const Outcome out = ppsim(with_file(w.args, "-"), "/dev/full");
    expect_refused(out, w.name);
    EXPECT_EQ(out.err.rfind("ppsim: error: " + option + ": failed writing standard output", 0), 0u) << w.name << ": " << out.err;
  }
}

// The numbers inside --fail, --stragglers and --noise are read as every option's (README "Numbers"):
// --fail proc:04@1 and --stragglers 03 ran, where proc:2^2@1 and --stragglers 2^2 were refused.
TEST_F(BadInput, NumbersInsideFailuresStragglersAndNoiseReadAsEveryOption) {
  const std::string run = "run --topology hypercube --p 8 --op broadcast --json out.json ";
  for (const char* bad : {"--fail proc:04@1", "--fail proc:4@01", "--fail link:0-01@1", "--stragglers 03", "--stragglers 1,03",
                          "--stragglers 01.5%"}) {
    const Outcome o = ppsim(run + bad);
    expect_refused(o, bad);
    EXPECT_NE(o.err.find("leading zeros"), std::string::npos) << bad << ": " << o.err;
    EXPECT_EQ(strays({}), std::vector<std::string>{}) << bad;
  }
  const Outcome noise = ppsim("run --topology full --p 8 --model loggp --noise periodic:01000:5");
  expect_refused(noise, "--noise periodic:01000:5");
  EXPECT_NE(noise.err.find("leading zeros"), std::string::npos) << noise.err;
  for (const char* bad : {"--fail proc:0x4@1", "--stragglers 1e1", "--fail proc:4@", "--fail proc:-1@1"}) expect_refused(ppsim(run + bad), bad);
  // A power reads as everywhere else, and names the same processor as its decimal.
  const Outcome power = ppsim("run --topology hypercube --p 8 --op broadcast --fail proc:2^2@1 --stragglers 2^1 --json -");
  ASSERT_EQ(power.code, 0) << power.err;
  const json doc = json::parse(power.out);
  EXPECT_EQ(doc["failures"]["injected"][0]["processor"], 4) << doc["failures"].dump();
  EXPECT_EQ(doc["config"]["stragglers"]["processors"][0], 2) << doc["config"].dump();
}

// A number in an error is written compactly: --straggler-factor 1e308 printed 309 digits.
TEST_F(BadInput, NumbersInErrorsAreCompact) {
  const Outcome o = ppsim("run --topology ring --p 8 --stragglers 1 --straggler-factor 1e308");
  expect_refused(o, "--straggler-factor 1e308");
  EXPECT_NE(o.err.find("(got 1e+308)"), std::string::npos) << o.err;
  EXPECT_LT(o.err.size(), 100u) << o.err;
}

// An MSCCL file of two root elements ran its first program: XML allows one root.
TEST_F(BadInput, AnMscclFileWithTwoRootsIsRefused) {
  const std::string ring = slurp(std::string(PPSIM_TEST_DATA) + "/msccl/allreduce_ring_2ch.xml");
  std::ofstream(dir_ / "two.xml") << ring << ring;
  std::ofstream(dir_ / "other.xml") << ring << "<algo2/>\n";
  for (const char* file : {"two.xml", "other.xml"}) {
    const Outcome o = ppsim(std::string("run --json out.json --msccl ") + file);
    expect_refused(o, file);
    EXPECT_NE(o.err.find(std::string(file) + ":"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("a second root element"), std::string::npos) << o.err;
    EXPECT_EQ(strays({"two.xml", "other.xml"}), std::vector<std::string>{}) << file;
  }
}

// Two outputs of one command to the same file: --timeline X --json X kept only the JSON. Refused
// whether they name it by the same path, another path, a link or a hard link; a file that was
// there keeps its bytes. A device may be shared.
TEST_F(BadInput, TwoOutputsToOneFileAreRefused) {
  std::ofstream(dir_ / "old") << "old bytes\n";
  fs::create_symlink("old", dir_ / "link");
  fs::create_hard_link(dir_ / "old", dir_ / "hard");
  const std::string run = "run --topology full --p 8 --model loggp ";
  const std::vector<std::string> cases = {
      run + "--timeline new --json new", run + "--timeline new --json ./new", run + "--timeline old --json link",
      run + "--json hard --timeline old", run + "--json old --plot old", "view --topology ring --p 4 --op broadcast --html old --json ./old",
      "sweep --topology ring --p 4 --op allgather --csv new --jsonl ./new",
      "run --goal '" + std::string(PPSIM_TEST_DATA) + "/goal/allreduce_ring-p8-d4096.goal' --timeline link --json old"};
  for (const std::string& args : cases) {
    const Outcome o = ppsim(args);
    expect_refused(o, args);
    EXPECT_NE(o.err.find("are the same file"), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(slurp(dir_ / "old"), "old bytes\n") << args;
    EXPECT_EQ(strays({"old", "link", "hard"}), std::vector<std::string>{}) << args;
  }
  const Outcome out = ppsim(run + "--timeline - --json -");
  expect_refused(out, "both to standard output");
  EXPECT_NE(out.err.find("both want stdout"), std::string::npos) << out.err;
  EXPECT_EQ(ppsim(run + "--timeline /dev/null --json /dev/null").code, 0);
}

// `run` checks its least time before it starts, as sweep and best do: a run of 2^20 processors in
// a chain (2^40 processor-rounds) started and ran for hours without a word.
TEST_F(BadInput, ARunThatCannotEndIsRefusedBeforeItStarts) {
  for (const char* args : {"run --topology linear --p 2^20 --op broadcast --algo broadcast_chain --json out.json",
                           "run --topology linear --p 2^17 --op broadcast --algo broadcast_chain --time-limit 0.5 --json out.json",
                           "run --topology ring --p 8 --time-limit 0", "run --topology ring --p 8 --time-limit -1"}) {
    const Outcome o = ppsim(args);
    expect_refused(o, args);
    EXPECT_NE(o.err.find("--time-limit"), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(strays({}), std::vector<std::string>{}) << args;
  }
  const Outcome o = ppsim("run --topology linear --p 2^20 --op broadcast --algo broadcast_chain");
  EXPECT_NE(o.err.find("would take at least 73 minutes"), std::string::npos) << o.err;
}
