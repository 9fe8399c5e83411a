// What an MSCCL program must leave on every GPU, and the step to blame when it does not
// (docs/DESIGN.md §3d).
#pragma once
#include <cstdint>
#include <vector>

#include "msccl/dataflow.h"

namespace ppsim::msccl {

// The contributions (r·input_chunks + j: chunk j of GPU r's input) that chunk k of GPU g's output
// must hold, from the collective's meaning alone:
//   allreduce       chunk k of every GPU            reduce-scatter  chunk g·cf + k of every GPU
//   allgather       chunk k mod cf of GPU k / cf    alltoall        chunk g·cf + k mod cf of GPU k / cf
std::vector<uint32_t> expected_contributions(const Program& p, int g, int64_t k);

// Compares every GPU's output words with the reference (exact operators bit for bit; fsum and
// fsum32 within the error bound of summation, DESIGN.md §6) and fills verified, wrong_words,
// wrong_chunks and, for the first wrong chunk, `first` with the step to blame.
void verify_result(const DataState& data, Outcome& out);

}  // namespace ppsim::msccl
