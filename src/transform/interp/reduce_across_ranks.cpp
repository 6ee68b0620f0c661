#include "transform/interp/reduce_across_ranks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "transform/interp/mpi_exchange.h"

namespace foehn::transform::interp {

bool across_ranks(const config::TransformationDef& t) {
  return t.kind == "reduce_scalar" || (t.kind == "reduce_axis" && t.target == "axis");
}

namespace {

[[noreturn]] void bad(const config::TransformationDef& t, const std::string& field, const std::string& message) {
  throw config::ConfigError(t.where, "<" + t.kind + "> in <" + t.target + ">, field '" + field + "': " + message);
}

// The target a rank makes when it owns none of the targets: an empty part
// of the reduced axis, or (a scalar, not rank 0) a value nobody sends.
Step empty_target(const config::TransformationDef& t, const Component& src, const ReductionTargets& r) {
  Step s;
  s.map.op = parse_operation(*t.attr("operation"));
  s.map.start.push_back(0);
  Component& c = s.target;
  if (r.to_scalar) {
    c.kind = Component::Kind::scalar;
    c.owned = {0};
    c.data_owner = {0};
    c.lon = {std::nan("")};
    c.lat = {0.0};
    c.decomposed = false;
    s.map.start.push_back(0);  // no source: NaN
  } else {
    const std::string* dir = t.attr("direction");
    const bool along_j = !dir || *dir == "jDir";
    c.kind = Component::Kind::axis;
    c.ni_glo = r.n_target;
    c.decomposed = true;
    c.axis_type = along_j ? "Y" : "X";
    c.units = along_j ? "degrees_north" : "degrees_east";
  }
  s.map.n_target = c.data_size();
  s.text = t.kind;
  (void)src;
  return s;
}

std::vector<std::int64_t> counts_from_peers(const std::vector<std::int64_t>& to_peer, MPI_Comm comm) {
  std::vector<std::int64_t> from_peer(to_peer.size());
  MPI_Alltoall(to_peer.data(), 1, MPI_INT64_T, from_peer.data(), 1, MPI_INT64_T, comm);
  return from_peer;
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t q = 1; q < counts.size(); ++q) d[q] = d[q - 1] + counts[q - 1];
  return d;
}

std::vector<int> scaled(const std::vector<std::int64_t>& counts, int by) {
  std::vector<int> out(counts.size());
  for (std::size_t q = 0; q < counts.size(); ++q) out[q] = static_cast<int>(counts[q] * by);
  return out;
}

// reduce_scalar, and reduce_axis into an axis (XIOS's reduce_axis_to_axis):
// each point combines the values every model rank holds of it, in rank
// order, on rank 0 (which sends scalars and whole axes to the servers);
// the other ranks' results are not sent (NaN).
Step reduce_over_ranks(const config::TransformationDef& t, const Component& src, const OtherComponents& others,
                       MPI_Comm comm, int rank, int size, const std::string& field) {
  if (src.decomposed)
    bad(t, field,
        "combines the values each model rank holds of a whole axis or scalar; the source axis is decomposed among "
        "the model ranks");
  if (!others.same_on_every_rank || others.has_domain)
    bad(t, field,
        "combining across model ranks needs the grid's other components to hold the same points on every rank "
        "(no domain)");
  Step s = build_step(t, src);  // this rank's own: the target's geometry
  const std::size_t n = src.data_size();
  auto stage = std::make_shared<GatherStage>();
  std::vector<std::int64_t> out(static_cast<std::size_t>(size), 0), in(static_cast<std::size_t>(size), 0);
  for (std::size_t p = 0; p < n; ++p) stage->send_positions.push_back(static_cast<std::int64_t>(p));
  out[0] = static_cast<std::int64_t>(n);
  if (rank == 0) std::fill(in.begin(), in.end(), static_cast<std::int64_t>(n));
  stage->n_gathered = rank == 0 ? static_cast<std::int64_t>(n) * size : 0;
  stage->exchange = std::make_shared<MpiExchange>(comm, out, in);
  // Target k of the local step takes source positions start[k]..: one
  // each; here it takes that position's value from every rank in turn.
  Transform& m = s.map;
  std::vector<std::int64_t> start{0}, source;
  for (std::size_t k = 0; k + 1 < m.start.size(); ++k) {
    const std::int64_t p = m.source[static_cast<std::size_t>(m.start[k])];
    if (rank == 0 && p >= 0)
      for (int q = 0; q < size; ++q) source.push_back(static_cast<std::int64_t>(q) * static_cast<std::int64_t>(n) + p);
    start.push_back(static_cast<std::int64_t>(source.size()));
  }
  m.start = std::move(start);
  m.source = std::move(source);
  m.gather_first = std::move(stage);
  s.text += " (across model ranks)";
  return s;
}

}  // namespace

