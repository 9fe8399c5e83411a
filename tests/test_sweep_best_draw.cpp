// The researcher's tools through the real executable: sweep files (schemas, and a sweep killed
// half-way leaves valid files), plots (gnuplot), drawings (Graphviz), and `best` on the settings of
// textbook exercises 4.3 and 4.6.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

size_t count(const std::string& s, char c) { return size_t(std::count(s.begin(), s.end(), c)); }

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

// Element tags balance (enough to tell a truncated or garbled SVG from a whole one).
bool well_formed_xml(const std::string& text) {
  std::vector<std::string> open;
  for (size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      if (at == std::string::npos) return false;
      continue;
    }
    if (text.compare(at, 2, "<?") == 0 || text.compare(at, 2, "<!") == 0) continue;
    size_t end = text.find('>', at);
    if (end == std::string::npos) return false;
    std::string tag = text.substr(at + 1, end - at - 1);
    bool closing = !tag.empty() && tag[0] == '/', self = !tag.empty() && tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" \t\n/", closing ? 1 : 0) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else if (!self) {
      open.push_back(name);
    }
  }
  return open.empty();
}

class SweepBestDraw : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ppsim_tools_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int ppsim(const std::string& args, std::string* out = nullptr) {
    fs::path o = dir_ / "stdout";
    int status =
        std::system((std::string("'") + PPSIM_EXE + "' " + args + " >'" + o.string() + "' 2>'" + (dir_ / "stderr").string() + "'").c_str());
    if (out) *out = slurp(o);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path dir_;
};

}  // namespace

TEST_F(SweepBestDraw, SweepWritesCsvAndJsonLinesPointByPoint) {
  fs::path csv = dir_ / "s.csv", jsonl = dir_ / "s.jsonl";
  ASSERT_EQ(ppsim("sweep --op allgather --topology ring,hypercube --p 2^3..2^6,13 --algo allgather_ring,allgather_hypercube --m 1,4 "
                  "--ts 100 --quiet --csv '" +
                  csv.string() + "' --jsonl '" + jsonl.string() + "'"),
            0);
  auto rows = lines_of(slurp(csv));
  auto objs = lines_of(slurp(jsonl));
  // Every point is a row: 2 topologies x 5 p x 2 algos x 2 m. Refused (status "refused"): on the
  // ring allgather_hypercube at p = 13, on the hypercube p = 13 for both algorithms; x 2 m.
  const size_t expected = 2 * 5 * 2 * 2, refused = (1 + 2) * 2;
  ASSERT_EQ(objs.size(), expected);
  ASSERT_EQ(rows.size(), expected + 1);
  const std::string header = rows[0];
  for (const char* col : {"point", "topology", "p", "op", "algo", "m", "ts", "tw", "steps", "time", "formula_time", "formula_ratio",
                          "lower_bound_steps", "lower_bound_time", "messages", "max_link_load", "verified", "speedup", "efficiency"})
    EXPECT_NE(header.find(col), std::string::npos) << col;
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(count(rows[i], ','), count(header, ',')) << rows[i];
  size_t refused_rows = 0;
  for (size_t i = 0; i < objs.size(); ++i) {
    json o = json::parse(objs[i]);
    EXPECT_EQ(o["point"], int64_t(i)) << "rows come in point order";
    if (o["status"] == "refused") {
      ++refused_rows;
      EXPECT_EQ(o["p"], 13);
      EXPECT_TRUE(o["verified"].is_null());
      continue;
    }
    EXPECT_EQ(o["status"], "ok");
    EXPECT_TRUE(o["verified"].get<bool>());
    if (o["topology"] == "ring" && o["algo"] == "allgather_ring") {  // eq. 4-2
      EXPECT_DOUBLE_EQ(o["time"].get<double>(), (100 + o["m"].get<double>()) * (o["p"].get<double>() - 1));
    }
  }
  EXPECT_EQ(refused_rows, refused);
}

