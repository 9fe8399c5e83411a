// Topology construction, names and metrics (host side).
#include <stdexcept>
#include <string>

#include "ppsim/topology.h"
#include "topologies/routing.h"

namespace ppsim {

namespace {
struct NameEntry { const char* name; TopologyKind kind; };
constexpr NameEntry kNames[] = {
    {"linear", TopologyKind::linear}, {"ring", TopologyKind::ring},
    {"mesh", TopologyKind::mesh},     {"torus", TopologyKind::torus},
    {"hypercube", TopologyKind::hypercube}, {"full", TopologyKind::full},
    {"star", TopologyKind::star},     {"tree", TopologyKind::tree},
    {"bintree", TopologyKind::bintree}, {"binomial", TopologyKind::binomial},
    // aliases
    {"fully-connected", TopologyKind::full}, {"completely-connected", TopologyKind::full},
    {"array", TopologyKind::linear}, {"binary-tree", TopologyKind::tree},
    {"complete-binary-tree", TopologyKind::bintree}, {"binomial-tree", TopologyKind::binomial},
};
constexpr int64_t kMaxProcessors = int64_t{1} << 31;

int64_t parse_extent(const std::string& s, const std::string& whole) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10)
    throw std::invalid_argument("--dims '" + whole + "' is not of the form RxC or RxCxD with positive extents");
  int64_t v = std::stoll(s);
  if (v < 1) throw std::invalid_argument("--dims '" + whole + "' has an extent below 1");
  return v;
}
}  // namespace

const char* topology_name(TopologyKind k) {
  for (const auto& e : kNames) if (e.kind == k) return e.name;
  return "?";
}

bool parse_topology_kind(const std::string& name, TopologyKind& out) {
  for (const auto& e : kNames) if (name == e.name) { out = e.kind; return true; }
  return false;
}

Topology make_topology(TopologyKind kind, int64_t p, const std::string& dims) {
  Topology t;
  t.kind = kind;
  bool grid = kind == TopologyKind::mesh || kind == TopologyKind::torus;
  if (!dims.empty()) {
    if (!grid) throw std::invalid_argument(std::string("--dims applies to mesh and torus, not ") + topology_name(kind));
    t.ndims = 0;
    int64_t prod = 1;
    size_t start = 0;
    while (true) {
      size_t x = dims.find('x', start);
      std::string part = dims.substr(start, x == std::string::npos ? std::string::npos : x - start);
      if (t.ndims == 8) throw std::invalid_argument("--dims '" + dims + "' has more than 8 dimensions");
      t.dims[t.ndims++] = parse_extent(part, dims);
      prod *= t.dims[t.ndims - 1];
      if (prod > kMaxProcessors) throw std::invalid_argument("--dims '" + dims + "' gives more than 2^31 processors");
      if (x == std::string::npos) break;
      start = x + 1;
    }
    if (p > 0 && p != prod)
      throw std::invalid_argument("--p " + std::to_string(p) + " does not match --dims " + dims + " (" + std::to_string(prod) + " processors)");
    t.p = prod;
  } else {
    if (p < 1) throw std::invalid_argument("--p must be at least 1 (got " + std::to_string(p) + ")");
    if (p > kMaxProcessors) throw std::invalid_argument("--p " + std::to_string(p) + " exceeds the limit of 2^31 processors");
    t.p = p;
    if (grid) {  // --p alone: a square 2-D grid
      int64_t r = 1;
      while ((r + 1) * (r + 1) <= p) ++r;
      if (r * r != p)
        throw std::invalid_argument(std::string(topology_name(kind)) + " needs --dims RxC (or a square --p); " + std::to_string(p) + " is not a square");
      t.ndims = 2; t.dims[0] = r; t.dims[1] = r;
    } else {
      t.ndims = 1; t.dims[0] = p;
    }
  }
  if ((kind == TopologyKind::hypercube || kind == TopologyKind::tree || kind == TopologyKind::binomial) && !is_pow2(t.p))
    throw std::invalid_argument(std::string(topology_name(kind)) + " needs p to be a power of two (got " + std::to_string(t.p) + ")");
  if (kind == TopologyKind::bintree && !is_pow2(t.p + 1))
    throw std::invalid_argument("bintree (a complete binary tree) needs p = 2^d - 1: 1, 3, 7, 15, ... (got " + std::to_string(t.p) + ")");
  t.log2p = floor_log2(t.p);
  return t;
}

std::string topology_dims(const Topology& t) {
  std::string s;
  if (t.kind != TopologyKind::mesh && t.kind != TopologyKind::torus) return s;
  for (int k = 0; k < t.ndims; ++k) {
    if (k) s += 'x';
    s += std::to_string(t.dims[k]);
  }
  return s;
}

std::string topology_shape(const Topology& t) {
  std::string s = topology_name(t.kind);
  if (t.kind == TopologyKind::mesh || t.kind == TopologyKind::torus) {
    s += ' ';
    s += topology_dims(t);
  } else {
    s += " p=";
    s += std::to_string(t.p);
  }
  return s;
}

TopologyMetrics topology_metrics(const Topology& t) {
  switch (t.kind) {
    case TopologyKind::linear: return topo_linear::metrics(t);
    case TopologyKind::ring: return topo_ring::metrics(t);
    case TopologyKind::mesh: case TopologyKind::torus: return topo_mesh::metrics(t);
    case TopologyKind::hypercube: return topo_hypercube::metrics(t);
    case TopologyKind::full: return topo_full::metrics(t);
    case TopologyKind::star: return topo_star::metrics(t);
    case TopologyKind::tree: return topo_tree::metrics(t);
    case TopologyKind::bintree: return topo_bintree::metrics(t);
    case TopologyKind::binomial: return topo_binomial::metrics(t);
  }
  return {};
}

int64_t topology_nodes(const Topology& t) { return t.kind == TopologyKind::tree ? 2 * t.p - 1 : t.p; }

bool topology_link_endpoints(const Topology& t, int64_t link, int64_t& from, int64_t& to) {
  switch (t.kind) {
    case TopologyKind::linear: return topo_linear::link_endpoints(t, link, from, to);
    case TopologyKind::ring: return topo_ring::link_endpoints(t, link, from, to);
    case TopologyKind::mesh: case TopologyKind::torus: return topo_mesh::link_endpoints(t, link, from, to);
    case TopologyKind::hypercube: return topo_hypercube::link_endpoints(t, link, from, to);
    case TopologyKind::full: return topo_full::link_endpoints(t, link, from, to);
    case TopologyKind::star: return topo_star::link_endpoints(t, link, from, to);
    case TopologyKind::tree: return topo_tree::link_endpoints(t, link, from, to);
    case TopologyKind::bintree: return topo_bintree::link_endpoints(t, link, from, to);
    case TopologyKind::binomial: return topo_binomial::link_endpoints(t, link, from, to);
  }
  return false;
}

}  // namespace ppsim
