#include "transform/interp/interpolate_domain.h"

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "transform/interp/mpi_exchange.h"
#include "transform/interp/source_geometry.h"
#include "transform/remap/conservative.h"
#include "transform/remap/nearest.h"
#include "transform/remap/weight_files.h"

namespace foehn::transform::interp {

namespace {

[[noreturn]] void bad(const config::TransformationDef& t, const std::string& message) {
  throw config::ConfigError(t.where, "<" + t.kind + "> in <" + t.target + ">: " + message);
}

bool flag(const config::TransformationDef& t, std::string_view name) {
  const std::string* v = t.attr(name);
  return v && *v == "true";
}

std::string text_or(const config::TransformationDef& t, std::string_view name, const std::string& fallback) {
  const std::string* v = t.attr(name);
  return v ? *v : fallback;
}

// This rank's block of target points: whole rows of a 2-D target.
std::pair<std::int64_t, std::int64_t> target_block(const TargetShape& s, int rank, int size) {
  const std::int64_t units = s.nj_glo > 1 ? s.nj_glo : s.ni_glo, per = s.nj_glo > 1 ? s.ni_glo : 1;
  return {units * rank / size * per, units * (rank + 1) / size * per};
}

// Rows [first, last) of weights over all targets.
remap::RemapWeights rows_of(const remap::RemapWeights& all, std::int64_t first, std::int64_t last) {
  remap::RemapWeights w;
  w.n_src = all.n_src;
  w.n_dst = last - first;
  const std::int64_t b = all.row_start[static_cast<std::size_t>(first)];
  const std::int64_t e = all.row_start[static_cast<std::size_t>(last)];
  for (std::int64_t r = first; r < last; ++r) w.row_start.push_back(all.row_start[static_cast<std::size_t>(r + 1)] - b);
  w.src.assign(all.src.begin() + b, all.src.begin() + e);
  w.weight.assign(all.weight.begin() + b, all.weight.begin() + e);
  return w;
}

// Every rank's rows on rank 0, written there in XIOS's layout.
void write_weights(const config::TransformationDef& t, const remap::RemapWeights& mine, std::int64_t n_dst,
                   MPI_Comm comm, const std::string& path, bool one_based) {
  int rank = 0, size = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank), MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> rows;  // terms per row
  for (std::size_t r = 0; r + 1 < mine.row_start.size(); ++r) rows.push_back(mine.row_start[r + 1] - mine.row_start[r]);
  std::vector<int> src(mine.src.begin(), mine.src.end());
  auto gather = [&](auto& values, MPI_Datatype type) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    if (comm == MPI_COMM_NULL) return values;
    int count = static_cast<int>(values.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    int total = 0;
    for (int q = 0; q < size; ++q)
      displs[static_cast<std::size_t>(q)] = total, total += counts[static_cast<std::size_t>(q)];
    std::vector<T> out(static_cast<std::size_t>(rank == 0 ? total : 0));
    MPI_Gatherv(values.data(), count, type, out.data(), counts.data(), displs.data(), type, 0, comm);
    return out;
  };
  const auto all_rows = gather(rows, MPI_INT64_T);
  const auto all_src = gather(src, MPI_INT);
  const auto all_weight = gather(mine.weight, MPI_DOUBLE);
  int failed = 0;
  std::string message;
  if (rank == 0) {
    remap::RemapWeights w;
    w.n_src = mine.n_src;
    w.n_dst = n_dst;
    for (std::int64_t terms : all_rows) w.row_start.push_back(w.row_start.back() + terms);
    w.src.assign(all_src.begin(), all_src.end());
    w.weight = all_weight;
    try {
      remap::write_xios_weights(path, w, one_based);
    } catch (const remap::RemapError& e) {
      failed = 1;
      message = e.what();
    }
  }
  if (comm != MPI_COMM_NULL) MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) bad(t, "cannot write the weights to '" + path + "'" + (message.empty() ? "" : ": " + message));
}

}  // namespace