TEST_F(SweepBestDraw, Chapter5MetricsComeWithTcAndProblem) {
  std::string out;
  ASSERT_EQ(
      ppsim(
          "sweep --op reduce --topology hypercube --p 2^2..2^5 --algo reduce_hypercube --ts 1 --tw 0 --tc 1 --problem 1024 --jsonl - --quiet",
          &out),
      0);
  for (const auto& line : lines_of(out)) {
    json o = json::parse(line);
    double p = o["p"], lg = std::log2(p);
    // Example 5.1's shape: T_p = n/p - 1 + 2 log p with t_c = t_s = 1 (local fold, combines, messages).
    EXPECT_DOUBLE_EQ(o["parallel_time"].get<double>(), 1024 / p - 1 + 2 * lg);
    EXPECT_DOUBLE_EQ(o["serial_time"].get<double>(), 1023);
    EXPECT_DOUBLE_EQ(o["efficiency"].get<double>(), o["speedup"].get<double>() / p);
    EXPECT_DOUBLE_EQ(o["cost"].get<double>(), p * o["parallel_time"].get<double>());
  }
}

// A sweep writes its files whole or not at all: stopped by SIGTERM in the middle, it leaves the
// files it was to replace as they were and no temporary file; on stdout, killed outright, every
// row it printed is whole.
TEST_F(SweepBestDraw, AStoppedSweepLeavesItsFilesAsTheyWere) {
  fs::path csv = dir_ / "k.csv", jsonl = dir_ / "k.jsonl";
  const std::string before = "an earlier sweep's rows\n";
  for (const auto& f : {csv, jsonl}) std::ofstream(f) << before;
  // Quick points first, then ones that take seconds: the signal lands in the middle.
  const std::string sweep = std::string("'") + PPSIM_EXE +
                            "' sweep --op allreduce --algo allreduce_hypercube --topology full --p 2^4..2^22 --m 1,64 --jobs 1 --quiet ";
  int status = std::system(("timeout -s TERM 3 " + sweep + "--csv '" + csv.string() + "' --jsonl '" + jsonl.string() + "' >/dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 124) << "the sweep was stopped before the end";
  EXPECT_EQ(slurp(csv), before);
  EXPECT_EQ(slurp(jsonl), before);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_TRUE(entry.path() == csv || entry.path() == jsonl) << "left behind: " << entry.path();
  fs::path piped = dir_ / "piped.jsonl";
  std::system(("timeout -s KILL 3 " + sweep + "--jsonl - > '" + piped.string() + "' 2>/dev/null").c_str());
  auto objs = lines_of(slurp(piped));
  ASSERT_GE(objs.size(), 2u) << "some points finished before the kill";
  EXPECT_LT(objs.size(), size_t(2 * 19)) << "the sweep was killed before the end";
  for (const auto& line : objs) EXPECT_TRUE(json::accept(line)) << line;
}

TEST_F(SweepBestDraw, PlotsAreWholeFiles) {
  if (!have("gnuplot")) GTEST_SKIP() << "gnuplot is not installed (scripts/setup.sh installs gnuplot-nox)";
  fs::path svg = dir_ / "plot.svg", png = dir_ / "plot.png";
  ASSERT_EQ(ppsim("sweep --op broadcast --topology ring --p 2^2..2^8 --algo broadcast_binomial,broadcast_binomial_low_first --quiet "
                  "--csv /dev/null --plot '" +
                  svg.string() + "'"),
            0);
  std::string text = slurp(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_TRUE(well_formed_xml(text));
  EXPECT_NE(text.find("broadcast-binomial-low-first"), std::string::npos) << "one curve per algorithm, labelled";
  ASSERT_EQ(ppsim("sweep --op broadcast --topology ring --p 2^2..2^6 --quiet --csv /dev/null --plot '" + png.string() + "'"), 0);
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
  EXPECT_NE(ppsim("sweep --op broadcast --topology ring --p 2^2..2^6 --quiet --csv /dev/null --plot '" + (dir_ / "x.pdf").string() + "'"),
            0);
}

TEST_F(SweepBestDraw, DrawingsAreAcceptedByGraphviz) {
  if (!have("dot")) GTEST_SKIP() << "Graphviz is not installed (scripts/setup.sh installs graphviz)";
  const char* runs[] = {"--topology ring --p 8 --op broadcast --kind messages", "--topology hypercube --p 8 --op allgather",
                        "--topology full --p 6 --op allreduce --lambda 3 --kind spacetime",
                        "--topology mesh --dims 4x4 --op alltoall --kind heatmap", "--topology tree --p 8 --op broadcast"};
  for (const char* args : runs) {
    fs::path dot = dir_ / "d.dot", svg = dir_ / "d.svg";
    ASSERT_EQ(ppsim(std::string("draw ") + args + " --out '" + dot.string() + "'"), 0) << args;
    EXPECT_EQ(std::system(("neato -n2 -Tsvg '" + dot.string() + "' -o '" + (dir_ / "check.svg").string() + "' 2>/dev/null").c_str()), 0)
        << args;
    ASSERT_EQ(ppsim(std::string("draw ") + args + " --out '" + svg.string() + "'"), 0) << args;
    EXPECT_TRUE(well_formed_xml(slurp(svg))) << args;
  }
  std::string dot;
  ASSERT_EQ(ppsim("draw --topology ring --p 8 --op broadcast --out -", &dot), 0);
  EXPECT_EQ(dot.rfind("digraph ppsim {", 0), 0u);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  EXPECT_EQ(count(dot, '{'), count(dot, '}'));
  EXPECT_NE(dot.find("n0 -> n4 [color"), std::string::npos) << "step 1 of Fig. 4-2: 0 sends to 4";
  std::string plain;  // without --out, DOT goes to stdout too
  ASSERT_EQ(ppsim("draw --topology ring --p 8 --op broadcast", &plain), 0);
  EXPECT_EQ(plain, dot);
  EXPECT_NE(ppsim("draw --topology ring --p 128 --op broadcast --out x.svg"), 0) << "drawings are for small machines";
  EXPECT_NE(ppsim("draw --topology ring --p 8 --op broadcast --kind heatmap --out x.svg"), 0) << "heat maps are for meshes";
}

// Exercise 4.3 (t_s = 100, t_w = 1, 8-node ring): the hypercube all-to-all broadcast costs
// sum_i (t_s + t_w m 4^i) = 3 t_s + 21 t_w m on the ring (congestion 2^i in step i), the ring
// algorithm 7 (t_s + t_w m): the ring wins from m > 400/14, i.e. m = 29. The closed form of the
// hypercube algorithm (no congestion) never loses -- which is the exercise's point.
TEST_F(SweepBestDraw, BestAnswersExercise4_3) {
  std::string out;
  ASSERT_EQ(
      ppsim("best --op allgather --topology ring --p 8 --m 1..64:1 --ts 100 --tw 1 --algo allgather_ring,allgather_hypercube --json", &out),
      0);
  json d = json::parse(out);
  ASSERT_EQ(d["changes"].size(), 1u);
  EXPECT_EQ(d["changes"][0]["m"], int64_t(std::ceil(400.0 / 14)));
  EXPECT_EQ(d["changes"][0]["to"], "allgather_ring");
  EXPECT_FALSE(d.contains("formula_changes"));
  for (const auto& row : d["rows"]) {
    double m = row["m"];
    for (const auto& e : row["entries"]) {
      double expected = e["algo"] == "allgather_ring" ? 7 * (100 + m) : 3 * 100 + 21 * m;
      EXPECT_DOUBLE_EQ(e["time"].get<double>(), expected);
    }
  }
}

// Exercise 4.6 (t_s = 100, t_w = 1, ring of 16): (i) all-gather then sum and (iii) combining all-gather
// take (t_s + t_w m)(p - 1) = 15 (t_s + t_w m); (ii) reduce + broadcast 2 log p (t_s + t_w m) = 8 (...):
// (ii) wins for small and large m alike, by simulation and by formula.
TEST_F(SweepBestDraw, BestAnswersExercise4_6) {
  std::string out;
  ASSERT_EQ(ppsim("best --op allreduce --topology ring --p 16 --m 1,4096 --ts 100 --tw 1 "
                  "--algo allreduce_ring_allgather,allreduce_reduce_broadcast,allreduce_ring_combining --json",
                  &out),
            0);
  json d = json::parse(out);
  for (const auto& row : d["rows"]) {
    EXPECT_EQ(row["best"], "allreduce_reduce_broadcast");
    EXPECT_EQ(row["best_by_formula"], "allreduce_reduce_broadcast");
    double m = row["m"];
    for (const auto& e : row["entries"]) {
      double expected = e["algo"] == "allreduce_reduce_broadcast" ? 8 * (100 + m) : 15 * (100 + m);
      EXPECT_DOUBLE_EQ(e["time"].get<double>(), expected);
    }
  }
}
