#include "formats/zarr/zarr_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "filters/temporal.h"

namespace foehn::formats {

std::unique_ptr<Writer> open_zarr(const output::ContextPlan& plan, int file, WriterTarget target) {
  return std::make_unique<zarr::ZarrWriter>(plan, file, std::move(target));
}

namespace zarr {

using nlohmann::json;
using output::ContextPlan;
using output::Dim;
using output::DomainInfo;
using output::FileInfo;
using output::LocalBlock;
using output::VariableInfo;

namespace {

constexpr std::int64_t kChunkValues = std::int64_t{1} << 18;  // about 1 MB of float32 per chunk

json compressor(int level) { return {{"id", "zlib"}, {"level", level}}; }

json fill_json(double fill) {
  if (std::isnan(fill)) return "NaN";
  return fill;
}

// `shuffle`: the byte-shuffle filter (numcodecs' "shuffle", HDF5's) of
// elements of that many bytes, 0 for none.
json zarray(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& chunks, const std::string& dtype,
            const json& fill, int level, int shuffle = 0) {
  const json filters = shuffle > 0 ? json::array({{{"id", "shuffle"}, {"elementsize", shuffle}}}) : json(nullptr);
  return {{"zarr_format", 2}, {"shape", shape},   {"chunks", chunks},
          {"dtype", dtype},   {"compressor", compressor(level)},
          {"fill_value", fill}, {"order", "C"},   {"filters", filters},
          {"dimension_separator", "."}};
}

// A variable named <base>_z<level> on a healpix domain at that level: its
// pyramid level (else -1), and base.
int pyramid_level(const ContextPlan& plan, const VariableInfo& v, std::string& base) {
  const auto at = v.name.rfind("_z");
  if (at == std::string::npos || at + 2 >= v.name.size()) return -1;
  for (std::size_t k = at + 2; k < v.name.size(); ++k)
    if (v.name[k] < '0' || v.name[k] > '9') return -1;
  const int level = std::stoi(v.name.substr(at + 2));
  for (const Dim& d : v.dims)
    if (d.kind == Dim::domain_i && plan.domains[d.index].type == "healpix" &&
        plan.domains[d.index].healpix_level == level) {
      base = v.name.substr(0, at);
      return level;
    }
  return -1;
}

void put_attribute(json& attrs, const output::Attribute& a) {
  if (a.type == "int")
    attrs[a.name] = std::stoll(a.value);
  else if (a.type == "double" || a.type == "data")
    attrs[a.name] = std::stod(a.value);
  else
    attrs[a.name] = a.value;
}

}  // namespace

// Writes `bytes` at `file`: chunks directly (a new file each: a reader
// during the run sees the chunk or not, as the shape says), metadata through
// a temporary name and a rename (rewritten every record: never seen half
// written). Creating a temporary file per chunk doubled the file system's
// work (bench/kmscale.py).
static void write_direct(const std::filesystem::path& file, const void* data, std::size_t bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  out.close();
  if (!out) throw IoError(file.string() + ": cannot write: " + std::strerror(errno));
}

static void write_file(const std::filesystem::path& file, const void* data, std::size_t bytes) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  write_direct(tmp, data, bytes);
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) throw IoError(file.string() + ": cannot rename its temporary file: " + ec.message());
}

static void write_json(const std::filesystem::path& file, const json& j) {
  const std::string text = j.dump(2);
  write_file(file, text.data(), text.size());
}

