// Running an algorithm written for one (logical) topology on another (physical) one, textbook §2.7:
// logical processor i runs on physical node map(i); messages follow the physical routes.
//
//   identity  map(i) = i
//   gray      ring / linear array of 2^d -> hypercube: i -> G(i), the binary reflected Gray code;
//             2^r x 2^s mesh or torus -> hypercube: (i, j) -> G(i) || G(j);
//             hypercube -> ring / linear array / mesh / torus: the inverse (position G^-1(x), or
//             row G^-1(high half), column G^-1(low half))
//   snake     linear array / ring -> R x C mesh or torus: row r left to right when r is even,
//             right to left when odd (Fig. 2-32a)
#pragma once
#include <string>

#include "ppsim/hd.h"
#include "ppsim/topology.h"

namespace ppsim {

enum class MapKind : int8_t { identity, gray, snake };

struct Mapping {
  MapKind kind = MapKind::identity;
  Topology logical, physical;
};

PPSIM_HD inline int64_t gray_code(int64_t i) { return i ^ (i >> 1); }
PPSIM_HD inline int64_t gray_inverse(int64_t g) {
  int64_t i = 0;
  for (; g != 0; g >>= 1) i ^= g;
  return i;
}

PPSIM_HD inline bool is_grid(TopologyKind k) { return k == TopologyKind::mesh || k == TopologyKind::torus; }
PPSIM_HD inline bool is_line(TopologyKind k) { return k == TopologyKind::linear || k == TopologyKind::ring; }

// The physical node logical processor i runs on under a mapping other than the identity.
PPSIM_HD PPSIM_DEVICE_OUTLINED int64_t map_node_moved(const Mapping& m, int64_t i) {
  const Topology &L = m.logical, &P = m.physical;
  if (m.kind == MapKind::snake) {
    const int64_t C = P.dims[P.ndims - 1], row = i / C, k = i % C;
    return row * C + (row % 2 == 0 ? k : C - 1 - k);
  }
  // gray
  if (P.kind == TopologyKind::hypercube) {
    if (is_line(L.kind)) return gray_code(i);
    int64_t code = 0;  // grid -> hypercube: concatenate the Gray codes of the coordinates
    for (int k = 0; k < L.ndims; ++k) {
      int64_t stride = 1;
      for (int j = L.ndims - 1; j > k; --j) stride *= L.dims[j];
      code = code * L.dims[k] + gray_code((i / stride) % L.dims[k]);
    }
    return code;
  }
  if (is_line(P.kind)) return gray_inverse(i);  // hypercube -> line
  int64_t node = 0;                             // hypercube -> grid: each coordinate is G^-1 of its bits
  int64_t rest = i;
  int64_t stride = 1;
  for (int k = P.ndims - 1; k >= 0; --k) {
    node += gray_inverse(rest % P.dims[k]) * stride;
    rest /= P.dims[k];
    stride *= P.dims[k];
  }
  return node;
}

// The physical node logical processor i runs on.
PPSIM_HD inline int64_t map_node(const Mapping& m, int64_t i) { return m.kind == MapKind::identity ? i : map_node_moved(m, i); }

const char* map_kind_name(MapKind k);
bool parse_map_kind(const std::string& name, MapKind& out);
// Why this mapping cannot be built, or "".
std::string mapping_rejects(const Mapping& m);

// Dilation (longest physical route of a logical link), congestion (most logical links routed over
// one physical directed link) and expansion (physical nodes / logical nodes). Computed over every
// logical link when there are at most 2^22 of them; otherwise `computed` is false.
struct MappingMetrics {
  bool computed = false;
  int64_t dilation = 0, congestion = 0;
  double expansion = 1;
};
MappingMetrics mapping_metrics(const Mapping& m);

}  // namespace ppsim