Step build_interpolation(const config::TransformationDef& t, const config::DomainDef& target, const Component& source,
                         MPI_Comm comm) {
  if (source.kind != Component::Kind::domain) bad(t, "its source at this position of the grid is not a domain");
  int rank = 0, size = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank), MPI_Comm_size(comm, &size);
  const TargetGeometry dst = target_geometry(t, target);
  const SourceGeometry src = gather_source(t, source, comm);
  const auto [first, last] = target_block(dst.shape, rank, size);
  const std::int64_t n_src = source.size(), n_dst = dst.shape.ni_glo * dst.shape.nj_glo;

  const bool nearest = text_or(t, "method", "conservative") == "nearest";
  const int order = std::stoi(text_or(t, "order", "2"));  // XIOS's default order is 2
  const bool renormalize = flag(t, "renormalize");
  const std::string mode = text_or(t, "mode", "compute");
  const std::string path = text_or(t, "weight_filename", "");
  const bool one_based = text_or(t, "read_write_convention", "fortran") == "fortran";
  const bool read = mode == "read" || (mode == "read_or_compute" && std::filesystem::exists(path));

  const auto nv = static_cast<std::size_t>(dst.nvertex);
  remap::CellPolygons mine;  // this rank's target cells
  for (std::int64_t g = first; g < last; ++g) {
    const auto at = static_cast<std::size_t>(g) * nv;
    mine.add_cell(std::span(dst.bounds_lon).subspan(at, nv), std::span(dst.bounds_lat).subspan(at, nv));
  }
  remap::RemapWeights w;  // rows: this rank's targets; src: global source indices
  if (read) {
    remap::RemapWeights all;
    try {
      all = remap::read_weights(path);
    } catch (const remap::RemapError& e) { bad(t, e.what()); }
    if (all.n_src != n_src || all.n_dst != n_dst)
      bad(t, "the weight file '" + path + "' maps " + std::to_string(all.n_src) + " source points to " +
                 std::to_string(all.n_dst) + " targets; the domains have " + std::to_string(n_src) + " and " +
                 std::to_string(n_dst));
    w = rows_of(all, first, last);
  } else {
    try {
      if (nearest) {
        const auto b = static_cast<std::ptrdiff_t>(first), e = static_cast<std::ptrdiff_t>(last);
        const std::vector<double> lon(dst.lon.begin() + b, dst.lon.begin() + e);
        const std::vector<double> lat(dst.lat.begin() + b, dst.lat.begin() + e);
        w = remap::nearest_weights(src.lon, src.lat, src.cells.mask, lon, lat, {});
      } else {
        remap::ConservativeOptions options;
        options.order = order;
        options.renormalize = renormalize;
        options.quantity = flag(t, "quantity");
        w = remap::conservative_weights(src.cells, mine, options).weights;
      }
    } catch (const remap::RemapError& e) { bad(t, e.what()); }
    if (flag(t, "write_weight")) write_weights(t, w, n_dst, comm, path, one_based);
  }

  // The source points the rows need, by holding rank then global index;
  // terms on masked sources (a weight file's) are dropped.
  std::vector<std::int64_t> needed;
  for (std::size_t e = 0; e < w.src.size(); ++e)
    if (src.owner_position[static_cast<std::size_t>(w.src[e])] >= 0) needed.push_back(w.src[e]);
  std::sort(needed.begin(), needed.end(), [&](std::int64_t a, std::int64_t b) {
    const int ra = src.owner_rank[static_cast<std::size_t>(a)], rb = src.owner_rank[static_cast<std::size_t>(b)];
    return ra != rb ? ra < rb : a < b;
  });
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  std::vector<std::int32_t> slot(static_cast<std::size_t>(n_src), -1);
  for (std::size_t m = 0; m < needed.size(); ++m)
    slot[static_cast<std::size_t>(needed[m])] = static_cast<std::int32_t>(m);
  auto stage = std::make_shared<RemapStage>();
  remap::RemapWeights& rows = stage->weights;
  rows.n_src = static_cast<std::int64_t>(needed.size());
  rows.n_dst = w.n_dst;
  for (std::int64_t r = 0; r < w.n_dst; ++r) {
    for (std::int64_t e = w.row_start[static_cast<std::size_t>(r)]; e < w.row_start[static_cast<std::size_t>(r + 1)];
         ++e) {
      const std::int32_t m = slot[static_cast<std::size_t>(w.src[static_cast<std::size_t>(e)])];
      if (m < 0) continue;
      rows.src.push_back(m);
      rows.weight.push_back(w.weight[static_cast<std::size_t>(e)]);
    }
    rows.row_start.push_back(static_cast<std::int64_t>(rows.src.size()));
  }
  stage->n_gathered = rows.n_src;
  stage->skip_missing = flag(t, "detect_missing_value");
  stage->renormalize = renormalize;

  // Who sends what: this rank asks each holder for its points (global
  // indices), and answers with the data positions of what others ask.
  std::vector<std::int64_t> need_count(static_cast<std::size_t>(size), 0),
      give_count(static_cast<std::size_t>(size), 0);
  for (std::int64_t g : needed) ++need_count[static_cast<std::size_t>(src.owner_rank[static_cast<std::size_t>(g)])];
  std::vector<std::int64_t> asked = needed;  // what others need of this rank, peer after peer
  if (comm != MPI_COMM_NULL && size > 1) {
    MPI_Alltoall(need_count.data(), 1, MPI_INT64_T, give_count.data(), 1, MPI_INT64_T, comm);
    std::vector<int> sc(static_cast<std::size_t>(size)), sd(sc.size()), rc(sc.size()), rd(sc.size());
    int at_s = 0, at_r = 0;
    for (std::size_t q = 0; q < sc.size(); ++q) {
      sc[q] = static_cast<int>(need_count[q]), sd[q] = at_s, at_s += sc[q];
      rc[q] = static_cast<int>(give_count[q]), rd[q] = at_r, at_r += rc[q];
    }
    asked.assign(static_cast<std::size_t>(at_r), 0);
    MPI_Alltoallv(needed.data(), sc.data(), sd.data(), MPI_INT64_T, asked.data(), rc.data(), rd.data(), MPI_INT64_T,
                  comm);
    stage->exchange = std::make_shared<MpiExchange>(comm, give_count, need_count);
  }
  for (std::int64_t g : asked) {
    const auto k = static_cast<std::size_t>(g);
    if (src.owner_rank[k] != rank)
      bad(t, "internal: rank " + std::to_string(rank) + " asked for point " + std::to_string(g) + " held by rank " +
                 std::to_string(src.owner_rank[k]));
    stage->send_positions.push_back(src.owner_position[k]);
  }

  Step s;
  Component& c = s.target;
  c.kind = Component::Kind::domain;
  c.type = dst.shape.type;
  c.ni_glo = dst.shape.ni_glo;
  c.nj_glo = dst.shape.nj_glo;
  c.healpix_level = dst.shape.healpix_level;
  c.healpix_nested = dst.shape.healpix_nested;
  const bool healpix = c.type == "healpix";
  c.nvertex = healpix ? 4 : 2;  // rectilinear: (west, east) and (south, north) of each point
  for (std::int64_t g = first; g < last; ++g) {
    const auto k = static_cast<std::size_t>(g);
    c.owned.push_back(g);
    c.data_owner.push_back(g - first);
    c.lon.push_back(dst.lon[k]);
    c.lat.push_back(dst.lat[k]);
    const double* bl = dst.bounds_lon.data() + k * nv;
    const double* bb = dst.bounds_lat.data() + k * nv;
    if (healpix) {  // the 4 corners as they are
      c.bounds_lon.insert(c.bounds_lon.end(), bl, bl + 4);
      c.bounds_lat.insert(c.bounds_lat.end(), bb, bb + 4);
    } else {
      c.bounds_lon.insert(c.bounds_lon.end(), {bl[0], bl[1]});  // corners from the south-west, counterclockwise
      c.bounds_lat.insert(c.bounds_lat.end(), {bb[0], bb[2]});
    }
  }
  c.area = mine.area;  // on the unit sphere, for area-weighted reductions after it
  s.map.op = Operation::remap;
  s.map.n_source = source.data_size();
  s.map.n_target = c.data_size();
  s.map.remap = std::move(stage);
  const std::string how = nearest ? "nearest" : "conservative order " + std::to_string(order);
  s.text = t.kind + " " + std::to_string(source.ni_glo) +
           (source.nj_glo > 1 ? "x" + std::to_string(source.nj_glo) : "") + " -> " + std::to_string(c.ni_glo) +
           (healpix ? " healpix cells" : "x" + std::to_string(c.nj_glo)) + " (" + how +
           (read ? ", weights read" : "") + ")";
  return s;
}

}  // namespace foehn::transform::interp
