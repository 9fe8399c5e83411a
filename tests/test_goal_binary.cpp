// LogGOPSim's binary schedules (goal.h, read_binary): tests/data/goal/bin holds what LogGOPSim's
// txt2bin (76451de) wrote for the GOAL files beside it. Each is read as the same schedule as its
// text, operation by operation and dependency by dependency, and so timed as the text is (whose
// times are LogGOPSim's: test_loggp). A truncated or foreign file is refused with its name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "goal/goal.h"

namespace {

namespace fs = std::filesystem;
using namespace ppsim;

const std::string kGoalData = PPSIM_TEST_DATA "/goal/";

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

TEST(GoalBinary, EveryBinaryIsItsTextsSchedule) {
  std::vector<fs::path> bins;
  for (const auto& e : fs::directory_iterator(kGoalData + "bin"))
    if (e.path().extension() == ".bin") bins.push_back(e.path());
  std::sort(bins.begin(), bins.end());
  ASSERT_GE(bins.size(), 40u);
  for (const fs::path& bin : bins) {
    const std::string name = bin.stem().string();
    goal::Schedule text;
    try {
      text = goal::read_file(kGoalData + name + ".goal");
    } catch (const goal::ParseError&) {  // a schedule ppsim refuses (txt2bin wrote it all the same)
      EXPECT_THROW(goal::read_file(bin.string()), goal::ParseError) << name;
      continue;
    }
    const goal::Schedule b = goal::read_file(bin.string());
    EXPECT_TRUE(b.binary) << name;
    ASSERT_EQ(b.ranks, text.ranks) << name;
    EXPECT_EQ(b.cpus, text.cpus) << name;
    EXPECT_EQ(b.nics, text.nics) << name;
    EXPECT_EQ(b.first, text.first) << name;
    ASSERT_EQ(b.size(), text.size()) << name;
    for (size_t i = 0; i < b.size(); ++i) {
      const goal::OpFields x = b.op(uint32_t(i)), y = text.op(uint32_t(i));
      EXPECT_TRUE(x.peer == y.peer && x.tag == y.tag && x.size == y.size && x.type == y.type && x.cpu == y.cpu && x.nic == y.nic)
          << name << ": operation " << i;
    }
    EXPECT_TRUE(b.done == text.done) << name;
    EXPECT_TRUE(b.start == text.start) << name;
    // And so the same times (those of the text are LogGOPSim's own, test_loggp).
    loggp::Params P;
    try {
      EXPECT_EQ(goal::simulate(b, P).finish, goal::simulate(text, P).finish) << name;
    } catch (const loggp::StuckError&) {
      EXPECT_THROW(goal::simulate(text, P), loggp::StuckError) << name;
    }
  }
}

// A binary file that is cut short, marked invalid, or says other things than it holds.
TEST(GoalBinary, BadFilesAreRefusedWithTheirName) {
  const std::string good = bytes_of(kGoalData + "bin/dissemination-p16-d8.bin");
  ASSERT_TRUE(goal::is_binary_schedule(good));
  auto refused = [&](const std::string& bytes, const std::string& says) {
    try {
      goal::read_binary(bytes, "f.bin");
    } catch (const goal::ParseError& e) {
      const std::string m = e.what();
      return m.rfind("f.bin: ", 0) == 0 && m.find(says) != std::string::npos ? ::testing::AssertionSuccess()
                                                                             : ::testing::AssertionFailure() << m;
    }
    return ::testing::AssertionFailure() << "read";
  };
  for (const size_t cut : {size_t(8), size_t(12), size_t(100), good.size() / 2, good.size() - 1})
    EXPECT_TRUE(refused(good.substr(0, cut), "")) << "cut at " << cut;
  std::string invalid = good;
  invalid[0] = char(2342 & 0xff);
  invalid[1] = char(2342 >> 8);
  EXPECT_TRUE(refused(invalid, "invalid"));
  std::string zero_ranks = good;
  std::fill(zero_ranks.begin() + 8, zero_ranks.begin() + 12, '\0');
  EXPECT_TRUE(refused(zero_ranks, "number of ranks"));
  // Rank 0's first operation says it has 5 dependencies: the file lists none.
  std::string counts = good;
  uint64_t start;
  std::memcpy(&start, counts.data() + 8 + 6, 8);
  uint32_t roots;
  std::memcpy(&roots, counts.data() + 8 + start + 4, 4);
  const size_t node = 8 + start + 8 + 4 * size_t(roots);
  counts[node] = 5;
  EXPECT_TRUE(refused(counts, "the file counts 5 dependencies"));
  std::string type = good;
  type[node + 4] = 9;
  EXPECT_TRUE(refused(type, "type 9"));
}

}  // namespace
