// Topology construction, names and metrics (host side).
#include <stdexcept>
#include <string>

#include "ppsim/topology.h"
#include "machine/topologies/routing.h"

namespace ppsim {

namespace {
constexpr int64_t kMaxProcessors = int64_t{1} << 31;

int64_t parse_extent(const std::string& s, const std::string& whole) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10)
    throw std::invalid_argument("--dims '" + whole + "' is not of the form RxC or RxCxD with positive extents");
  int64_t v = std::stoll(s);
  if (v < 1) throw std::invalid_argument("--dims '" + whole + "' has an extent below 1");
  return v;
}
}  // namespace

namespace {

#define PPSIM_TOPOLOGY_TYPE(kind, unit)                                                                                     \
  {TopologyKind::kind, topo::unit::name,       topo::unit::aliases, topo::unit::hint, topo::unit::link_classes, topo::unit::grid, \
   topo::unit::takes_dims, &topo::unit::rejects, &topo::unit::shape},
const TopologyType kTopologyTypes[] = {PPSIM_TOPOLOGIES(PPSIM_TOPOLOGY_TYPE)};
#undef PPSIM_TOPOLOGY_TYPE

// `word` is one of the space-separated words of `words`.
bool among_words(const std::string& word, const char* words) {
  if (word.empty() || word.find(' ') != std::string::npos) return false;
  return (' ' + std::string(words) + ' ').find(' ' + word + ' ') != std::string::npos;
}

}  // namespace

const TopologyType& topology_type(TopologyKind k) { return kTopologyTypes[int(k)]; }

const TopologyType* find_topology_type(const std::string& name) {
  for (const TopologyType& type : kTopologyTypes)
    if (name == type.name || among_words(name, type.aliases)) return &type;
  return nullptr;
}

bool parse_topology_kind(const std::string& name, TopologyKind& out) {
  const TopologyType* type = find_topology_type(name);
  if (type) out = type->kind;
  return type != nullptr;
}

namespace {
// "mesh, torus, fattree and dragonfly": the topologies shaped by --dims.
std::string dims_topologies() {
  std::vector<std::string> names;
  for (const TopologyType& type : kTopologyTypes)
    if (type.takes_dims) names.push_back(type.name);
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

// The extents of --dims into t.dims and t.ndims; for a grid, their product (the processors).
int64_t parse_dims(const std::string& dims, bool grid, Topology& t) {
  t.ndims = 0;
  int64_t prod = 1;
  size_t start = 0;
  while (true) {
    size_t x = dims.find('x', start);
    std::string part = dims.substr(start, x == std::string::npos ? std::string::npos : x - start);
    if (t.ndims == 8) throw std::invalid_argument("--dims '" + dims + "' has more than 8 dimensions");
    t.dims[t.ndims++] = parse_extent(part, dims);
    prod *= t.dims[t.ndims - 1];
    if (grid && prod > kMaxProcessors) throw std::invalid_argument("--dims '" + dims + "' gives more than 2^31 processors");
    if (prod > kMaxProcessors) prod = kMaxProcessors + 1;  // not a grid: the unit counts its processors
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return prod;
}
}  // namespace

Topology make_topology(const TopologyType& type, int64_t p, const std::string& dims) {
  Topology t;
  t.kind = type.kind;
  const bool grid = type.grid, takes_dims = type.takes_dims;
  if (!dims.empty()) {
    if (!takes_dims) throw std::invalid_argument("--dims applies to " + dims_topologies() + ", not " + type.name);
    const int64_t prod = parse_dims(dims, grid, t);
    if (grid) {
      if (p > 0 && p != prod)
        throw std::invalid_argument("--p " + std::to_string(p) + " does not match --dims " + dims + " (" + std::to_string(prod) +
                                    " processors)");
      t.p = prod;
    }
  } else {
    if (p < 1) throw std::invalid_argument("--p must be at least 1 (got " + std::to_string(p) + ")");
    if (p > kMaxProcessors) throw std::invalid_argument("--p " + std::to_string(p) + " exceeds the limit of 2^31 processors");
    t.p = p;
    if (grid) {  // --p alone: a square 2-D grid
      int64_t r = 1;
      while ((r + 1) * (r + 1) <= p) ++r;
      if (r * r != p)
        throw std::invalid_argument(std::string(type.name) + " needs --dims RxC (or a square --p); " + std::to_string(p) +
                                    " is not a square");
      t.ndims = 2;
      t.dims[0] = r;
      t.dims[1] = r;
    } else {
      t.ndims = 1;
      t.dims[0] = p;
    }
  }
  if (takes_dims && !grid) {  // fattree, dragonfly: the unit reads its shape
    const std::string why = type.shape(t, p, !dims.empty());
    if (!why.empty()) throw std::invalid_argument(why);
  }
  if (const char* why = type.rejects(t.p))
    throw std::invalid_argument(std::string(type.name) + " " + why + " (got " + std::to_string(t.p) + ")");
  t.log2p = floor_log2(t.p);
  return t;
}

std::string topology_dims(const Topology& t) {
  std::string s;
  if (!topology_takes_dims(t.kind)) return s;
  for (int k = 0; k < t.ndims; ++k) {
    if (k) s += 'x';
    s += std::to_string(t.dims[k]);
  }
  return s;
}

std::string topology_shape(const Topology& t) {
  std::string s = topology_name(t.kind);
  if (topology_takes_dims(t.kind)) {
    s += ' ';
    s += topology_dims(t);
    if (!topology_is_grid(t.kind)) s += " p=" + std::to_string(t.p);
  } else {
    s += " p=";
    s += std::to_string(t.p);
  }
  return s;
}

TopologyMetrics topology_metrics(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::metrics(t); });
}

int64_t topology_nodes(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::nodes(t); });
}

bool topology_link_endpoints(const Topology& t, int64_t link, int64_t& from, int64_t& to) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_endpoints(t, link, from, to); });
}

int64_t topology_link_between(const Topology& t, int64_t a, int64_t b) {
  if (direct_links(t)) return a != b && a >= 0 && b >= 0 && a < t.p && b < t.p ? a * t.p + b : -1;
  const int64_t n = link_space(t);
  for (int64_t id = 0; id < n; ++id) {
    int64_t from = -1, to = -1;
    if (topology_link_endpoints(t, id, from, to) && from == a && to == b) return id;
  }
  return -1;
}

int64_t topology_link_ids(const Topology& t) { return direct_links(t) ? t.p * t.p : link_space(t); }

int64_t topology_degree(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::degree(t); });
}

LayoutPoint topology_layout(const Topology& t, int64_t v) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::layout(t, v); });
}

int topology_link_class_count(const Topology& t) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_class_count(t); });
}

std::string topology_link_class_name(const Topology& t, int k) {
  return with_topology_unit(t.kind, [&](auto u) { return decltype(u)::link_class_name(t, k); });
}

int topology_link_class(const Topology& t, int64_t link) { return link_class(t, link); }

int topology_find_link_class(const Topology& t, const std::string& name) {
  for (int k = 0; k < topology_link_class_count(t); ++k)
    if (topology_link_class_name(t, k) == name) return k;
  return -1;
}

std::vector<int64_t> topology_route(const Topology& t, int64_t s, int64_t d) {
  std::vector<int64_t> links;
  for_each_route_link(t, s, d, [&](int64_t id) { links.push_back(id); });
  return links;
}

}  // namespace ppsim