Step build_reduction(const config::TransformationDef& t, const Component& src, const OtherComponents& others,
                     MPI_Comm comm, const std::string& field) {
  const std::optional<ReductionTargets> r = reduction_targets(t, src);
  int size = 1, rank = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
  }
  if (across_ranks(t) && size > 1 && t.attr("operation"))
    return reduce_over_ranks(t, src, others, comm, rank, size, field);
  // Not a reduction, one rank, a bad attribute (refused alike on every
  // rank), or a whole axis on every rank: this rank's own step.
  const bool has_operation = t.attr("operation") || t.kind == "coarsen_healpix";  // a pyramid level averages
  if (!r || size == 1 || !has_operation || (t.kind == "reduce_axis" && !src.decomposed))
    return build_step(t, src);
  const auto n_target = static_cast<std::size_t>(r->n_target);
  std::vector<std::int64_t> count(n_target, 0), lowest(n_target, std::numeric_limits<std::int64_t>::max());
  for (std::int64_t g : src.owned) {
    const auto k = static_cast<std::size_t>(r->target_of(g));
    ++count[k];
    lowest[k] = std::min(lowest[k], g);
  }
  int split = 0;
  for (std::size_t k = 0; k < n_target; ++k) split |= count[k] > 0 && count[k] < r->group_size;
  if (r->to_scalar) split |= count[0] < r->group_size;
  MPI_Allreduce(MPI_IN_PLACE, &split, 1, MPI_INT, MPI_MAX, comm);
  if (!split) return build_step(t, src);
  if (!others.same_on_every_rank)
    bad(t, field, "its targets combine points of several model ranks, and the grid's other components differ between "
           "those ranks; combining across ranks needs the same points of the other components on every rank");
  if (r->to_scalar && others.has_domain)
    bad(t, field, "a scalar combining points of several model ranks in a grid that also has a domain is not supported "
           "yet");

  // The owner of each target: the rank holding its lowest global index.
  std::vector<std::int64_t> global_lowest(lowest);
  MPI_Allreduce(MPI_IN_PLACE, global_lowest.data(), static_cast<int>(n_target), MPI_INT64_T, MPI_MIN, comm);
  std::vector<int> owner(n_target, -1);
  for (std::size_t k = 0; k < n_target; ++k)
    if (count[k] > 0 && lowest[k] == global_lowest[k]) owner[k] = rank;
  MPI_Allreduce(MPI_IN_PLACE, owner.data(), static_cast<int>(n_target), MPI_INT, MPI_MAX, comm);
  if (r->to_scalar) owner[0] = 0;

  // Every owned point goes to its target's owner (masked ones as -(g + 1):
  // they count towards the target but carry no value), in increasing
  // global index, with its coordinates and area.
  std::vector<std::int64_t> data_of(src.owned.size(), -1);
  for (std::size_t p = 0; p < src.data_owner.size(); ++p)
    if (src.data_owner[p] >= 0) data_of[static_cast<std::size_t>(src.data_owner[p])] = static_cast<std::int64_t>(p);
  std::vector<std::size_t> order(src.owned.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return src.owned[a] < src.owned[b]; });
  std::vector<std::vector<std::size_t>> to(static_cast<std::size_t>(size));
  for (std::size_t p : order) to[static_cast<std::size_t>(owner[static_cast<std::size_t>(r->target_of(src.owned[p]))])].push_back(p);
  const bool with_area = !src.area.empty();
  std::vector<std::int64_t> index, points(size), values(size);
  std::vector<double> coords;  // lon, lat, area per point
  auto stage = std::make_shared<GatherStage>();
  for (int q = 0; q < size; ++q) {
    for (std::size_t p : to[static_cast<std::size_t>(q)]) {
      const bool has_data = data_of[p] >= 0;
      index.push_back(has_data ? src.owned[p] : -(src.owned[p] + 1));
      coords.insert(coords.end(), {src.lon.empty() ? 0.0 : src.lon[p], src.lat.empty() ? 0.0 : src.lat[p],
                                   with_area ? src.area[p] : 0.0});
      if (has_data) stage->send_positions.push_back(data_of[p]);
      values[static_cast<std::size_t>(q)] += has_data;
    }
    points[static_cast<std::size_t>(q)] = static_cast<std::int64_t>(to[static_cast<std::size_t>(q)].size());
  }
  const std::vector<std::int64_t> points_in = counts_from_peers(points, comm);
  const std::vector<std::int64_t> values_in = counts_from_peers(values, comm);
  const std::int64_t n_in = std::accumulate(points_in.begin(), points_in.end(), std::int64_t{0});
  std::vector<std::int64_t> index_in(static_cast<std::size_t>(n_in));
  std::vector<double> coords_in(static_cast<std::size_t>(3 * n_in));
  {
    const std::vector<int> sc = scaled(points, 1), rc = scaled(points_in, 1);
    MPI_Alltoallv(index.data(), sc.data(), displacements(sc).data(), MPI_INT64_T, index_in.data(), rc.data(),
                  displacements(rc).data(), MPI_INT64_T, comm);
    const std::vector<int> sc3 = scaled(points, 3), rc3 = scaled(points_in, 3);
    MPI_Alltoallv(coords.data(), sc3.data(), displacements(sc3).data(), MPI_DOUBLE, coords_in.data(), rc3.data(),
                  displacements(rc3).data(), MPI_DOUBLE, comm);
  }

  // The points gathered here, as a component the local builder reduces:
  // its data values are the values received, peer after peer.
  Component gathered;
  gathered.kind = src.kind;
  gathered.type = src.type;
  gathered.ni_glo = src.ni_glo;
  gathered.nj_glo = src.nj_glo;
  gathered.healpix_level = src.healpix_level;
  gathered.healpix_nested = src.healpix_nested;
  gathered.decomposed = false;
  for (std::size_t e = 0; e < index_in.size(); ++e) {
    const std::int64_t g = index_in[e] >= 0 ? index_in[e] : -index_in[e] - 1;
    if (index_in[e] >= 0) gathered.data_owner.push_back(static_cast<std::int64_t>(gathered.owned.size()));
    gathered.owned.push_back(g);
    gathered.lon.push_back(coords_in[3 * e]);
    gathered.lat.push_back(coords_in[3 * e + 1]);
    if (with_area) gathered.area.push_back(coords_in[3 * e + 2]);
  }
  // A HEALPix level with no cell here is still a healpix domain (build_step's, empty).
  Step s = gathered.owned.empty() && t.kind != "coarsen_healpix" ? empty_target(t, src, *r) : build_step(t, gathered);
  stage->n_gathered = static_cast<std::int64_t>(gathered.data_owner.size());
  stage->exchange = std::make_shared<MpiExchange>(comm, values, values_in);
  s.map.n_source = src.data_size();
  s.map.gather_first = std::move(stage);
  s.text += " (across model ranks)";
  return s;
}

}  // namespace foehn::transform::interp
