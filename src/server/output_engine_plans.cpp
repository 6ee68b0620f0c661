// Where each writer's points of a variable go (OutputEngine::build_plans,
// build_axis_plans): the points a writer owns, as boxes of the file.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "server/output_engine.h"

namespace foehn::server {

using grid::Box;

namespace {

// Splits a writer's own points (a domain ni_glo wide) into boxes: row
// segments, stacked where the same segment continues on the next row.
std::vector<output::LocalBlock> own_boxes(std::vector<std::int64_t> points, std::int64_t ni_glo) {
  std::sort(points.begin(), points.end());
  std::vector<output::LocalBlock> boxes;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> open;  // (ibegin, ni) -> box ending on the last row
  std::int64_t row = -1;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> next;
  for (std::size_t k = 0; k < points.size();) {
    const std::int64_t j = points[k] / ni_glo, i0 = points[k] % ni_glo;
    std::size_t e = k + 1;
    while (e < points.size() && points[e] == points[e - 1] + 1 && points[e] / ni_glo == j) ++e;
    if (j != row) {
      if (j != row + 1) next.clear();  // a gap of rows ends every box
      open.swap(next);
      next.clear();
      row = j;
    }
    const auto key = std::make_pair(i0, static_cast<std::int64_t>(e - k));
    if (auto it = open.find(key); it != open.end()) {
      ++boxes[it->second].nj;
      next[key] = it->second;
    } else {
      boxes.push_back({i0, key.second, j, 1});
      next[key] = boxes.size() - 1;
    }
    k = e;
  }
  return boxes;
}

}  // namespace

const OutputEngine::WriterPoints& OutputEngine::writer_points(int domain, std::vector<WriterPoints>& found) const {
  WriterPoints& w = found[static_cast<std::size_t>(domain)];
  if (w.found) return w;
  w.found = true;
  const output::DomainInfo& dom = plan_.domains[domain];
  const output::LocalBlock e =
      role_.attached ? dom.clients.at(role_.index) : plan_.server_extent(domain, role_.index, role_.count);
  w.positions = e.ni * e.nj;
  std::vector<std::uint8_t> covered(static_cast<std::size_t>(w.positions), 0);
  w.clients.resize(plan_.client_ranks.size());
  for (std::size_t c = 0; c < w.clients.size(); ++c) {
    if (role_.attached && static_cast<int>(c) != role_.index) continue;  // attached: the only source is this client
    for (const std::int64_t g : plan_.sent_points(domain, static_cast<int>(c))) {
      const std::int64_t i = g % dom.ni_glo - e.ibegin, j = g / dom.ni_glo - e.jbegin;
      if (i < 0 || i >= e.ni || j < 0 || j >= e.nj) continue;
      w.clients[c].push_back(j * e.ni + i);
      covered[static_cast<std::size_t>(j * e.ni + i)] = 1;
    }
  }
  for (std::int64_t p = 0; p < w.positions; ++p)
    if (!covered[static_cast<std::size_t>(p)]) w.uncovered.push_back(p);
  return w;
}

void OutputEngine::build_plans(int var, VarState& s, std::vector<WriterPoints>& found) {
  const int nclients = static_cast<int>(plan_.client_ranks.size());
  s.clients.resize(nclients);
  const auto layout = plan_.layout(plan_.variables[var]);
  if (layout.domain < 0) {
    const auto& v = plan_.variables[var];
    if (!plan_.decomposed_axes(v)) {  // axes only: client 0's whole field, to the writer holding it
      if (s.block.size() > 0) s.clients[0].map = grid::StreamMap({0}, 1, 1, layout.inner);
      s.clients[0].total = s.clients[0].map.size();
      return;
    }
    build_axis_plans(var, s);
    return;
  }
  const WriterPoints& w = writer_points(layout.domain, found);
  const auto& var_info = plan_.variables[var];
  // The block's values around the domain (the whole axes on a server, an
  // attached writer's ranges of decomposed axes).
  std::int64_t outer = 1, inner = 1;
  std::size_t first_domain = var_info.dims.size(), last_domain = 0;
  for (std::size_t k = 0; k < var_info.dims.size(); ++k) {
    if (var_info.dims[k].kind != output::Dim::axis)
      first_domain = std::min(first_domain, k), last_domain = k + 1;
    else
      (first_domain < k ? inner : outer) *= s.block.count[k];
  }
  for (int c = 0; c < nclients; ++c) {
    if (!plan_.decomposed_axes(var_info)) {
      s.clients[c].map = grid::StreamMap(w.clients[c], w.positions, layout.outer, layout.inner);
    } else if (!w.clients[c].empty() && !s.block.empty()) {
      // Decomposed axes: the client sends its parts of the axes around its
      // points; each value's place in the block, listed once here.
      const auto outer_at = plan_.axis_positions(var_info, c, s.block, 0, first_domain);
      const auto inner_at = plan_.axis_positions(var_info, c, s.block, last_domain, var_info.dims.size());
      std::vector<std::int64_t> at;
      at.reserve(outer_at.size() * w.clients[c].size() * inner_at.size());
      for (const std::int64_t o : outer_at)
        for (const std::int64_t q : w.clients[c])
          for (const std::int64_t i : inner_at) at.push_back((o * w.positions + q) * inner + i);
      s.clients[c].map = grid::StreamMap(at, outer * w.positions * inner);
    }
    s.clients[c].total = s.clients[c].map.size();
  }
  s.fill = grid::StreamMap(w.uncovered, w.positions, outer, inner);
  const output::DomainInfo& dom = plan_.domains[layout.domain];
  const std::int64_t npos = w.positions;
  // An attached writer whose points do not fill their bounding box writes
  // them as boxes, leaving the rest of the file to the other writers.
  if (!role_.attached || dom.points.empty()) return;
  const auto& owned = dom.points.at(role_.index).owned;
  if (owned.empty() || static_cast<std::int64_t>(owned.size()) == npos) return;
  const auto& v = plan_.variables[var];
  for (const output::LocalBlock& b : own_boxes(owned, dom.ni_glo)) {
    grid::Box piece = s.block;
    for (std::size_t k = 0; k < v.dims.size(); ++k) {
      if (v.dims[k].kind == output::Dim::domain_j) piece.start[k] = b.jbegin, piece.count[k] = b.nj;
      if (v.dims[k].kind == output::Dim::domain_i) piece.start[k] = b.ibegin, piece.count[k] = b.ni;
    }
    s.piece_runs.push_back(grid::make_runs(s.block, piece));
    s.pieces.push_back(std::move(piece));
  }
}

void OutputEngine::build_axis_plans(int var, VarState& s) {
  // Decomposed axes: each client's values go to their places in the block
  // (server 0 holds the whole variable; an attached client its own box).
  const auto& v = plan_.variables[var];
  if (s.block.empty()) return;
  for (std::size_t c = 0; c < s.clients.size(); ++c) {
    if (role_.attached && static_cast<int>(c) != role_.index) continue;
    s.clients[c].map = grid::StreamMap(plan_.axis_positions(v, static_cast<int>(c), s.block), s.block.size());
    s.clients[c].total = s.clients[c].map.size();
  }
  if (!role_.attached) return;  // every value of the block comes from a client (check_axes_cover)
  std::vector<char> covered(static_cast<std::size_t>(s.block.size()), 0);
  for (const std::int64_t p : plan_.axis_positions(v, role_.index, s.block)) covered[static_cast<std::size_t>(p)] = 1;
  std::vector<std::int64_t> others;  // values of the box that other clients hold: fill in this writer's own file
  for (std::size_t p = 0; p < covered.size(); ++p)
    if (!covered[p]) others.push_back(static_cast<std::int64_t>(p));
  s.fill = grid::StreamMap(others, s.block.size());
  // An attached writer whose parts are not ranges writes its values as the
  // boxes of the runs of its indices on each axis, leaving the others' values.
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> runs(v.dims.size());  // (start, count) per dim
  bool ranges = true;
  for (std::size_t k = 0; k < v.dims.size(); ++k) {
    const output::AxisInfo& a = plan_.axes[v.dims[k].index];
    if (!a.decomposed()) {
      runs[k].push_back({0, a.size()});
      continue;
    }
    std::vector<std::int64_t> part = a.parts.at(role_.index);
    std::sort(part.begin(), part.end());
    for (const std::int64_t g : part)
      if (!runs[k].empty() && runs[k].back().first + runs[k].back().second == g)
        ++runs[k].back().second;
      else
        runs[k].push_back({g, 1});
    ranges = ranges && runs[k].size() == 1;
  }
  if (ranges) return;
  std::vector<std::size_t> at(v.dims.size(), 0);  // the run of each dimension: an odometer
  while (true) {
    grid::Box piece = s.block;
    for (std::size_t k = 0; k < v.dims.size(); ++k)
      piece.start[k] = runs[k][at[k]].first, piece.count[k] = runs[k][at[k]].second;
    s.piece_runs.push_back(grid::make_runs(s.block, piece));
    s.pieces.push_back(std::move(piece));
    std::size_t k = v.dims.size();
    while (k > 0 && ++at[k - 1] == runs[k - 1].size()) at[--k] = 0;
    if (k == 0) break;
  }
}

}  // namespace foehn::server
