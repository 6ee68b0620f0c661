// The axes and scalars test model (tests/mpi/data/axes.xml): an axis
// decomposed unevenly by range (values and bounds from the model; with 3
// ranks, rank 1 holds none of it), one decomposed by index in reversed
// interleaved order (values from the XML), a whole axis with XML bounds in
// a grid with an unstructured domain, a scalar coordinate beside the domain,
// a field of a scalar alone, which every rank writes (rank 0's value is the
// one kept), and a 2-D decomposition: ranks sharing columns split the levels. Model rank 0 reads the file back and
// checks every value exactly; tests/python/test_grids_axes.py checks the file independently.
//
// usage: axes_model <axes.xml> ok <steps>
//        axes_model <axes.xml> error_<kind> 0 <text>: a wrong description
//        must fail on every rank with a message holding <text>.
#include <netcdf.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "foehn/foehn.h"
#include "grid_scenarios.h"

namespace {

constexpr int kCells = 60, kDepth = 10, kBand = 4, kBin = 7, kPlev = 3, kCols = 24, kLev = 5;
int failures = 0;

void must(int status, const char* call) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s failed (%d): %s\n", call, status, foehn_last_error());
    std::exit(2);
  }
}

// The values, exact in float and double, from global indices alone.
double prof_value(int step, int depth, int band) { return 1000.0 * step + 10.0 * depth + band; }
float hist_value(int step, int bin) { return 1000.0f * step + static_cast<float>(bin); }
double t2m_value(int step, int g) { return 1000.0 * step + 0.5 * g; }
float tp_value(int step, int g, int k) { return 1000.0f * step + 10.0f * k + 0.25f * g; }
double gmean_value(int step) { return 1000.0 * step + 0.5; }
float tc_value(int step, int g, int k) { return 1000.0f * step + 10.0f * k + 0.25f * g; }

struct Parts {
  int cell_begin = 0, cells = 0, depth_begin = 0, depths = 0;
  std::vector<int> bins;  // global bin indices, in data order
  // The 2-D decomposition of (col, lev): ranks 0 and 1 share columns and
  // split the levels 2 : 3; with 3 ranks, rank 2 holds the other columns whole.
  int col_begin = 0, cols = 0, lev_begin = 0, levs = 0;
};

Parts parts_of(int rank, int size) {
  Parts p;
  std::tie(p.cell_begin, p.cells) = grids::uneven_share(kCells, rank, size);
  std::tie(p.depth_begin, p.depths) = grids::uneven_share(kDepth, rank, size);
  for (int k = kBin - 1; k >= 0; --k)
    if (k % size == rank) p.bins.push_back(k);
  const int shared = size >= 3 ? kCols / 2 : kCols;  // the columns ranks 0 and 1 share
  if (rank <= 1)
    p.col_begin = 0, p.cols = shared, p.lev_begin = rank ? 2 : 0, p.levs = rank ? kLev - 2 : 2;
  else if (rank == 2)
    p.col_begin = shared, p.cols = kCols - shared, p.lev_begin = 0, p.levs = kLev;
  if (size == 1) p.levs = kLev;
  return p;
}

