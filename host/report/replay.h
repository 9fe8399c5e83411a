// The data of `ppsim view`'s page: a run replayed step by step on its topology's drawing layout
// (topology_layout, the one `ppsim draw` uses).
//
// In detail (p <= kReplayDetailProcessors and the buffers of every step at most kReplayDetailWords
// words): every processor and link, every message of every step with the nodes of its route (its
// route around failed links with --reroute), each link's load in each step (messages over it, the
// busier direction), every buffer after every step, and every processor's final check against the
// sequential reference. The run must have been made with RunConfig::trace.
//
// In aggregate (larger runs, or when asked): the schedule is walked again for each step's link
// loads, drawn as a heat map over the layout (at most kReplayCells cells, at most kReplayFrames
// frames: a frame covers consecutive steps, and a cell holds the largest load of the links whose
// midpoints fall in it), each step's messages, and a sample of kReplaySample processors with their
// final buffers and checks.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "ppsim/engine.h"

namespace ppsim {

inline constexpr int64_t kReplayDetailProcessors = 256;
inline constexpr uint64_t kReplayDetailWords = 1'000'000;  // buffer words x (steps + 1)
inline constexpr int64_t kReplayCells = 128 * 96;
inline constexpr int64_t kReplayFrames = 200;
inline constexpr int64_t kReplaySample = 64;
inline constexpr int64_t kReplayWordsShown = 64;  // words of a buffer shown per processor
// The most message-hops an aggregate replay walks (the run's own link_hops): beyond, it is refused.
inline constexpr int64_t kReplayMaxHops = 1'000'000'000;

// Whether configuration c is replayed in detail (unless aggregates are asked for).
bool replay_in_detail(const RunConfig& c, bool aggregate);

// The page's data for run r of c (detail: r has its trace). Throws ConfigError for an aggregate
// replay that would walk more than kReplayMaxHops message-hops.
nlohmann::json replay_json(const RunConfig& c, const RunResult& r, bool detail);

}  // namespace ppsim
