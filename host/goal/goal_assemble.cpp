// The dependency rows, block by block, and the schedule put together (goal_reader.h).
#include <algorithm>
#include <vector>

#include "goal/goal_reader.h"

namespace ppsim::goal::detail {

void Reader::settle_block() {
  const Block& b = blocks_.back();
  if (direct_ && b.rank != rank_base_ + blocks_.size() - 1) {  // out of order: the list after all
    direct_ = false;
    std::vector<Edge, HugeAlloc<Edge>> all;
    std::vector<uint32_t> first;  // of the blocks before, in rank order
    for (size_t k = 0; k + 1 < blocks_.size(); ++k) first.push_back(blocks_[k].begin);
    first.push_back(b.begin);
    auto unroll = [&](DepLists& lists, bool start) {
      for (uint32_t r = 0; r + 1 < first.size(); ++r)
        for (uint32_t i = first[r]; i < first[r + 1]; ++i) lists.each(first, r, i, [&](uint32_t j) { all.push_back(Edge{i, j, start}); });
      lists = DepLists();
    };
    unroll(done_, false);
    unroll(start_, true);
    all.insert(all.end(), edges_.begin(), edges_.end());
    edges_.swap(all);
  }
  if (!direct_) return;
  const uint32_t n = b.end - b.begin;
  // Each kind's lists of the block: grouped by the operation waited for, each group in file order.
  size_t starts = 0;
  for (const Edge& e : edges_) starts += e.start;
  auto rows = [&](bool start, DepLists& lists) {
    group_.assign(size_t(n) + 1, 0);
    if ((start ? starts : edges_.size() - starts) == 0) {  // (none of this kind: most blocks have no irequires)
      lists.append_rank(b.begin, n, group_.data(), to_.data());
      return;
    }
    for (const Edge& e : edges_)
      if (e.start == start) ++group_[e.from - b.begin + 1];
    for (uint32_t i = 0; i < n; ++i) group_[i + 1] += group_[i];
    to_.resize(group_[n]);
    for (const Edge& e : edges_)
      if (e.start == start) to_[group_[e.from - b.begin]++] = e.to;
    for (uint32_t i = n; i > 0; --i) group_[i] = group_[i - 1];  // (moved up a group by the fill)
    group_[0] = 0;
    lists.append_rank(b.begin, n, group_.data(), to_.data());
  };
  rows(false, done_);
  rows(true, start_);
  edges_.clear();
}

void Reader::assemble(Schedule& out) {
  const size_t n = store_.size();
  std::vector<uint32_t> first(size_t(ranks_) + 1, 0);
  for (const Block& b : blocks_) first[b.rank + 1] = b.end - b.begin;
  for (size_t r = 0; r < ranks_; ++r) first[r + 1] += first[r];
  bool in_order = true;
  for (size_t k = 0; k < blocks_.size() && in_order; ++k) in_order = blocks_[k].rank == k;
  std::vector<uint32_t> where;  // file index -> final index (empty: the same)
  if (in_order || !keep_labels_) std::swap(out.labels, labels_);
  if (in_order) {
    store_.move_into(out);
    out.lines = std::move(lines_);
  } else {
    where.resize(n);
    for (const Block& b : blocks_)
      for (uint32_t i = b.begin; i < b.end; ++i) where[i] = first[b.rank] + (i - b.begin);
    store_.move_into(out, where);
    if (keep_lines_) out.lines.resize(n);
    std::vector<uint32_t> file_op(n);  // final index -> file index
    for (size_t i = 0; i < n; ++i) {
      if (keep_lines_) out.lines[where[i]] = lines_[i];
      file_op[where[i]] = uint32_t(i);
    }
    if (keep_labels_) {
      std::vector<uint32_t> label_at(n, 0);  // into labels_, in file order
      for (size_t i = 0, at = 0; i < n; ++i) {
        label_at[i] = uint32_t(at);
        at = labels_.find('\0', at) + 1;
      }
      out.labels.reserve(labels_.size());
      for (size_t j = 0; j < n; ++j) {
        out.labels.append(labels_.c_str() + label_at[file_op[j]]);
        out.labels.push_back('\0');
      }
    }
    std::vector<uint32_t>().swap(lines_);
    std::string().swap(labels_);
  }
  auto final_index = [&](uint32_t i) { return where.empty() ? i : where[i]; };
  out.ranks = ranks_;
  out.quick_blocks = quick_blocks_;
  out.cpus = cpus_;
  out.nics = nics_;
  out.first = std::move(first);
  auto rows = [&](bool start, DepLists& lists) {
    std::vector<uint32_t> row, col;
    size_t count = 0;
    for (const Edge& e : edges_) count += e.start == start;
    if (count == 0) return;  // no such dependency: no rows at all
    row.assign(n + 1, 0);
    for (const Edge& e : edges_)
      if (e.start == start) ++row[final_index(e.from) + 1];
    for (size_t i = 0; i < n; ++i) row[i + 1] += row[i];
    col.resize(count);
    std::vector<uint32_t> fill(row.begin(), row.end() - 1);
    for (const Edge& e : edges_)
      if (e.start == start) col[fill[final_index(e.from)]++] = final_index(e.to);
    lists.assign(out.first, std::move(row), std::move(col));
  };
  if (direct_) {  // made block by block (settle_block)
    done_.finish();
    start_.finish();
    out.done = std::move(done_);
    out.start = std::move(start_);
  } else {
    rows(false, out.done);
    rows(true, out.start);
  }
  std::vector<Edge, HugeAlloc<Edge>>().swap(edges_);
}

}  // namespace ppsim::goal::detail
