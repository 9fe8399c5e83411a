// Checking an MSCCL program's result (verify.h) and, for the first wrong chunk, walking back the
// lineage of its value to the step where the data first went wrong.
#include "msccl/verify.h"

#include <algorithm>
#include <set>

#include "rules/verify_rules.h"

namespace ppsim::msccl {

std::vector<uint32_t> expected_contributions(const Program& p, int g, int64_t k) {
  const Shape s = collective_shape(p);
  const int64_t cf = s.chunk_factor, in = s.input_chunks;
  std::vector<uint32_t> e;
  switch (p.coll) {
    case Collective::allreduce:
      for (int64_t r = 0; r < p.ngpus; ++r) e.push_back(uint32_t(r * in + k));
      break;
    case Collective::reduce_scatter:
      for (int64_t r = 0; r < p.ngpus; ++r) e.push_back(uint32_t(r * in + g * cf + k));
      break;
    case Collective::allgather: e.push_back(uint32_t(k / cf * in + k % cf)); break;
    case Collective::alltoall: e.push_back(uint32_t(k / cf * in + g * cf + k % cf)); break;
  }
  return e;
}

namespace {

// Whether word t of a chunk that must hold the contributions `e` is right (rounded operators: within
// the bound, with the distance in ulps from the exactly rounded sum kept in *ulps).
bool word_right(const DataState& d, const std::vector<uint32_t>& e, int64_t t, uint64_t got, double* ulps) {
  const OperatorKind op = d.combine();
  if (!operator_rounded(op) || e.size() == 1) {
    uint64_t want = d.input_word(e[0], t);
    for (size_t i = 1; i < e.size(); ++i) want = combine_dyn(op, want, d.input_word(e[i], t));
    return got == want;
  }
  const bool single = operator_single(op);
  rules::ExactPart part;
  part.clear();
  for (uint32_t c : e) {
    const double x = word_value(single, d.input_word(c, t));
    part.sum.add(x);
    part.add_abs(x < 0 ? -x : x);
  }
  part.sum.settle();
  const rules::FloatRef r = rules::float_ref(op, part);
  *ulps = std::max(*ulps, double(ulp_distance(single, got, r.want)));
  return rules::within_error_bound(op, got, r, int64_t(e.size()));
}

// "chunk 2 of gpus 0, 1, 3" (a gpu counted twice shows twice), or "nothing".
std::string contributions_text(const Program& p, const std::vector<uint32_t>& c) {
  if (c.empty()) return "nothing";
  const int64_t in = collective_shape(p).input_chunks;
  std::string text;
  for (size_t i = 0; i < c.size();) {
    const int64_t j = c[i] % in;
    std::string gpus;
    int n = 0;
    for (size_t k = i; k < c.size(); ++k)
      if (c[k] % in == j) gpus += (n++ ? ", " : "") + std::to_string(c[k] / in);
    text += (text.empty() ? "" : "; ") + ("chunk " + std::to_string(j) + " of gpu" + (n > 1 ? "s " : " ") + gpus);
    while (i < c.size() && c[i] % in == j) ++i;  // contributions are sorted, so one chunk's are adjacent
    if (text.size() > 200) return text + "; ...";
  }
  return text;
}

bool within(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
  return std::adjacent_find(got.begin(), got.end()) == got.end() && std::includes(want.begin(), want.end(), got.begin(), got.end());
}

// Why a value is wrong wherever it stands, or "": a contribution counted twice, a reduction of
// different chunks (or any reduction in a collective that reduces nothing), or a value written into
// a GPU's result that does not belong there.
std::string wrong_value(const DataState& d, const Node& n) {
  const Program& p = d.program();
  if (n.writer.gpu < 0) return "";
  if (std::adjacent_find(n.contrib.begin(), n.contrib.end()) != n.contrib.end())
    return "counts a contribution twice (" + contributions_text(p, n.contrib) + ")";
  const int64_t in = collective_shape(p).input_chunks;
  if (n.reduction && (p.coll == Collective::allgather || p.coll == Collective::alltoall))
    return std::string("reduces in an ") + collective_name(p.coll) + " (" + contributions_text(p, n.contrib) + ")";
  if (n.reduction && n.contrib.front() % in != n.contrib.back() % in)
    return "reduces different chunks together (" + contributions_text(p, n.contrib) + ")";
  const View& o = d.layout(n.gpu).view[int(Buffer::output)];
  const int64_t k = n.chunk - o.offset;
  if (n.storage == o.storage && k >= 0 && k < collective_shape(p).output_chunks && !within(n.contrib, expected_contributions(p, n.gpu, k)))
    return "writes " + contributions_text(p, n.contrib) + " into o[" + std::to_string(k) + "] of gpu " + std::to_string(n.gpu) +
           ", which must hold " + contributions_text(p, expected_contributions(p, n.gpu, k));
  return "";
}

// Every node the value `v` was made from, v included, in the order they were made.
std::vector<uint32_t> lineage(const DataState& d, uint32_t v) {
  std::set<uint32_t> seen{v};
  std::vector<uint32_t> todo{v};
  while (!todo.empty()) {
    const Node& n = d.nodes()[todo.back()];
    todo.pop_back();
    for (uint32_t q : n.parent)
      if (q != kNoNode && seen.insert(q).second) todo.push_back(q);
  }
  return {seen.begin(), seen.end()};
}

// The step where the value of GPU g's output chunk k first went wrong, and why.
Failure blame(const DataState& d, int g, int64_t k) {
  const Program& p = d.program();
  const std::vector<uint32_t> e = expected_contributions(p, g, k);
  const uint32_t v = d.read(g, Buffer::output, k).node;
  const Node& last = d.nodes()[v];
  Failure f{g, k, last.writer, ""};
  const std::string where = "gpu " + std::to_string(g) + " o[" + std::to_string(k) + "] (must hold " + contributions_text(p, e) +
                            ", holds " + contributions_text(p, last.contrib) + "): ";
  const std::vector<uint32_t> line = lineage(d, v);
  for (uint32_t id : line)  // 1. the first value on the way that is wrong wherever it stands
    if (std::string why = wrong_value(d, d.nodes()[id]); !why.empty())
      return {g, k, d.nodes()[id].writer, where + "first wrong at " + step_text(p, d.nodes()[id].writer) + ", which " + why};
  if (v == 0) {  // 2. never written: where its data went instead
    for (uint32_t id = 1; id < d.nodes().size(); ++id)
      if (d.nodes()[id].gpu == g && d.nodes()[id].contrib == e && d.nodes()[id].writer.gpu >= 0)
        return {g, k, d.nodes()[id].writer,
                where + "never written; its data reached it at " + step_text(p, d.nodes()[id].writer) +
                    " and went no further into o[" + std::to_string(k) + "]"};
    return {g, k, StepRef{}, where + "never written, and its data never reaches gpu " + std::to_string(g)};
  }
  std::vector<uint32_t> missing;  // 3. contributions lost: the first write that overwrote one
  std::set_difference(e.begin(), e.end(), last.contrib.begin(), last.contrib.end(), std::back_inserter(missing));
  for (uint32_t id : line) {
    const Node& n = d.nodes()[id];
    if (n.overwritten == kNoNode) continue;
    for (uint32_t c : missing)
      if (std::binary_search(d.nodes()[n.overwritten].contrib.begin(), d.nodes()[n.overwritten].contrib.end(), c) &&
          !std::binary_search(n.contrib.begin(), n.contrib.end(), c))
        return {g, k, n.writer,
                where + "first wrong at " + step_text(p, n.writer) + ", which overwrites " + contributions_text(p, {c}) +
                    " instead of combining with it"};
  }
  f.text = where + "last written by " + step_text(p, last.writer);
  return f;
}

}  // namespace

void verify_result(const DataState& d, Outcome& out) {
  const Program& p = d.program();
  const int64_t chunks = collective_shape(p).output_chunks;
  for (int g = 0; g < p.ngpus; ++g)
    for (int64_t k = 0; k < chunks; ++k) {
      const std::vector<uint32_t> e = expected_contributions(p, g, k);
      const ChunkValue got = d.read(g, Buffer::output, k);
      int64_t wrong = 0;
      for (int64_t t = 0; t < d.chunk_words(); ++t) wrong += word_right(d, e, t, got.words[size_t(t)], &out.max_error_ulps) ? 0 : 1;
      if (wrong == 0) continue;
      out.wrong_words += wrong;
      if (out.wrong_chunks++ == 0) out.first = blame(d, g, k);
    }
  out.verified = out.wrong_words == 0;
}

}  // namespace ppsim::msccl
