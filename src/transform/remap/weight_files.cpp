#include "transform/remap/weight_files.h"

#include <netcdf.h>

#include <string_view>
#include <utility>
#include <vector>

#include "transform/remap/cell_polygons.h"

namespace foehn::transform::remap {

namespace {

// One open netCDF file; every call checked, errors name file and object.
class NcFile {
 public:
  NcFile(std::string path, bool create) : path_(std::move(path)) {
    if (create)
      call(nc_create(path_.c_str(), NC_CLOBBER | NC_NETCDF4, &id_), "nc_create", "");
    else
      call(nc_open(path_.c_str(), NC_NOWRITE, &id_), "nc_open", "");
  }
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;
  ~NcFile() {
    if (id_ >= 0) nc_close(id_);
  }
  void close() {
    const int id = std::exchange(id_, -1);
    call(nc_close(id), "nc_close", "");
  }
  void call(int status, std::string_view what, std::string_view object) const {
    if (status != NC_NOERR)
      throw RemapError(path_ + ": " + (object.empty() ? "" : std::string(object) + ": ") + std::string(what) + ": " +
                       nc_strerror(status));
  }
  bool has_dim(const char* name) const {
    int d;
    return nc_inq_dimid(id_, name, &d) == NC_NOERR;
  }
  std::size_t dim(const char* name) const {
    int d;
    std::size_t n;
    call(nc_inq_dimid(id_, name, &d), "nc_inq_dimid", name);
    call(nc_inq_dimlen(id_, d, &n), "nc_inq_dimlen", name);
    return n;
  }
  int var(const char* name) const {
    int v;
    call(nc_inq_varid(id_, name, &v), "nc_inq_varid", name);
    return v;
  }
  std::vector<long long> indices(const char* name, std::size_t n) const {
    std::vector<long long> out(n);
    if (n) call(nc_get_var_longlong(id_, var(name), out.data()), "nc_get_var_longlong", name);
    return out;
  }
  // Column `column` of a (n, columns) variable, or the whole 1-D variable.
  std::vector<double> doubles(const char* name, std::size_t n, std::size_t columns = 1, std::size_t column = 0) const {
    std::vector<double> out(n);
    if (!n) return out;
    if (columns == 1) {
      call(nc_get_var_double(id_, var(name), out.data()), "nc_get_var_double", name);
    } else {
      const std::size_t start[2] = {0, column}, count[2] = {n, 1};
      call(nc_get_vara_double(id_, var(name), start, count, out.data()), "nc_get_vara_double", name);
    }
    return out;
  }
  int def_dim(const char* name, std::size_t n) const {
    int d;
    call(nc_def_dim(id_, name, n, &d), "nc_def_dim", name);
    return d;
  }
  int def_var(const char* name, nc_type type, int dim) const {
    int v;
    call(nc_def_var(id_, name, type, 1, &dim, &v), "nc_def_var", name);
    return v;
  }
  int id() const { return id_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int id_ = -1;
};

RemapWeights from_index_lists(const NcFile& f, std::int64_t n_src, std::int64_t n_dst,
                              const std::vector<long long>& dst, const std::vector<long long>& src,
                              const std::vector<double>& weight, long long base) {
  std::vector<WeightTriplet> t(weight.size());
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = {dst[k] - base, src[k] - base, weight[k]};
  try {
    return weights_from_triplets(n_src, n_dst, t);
  } catch (const RemapError& e) {
    throw RemapError(f.path() + ": " + e.what() + (base ? " (indices are 1-based)" : " (indices are 0-based)"));
  }
}

}  // namespace

WeightFileFormat detect_weight_file_format(const std::string& path) {
  NcFile f(path, false);
  if (f.has_dim("num_links") && f.has_dim("src_grid_size")) return WeightFileFormat::scrip;
  if (f.has_dim("n_s") && f.has_dim("n_a") && f.has_dim("n_b")) return WeightFileFormat::esmf;
  if (f.has_dim("n_weight") && f.has_dim("n_src") && f.has_dim("n_dst")) return WeightFileFormat::xios;
  throw RemapError(path +
                   ": not a weight file: no SCRIP (num_links, src_grid_size), ESMF (n_s, n_a, n_b) or XIOS "
                   "(n_weight, n_src, n_dst) dimensions");
}

RemapWeights read_scrip_weights(const std::string& path) {
  NcFile f(path, false);
  const std::size_t links = f.dim("num_links"), wgts = f.dim("num_wgts");
  if (wgts != 1)
    throw RemapError(path + ": remap_matrix has num_wgts = " + std::to_string(wgts) +
                     "; only one weight per link is supported (second-order SCRIP weights need source gradients)");
  const auto n_src = static_cast<std::int64_t>(f.dim("src_grid_size"));
  const auto n_dst = static_cast<std::int64_t>(f.dim("dst_grid_size"));
  return from_index_lists(f, n_src, n_dst, f.indices("dst_address", links), f.indices("src_address", links),
                          f.doubles("remap_matrix", links, wgts, 0), 1);
}

RemapWeights read_esmf_weights(const std::string& path) {
  NcFile f(path, false);
  const std::size_t n = f.dim("n_s");
  return from_index_lists(f, static_cast<std::int64_t>(f.dim("n_a")), static_cast<std::int64_t>(f.dim("n_b")),
                          f.indices("row", n), f.indices("col", n), f.doubles("S", n), 1);
}

RemapWeights read_xios_weights(const std::string& path, bool one_based) {
  NcFile f(path, false);
  const std::size_t n = f.dim("n_weight");
  return from_index_lists(f, static_cast<std::int64_t>(f.dim("n_src")), static_cast<std::int64_t>(f.dim("n_dst")),
                          f.indices("dst_idx", n), f.indices("src_idx", n), f.doubles("weight", n), one_based ? 1 : 0);
}

RemapWeights read_weights(const std::string& path) {
  switch (detect_weight_file_format(path)) {
    case WeightFileFormat::scrip: return read_scrip_weights(path);
    case WeightFileFormat::esmf: return read_esmf_weights(path);
    case WeightFileFormat::xios: return read_xios_weights(path);
  }
  return {};
}

void write_xios_weights(const std::string& path, const RemapWeights& w, bool one_based) {
  NcFile f(path, true);
  f.def_dim("n_src", static_cast<std::size_t>(w.n_src));
  f.def_dim("n_dst", static_cast<std::size_t>(w.n_dst));
  const int n = f.def_dim("n_weight", static_cast<std::size_t>(w.terms()));
  const int src = f.def_var("src_idx", NC_INT, n), dst = f.def_var("dst_idx", NC_INT, n);
  const int weight = f.def_var("weight", NC_DOUBLE, n);
  f.call(nc_enddef(f.id()), "nc_enddef", "");
  const int base = one_based ? 1 : 0;
  std::vector<int> src_idx(w.src.size()), dst_idx(w.src.size());
  for (std::int64_t j = 0; j < w.n_dst; ++j)
    for (std::int64_t k = w.row_start[static_cast<std::size_t>(j)]; k < w.row_start[static_cast<std::size_t>(j + 1)];
         ++k) {
      src_idx[static_cast<std::size_t>(k)] = w.src[static_cast<std::size_t>(k)] + base;
      dst_idx[static_cast<std::size_t>(k)] = static_cast<int>(j) + base;
    }
  if (w.terms() > 0) {
    f.call(nc_put_var_int(f.id(), src, src_idx.data()), "nc_put_var_int", "src_idx");
    f.call(nc_put_var_int(f.id(), dst, dst_idx.data()), "nc_put_var_int", "dst_idx");
    f.call(nc_put_var_double(f.id(), weight, w.weight.data()), "nc_put_var_double", "weight");
  }
  f.close();
}

}  // namespace foehn::transform::remap