void describe(foehn_context ctx, const Parts& p, bool depth_overlap, bool lev_overlap) {
  must(foehn_set_domain_type(ctx, "dom", "unstructured", kCells, 1), "foehn_set_domain_type");
  must(foehn_set_domain_block(ctx, "dom", p.cell_begin, p.cells, 0, 1), "foehn_set_domain_block");
  const grids::Geometry geo{"unstructured", kCells, 1};
  std::vector<double> lon, lat;
  for (int g = p.cell_begin; g < p.cell_begin + p.cells; ++g) lon.push_back(geo.lon(g)), lat.push_back(geo.lat(g));
  must(foehn_set_domain_coordinates(ctx, "dom", p.cells, lon.data(), p.cells, lat.data(), 0, nullptr, nullptr),
       "foehn_set_domain_coordinates");
  // depth: the values of this rank's part (5, 15, ...) and their bounds.
  const int begin = depth_overlap ? 0 : p.depth_begin, n = depth_overlap ? 6 : p.depths;
  std::vector<double> depth, bounds;
  for (int d = begin; d < begin + n; ++d) {
    depth.push_back(10.0 * d + 5.0);
    bounds.push_back(10.0 * d);
    bounds.push_back(10.0 * d + 10.0);
  }
  must(foehn_set_axis(ctx, "depth", n, depth.data(), nullptr, nullptr), "foehn_set_axis depth");
  must(foehn_set_axis_decomposition(ctx, "depth", kDepth, begin, n), "foehn_set_axis_decomposition");
  must(foehn_set_axis_bounds(ctx, "depth", n, bounds.data()), "foehn_set_axis_bounds");
  must(foehn_set_axis_index(ctx, "bin", kBin, static_cast<int>(p.bins.size()), p.bins.data()), "foehn_set_axis_index");
  must(foehn_set_scalar(ctx, "height2m", 2.0, "m"), "foehn_set_scalar");
  must(foehn_set_domain_type(ctx, "col", "unstructured", kCols, 1), "foehn_set_domain_type col");
  must(foehn_set_domain_block(ctx, "col", p.col_begin, p.cols, 0, 1), "foehn_set_domain_block col");
  std::vector<double> clon, clat;
  for (int g = p.col_begin; g < p.col_begin + p.cols; ++g) clon.push_back(15.0 * g), clat.push_back(-45.0 + 3.75 * g);
  must(foehn_set_domain_coordinates(ctx, "col", p.cols, clon.data(), p.cols, clat.data(), 0, nullptr, nullptr),
       "foehn_set_domain_coordinates col");
  std::vector<double> lev;
  const int lev_begin = lev_overlap ? 0 : p.lev_begin,
            levs = lev_overlap ? std::min(kLev, p.lev_begin + p.levs) : p.levs;
  for (int k = lev_begin; k < lev_begin + levs; ++k) lev.push_back(k + 1.0);
  must(foehn_set_axis_decomposition(ctx, "lev", kLev, lev_begin, levs), "foehn_set_axis_decomposition lev");
  must(foehn_set_axis(ctx, "lev", levs, lev.data(), nullptr, nullptr), "foehn_set_axis lev");
}

template <class T>
std::vector<T> read_var(int nc, const char* name) {
  int v = -1, ndims = 0, dims[NC_MAX_VAR_DIMS];
  std::vector<T> out;
  if (nc_inq_varid(nc, name, &v) != NC_NOERR || nc_inq_varndims(nc, v, &ndims) != NC_NOERR ||
      nc_inq_vardimid(nc, v, dims) != NC_NOERR)
    return out;
  size_t n = 1, len = 0;
  for (int d = 0; d < ndims; ++d) n *= nc_inq_dimlen(nc, dims[d], &len) == NC_NOERR ? len : 0;
  out.resize(n);
  if constexpr (sizeof(T) == 4)
    nc_get_var_float(nc, v, reinterpret_cast<float*>(out.data()));
  else
    nc_get_var_double(nc, v, reinterpret_cast<double*>(out.data()));
  return out;
}

// Compares a variable of `records` records of `per` values with expect(step, k).
template <class T>
void check(int nc, const char* name, int records, int per, const std::function<T(int, int)>& expect) {
  const auto got = read_var<T>(nc, name);
  if (got.size() != static_cast<std::size_t>(records * per)) {
    std::fprintf(stderr, "CHECK FAILED: %s has %zu values, expected %d\n", name, got.size(), records * per);
    ++failures;
    return;
  }
  for (int r = 0; r < records; ++r)
    for (int k = 0; k < per; ++k)
      if (got[static_cast<std::size_t>(r * per + k)] != expect(2 * (r + 1), k) && ++failures <= 10)
        std::fprintf(stderr, "CHECK FAILED: %s record %d value %d\n", name, r, k);
}

