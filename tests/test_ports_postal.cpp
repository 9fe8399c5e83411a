// Port models, postal latency and schedule checking (docs/DESIGN.md §2).
#include <gtest/gtest.h>

#include <string>

#include "ppsim/engine.h"
#include "test_helpers.h"

using namespace ppsim;
using testing_support::make_config;

namespace {

std::string schedule_error(const RunConfig& c) {
  try {
    run_cpu(c);
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "";
}

RunConfig with_ports(RunConfig c, PortModel model, int k = 1) {
  c.ports = PortSpec{model, k};
  return c;
}

}  // namespace

// The bidirectional ring all-gather sends two messages per step.
TEST(Ports, TwoSendsPerStepFailUnderSinglePortAndRunUnderTwoPort) {
  RunConfig c = make_config("allgather_ring_bidirectional", TopologyKind::ring, 9, "", 2, OperatorKind::interval);
  EXPECT_EQ(schedule_error(c), "step 1: processor 0 sends 2 messages (to 1 and 8) but the single-port model allows 1");
  RunResult two = run_cpu(with_ports(c, PortModel::kport, 2));
  EXPECT_TRUE(two.verified);
  EXPECT_EQ(two.steps, 4);  // ceil((9 - 1) / 2)
  EXPECT_TRUE(run_cpu(with_ports(c, PortModel::all)).verified) << "the two messages leave on different ring links";
}

TEST(Ports, AllPortForbidsTwoMessagesOnOneLink) {
  // On a star every leaf has one link: its two sends share it (the centre, 0, has a link per leaf).
  RunConfig c = with_ports(make_config("allgather_ring_bidirectional", TopologyKind::star, 6), PortModel::all);
  EXPECT_EQ(schedule_error(c), "step 1: processor 1 sends to 2 and 0 over the same outgoing link, which the all-port model forbids");
}

TEST(Ports, HalfDuplexAndTelephone) {
  RunConfig ring = make_config("allgather_ring", TopologyKind::ring, 6);
  EXPECT_EQ(schedule_error(with_ports(ring, PortModel::half_duplex)),
            "step 1: processor 0 both sends (to 1) and receives (from 5), which the half-duplex model forbids");
  EXPECT_EQ(schedule_error(with_ports(ring, PortModel::telephone)),
            "step 1: processor 0 sends to 1 but receives from 5; the telephone model allows one exchange with one partner");
  // Exchanges with one partner are exactly what the telephone model allows.
  EXPECT_TRUE(run_cpu(with_ports(make_config("allreduce_hypercube", TopologyKind::hypercube, 16), PortModel::telephone)).verified);
  // In a binomial broadcast nobody sends and receives in the same step.
  EXPECT_TRUE(run_cpu(with_ports(make_config("broadcast_binomial", TopologyKind::ring, 13), PortModel::half_duplex)).verified);
  // Two receives in one step break single-port too.
  RunConfig k2 = with_ports(make_config("allgather_ring_bidirectional", TopologyKind::ring, 7), PortModel::kport, 3);
  EXPECT_TRUE(run_cpu(k2).verified);
}

// docs/DESIGN.md §2: a message sent in step j is received at the end of step j + lambda - 1 and can be
// sent on from step j + lambda. With lambda = 3 a binomial broadcast on 4 processors sends in
// steps 1 and 4; processor 2 (first receiver) holds nothing after steps 1 and 2, the data after 3.
TEST(Postal, LambdaThreeDelaysReceipt) {
  RunConfig c = make_config("broadcast_binomial", TopologyKind::full, 4, "", 1, OperatorKind::interval);
  c.params.lambda = 3;
  c.trace = true;
  RunResult r = run_cpu(c);
  ASSERT_TRUE(r.verified);
  EXPECT_EQ(r.steps, 2 * 3);
  EXPECT_DOUBLE_EQ(r.time, 6.0) << "under the postal model time is the number of steps";
  ASSERT_EQ(r.trace.size(), 7u);  // trace[j]: after step j, trace[0]: the initial state
  ASSERT_EQ(r.trace[1].messages.size(), 1u);
  EXPECT_EQ(r.trace[1].messages[0].from, 0);
  EXPECT_EQ(r.trace[1].messages[0].to, 2);
  EXPECT_EQ(r.trace[1].messages[0].arrives, 3);
  EXPECT_EQ(r.trace[1].buffers[0][2], kIntervalUnset);
  EXPECT_EQ(r.trace[2].buffers[0][2], kIntervalUnset);
  EXPECT_EQ(r.trace[3].buffers[0][2], interval_make(0, 0));
  EXPECT_TRUE(r.trace[2].messages.empty() && r.trace[3].messages.empty());
  ASSERT_EQ(r.trace[4].messages.size(), 2u);  // 0 -> 1 and 2 -> 3, sent in step 4 = 1 + lambda
  EXPECT_EQ(r.trace[4].messages[1].from, 2);
  EXPECT_EQ(r.trace[4].messages[1].sent, 4);
  EXPECT_EQ(r.trace[5].buffers[0][3], kIntervalUnset);
  EXPECT_EQ(r.trace[6].buffers[0][3], interval_make(0, 0));
}

TEST(Postal, MessagesInFlightOverlapWithLambda) {
  // All-gather around a ring with lambda = 2: every round waits for the last round's block.
  RunConfig c = make_config("allgather_ring", TopologyKind::ring, 7, "", 3, OperatorKind::interval);
  c.params.lambda = 2;
  RunResult r = run_cpu(c);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.steps, 6 * 2);
}

