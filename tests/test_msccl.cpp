// MSCCL programs (host/msccl/, docs/DESIGN.md §3d): every program of tests/data/msccl runs with data
// and verifies; each copy broken on purpose in tests/data/msccl/broken (make_broken.py) is caught at
// the GPU, chunk and step that were edited; malformed files name their line; a deadlock is reported,
// not waited for; and the time of a ring all-gather equals its hand-derived closed form.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "goal/goal.h"
#include "msccl/execute.h"
#include "msccl/loggp_timing.h"
#include "ppsim/errors.h"

namespace fs = std::filesystem;
using namespace ppsim;
using namespace ppsim::msccl;

namespace {

const fs::path kData = PPSIM_MSCCL_DATA;

// The default machine of `run --msccl`: one cluster node of the program's GPUs.
Machine machine_for(const Program& p, OperatorKind op = OperatorKind::sum, int64_t chunk_words = 1) {
  Machine m;
  m.topology = make_topology(TopologyKind::cluster, 0, "1x" + std::to_string(p.ngpus));
  m.combine = op;
  m.chunk_words = chunk_words;
  m.input.random = true;
  m.input.seed = 7;
  return m;
}

// The line of `file` on which `text` first appears (1-based).
int line_of(const fs::path& file, const std::string& text) {
  std::ifstream f(file);
  std::string line;
  for (int n = 1; std::getline(f, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return -1;
}

TEST(Msccl, EveryProgramOfTheDataFolderVerifies) {
  int programs = 0;
  for (const auto& e : fs::directory_iterator(kData)) {
    if (e.path().extension() != ".xml") continue;
    ++programs;
    const Program p = read_file(e.path().string());
    for (OperatorKind op : {OperatorKind::sum, OperatorKind::max, OperatorKind::bxor, OperatorKind::fsum, OperatorKind::fsum32}) {
      const Outcome out = execute(p, machine_for(p, op, 3));
      EXPECT_TRUE(out.completed) << e.path() << ": " << out.stuck_text;
      EXPECT_TRUE(out.verified) << e.path() << " " << kOperatorNames[int(op)] << ": " << out.first.text;
      EXPECT_GT(out.time, 0) << e.path();
    }
  }
  EXPECT_GE(programs, 4);
}

TEST(Msccl, TheTwoNodeAllToAllRunsAcrossNodes) {
  const Program p = read_file((kData / "alltoall_two_step_2x2.xml").string());
  Machine m = machine_for(p);
  m.topology = make_topology(TopologyKind::cluster, 0, "2x2");
  const Outcome out = execute(p, m);
  EXPECT_TRUE(out.verified) << out.first.text;
}

struct Broken {
  const char* file;
  int gpu;
  int64_t chunk;
  StepRef step;  // the step make_broken.py edits, or the one that last held the data it removed
};

TEST(Msccl, EachBrokenCopyIsCaughtWhereItWasBroken) {
  const Broken cases[] = {
      // cpy o[0] <- i[0] of gpu 0 tb 0 step 2 removed: gpu 0's o[0] is never written; its sum is
      // last at tb 0 step 1 (rrc into i[0]).
      {"reduce_scatter_step_removed.xml", 0, 0, {0, 0, 1}},
      // gpu 1 tb 0 step 1 receives gpu 2's chunk into o[3], not o[2].
      {"allgather_wrong_offset.xml", 1, 2, {1, 0, 1}},
      // gpu 0 tb 1 step 1: rrcs turned into rcs drops gpu 0's own chunk 1.
      {"allreduce_reduce_as_copy.xml", 0, 1, {0, 1, 1}},
  };
  for (const Broken& b : cases) {
    const Program p = read_file((kData / "broken" / b.file).string());
    const Outcome out = execute(p, machine_for(p));
    ASSERT_TRUE(out.completed) << b.file << ": " << out.stuck_text;
    EXPECT_FALSE(out.verified) << b.file;
    EXPECT_EQ(out.first.gpu, b.gpu) << b.file << ": " << out.first.text;
    EXPECT_EQ(out.first.chunk, b.chunk) << b.file << ": " << out.first.text;
    EXPECT_EQ(out.first.step.gpu, b.step.gpu) << b.file << ": " << out.first.text;
    EXPECT_EQ(out.first.step.tb, b.step.tb) << b.file << ": " << out.first.text;
    EXPECT_EQ(out.first.step.step, b.step.step) << b.file << ": " << out.first.text;
  }
}

TEST(Msccl, MalformedFilesNameTheirLine) {
  const struct {
    const char* file;
    const char* edited;  // text on the edited line
    const char* message;
  } cases[] = {{"malformed_step_type.xml", "type=\"rrx\"", "unknown step type \"rrx\""},
               {"malformed_chunk_range.xml", "srcoff=\"9\"", "source i[9] is outside its buffer of 4 chunks"}};
  for (const auto& c : cases) {
    const fs::path f = kData / "broken" / c.file;
    try {
      read_file(f.string());
      ADD_FAILURE() << c.file << " was accepted";
    } catch (const ParseError& e) {
      const std::string want = f.string() + ":" + std::to_string(line_of(f, c.edited)) + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(Msccl, EveryMalformedAttributeIsRefusedWithItsLine) {
  const std::string head = "<algo name=\"x\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\">\n";
  const std::string gpu1 = "<gpu id=\"1\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\"/>\n";
  const std::string step = "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>";
  auto program = [&](const std::string& gpu0_body, const std::string& tb = "<tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">") {
    return head + "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">\n" + tb + "\n" + gpu0_body + "\n</tb></gpu>\n" + gpu1 + "</algo>\n";
  };
  auto refused = [&](const std::string& text, const std::string& message) {
    try {
      parse(text, "f.xml");
      ADD_FAILURE() << "accepted: " << message;
    } catch (const ParseError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("f.xml:", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  EXPECT_NO_THROW(parse(program(step), "f.xml"));
  refused(program(std::string(step).replace(step.find(" cnt=\"1\""), 8, "")), "f.xml:4: <step> has no attribute cnt");
  refused(program(std::string(step).replace(step.find("cnt=\"1\""), 7, "cnt=\"x1\"")), "cnt=\"x1\" is not a whole number");
  refused(program(std::string(step).replace(step.find("srcoff=\"0\""), 10, "srcoff=\"2\"")), "outside its buffer");
  refused(program(step, "<tb id=\"0\" send=\"5\" recv=\"-1\" chan=\"0\">"), "f.xml:3: send=5 is out of range");
  refused(program(std::string(step).replace(step.find("type=\"s\""), 8, "type=\"r\"")), "recv=\"-1\"");
  refused(program(std::string(step).replace(step.find("depid=\"-1\" deps=\"-1\""), 20, "depid=\"0\" deps=\"0\"")), "hasdep is 0");
  refused("<algo", "not well-formed XML");
  refused(head + "</algo>", "no <gpu id=\"0\">");
}

TEST(Msccl, ADeadlockIsReportedWithItsStep) {
  const Program p = read_file((kData / "broken" / "deadlock_dependency_cycle.xml").string());
  const Outcome out = execute(p, machine_for(p));
  EXPECT_FALSE(out.completed);
  EXPECT_EQ(out.stuck.gpu, 0);
  EXPECT_EQ(out.stuck.tb, 0);
  EXPECT_EQ(out.stuck.step, 0);
  EXPECT_NE(out.stuck_text.find("waits for gpu 0 tb 1 step 0"), std::string::npos) << out.stuck_text;
}

TEST(Msccl, AMessageNobodyReceivesIsReported) {
  // gpu 0 sends to gpu 1, which has no threadblock receiving.
  const std::string text =
      "<algo name=\"x\" nchunksperloop=\"1\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\">\n"
      "<gpu id=\"0\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"><tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">\n"
      "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
      "</tb></gpu>\n<gpu id=\"1\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"0\"/>\n</algo>\n";
  const Program p = parse(text, "f.xml");
  const Outcome out = execute(p, machine_for(p));
  EXPECT_FALSE(out.completed);
  EXPECT_EQ(out.stuck.gpu, 0);
  EXPECT_NE(out.stuck_text.find("no step receives"), std::string::npos) << out.stuck_text;
}

// allgather_ring_hand.xml: GPU r sends its chunk to r+1, then p-2 times receives the chunk of r-k
// and sends it on (rcs), then receives the last (r). Each transfer goes through the NVSwitch (l = 2
// links) and costs c = t_s + 2 t_h + t_w w; a threadblock is busy with a send until it arrives, so
// hop k of every chunk ends at k c and the last receive at (p-1) c: T = (p-1)(t_s + 2 t_h + t_w w).
TEST(Msccl, ARingAllGatherTakesItsClosedForm) {
  const Program p = read_file((kData / "allgather_ring_hand.xml").string());
  const int64_t w = 5;
  const double ts = 3, tw = 0.5, th = 0.25, nvlink = 0.125;
  Machine m = machine_for(p, OperatorKind::sum, w);
  m.cost.ts = ts, m.cost.tw = tw, m.cost.th = th;
  Outcome out = execute(p, m);
  ASSERT_TRUE(out.verified) << out.first.text;
  EXPECT_DOUBLE_EQ(out.time, (p.ngpus - 1) * (ts + 2 * th + tw * double(w)));
  EXPECT_EQ(out.messages, p.ngpus * (p.ngpus - 1));
  EXPECT_EQ(out.words_sent, p.ngpus * (p.ngpus - 1) * w);
  m.cost.set_class_tw(topology_find_link_class(m.topology, "nvlink"), nvlink);  // both links are nvlink
  out = execute(p, m);
  EXPECT_DOUBLE_EQ(out.time, (p.ngpus - 1) * (ts + 2 * th + nvlink * double(w)));
}

// The same ring under LogGP with g = G = O = 0: a hop is the sender's o, the wire's L and the
// receiver's o before it can send on (an rcs sends after its receive completes), so the last
// receive completes at (p-1)(2o + L).
TEST(Msccl, ARingAllGatherTakesItsLogGPClosedForm) {
  const Program p = read_file((kData / "allgather_ring_hand.xml").string());
  LogGPParams P;
  P.L = 700, P.o = 150, P.g = 0, P.G = 0, P.O = 0;
  const loggp::Result r = goal::simulate(loggp_schedule(p, 4), P);
  EXPECT_TRUE(r.unfinished.empty()) << r.unfinished;
  EXPECT_EQ(r.time, uint64_t(p.ngpus - 1) * (2 * P.o + P.L));
}

TEST(Msccl, AMachineOfAnotherSizeOrANonCommutativeReductionIsRefused) {
  const Program p = read_file((kData / "allreduce_ring_8gpu_4ch.xml").string());
  Machine m = machine_for(p);
  m.topology = make_topology(TopologyKind::cluster, 0, "1x4");
  EXPECT_THROW(execute(p, m), ConfigError);
  EXPECT_THROW(execute(p, machine_for(p, OperatorKind::affine)), ConfigError);
  const Program ag = read_file((kData / "allgather_ring_hand.xml").string());
  EXPECT_TRUE(execute(ag, machine_for(ag, OperatorKind::interval)).verified);  // nothing is reduced
}

}  // namespace
