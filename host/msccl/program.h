// An MSCCL program: the XML that msccl-tools emits and NCCL's MSCCL executor runs, as plain data
// (docs/DESIGN.md §3d). One <algo> holds a <gpu> per rank; a GPU holds threadblocks (<tb>), each a
// sequential list of <step>s on one send peer and one receive peer over one channel:
//
//   <algo name nchunksperloop ngpus coll inplace [proto nchannels ...]>
//     <gpu id i_chunks o_chunks s_chunks>
//       <tb id send recv chan>
//         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>
//
// Buffers are counted in chunks: i (input), o (output), s (scratch). A step of type
//   s     sends src                        r     receives into dst
//   rcs   receives into dst and sends it   rrs   receives, adds src, sends the sum (stores nothing)
//   rrc   dst = received ⊕ src             rrcs  dst = received ⊕ src, and sends it
//   re    dst = dst ⊕ src (local)          cpy   dst = src (local)        nop   only waits
// covers cnt chunks from srcoff/dstoff, and waits for step `deps` of threadblock `depid` of its GPU
// (-1: none); `hasdep` says that some step waits for this one (the executor signals only then).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ppsim::msccl {

// A file that is not a valid MSCCL program: "FILE:LINE: message".
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Buffer : int8_t { input, output, scratch };
inline constexpr int kBuffers = 3;

enum class StepType : int8_t { send, recv, recv_copy_send, recv_reduce_send, recv_reduce_copy, recv_reduce_copy_send, reduce, copy, nop };

// What a step type does: whether it takes a message, sends one, combines, reads src, writes dst.
struct StepTraits {
  const char* name;  // as the XML spells it
  bool receives, sends, reduces, reads_src, writes_dst;
};
const StepTraits& step_traits(StepType t);

// The collectives whose result ppsim checks, as msccl-tools names them in `coll`.
enum class Collective : int8_t { allreduce, allgather, reduce_scatter, alltoall };
const char* collective_name(Collective c);

struct Step {
  StepType type = StepType::nop;
  Buffer src_buf = Buffer::input, dst_buf = Buffer::output;
  int64_t src_off = -1, dst_off = -1, count = 1;
  int dep_tb = -1, dep_step = -1;  // -1: no dependency
  bool has_dep = false;
  int line = 0;
};

struct Threadblock {
  int id = 0, send = -1, recv = -1, chan = 0;  // send/recv: peer GPU or -1
  int line = 0;
  std::vector<Step> steps;
};

struct Gpu {
  int id = 0;
  int64_t chunks[kBuffers] = {0, 0, 0};  // i_chunks, o_chunks, s_chunks
  int line = 0;
  std::vector<Threadblock> tbs;
};

struct Program {
  std::string file, name, proto;
  Collective coll = Collective::allreduce;
  bool inplace = false;
  int ngpus = 0, nchannels = 0;
  int64_t chunks_per_loop = 0;
  int line = 0;
  std::vector<Gpu> gpus;  // gpus[i].id == i
  int64_t steps() const;
};

// The collective's shape in chunks (docs/DESIGN.md §3d): chunk_factor cf, the chunks each GPU
// starts with (allreduce, allgather: cf; reduce-scatter, alltoall: ngpus·cf) and the chunks of its
// result (allreduce, reduce-scatter: cf; allgather, alltoall: ngpus·cf).
struct Shape {
  int64_t chunk_factor, input_chunks, output_chunks;
};
Shape collective_shape(const Program& p);

// Reads and checks a file, or text (`name` for messages): every attribute against the declared
// sizes before anything runs. Throws ParseError.
Program read_file(const std::string& path);
Program parse(const std::string& text, const std::string& name);

// "i[3]", "o[0..1]": a step's operand as reports write it.
std::string operand_text(Buffer b, int64_t off, int64_t count = 1);

}  // namespace ppsim::msccl
