// Called by fortran_model on rank 0 after foehn has closed the files: reads
// them back and compares every value with the analytic fields, computed
// here independently of the Fortran code (0-based C++ loops; the model uses
// 1-based global indices). Returns the number of failed checks.
#include <netcdf.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
  ++failures;
}

struct Var {
  std::vector<double> values;
  std::vector<size_t> shape;
};

Var read_var(int nc, const char* name) {
  Var v;
  int id = -1, ndims = 0, dims[NC_MAX_VAR_DIMS];
  if (nc_inq_varid(nc, name, &id) != NC_NOERR || nc_inq_varndims(nc, id, &ndims) != NC_NOERR ||
      nc_inq_vardimid(nc, id, dims) != NC_NOERR) {
    expect(false, std::string("variable ") + name + " exists");
    return v;
  }
  size_t n = 1;
  for (int d = 0; d < ndims; ++d) {
    size_t len = 0;
    nc_inq_dimlen(nc, dims[d], &len);
    v.shape.push_back(len);
    n *= len;
  }
  v.values.resize(n);
  expect(nc_get_var_double(nc, id, v.values.data()) == NC_NOERR, std::string("read ") + name);
  return v;
}

nc_type type_of(int nc, const char* name) {
  int id = -1;
  nc_type t = NC_NAT;
  if (nc_inq_varid(nc, name, &id) == NC_NOERR) nc_inq_vartype(nc, id, &t);
  return t;
}

std::string text_attribute(int nc, const char* var, const char* att) {
  int id = -1;
  size_t len = 0;
  if (nc_inq_varid(nc, var, &id) != NC_NOERR || nc_inq_attlen(nc, id, att, &len) != NC_NOERR) return "";
  std::string s(len, '\0');
  nc_get_att_text(nc, id, att, s.data());
  return s;
}

// Seconds from the time origin 2001-01-01 00:00 to step s of a run that
// starts 2001-03-15 06:00 with 900 s steps (2001 is not a leap year).
double seconds_at(int s) { return (31 + 28 + 14) * 86400.0 + 6 * 3600.0 + 900.0 * s; }

double ta(int step, int i, int j, int k) {
  return 200 + 10.0 * (k + 1) + 0.5 * (j + 1) + 0.25 * (i + 1) + 0.125 * step;
}
double ps(int step, int i, int j) { return 100000 + 3.0 * step + 0.5 * (i + 1) + 0.0625 * (j + 1); }
double tsurf(int step, int i, int j) { return 280 + 0.5 * (i + 1) - 0.25 * (j + 1) + step; }

void check_file(const char* path, int every, int nsteps, int ni, int nj, int nlev) {
  int nc = -1;
  if (nc_open(path, NC_NOWRITE, &nc) != NC_NOERR) {
    expect(false, std::string("open ") + path);
    return;
  }
  const size_t records = nsteps / every;
  const Var time = read_var(nc, "time_counter"), lon = read_var(nc, "lon"), lat = read_var(nc, "lat");
  expect(time.shape == std::vector<size_t>{records}, std::string(path) + ": record count");
  for (size_t r = 0; r < time.values.size(); ++r)
    expect(time.values[r] == seconds_at(every * int(r + 1)),
           std::string(path) + ": time of record " + std::to_string(r));
  expect(text_attribute(nc, "time_counter", "units") == "seconds since 2001-01-01 00:00:00",
         "time units from the model");
  expect(text_attribute(nc, "time_counter", "calendar") == "standard", "calendar from the model");
  for (int i = 0; i < ni && int(lon.values.size()) == ni; ++i)
    expect(lon.values[i] == -180.0 + 360.0 * (i + 0.5) / ni, "lon " + std::to_string(i));
  for (int j = 0; j < nj && int(lat.values.size()) == nj; ++j)
    expect(lat.values[j] == -90.0 + 180.0 * (j + 0.5) / nj, "lat " + std::to_string(j));

  auto compare = [&](const char* name, nc_type type, const std::vector<size_t>& shape, auto value) {
    const Var v = read_var(nc, name);
    expect(type_of(nc, name) == type, std::string(name) + ": type");
    expect(v.shape == shape, std::string(name) + ": shape");
    if (v.shape != shape) return;
    size_t at = 0, bad = 0;
    for (size_t r = 0; r < records; ++r)
      for (int k = 0; k < (shape.size() == 4 ? nlev : 1); ++k)
        for (int j = 0; j < nj; ++j)
          for (int i = 0; i < ni; ++i, ++at)
            if (v.values[at] != value(every * int(r + 1), i, j, k)) ++bad;
    expect(bad == 0, std::string(name) + ": " + std::to_string(bad) + " values differ from the analytic field");
  };
  const size_t r = records, x = ni, y = nj, z = nlev;
  if (every == 2) {
    const Var lev = read_var(nc, "lev");
    for (int k = 0; k < nlev && int(lev.values.size()) == nlev; ++k) expect(lev.values[k] == k + 1, "lev value");
    compare("ta", NC_FLOAT, {r, z, y, x}, [](int s, int i, int j, int k) { return double(float(ta(s, i, j, k))); });
    compare("ps", NC_DOUBLE, {r, y, x}, [](int s, int i, int j, int) { return ps(s, i, j); });
  } else {
    compare("tsurf", NC_FLOAT, {r, y, x}, [](int s, int i, int j, int) { return double(float(tsurf(s, i, j))); });
  }
  nc_close(nc);
}

}  // namespace

extern "C" int check_output(int nsteps, int ni_glo, int nj_glo, int nlev) {
  check_file("fortran_2ts.nc", 2, nsteps, ni_glo, nj_glo, nlev);
  check_file("fortran_3ts.nc", 3, nsteps, ni_glo, nj_glo, nlev);
  return failures;
}