void check_file(int steps) {
  int nc = -1;
  if (nc_open("axes_one.nc", NC_NOWRITE, &nc) != NC_NOERR) {
    std::fprintf(stderr, "CHECK FAILED: cannot open axes_one.nc\n");
    ++failures;
    return;
  }
  const int records = steps / 2;
  // prof is (time, depth, band); tp (time, plev, cell): first grid component fastest.
  check<double>(nc, "prof", records, kDepth * kBand, [](int s, int k) { return prof_value(s, k / kBand, k % kBand); });
  check<double>(nc, "prof_mean", records, kDepth * kBand, [](int s, int k) {
    return 0.5 * (prof_value(s - 1, k / kBand, k % kBand) + prof_value(s, k / kBand, k % kBand));
  });
  check<float>(nc, "hist", records, kBin, [](int s, int k) { return hist_value(s, k); });
  check<double>(nc, "t2m", records, kCells, [](int s, int g) { return t2m_value(s, g); });
  check<float>(nc, "tp", records, kPlev * kCells, [](int s, int k) { return tp_value(s, k % kCells, k / kCells); });
  check<double>(nc, "gmean", records, 1, [](int s, int) { return gmean_value(s); });
  check<double>(nc, "gmean_mean", records, 1, [](int s, int) { return 0.5 * (gmean_value(s - 1) + gmean_value(s)); });
  check<double>(nc, "depth", 1, kDepth, [](int, int d) { return 10.0 * d + 5.0; });
  check<double>(nc, "depth_bounds", 1, 2 * kDepth, [](int, int k) { return 10.0 * (k / 2) + 10.0 * (k % 2); });
  check<double>(nc, "bin", 1, kBin, [](int, int k) { return 200.0 + 10.0 * k; });
  check<double>(nc, "height", 1, 1, [](int, int) { return 2.0; });
  check<float>(nc, "tc", records, kLev * kCols, [](int s, int k) { return tc_value(s, k % kCols, k / kCols); });
  check<double>(nc, "lev", 1, kLev, [](int, int k) { return k + 1.0; });
  nc_close(nc);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s axes.xml ok|error_<kind> steps [text]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string scenario = argv[2];
  const int steps = std::atoi(argv[3]);
  MPI_Comm comm;
  must(foehn_init("axes", argv[1], MPI_COMM_WORLD, &comm), "foehn_init");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const Parts p = parts_of(rank, size);
  foehn_context ctx;
  must(foehn_context_open("axes", comm, &ctx), "foehn_context_open");
  describe(ctx, p, scenario == "error_overlap", scenario == "error_shared");
  if (scenario != "ok") {
    if (scenario == "error_levels_missing")  // plev split, but the points are not shared: rank 1's lack plev
      must(foehn_set_axis_decomposition(ctx, "plev", kPlev, rank == 0 ? 0 : kPlev, rank == 0 ? kPlev : 0),
           "foehn_set_axis_decomposition plev");
    const int st = foehn_close_definition(ctx);
    const std::string message = foehn_last_error();
    std::printf("rank %d: %s\n", rank, message.c_str());
    int bad = st == FOEHN_ERR_ARGUMENT && message.find(argc > 4 ? argv[4] : "") != std::string::npos ? 0 : 1;
    must(foehn_context_close(ctx), "foehn_context_close");
    must(foehn_finalize(), "foehn_finalize");
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) std::printf("axes_model %s: %s\n", scenario.c_str(), bad ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return bad ? 1 : 0;
  }
  must(foehn_close_definition(ctx), "foehn_close_definition");
  std::vector<double> prof(static_cast<std::size_t>(p.depths * kBand)), t2m(static_cast<std::size_t>(p.cells));
  std::vector<float> hist(p.bins.size()), tp(static_cast<std::size_t>(p.cells * kPlev));
  std::vector<float> tc(static_cast<std::size_t>(p.cols * p.levs));
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "foehn_update_calendar");
    for (int d = 0; d < p.depths; ++d)  // (band, depth): band fastest
      for (int b = 0; b < kBand; ++b)
        prof[static_cast<std::size_t>(d * kBand + b)] = prof_value(step, p.depth_begin + d, b);
    for (std::size_t k = 0; k < p.bins.size(); ++k) hist[k] = hist_value(step, p.bins[k]);
    for (int c = 0; c < p.cells; ++c) {
      t2m[static_cast<std::size_t>(c)] = t2m_value(step, p.cell_begin + c);
      for (int k = 0; k < kPlev; ++k)
        tp[static_cast<std::size_t>(k * p.cells + c)] = tp_value(step, p.cell_begin + c, k);
    }
    for (int k = 0; k < p.levs; ++k)  // (col, lev): columns fastest
      for (int c = 0; c < p.cols; ++c)
        tc[static_cast<std::size_t>(k * p.cols + c)] = tc_value(step, p.col_begin + c, p.lev_begin + k);
    must(foehn_write_float(ctx, "tc", tc.data(), tc.size()), "foehn_write_float tc");
    const double gmean = gmean_value(step) + rank;  // only rank 0's value counts
    must(foehn_write_double(ctx, "prof", prof.data(), prof.size()), "foehn_write_double prof");
    must(foehn_write_float(ctx, "hist", hist.data(), hist.size()), "foehn_write_float hist");
    must(foehn_write_double(ctx, "t2m", t2m.data(), t2m.size()), "foehn_write_double t2m");
    must(foehn_write_float(ctx, "tp", tp.data(), tp.size()), "foehn_write_float tp");
    must(foehn_write_double(ctx, "gmean", &gmean, 1), "foehn_write_double gmean");
  }
  must(foehn_context_close(ctx), "foehn_context_close");
  must(foehn_finalize(), "foehn_finalize");
  if (rank == 0) check_file(steps);
  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) std::printf("axes_model %s: %s (%d failed checks)\n", scenario.c_str(), all ? "FAILED" : "OK", all);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return all ? 1 : 0;
}