ZarrWriter::ZarrWriter(const ContextPlan& plan, int file, WriterTarget target)
    : path_(std::move(target.path)), comm_(target.comm), part_(std::move(target.part)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  const FileInfo& f = plan.files.at(file);
  // The first writer makes the store afresh (a new file, as NetCDF's
  // create), or continues it (append, exact restart: zarr_continue.cpp);
  // the others write chunks once it is there.
  const bool resume = f.resume_file_records >= 0;
  std::string error;
  std::int64_t base[2] = {0, 0};  // first record, continued (0/1)
  if (rank_ == 0) {
    try {
      const bool exists = std::filesystem::exists(std::filesystem::path(path_) / ".zgroup");
      if (f.resume_file_records > 0 && !exists)
        throw IoError(path_ + ": the store the checkpoint continues is missing (" +
                      std::to_string(f.resume_file_records) + " records were written before it)");
      if ((f.append || resume) && exists) {
        define(plan, f, false);
        base[0] = attach(plan, f.resume_file_records);
        base[1] = 1;
      } else {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
        std::filesystem::create_directories(path_);
        define(plan, f, true);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  } else {
    define(plan, f, false);  // the same layout, no files
  }
  int failed = error.empty() ? 0 : 1;
  if (size_ > 1) MPI_Bcast(&failed, 1, MPI_INT, 0, comm_);
  if (failed) throw IoError(error.empty() ? path_ + ": the first writer could not create the store" : error);
  if (size_ > 1) MPI_Bcast(base, 2, MPI_INT64_T, 0, comm_);
  base_record_ = records_ = base[0];
  appended_ = base[1] != 0;
  // An exact restart drops the records written after the checkpoint.
  if (appended_ && rank_ == 0) write_time_shape(records_);
}

void ZarrWriter::define(const ContextPlan& plan, const FileInfo& f, bool write_files) {
  // Pyramids: variables <name>_z<level> of two or more levels go to groups z<level>.
  std::set<int> levels;
  for (int vi : f.variables) {
    std::string base;
    if (const int l = pyramid_level(plan, plan.variables[vi], base); l >= 0) levels.insert(l);
  }
  const bool pyramid = levels.size() > 1;
  bool any_instant = false, healpix = false;
  for (int vi : f.variables) {
    const auto op = static_cast<filters::TemporalOp>(plan.variables[vi].op);
    centered_ = centered_ || filters::reduces(op);
    any_instant = any_instant || op == filters::TemporalOp::instant;
  }
  time_instant_ = centered_ && any_instant;
  auto emit = [&](const std::string& key, const json& j) {
    metadata_[key] = j.dump();
    if (!write_files) return;
    std::filesystem::create_directories((std::filesystem::path(path_) / key).parent_path());
    write_json(std::filesystem::path(path_) / key, j);
  };
  // A whole small array in one chunk (coordinates), written by the first writer.
  auto static_array = [&](const std::string& dir, const std::vector<std::string>& dims,
                          const std::vector<std::int64_t>& shape, const std::string& dtype, const void* data,
                          std::size_t bytes, json attrs) {
    attrs["_ARRAY_DIMENSIONS"] = dims;
    emit(dir + "/.zarray", zarray(shape, shape, dtype, nullptr, 1));
    emit(dir + "/.zattrs", attrs);
    if (!write_files || shape.empty()) return;
    std::string key;
    for (std::size_t d = 0; d < shape.size(); ++d) key += d ? ".0" : "0";
    uLongf packed = compressBound(static_cast<uLong>(bytes));
    std::vector<unsigned char> out(packed);
    if (compress2(out.data(), &packed, static_cast<const Bytef*>(data), static_cast<uLong>(bytes), 1) != Z_OK)
      throw IoError(path_ + "/" + dir + ": zlib compress2 failed");
    write_direct(std::filesystem::path(path_) / dir / key, out.data(), packed);
    disk_bytes_ += packed;
  };

  // Groups in the order their variables come.
  std::vector<std::string> groups;
  std::map<int, std::pair<std::string, std::string>> where;  // variable -> (group, array name)
  for (int vi : f.variables) {
    std::string base;
    const int l = pyramid ? pyramid_level(plan, plan.variables[vi], base) : -1;
    const std::string group = l >= 0 ? "z" + std::to_string(l) : "";
    where[vi] = {group, l >= 0 ? base : plan.variables[vi].name};
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  for (const output::VariableInfo& v : plan.variables)
    for (const Dim& d : v.dims) healpix = healpix || (d.kind != Dim::axis && plan.domains[d.index].type == "healpix");
  json global = {{"Conventions", healpix ? "CF-1.13" : "CF-1.10"}, {"title", f.title}, {"source", "foehn"}};
  for (const output::Attribute& a : f.attributes) put_attribute(global, a);
  emit(".zgroup", {{"zarr_format", 2}});
  emit(".zattrs", global);
  const std::string time_units = plan.time_units;
  for (const std::string& group : groups) {
    const std::string prefix = group.empty() ? "" : group + "/";
    if (!group.empty()) {
      emit(prefix + ".zgroup", {{"zarr_format", 2}});
      emit(prefix + ".zattrs", {{"refinement_level", std::stoi(group.substr(1))}});
    }
    // Time: one value per chunk, the shape growing by record. As in the
    // NetCDF files: reduced values stand for an interval (time_counter at its
    // centre, time_counter_bounds), instant ones for its end (time_instant).
    const std::string time_dir = prefix + "time_counter";
    auto time_attrs = [&](const char* long_name) {
      return json{{"_ARRAY_DIMENSIONS", {"time_counter"}}, {"standard_name", "time"}, {"units", time_units},
                  {"calendar", plan.calendar}, {"long_name", long_name},
                  {"time_origin", time_units.substr(time_units.find("since ") + 6)}};
    };
    json tattrs = time_attrs(centered_ ? "Time axis (centre of each interval)" : "Time axis");
    tattrs["axis"] = "T";
    if (centered_) tattrs["bounds"] = "time_counter_bounds";
    emit(time_dir + "/.zarray", zarray({0}, {1}, "<f8", nullptr, 1));
    emit(time_dir + "/.zattrs", tattrs);
    time_prefixes_.push_back(prefix);
    timed_.push_back(time_dir);
    if (centered_) {
      emit(prefix + "time_counter_bounds/.zarray", zarray({0, 2}, {1, 2}, "<f8", nullptr, 1));
      emit(prefix + "time_counter_bounds/.zattrs", {{"_ARRAY_DIMENSIONS", {"time_counter", "axis_nbounds"}}});
      timed_.push_back(prefix + "time_counter_bounds");
    }
    if (time_instant_) {
      emit(prefix + "time_instant/.zarray", zarray({0}, {1}, "<f8", nullptr, 1));
      emit(prefix + "time_instant/.zattrs", time_attrs("Time of the instant values"));
      timed_.push_back(prefix + "time_instant");
    }
    // Coordinates of the domains and axes of the group's variables.
    std::map<int, std::string> domain_suffix;
    std::map<int, std::pair<std::string, std::string>> domain_dims;  // j and i dimension names
    std::set<int> axes_done;
    for (int vi : f.variables) {
      if (where[vi].first != group) continue;
      for (const Dim& d : plan.variables[vi].dims) {
        if (d.kind == Dim::axis) {
          if (!axes_done.insert(d.index).second) continue;
          const output::AxisInfo& a = plan.axes[d.index];
          const std::string name = a.name.empty() ? a.id : a.name;
          json attrs = {{"axis", a.axis_type.empty() ? "Z" : a.axis_type}};
          if (!a.standard_name.empty()) attrs["standard_name"] = a.standard_name;
          if (!a.units.empty()) attrs["units"] = a.units;
          if (!a.positive.empty()) attrs["positive"] = a.positive;
          for (const output::Attribute& at : a.attributes) put_attribute(attrs, at);
          static_array(prefix + name, {name}, {a.size()}, "<f8", a.values.data(), a.values.size() * 8, attrs);
          continue;
        }
        if (domain_suffix.count(d.index)) continue;
        const DomainInfo& dom = plan.domains[d.index];
        const std::string suffix = domain_suffix.empty() ? "" : "_" + dom.id;
        domain_suffix[d.index] = suffix;
        const LocalBlock b = domain_extent(part_, dom, d.index);
        const bool rect = dom.type == "rectilinear", one_d = dom.one_dimensional();
        const std::string jn = rect ? "lat" + suffix : "y" + suffix;
        const std::string in = rect ? "lon" + suffix : one_d ? "cell" + suffix : "x" + suffix;
        domain_dims[d.index] = {jn, in};
        std::vector<double> lat, lon, blat, blon;
        const auto nv = static_cast<std::size_t>(dom.nvertex);
        for (std::int64_t j = b.jbegin; j < b.jbegin + b.nj; ++j)
          for (std::int64_t i = b.ibegin; i < b.ibegin + b.ni; ++i) {
            const auto g = static_cast<std::size_t>(j * dom.ni_glo + i);
            if (rect) continue;
            lat.push_back(dom.lat[g]), lon.push_back(dom.lon[g]);
            for (std::size_t k = 0; k < nv; ++k)
              blat.push_back(dom.bounds_lat[g * nv + k]), blon.push_back(dom.bounds_lon[g * nv + k]);
          }
        json lat_attrs = {{"standard_name", "latitude"}, {"units", "degrees_north"}};
        json lon_attrs = {{"standard_name", "longitude"}, {"units", "degrees_east"}};
        if (rect) {
          lat.assign(dom.lat.begin() + b.jbegin, dom.lat.begin() + b.jbegin + b.nj);
          lon.assign(dom.lon.begin() + b.ibegin, dom.lon.begin() + b.ibegin + b.ni);
          static_array(prefix + jn, {jn}, {b.nj}, "<f8", lat.data(), lat.size() * 8, lat_attrs);
          static_array(prefix + in, {in}, {b.ni}, "<f8", lon.data(), lon.size() * 8, lon_attrs);
          continue;
        }
        std::vector<std::string> dims = one_d ? std::vector<std::string>{in} : std::vector<std::string>{jn, in};
        std::vector<std::int64_t> shape = one_d ? std::vector<std::int64_t>{b.ni} : std::vector<std::int64_t>{b.nj, b.ni};
        if (nv > 0) {
          lat_attrs["bounds"] = "lat" + suffix + "_bnds";
          lon_attrs["bounds"] = "lon" + suffix + "_bnds";
          auto bdims = dims;
          bdims.push_back("nvertex" + suffix);
          auto bshape = shape;
          bshape.push_back(dom.nvertex);
          static_array(prefix + "lat" + suffix + "_bnds", bdims, bshape, "<f8", blat.data(), blat.size() * 8, {});
          static_array(prefix + "lon" + suffix + "_bnds", bdims, bshape, "<f8", blon.data(), blon.size() * 8, {});
        }
        static_array(prefix + "lat" + suffix, dims, shape, "<f8", lat.data(), lat.size() * 8, lat_attrs);
        static_array(prefix + "lon" + suffix, dims, shape, "<f8", lon.data(), lon.size() * 8, lon_attrs);
        if (dom.type == "healpix") {  // the cell index coordinate and CF-1.13's grid mapping
          std::vector<std::int64_t> cells(static_cast<std::size_t>(b.ni));
          for (std::int64_t k = 0; k < b.ni; ++k) cells[static_cast<std::size_t>(k)] = b.ibegin + k;
          static_array(prefix + in, {in}, {b.ni}, "<i8", cells.data(), cells.size() * 8,
                       {{"standard_name", "healpix_index"}, {"long_name", "HEALPix cell index"}, {"units", "1"}});
          json crs = {{"_ARRAY_DIMENSIONS", json::array()},
                      {"grid_mapping_name", "healpix"},
                      {"indexing_scheme", dom.healpix_nested ? "nested" : "ring"},
                      {"refinement_level", dom.healpix_level},
                      {"healpix_nside", 1 << dom.healpix_level},
                      {"healpix_order", dom.healpix_nested ? "nest" : "ring"}};
          emit(prefix + "crs" + suffix + "/.zarray", zarray({}, {}, "<i4", 0, 1));
          emit(prefix + "crs" + suffix + "/.zattrs", crs);
        }
      }
    }
    // The data variables.
    for (int vi : f.variables) {
      if (where[vi].first != group) continue;
      const VariableInfo& v = plan.variables[vi];
      Array a;
      a.dir = prefix + where[vi].second;
      a.prec = v.prec == 8 ? 8 : 4;
      a.timeless = static_cast<filters::TemporalOp>(v.op) == filters::TemporalOp::once;
      a.fill = v.has_fill ? v.fill_value : (v.prec == 8 ? kDefaultFillDouble : kDefaultFillFloat);
      if (v.prec != 8) a.fill = static_cast<float>(a.fill);
      a.level = v.compression_level > 0 ? v.compression_level : 1;
      std::vector<std::string> dims;
      std::string coordinates, grid_mapping;
      for (std::size_t k = 0; k < v.dims.size(); ++k) {
        const Dim& d = v.dims[k];
        if (d.kind == Dim::axis) {
          const output::AxisInfo& ax = plan.axes[d.index];
          dims.push_back(ax.name.empty() ? ax.id : ax.name);
          a.shape.push_back(ax.size());
          a.offset.push_back(0);
          continue;
        }
        const DomainInfo& dom = plan.domains[d.index];
        const LocalBlock b = domain_extent(part_, dom, d.index);
        const bool is_j = d.kind == Dim::domain_j;
        if (is_j && dom.one_dimensional()) continue;  // 1-D domains have one dimension (domain_i)
        dims.push_back(is_j ? domain_dims[d.index].first : domain_dims[d.index].second);
        a.shape.push_back(is_j ? b.nj : b.ni);
        a.offset.push_back(is_j ? b.jbegin : b.ibegin);
        if (a.split < 0) a.split = static_cast<int>(a.shape.size() - 1);
        if (!is_j && dom.type != "rectilinear")
          coordinates = "lat" + domain_suffix[d.index] + " lon" + domain_suffix[d.index];
        if (!is_j && dom.type == "healpix") grid_mapping = "crs" + domain_suffix[d.index];
      }
      std::vector<std::int64_t> chunks;
      std::int64_t inner = 1;
      for (std::size_t k = a.split < 0 ? 0 : static_cast<std::size_t>(a.split) + 1; k < a.shape.size(); ++k)
        inner *= a.shape[k];
      if (a.split >= 0) {
        const std::int64_t n = a.shape[static_cast<std::size_t>(a.split)];
        a.chunk = std::clamp<std::int64_t>(kChunkValues / std::max<std::int64_t>(inner, 1), 1, n);
        // HEALPix: a nested block of 4^k cells (a whole number of chunks per base cell).
        for (const Dim& d : v.dims)
          if (d.kind == Dim::domain_i && plan.domains[d.index].type == "healpix" && a.chunk < n) {
            std::int64_t block = 1;
            while (block * 4 <= a.chunk && block * 4 <= (std::int64_t{1} << (2 * plan.domains[d.index].healpix_level)))
              block *= 4;
            a.chunk = block;
          }
      }
      for (std::size_t k = 0; k < a.shape.size(); ++k)
        chunks.push_back(a.split < 0 || static_cast<int>(k) > a.split ? a.shape[k]
                         : static_cast<int>(k) == a.split           ? a.chunk
                                                                    : 1);
      json attrs;
      std::vector<std::string> all_dims = dims;
      std::vector<std::int64_t> shape = a.shape, all_chunks = chunks;
      if (!a.timeless) {
        all_dims.insert(all_dims.begin(), "time_counter");
        shape.insert(shape.begin(), 0);
        all_chunks.insert(all_chunks.begin(), 1);
        timed_.push_back(a.dir);
      }
      attrs["_ARRAY_DIMENSIONS"] = all_dims;
      if (!v.standard_name.empty()) attrs["standard_name"] = v.standard_name;
      if (!v.long_name.empty()) attrs["long_name"] = v.long_name;
      if (!v.units.empty()) attrs["units"] = v.units;
      if (!v.operation.empty()) attrs["online_operation"] = v.operation;
      if (!a.timeless && !v.cell_methods.empty()) attrs["cell_methods"] = v.cell_methods;
      if (time_instant_ && static_cast<filters::TemporalOp>(v.op) == filters::TemporalOp::instant)
        coordinates = "time_instant" + (coordinates.empty() ? "" : " " + coordinates);
      if (!coordinates.empty()) attrs["coordinates"] = coordinates;
      if (!grid_mapping.empty()) attrs["grid_mapping"] = grid_mapping;
      for (const output::Attribute& at : v.attributes) put_attribute(attrs, at);
      emit(a.dir + "/.zarray",
           zarray(shape, all_chunks, a.prec == 8 ? "<f8" : "<f4", fill_json(a.fill), a.level, a.prec));
      emit(a.dir + "/.zattrs", attrs);
      arrays_[vi] = std::move(a);
    }
  }
}

void ZarrWriter::write_time_shape(std::int64_t records) {
  for (const std::string& dir : timed_) {
    json z = json::parse(metadata_.at(dir + "/.zarray"));
    z["shape"][0] = records;
    metadata_[dir + "/.zarray"] = z.dump();
    write_json(std::filesystem::path(path_) / dir / ".zarray", z);
  }
}

void ZarrWriter::write_time(std::int64_t record, double end, double start) {
  if (rank_ != 0) return;
  record += base_record_;  // records of a continued store follow its own
  const double t0 = MPI_Wtime();
  const double stamp = centered_ ? 0.5 * (start + end) : end;
  const double bounds[2] = {start, end};
  auto put_time = [&](const std::string& dir, const std::string& key, const void* values, std::size_t bytes) {
    uLongf packed = compressBound(static_cast<uLong>(bytes));
    unsigned char out[64];
    if (packed > sizeof out ||
        compress2(out, &packed, static_cast<const Bytef*>(values), static_cast<uLong>(bytes), 1) != Z_OK)
      throw IoError(path_ + "/" + dir + ": zlib compress2 failed on the time of record " + std::to_string(record));
    write_direct(std::filesystem::path(path_) / dir / key, out, packed);
    disk_bytes_ += packed;
  };
  const std::string key = std::to_string(record);
  for (const std::string& prefix : time_prefixes_) {
    put_time(prefix + "time_counter", key, &stamp, sizeof stamp);
    if (centered_) put_time(prefix + "time_counter_bounds", key + ".0", bounds, sizeof bounds);
    if (time_instant_) put_time(prefix + "time_instant", key, &end, sizeof end);
  }
  if (record + 1 > records_) {
    records_ = record + 1;
    write_time_shape(records_);
  }
  write_seconds_ += MPI_Wtime() - t0;
}

void ZarrWriter::write_chunk(const Array& a, std::int64_t record, std::int64_t outer, std::int64_t chunk,
                             const unsigned char* data, std::size_t bytes) {
  // The chunk's key: record, the index of each dimension before the split
  // one (chunks of 1), the chunk along it, 0 for the whole dimensions after.
  std::string key = a.timeless ? "" : std::to_string(record);
  const int split = a.split < 0 ? static_cast<int>(a.shape.size()) : a.split;
  std::vector<std::int64_t> index(static_cast<std::size_t>(split));
  for (int d = split - 1; d >= 0; --d) {
    index[static_cast<std::size_t>(d)] = outer % a.shape[static_cast<std::size_t>(d)];
    outer /= a.shape[static_cast<std::size_t>(d)];
  }
  auto add = [&](std::int64_t v) { key += (key.empty() ? "" : ".") + std::to_string(v); };
  for (const std::int64_t i : index) add(i);
  if (a.split >= 0) add(chunk);
  for (std::size_t d = static_cast<std::size_t>(split) + 1; d < a.shape.size(); ++d) add(0);
  if (key.empty()) key = "0";
  // Byte shuffle first (byte k of every value, then k + 1): zlib then finds
  // the long runs of equal high bytes: 1.7x faster and a fifth smaller on
  // a smooth field (bench/results/zarr_write.md), as NetCDF's shuffle filter.
  const auto prec = static_cast<std::size_t>(a.prec), n = bytes / prec;
  if (shuffled_.size() < bytes) shuffled_.resize(bytes);
  for (std::size_t k = 0; k < prec; ++k) {
    unsigned char* out = shuffled_.data() + k * n;
    for (std::size_t i = 0; i < n; ++i) out[i] = data[i * prec + k];
  }
  uLongf packed = compressBound(static_cast<uLong>(bytes));
  if (packed_.size() < packed) packed_.resize(packed);
  if (compress2(packed_.data(), &packed, shuffled_.data(), static_cast<uLong>(bytes), a.level) != Z_OK)
    throw IoError(path_ + "/" + a.dir + ": zlib compress2 failed on chunk " + key);
  write_direct(std::filesystem::path(path_) / a.dir / key, packed_.data(), packed);
  disk_bytes_ += packed;
}

void ZarrWriter::put(int variable, std::int64_t record, const grid::Box& box, const void* values) {
  const Array& a = arrays_.at(variable);
  if (!a.timeless) record += base_record_;
  const double t0 = MPI_Wtime();
  const auto* in = static_cast<const unsigned char*>(values);
  const auto prec = static_cast<std::size_t>(a.prec);
  bytes_ += static_cast<std::uint64_t>(box.size()) * prec;
  if (a.split < 0) {  // no domain: one chunk, from the writer that has it
    if (!box.empty()) write_chunk(a, record, 0, 0, in, static_cast<std::size_t>(box.size()) * prec);
    write_seconds_ += MPI_Wtime() - t0;
    return;
  }
  const auto split = static_cast<std::size_t>(a.split);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a.shape.size(); ++d) {
    if (d < split) outer *= a.shape[d];
    if (d > split) inner *= a.shape[d];
    if (d != split && !box.empty() && box.count[d] != a.shape[d])
      throw IoError(path_ + "/" + a.dir + ": a block that splits a dimension other than the domain's (" +
                    std::to_string(box.count[d]) + " of " + std::to_string(a.shape[d]) + ") is not supported");
  }
  const std::int64_t lo = box.empty() ? 0 : box.start[split] - a.offset[split];
  const std::int64_t n = box.empty() ? 0 : box.count[split];
  const std::int64_t c = a.chunk, nchunks = (a.shape[split] + c - 1) / c;
  const std::size_t row = static_cast<std::size_t>(inner) * prec;  // bytes of one step of the split dimension
  // Each chunk has one writer whatever the blocks (contiguous runs of
  // chunks, as the servers' bands): the pieces of a chunk go to it.
  auto owner = [&](std::int64_t chunk) { return static_cast<int>(chunk * size_ / nchunks); };
  std::vector<std::vector<unsigned char>> out(static_cast<std::size_t>(size_));
  for (std::int64_t ch = n > 0 ? lo / c : 0; n > 0 && ch <= (lo + n - 1) / c; ++ch) {
    const std::int64_t from = std::max(lo, ch * c), to = std::min(lo + n, (ch + 1) * c);
    for (std::int64_t o = 0; o < outer; ++o) {
      const unsigned char* p = in + static_cast<std::size_t>(o * n + (from - lo)) * row;
      if (owner(ch) == rank_) {
        place(variable, record, o, ch, from, to, p);
        continue;
      }
      auto& b = out[static_cast<std::size_t>(owner(ch))];
      const std::int64_t header[4] = {ch, o, from, to};
      b.insert(b.end(), reinterpret_cast<const unsigned char*>(header),
               reinterpret_cast<const unsigned char*>(header) + sizeof header);
      b.insert(b.end(), p, p + static_cast<std::size_t>(to - from) * row);
    }
  }
  if (size_ > 1) {
    std::vector<int> send_counts(size_), recv_counts(size_), send_displs(size_, 0), recv_displs(size_, 0);
    std::vector<unsigned char> send;
    for (int r = 0; r < size_; ++r) {
      send_displs[r] = static_cast<int>(send.size());
      send.insert(send.end(), out[static_cast<std::size_t>(r)].begin(), out[static_cast<std::size_t>(r)].end());
      send_counts[r] = static_cast<int>(out[static_cast<std::size_t>(r)].size());
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_);
    for (int r = 1; r < size_; ++r) recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
    scratch_.resize(static_cast<std::size_t>(recv_displs[size_ - 1] + recv_counts[size_ - 1]));
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, scratch_.data(), recv_counts.data(),
                  recv_displs.data(), MPI_BYTE, comm_);
    for (std::size_t at = 0; at < scratch_.size();) {
      std::int64_t header[4];
      std::memcpy(header, scratch_.data() + at, sizeof header);
      at += sizeof header;
      place(variable, record, header[1], header[0], header[2], header[3], scratch_.data() + at);
      at += static_cast<std::size_t>(header[3] - header[2]) * row;
    }
  }
  write_seconds_ += MPI_Wtime() - t0;
}

void ZarrWriter::place(int variable, std::int64_t record, std::int64_t outer, std::int64_t chunk, std::int64_t from,
                       std::int64_t to, const unsigned char* data) {
  const Array& a = arrays_.at(variable);
  const auto split = static_cast<std::size_t>(a.split);
  std::int64_t inner = 1;
  for (std::size_t d = split + 1; d < a.shape.size(); ++d) inner *= a.shape[d];
  const std::size_t row = static_cast<std::size_t>(inner) * static_cast<std::size_t>(a.prec);
  auto [it, fresh] = pending_.try_emplace(PendingKey{variable, record, outer, chunk});
  Pending& p = it->second;
  if (fresh) {  // padded with the fill value past the end of the array, as Zarr stores edge chunks
    p.bytes.resize(static_cast<std::size_t>(a.chunk) * row);
    const float fill4 = static_cast<float>(a.fill);
    for (std::size_t k = 0; k < p.bytes.size(); k += static_cast<std::size_t>(a.prec))
      std::memcpy(p.bytes.data() + k, a.prec == 8 ? static_cast<const void*>(&a.fill) : &fill4,
                  static_cast<std::size_t>(a.prec));
  }
  std::memcpy(p.bytes.data() + static_cast<std::size_t>(from - chunk * a.chunk) * row, data,
              static_cast<std::size_t>(to - from) * row);
  p.filled += to - from;
  const std::int64_t expected = std::min(a.chunk, a.shape[split] - chunk * a.chunk);
  if (p.filled < expected) return;  // more pieces to come (or never: written at close with the fill value)
  write_chunk(a, record, outer, chunk, p.bytes.data(), p.bytes.size());
  pending_.erase(it);
}

void ZarrWriter::close() {
  // Chunks some points of which no writer received (regional grids written
  // attached): what was received, the fill value elsewhere.
  for (const auto& [key, p] : pending_)
    write_chunk(arrays_.at(key.variable), key.record, key.outer, key.chunk, p.bytes.data(), p.bytes.size());
  pending_.clear();
  if (rank_ != 0) return;
  // Consolidated metadata (zarr.consolidate_metadata's .zmetadata), so that
  // readers open the store with one read.
  json all = json::object();
  for (const auto& [key, text] : metadata_) all[key] = json::parse(text);
  write_json(std::filesystem::path(path_) / ".zmetadata", {{"zarr_consolidated_format", 1}, {"metadata", all}});
}

}  // namespace zarr
}  // namespace foehn::formats