// What is held for messages in flight: a round-based algorithm sends every lambda steps and its
// messages arrive before its next round, so one step's worth, whatever lambda; a postal-native one
// sends in every step, lambda steps' worth. Either way the runs match the reference.
TEST(Postal, InFlightStorageFollowsTheSendingSteps) {
  RunConfig rounds = make_config("allreduce_hypercube", TopologyKind::hypercube, 64, "", 4, OperatorKind::interval);
  const uint64_t one = estimate_run_bytes(rounds);
  rounds.params.lambda = 64;
  EXPECT_EQ(run_store_count(rounds), 1);
  EXPECT_EQ(estimate_run_bytes(rounds), one);
  RunResult r = run_cpu(rounds);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.steps, 6 * 64);
  RunConfig postal = make_config("broadcast_postal", TopologyKind::full, 64, "", 4, OperatorKind::interval);
  const uint64_t postal_one = estimate_run_bytes(postal);
  postal.params.lambda = 5;
  EXPECT_EQ(run_store_count(postal), 5);
  EXPECT_GT(estimate_run_bytes(postal), postal_one);
  EXPECT_TRUE(run_cpu(postal).verified);
}

// Broken schedules (injected through the test hook) are reported with step and processors.
namespace broken {
void send_without_receive(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 0) out.add_send(1, 0, 0, 1);
}
void receive_without_send(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 3) out.add_recv(2, 0, 0, 1, RecvMode::copy);
}
void length_mismatch(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 0) out.add_send(1, 0, 0, 1);
  if (proc == 1) out.add_recv(0, 0, 0, 2, RecvMode::copy);
}
void send_out_of_range(const AlgoParams&, int64_t proc, int, StepOps& out) {
  if (proc == 2) out.add_send(9, 0, 0, 1);
}
}  // namespace broken

TEST(Schedule, MismatchesAreErrorsNamingStepAndProcessors) {
  RunConfig c = make_config("broadcast_binomial", TopologyKind::full, 4, "", 2);
  c.test_ops_override = broken::send_without_receive;
  EXPECT_EQ(schedule_error(c), "step 1: processor 0 sends 1 word to 1, which posts no matching receive from 0");
  c.test_ops_override = broken::receive_without_send;
  EXPECT_EQ(schedule_error(c), "step 1: processor 3 expects 1 word from 2, which sends it nothing in that step");
  c.test_ops_override = broken::length_mismatch;
  EXPECT_EQ(schedule_error(c), "step 1: processor 0 sends 1 word to 1, which expects 2 words from 0");
  c.test_ops_override = broken::send_out_of_range;
  EXPECT_EQ(schedule_error(c), "step 1: processor 2 posts an invalid send (to 9, 1 word)");
}

TEST(Config, InvalidParametersAreRefused) {
  RunConfig c = make_config("allreduce_hypercube", TopologyKind::hypercube, 8);
  c.params.lambda = 0;
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = make_config("allreduce_hypercube", TopologyKind::hypercube, 8, "", 0);
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = make_config("broadcast_hypercube", TopologyKind::hypercube, 8, "", 1, OperatorKind::sum, 8);
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = make_config("allgather_mesh", TopologyKind::ring, 8);
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = make_config("reduce_binomial_high_first", TopologyKind::ring, 8, "", 1, OperatorKind::affine);
  EXPECT_THROW(run_cpu(c), ConfigError);
  c = make_config("allgather_ring", TopologyKind::ring, 4096, "", 1);
  c.trace = true;
  EXPECT_THROW(run_cpu(c), ConfigError);
}
