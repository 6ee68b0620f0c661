// The grid test model: describes one scenario of grid_scenarios.h (a domain
// type and a decomposition, halos, compressed data, masks) with the
// foehn_set_domain_* calls, writes a 2-D double field, a 3-D float field
// with levels outside and one with levels inside the domain, and an
// average; after closing, model rank 0 reads the one_file file back and
// checks every value exactly, and that masked and left-out points hold the
// fill value. tests/python/test_grids.py checks the files independently.
//
// usage: grid_model <config.xml> <scenario> <steps>
//        grid_model <config.xml> error_<kind> 0 <text>: a wrong description
//        (overlap, hole, coordinates, data, type, cdi_rows) must fail on every rank
//        with a message holding <text>, and foehn must still close cleanly.
#include <netcdf.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "foehn/foehn.h"
#include "grid_scenarios.h"

namespace {

int failures = 0;
constexpr int kLevels = 3;

void expect(bool ok, const std::string& what) {
  if (!ok && ++failures <= 10) std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
}

void must(int status, const char* call) {
  if (status != FOEHN_OK) {
    std::fprintf(stderr, "%s failed (%d): %s\n", call, status, foehn_last_error());
    std::exit(2);
  }
}

void describe(foehn_context ctx, const grids::Scenario& s) {
  must(foehn_set_domain_type(ctx, "dom", s.type.c_str(), s.ni_glo, s.nj_glo), "foehn_set_domain_type");
  if (s.by_index)
    must(foehn_set_domain_index(ctx, "dom", static_cast<int>(s.i_index.size()), s.i_index.data(),
                                s.j_index.empty() ? nullptr : s.j_index.data()),
         "foehn_set_domain_index");
  else
    must(foehn_set_domain_block(ctx, "dom", s.ibegin, s.ni, s.jbegin, s.nj), "foehn_set_domain_block");
  if (s.data_dim && s.data_i_index.empty() && !s.compressed_out)
    must(foehn_set_domain_data(ctx, "dom", s.data_dim, s.data_ibegin, s.data_ni, s.data_jbegin, s.data_nj),
         "foehn_set_domain_data");
  if (s.compressed_out)
    must(foehn_set_domain_data_index(ctx, "dom", static_cast<int>(s.data_i_index.size()), s.data_i_index.data(),
                                     nullptr),
         "foehn_set_domain_data_index");
  // Coordinates: per column and row for rectilinear blocks, else per point.
  const grids::Geometry geo = grids::geometry_of(s);
  std::vector<double> lon, lat, blon, blat, cl, ct;
  for (const std::int64_t g : s.local_g) {
    lon.push_back(geo.lon(g));
    lat.push_back(s.lat_mirrored ? -geo.lat(g) : geo.lat(g));
    geo.corners(g, cl, ct);
    if (s.type == "rectilinear") cl.resize(2), ct.resize(2);
    blon.insert(blon.end(), cl.begin(), cl.end());
    blat.insert(blat.end(), ct.begin(), ct.end());
  }
  must(foehn_set_domain_coordinates(ctx, "dom", static_cast<int>(lon.size()), lon.data(), static_cast<int>(lat.size()),
                                    lat.data(), geo.nvertex(), blon.data(), blat.data()),
       "foehn_set_domain_coordinates");
  if (s.masked) {
    std::vector<int> mask;
    for (const std::int64_t g : s.local_g) mask.push_back(g % 7 == 3 ? 0 : 1);
    must(foehn_set_domain_mask(ctx, "dom", static_cast<int>(mask.size()), mask.data()), "foehn_set_domain_mask");
  }
}

template <class T>
bool read_var(const char* path, const char* name, std::vector<T>& out) {
  int nc = -1, v = -1;
  if (nc_open(path, NC_NOWRITE, &nc) != NC_NOERR) return false;
  bool ok = nc_inq_varid(nc, name, &v) == NC_NOERR;
  int ndims = 0, dims[NC_MAX_VAR_DIMS];
  ok = ok && nc_inq_varndims(nc, v, &ndims) == NC_NOERR && nc_inq_vardimid(nc, v, dims) == NC_NOERR;
  size_t n = 1;
  for (int d = 0; ok && d < ndims; ++d) {
    size_t len = 0;
    ok = nc_inq_dimlen(nc, dims[d], &len) == NC_NOERR;
    n *= len;
  }
  out.resize(n);
  if constexpr (sizeof(T) == 4)
    ok = ok && nc_get_var_float(nc, v, reinterpret_cast<float*>(out.data())) == NC_NOERR;
  else
    ok = ok && nc_get_var_double(nc, v, reinterpret_cast<double*>(out.data())) == NC_NOERR;
  nc_close(nc);
  return ok;
}

void check_file(const grids::Scenario& s, int steps) {
  const std::string path = s.family + "_one.nc";
  const std::int64_t n = static_cast<std::int64_t>(s.ni_glo) * s.nj_glo;
  const int records = steps / 2;
  std::vector<double> ps, ps_mean;
  std::vector<float> ta, ua;
  expect(read_var(path.c_str(), "ps", ps) && read_var(path.c_str(), "ps_mean", ps_mean), "read ps, ps_mean");
  expect(read_var(path.c_str(), "ta", ta) && read_var(path.c_str(), "ua", ua), "read ta, ua");
  if (failures) return;
  expect(static_cast<std::int64_t>(ps.size()) == records * n, "ps size");
  expect(static_cast<std::int64_t>(ta.size()) == records * n * kLevels, "ta size");
  if (failures) return;
  const double fill_d = 9.9692099683868690e+36;
  const float fill_f = 9.96921e+36f;
  for (int r = 0; r < records; ++r) {
    const int step = 2 * (r + 1);
    for (std::int64_t g = 0; g < n; ++g) {
      const bool miss = s.missing(g);
      const auto at = static_cast<std::size_t>(r * n + g);
      expect(ps[at] == (miss ? fill_d : grids::ps_value(step, g)),
             "ps record " + std::to_string(r) + " point " + std::to_string(g));
      const double mean = 0.5 * (grids::ps_value(step - 1, g) + grids::ps_value(step, g));
      expect(ps_mean[at] == (miss ? fill_d : mean),
             "ps_mean record " + std::to_string(r) + " point " + std::to_string(g));
      for (int k = 0; k < kLevels; ++k) {
        const auto t = static_cast<std::size_t>((r * kLevels + k) * n + g);  // (time, lev, point)
        const auto u = static_cast<std::size_t>((r * n + g) * kLevels + k);  // (time, point, lev)
        expect(ta[t] == (miss ? fill_f : grids::ta_value(step, g, k)), "ta point " + std::to_string(g));
        expect(ua[u] == (miss ? fill_f : grids::ua_value(step, g, k)), "ua point " + std::to_string(g));
      }
    }
  }
}

// Describes unstr_blocks wrongly (error_cdi_rows: gauss_eq with its rows
// from the south, which the file of convention="CDI" refuses); true if
// foehn refuses it as expected.
bool refuses(foehn_context ctx, const std::string& kind, const std::string& text, int rank, int size) {
  grids::Scenario s = grids::make_scenario(kind == "error_cdi_rows" ? "gauss_eq" : "unstr_blocks", rank, size);
  s.lat_mirrored = kind == "error_cdi_rows";
  std::string message;
  if (kind == "error_type") {  // the XML says unstructured
    const int st = foehn_set_domain_type(ctx, "dom", "curvilinear", s.ni_glo, s.nj_glo);
    message = foehn_last_error();
    foehn_close_definition(ctx);  // fails too: the domain was never described
    return st == FOEHN_ERR_ARGUMENT && message.find(text) != std::string::npos;
  }
  if (kind == "error_overlap" && rank == 1) s.ibegin = 0;  // also leaves rank 1's own points to nobody
  if (kind == "error_hole" && rank == size - 1) s.ni -= 1;
  if (kind == "error_data") s.compressed_out = true, s.data_i_index = {0, 1, 0};
  if (s.ni >= 0 && !s.by_index) {
    s.local_g.resize(static_cast<std::size_t>(s.ni));
    for (int i = 0; i < s.ni; ++i) s.local_g[static_cast<std::size_t>(i)] = s.ibegin + i;
  }
  describe(ctx, s);
  if (kind == "error_coordinates" && rank == 0) {
    const std::vector<double> lon(static_cast<std::size_t>(std::max(0, s.ni - 1)), 0.0), lat(lon.size() + 1, 0.0);
    foehn_set_domain_coordinates(ctx, "dom", static_cast<int>(lon.size()), lon.data(), static_cast<int>(lat.size()),
                                 lat.data(), 0, nullptr, nullptr);
  }
  const int st = foehn_close_definition(ctx);
  message = foehn_last_error();
  std::printf("rank %d: %s\n", rank, message.c_str());
  return st == FOEHN_ERR_ARGUMENT && message.find(text) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s config.xml scenario steps\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string scenario = argv[2];
  const int steps = std::atoi(argv[3]);
  MPI_Comm comm;
  must(foehn_init("grids", argv[1], MPI_COMM_WORLD, &comm), "foehn_init");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (scenario.rfind("error_", 0) == 0) {
    foehn_context ctx;
    must(foehn_context_open(scenario == "error_cdi_rows" ? "gauss" : "unstr", comm, &ctx), "foehn_context_open");
    const double levels[kLevels] = {1, 2, 3};
    must(foehn_set_axis(ctx, "lev", kLevels, levels, nullptr, nullptr), "foehn_set_axis");
    const bool ok = refuses(ctx, scenario, argc > 4 ? argv[4] : "", rank, size);
    must(foehn_context_close(ctx), "foehn_context_close");
    must(foehn_finalize(), "foehn_finalize");
    int all = ok ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) std::printf("grid_model %s: %s\n", scenario.c_str(), all ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all ? 1 : 0;
  }
  const grids::Scenario s = grids::make_scenario(scenario, rank, size);
  foehn_context ctx;
  must(foehn_context_open(s.family.c_str(), comm, &ctx), "foehn_context_open");
  describe(ctx, s);
  const double levels[kLevels] = {1, 2, 3};
  must(foehn_set_axis(ctx, "lev", kLevels, levels, nullptr, nullptr), "foehn_set_axis");
  must(foehn_close_definition(ctx), "foehn_close_definition");

  // The data: values at the points sent, markers foehn must drop elsewhere.
  const std::size_t nd = s.data_g.size();
  std::vector<double> ps(nd);
  std::vector<float> ta(nd * kLevels), ua(nd * kLevels);
  for (int step = 1; step <= steps; ++step) {
    must(foehn_update_calendar(ctx, step), "foehn_update_calendar");
    for (std::size_t p = 0; p < nd; ++p) {
      const std::int64_t g = s.data_g[p];
      const bool masked = g >= 0 && s.masked && g % 7 == 3;
      for (int k = 0; k < kLevels; ++k) {
        const float marker = static_cast<float>(g < 0 ? grids::kHalo : grids::kMasked);
        ta[k * nd + p] = g < 0 || masked ? marker : grids::ta_value(step, g, k);       // (lev, point): levels outside
        ua[p * kLevels + k] = g < 0 || masked ? marker : grids::ua_value(step, g, k);  // (point, lev): levels inside
      }
      ps[p] = g < 0 ? grids::kHalo : masked ? grids::kMasked : grids::ps_value(step, g);
    }
    must(foehn_write_double(ctx, "ps", ps.data(), ps.size()), "foehn_write_double ps");
    must(foehn_write_float(ctx, "ta", ta.data(), ta.size()), "foehn_write_float ta");
    must(foehn_write_float(ctx, "ua", ua.data(), ua.size()), "foehn_write_float ua");
  }
  must(foehn_context_close(ctx), "foehn_context_close");
  must(foehn_finalize(), "foehn_finalize");
  if (rank == 0) check_file(s, steps);
  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, comm);
  if (rank == 0) std::printf("grid_model %s: %s (%d failed checks)\n", scenario.c_str(), all ? "FAILED" : "OK", all);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return all ? 1 : 0;
}
