#include "grid/domain_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace foehn::grid {

namespace {

[[noreturn]] void bad(const std::string& message) { throw std::invalid_argument(message); }

std::string str(std::int64_t x) { return std::to_string(x); }

}  // namespace

std::int64_t local_point_count(const DomainLayout& d) {
  return d.by_index ? static_cast<std::int64_t>(d.i_index.size()) : d.ni * d.nj;
}

std::int64_t data_size(const DomainLayout& d) {
  if (d.compressed) return static_cast<std::int64_t>(d.data_i_index.size());
  if (d.data_dim == 1) return d.data_ni;
  if (d.data_dim == 2) return d.data_ni * d.data_nj;
  return local_point_count(d);
}

std::vector<std::int64_t> owned_points(const DomainLayout& d) {
  if (d.ni_glo <= 0 || d.nj_glo <= 0)
    bad("the global size " + str(d.ni_glo) + " x " + str(d.nj_glo) + " must be positive");
  std::vector<std::int64_t> owned;
  if (!d.by_index) {
    if (d.ibegin < 0 || d.ni < 0 || d.ibegin + d.ni > d.ni_glo || d.jbegin < 0 || d.nj < 0 ||
        d.jbegin + d.nj > d.nj_glo)
      bad("the local block i " + str(d.ibegin) + "+" + str(d.ni) + ", j " + str(d.jbegin) + "+" + str(d.nj) +
          " lies outside the global " + str(d.ni_glo) + " x " + str(d.nj_glo));
    owned.reserve(static_cast<std::size_t>(d.ni * d.nj));
    for (std::int64_t j = 0; j < d.nj; ++j)
      for (std::int64_t i = 0; i < d.ni; ++i) owned.push_back((d.jbegin + j) * d.ni_glo + d.ibegin + i);
    return owned;
  }
  const auto n = d.i_index.size();
  if (!d.j_index.empty() && d.j_index.size() != n)
    bad("i_index has " + str(static_cast<std::int64_t>(n)) + " values but j_index has " +
        str(static_cast<std::int64_t>(d.j_index.size())));
  owned.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t i = d.i_index[k], j = d.j_index.empty() ? 0 : d.j_index[k];
    if (i < 0 || i >= d.ni_glo || j < 0 || j >= d.nj_glo)
      bad("local point " + str(static_cast<std::int64_t>(k)) + " has the global index (i " + str(i) + ", j " + str(j) +
          ") outside the global " + str(d.ni_glo) + " x " + str(d.nj_glo));
    owned[k] = j * d.ni_glo + i;
  }
  std::vector<std::int64_t> sorted = owned;
  std::sort(sorted.begin(), sorted.end());
  if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end())
    bad("the index list names the global point (i " + str(*dup % d.ni_glo) + ", j " + str(*dup / d.ni_glo) + ") twice");
  return owned;
}

std::vector<std::int64_t> data_points(const DomainLayout& d, const std::vector<std::int64_t>& owned) {
  const auto nlocal = static_cast<std::int64_t>(owned.size());
  if (!d.mask.empty() && static_cast<std::int64_t>(d.mask.size()) != nlocal)
    bad("the mask has " + str(static_cast<std::int64_t>(d.mask.size())) + " values, expected one per local point (" +
        str(nlocal) + ")");
  if (d.data_dim == 2 && d.by_index)
    bad("data_dim 2 needs a block (ibegin/ni/jbegin/nj): an index list is one-dimensional, use data_dim 1");
  if (d.data_dim < 0 || d.data_dim > 2) bad("data_dim must be 1 or 2, not " + str(d.data_dim));
  if (d.compressed && d.data_dim == 0) bad("compressed data need data_dim 1 or 2");
  if (d.data_dim == 2 && d.compressed && d.data_j_index.size() != d.data_i_index.size())
    bad("data_i_index has " + str(static_cast<std::int64_t>(d.data_i_index.size())) + " values but data_j_index has " +
        str(static_cast<std::int64_t>(d.data_j_index.size())));
  if (!d.compressed && (d.data_ni < 0 || d.data_nj < 0)) bad("data_ni and data_nj must not be negative");

  // The local point of data value k, or -1.
  auto local_of = [&](std::int64_t a, std::int64_t b) -> std::int64_t {
    if (d.data_dim == 1) {
      const std::int64_t l = a + d.data_ibegin;
      return l >= 0 && l < nlocal ? l : -1;
    }
    const std::int64_t i = a + d.data_ibegin, j = b + d.data_jbegin;
    return i >= 0 && i < d.ni && j >= 0 && j < d.nj ? j * d.ni + i : -1;
  };
  const std::int64_t n = data_size(d);
  std::vector<std::int64_t> local(static_cast<std::size_t>(n));
  if (d.data_dim == 0) {
    for (std::int64_t k = 0; k < n; ++k) local[static_cast<std::size_t>(k)] = k;
  } else if (d.compressed) {
    for (std::int64_t k = 0; k < n; ++k) {
      const auto u = static_cast<std::size_t>(k);
      local[u] = local_of(d.data_i_index[u], d.data_dim == 2 ? d.data_j_index[u] : 0);
    }
  } else if (d.data_dim == 1) {
    for (std::int64_t a = 0; a < n; ++a) local[static_cast<std::size_t>(a)] = local_of(a, 0);
  } else {
    for (std::int64_t b = 0; b < d.data_nj; ++b)
      for (std::int64_t a = 0; a < d.data_ni; ++a) local[static_cast<std::size_t>(b * d.data_ni + a)] = local_of(a, b);
  }
  // A local point sent twice would be counted twice by the server.
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(nlocal), 0);
  std::vector<std::int64_t> global(static_cast<std::size_t>(n), -1);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t l = local[static_cast<std::size_t>(k)];
    if (l < 0) continue;
    if (seen[static_cast<std::size_t>(l)]++)
      bad("data value " + str(k) + " refers to local point " + str(l) + ", which an earlier data value already holds");
    if (!d.mask.empty() && !d.mask[static_cast<std::size_t>(l)]) continue;
    global[static_cast<std::size_t>(k)] = owned[static_cast<std::size_t>(l)];
  }
  return global;
}

Extent extent_of(const std::vector<std::int64_t>& points, std::int64_t ni_glo) {
  if (points.empty() || ni_glo <= 0) return {};
  std::int64_t i0 = ni_glo, i1 = -1, j0 = -1, j1 = -1;
  for (const std::int64_t g : points) {
    const std::int64_t i = g % ni_glo, j = g / ni_glo;
    i0 = std::min(i0, i);
    i1 = std::max(i1, i);
    j0 = j0 < 0 ? j : std::min(j0, j);
    j1 = std::max(j1, j);
  }
  return {i0, i1 - i0 + 1, j0, j1 - j0 + 1};
}

}  // namespace foehn::grid
