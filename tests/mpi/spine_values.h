// The analytic values and the uneven decompositions the spine tests use;
// tests/python/spine_reference.py computes the same values independently.
#pragma once

namespace spine {

// float-exact: integers and quarters well below 2^24.
inline float t_value(int step, int i, int j, int k) { return 1000.0f * step + 100.0f * k + j + 0.25f * i; }
inline double ps_value(int step, int i, int j) { return 1.0e5 + step + i * 1e-3 + j * 1e-6; }
inline double lon_value(int i, int ni_glo) { return -180.0 + 360.0 * (i + 0.5) / ni_glo; }
inline double lat_value(int j, int nj_glo) { return -90.0 + 180.0 * (j + 0.5) / nj_glo; }

struct Block {
  int ibegin, ni, jbegin, nj;
};

// 1 rank: everything. 2 ranks: a column split (left 5/8, right 3/8), so
// packing is by row pieces. 3 ranks: rank 0 takes the top third of rows,
// ranks 1 and 2 split the rest by columns unevenly.
inline Block block_of(int rank, int size, int ni, int nj) {
  if (size == 1) return {0, ni, 0, nj};
  if (size == 2) {
    const int left = (5 * ni) / 8;
    return rank == 0 ? Block{0, left, 0, nj} : Block{left, ni - left, 0, nj};
  }
  const int top = nj / 3, left = ni / 3;
  if (rank >= 3) return {0, 0, 0, 0};  // more ranks hold nothing
  if (rank == 0) return {0, ni, 0, top};
  if (rank == 1) return {0, left, top, nj - top};
  return {left, ni - left, top, nj - top};
}

}  // namespace spine
