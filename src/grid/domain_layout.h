// How one model rank holds its part of a domain, in the terms of the XIOS
// domain attributes, and the index maps derived from it.
//
// Every domain is a 1-D global index space of ni_glo * nj_glo points: point
// (i, j) has the linear index j * ni_glo + i (1-D domains: nj_glo = 1, the
// index is i). A rank *owns* its local points (a block, or a list of global
// indices in any order) and hands its data in a *data layout* that may add
// halo points or leave points out (compressed data). The maps below say, for
// each local point and each data value, which global point it is.
//
// Errors (sizes, indices out of range, a point referenced twice) throw
// std::invalid_argument with a message for the model developer.
#pragma once

#include <cstdint>
#include <vector>

namespace foehn::grid {

struct DomainLayout {
  std::int64_t ni_glo = 0, nj_glo = 1;
  // Local points: the block i in [ibegin, ibegin+ni) x j in [jbegin,
  // jbegin+nj) (i fastest), or, when by_index, point k is (i_index[k],
  // j_index[k]) (j_index empty: j = 0).
  bool by_index = false;
  std::int64_t ibegin = 0, ni = 0, jbegin = 0, nj = 0;
  std::vector<std::int64_t> i_index, j_index;
  // Data layout. data_dim 0: the data are the local points, in order.
  // data_dim 2 (block domains): a data_ni x data_nj array (i fastest) whose
  // element (a, b) is local point (a + data_ibegin, b + data_jbegin);
  // elements outside the local block are halo and ignored.
  // data_dim 1: a data_ni array whose element a is the local point with
  // flat index a + data_ibegin (i fastest); outside [0, local points): ignored.
  // compressed: the data are data_i_index.size() values; value k is local
  // point data_i_index[k] + data_ibegin (data_dim 1, flat index) or
  // (data_i_index[k] + data_ibegin, data_j_index[k] + data_jbegin) (data_dim 2).
  int data_dim = 0;
  std::int64_t data_ibegin = 0, data_ni = 0, data_jbegin = 0, data_nj = 0;
  bool compressed = false;
  std::vector<std::int64_t> data_i_index, data_j_index;
  // One flag per local point (0: masked, never sent); empty: nothing masked.
  std::vector<std::uint8_t> mask;
};

// The bounding box of a set of points (0-based, global).
struct Extent {
  std::int64_t ibegin = 0, ni = 0, jbegin = 0, nj = 0;
  std::int64_t size() const { return ni * nj; }
};

std::int64_t local_point_count(const DomainLayout& d);
// Values per data array (the domain's share of a field's local size).
std::int64_t data_size(const DomainLayout& d);
// The global index of each local point; checks the local description.
std::vector<std::int64_t> owned_points(const DomainLayout& d);
// The global index of each data value, -1 for halo values, values outside
// the local points and masked points; checks the data layout and the mask.
std::vector<std::int64_t> data_points(const DomainLayout& d, const std::vector<std::int64_t>& owned);
// The bounding box of the given global indices of a domain ni_glo wide
// (empty: all zero). Distinct points fill it exactly when there are
// e.size() of them.
Extent extent_of(const std::vector<std::int64_t>& points, std::int64_t ni_glo);

}  // namespace foehn::grid
