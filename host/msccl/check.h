// The checks an MSCCL program passes before it runs (check.cpp), and where each of its buffers
// lives once in-place aliasing is applied (docs/DESIGN.md §3d).
#pragma once
#include "msccl/program.h"

namespace ppsim::msccl {

// Buffer b of a GPU is chunks [offset, offset + size) of storage `storage` (one of the GPU's three
// arrays). Out of place each buffer is its own storage. In place, as NCCL passes the pointers:
//   allreduce, alltoall  the output is the input (both have max(i_chunks, o_chunks) chunks)
//   allgather            the input is output[rank·cf, rank·cf + cf)
//   reduce-scatter       the output is input[rank·cf, rank·cf + cf)
struct View {
  int storage;
  int64_t offset, size;
};
struct Layout {
  View view[kBuffers];
  int64_t storage_chunks[kBuffers];
};
Layout buffer_layout(const Program& p, int gpu);

// Every reference of the program against the declared sizes: buffers large enough for the
// collective, operands within their buffers, peers and channels that exist, one threadblock per
// connection, dependencies that name an existing step whose hasdep is 1. Throws ParseError
// "FILE:LINE: message" at the element at fault; fills p.nchannels when the file leaves it out.
void check_program(Program& p);

}  // namespace ppsim::msccl
