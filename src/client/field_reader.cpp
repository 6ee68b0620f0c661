// Reading fields into the model (field_reader.h): the box of each rank's
// part and the place of each local value in it are computed once; a read
// is one hyperslab and one pass over the local values.
#include "client/field_reader.h"

#include <algorithm>
#include <limits>

#include "client/errors.h"
#include "formats/writer.h"

namespace foehn::client {

namespace {

// One component of the grid in the local data's order: the global index
// along each of its file dimensions (one, or two for a 2-D domain) of each
// of its local values, -1 for a value not read.
struct Part {
  std::vector<std::vector<std::int64_t>> index;  // [file dimension][local value]
  std::vector<std::int64_t> length;              // global length of each file dimension
  std::vector<std::string> text;
  std::size_t values = 0;
};

std::vector<Part> grid_parts(const std::vector<output::Dim>& dims, const output::ContextPlan& plan,
                             const ModelSettings& settings) {
  std::vector<Part> parts;
  bool domain = false;
  for (const output::Dim& d : dims) {
    Part p;
    if (d.kind == output::Dim::axis) {
      const output::AxisInfo& a = plan.axes[static_cast<std::size_t>(d.index)];
      const AxisSetting& s = settings.axes.at(a.id);
      std::vector<std::int64_t> idx;
      if (s.decomposed) {
        idx = s.index;
      } else {
        for (std::int64_t i = 0; i < s.local; ++i) idx.push_back(i);
      }
      p.values = idx.size();
      p.index.push_back(std::move(idx));
      p.length.push_back(a.size());
      p.text.push_back("axis '" + a.id + "'");
    } else {
      if (domain) continue;  // the domain's second dimension: its data points hold both
      domain = true;
      const output::DomainInfo& dom = plan.domains[static_cast<std::size_t>(d.index)];
      const std::vector<std::int64_t>& data = settings.domains.at(dom.id).data;
      p.values = data.size();
      if (dom.one_dimensional()) {
        p.index.push_back(data);
        p.length.push_back(dom.size());
        p.text.push_back("domain '" + dom.id + "' points");
      } else {
        std::vector<std::int64_t> j(data.size()), i(data.size());
        for (std::size_t k = 0; k < data.size(); ++k) {
          j[k] = data[k] < 0 ? -1 : data[k] / dom.ni_glo;
          i[k] = data[k] < 0 ? -1 : data[k] % dom.ni_glo;
        }
        p.index = {std::move(j), std::move(i)};
        p.length = {dom.nj_glo, dom.ni_glo};
        p.text = {"domain '" + dom.id + "' j", "domain '" + dom.id + "' i"};
      }
    }
    parts.push_back(std::move(p));
  }
  return parts;
}

}  // namespace

FieldReader::FieldReader(std::vector<ReadField> reads, const output::ContextPlan& plan, const ModelSettings& settings,
                         const calendar::Calendar& calendar)
    : calendar_(&calendar) {
  for (ReadField& r : reads) {
    Entry e;
    const std::vector<Part> parts = grid_parts(r.dims, plan, settings);
    std::size_t local = 1;
    for (const Part& p : parts) local *= p.values;
    if (static_cast<std::int64_t>(local) != r.local_size)
      fail(FOEHN_ERR_INTERNAL, r.defined_at + ": field '" + r.id + "': the grid's parts hold " + std::to_string(local) +
                                   " values, its data layout " + std::to_string(r.local_size) + " (please report it)");
    // The box: the smallest and largest index read along each dimension.
    std::vector<std::int64_t> lo, hi;
    for (const Part& p : parts)
      for (std::size_t d = 0; d < p.index.size(); ++d) {
        std::int64_t a = std::numeric_limits<std::int64_t>::max(), b = -1;
        for (std::int64_t g : p.index[d])
          if (g >= 0) a = std::min(a, g), b = std::max(b, g);
        lo.push_back(b < 0 ? 0 : a);
        hi.push_back(b);
        e.file_length.push_back(static_cast<std::size_t>(p.length[d]));
        e.dim_text.push_back(p.text[d]);
      }
    bool empty = local == 0;
    for (std::size_t d = 0; d < lo.size(); ++d) empty = empty || hi[d] < lo[d];
    e.box_size = empty ? 0 : 1;
    for (std::size_t d = 0; d < lo.size(); ++d) {
      e.box_start.push_back(static_cast<std::size_t>(lo[d]));
      e.box_count.push_back(empty ? 0 : static_cast<std::size_t>(hi[d] - lo[d] + 1));
      e.box_size *= e.box_count.back();
    }
    // Each part's offset in the box, then the local values in C order of
    // the parts (the last fastest), as the data are laid out.
    e.offset.assign(empty ? 0 : local, 0);
    std::size_t stride_local = 1, dim = lo.size();
    std::int64_t stride_box = 1;
    for (auto p = parts.rbegin(); !empty && p != parts.rend(); ++p) {
      std::vector<std::int64_t> own(p->values, 0);
      for (std::size_t d = p->index.size(); d-- > 0;) {
        --dim;
        for (std::size_t k = 0; k < p->values; ++k) {
          const std::int64_t g = p->index[d][k];
          own[k] = (own[k] < 0 || g < 0) ? -1 : own[k] + (g - lo[dim]) * stride_box;
        }
        stride_box *= static_cast<std::int64_t>(e.box_count[dim]);
      }
      for (std::size_t i = 0; i < local; ++i) {
        std::int64_t& o = e.offset[i];
        const std::int64_t mine = own[(i / stride_local) % p->values];
        o = (o < 0 || mine < 0) ? -1 : o + mine;
      }
      stride_local *= p->values;
    }
    e.def = std::move(r);
    index_.emplace(e.def.id, entries_.size());
    entries_.push_back(std::move(e));
  }
}

std::string FieldReader::where(const Entry& e) const {
  return e.def.defined_at + ": field '" + e.def.id + "' (variable '" + e.def.variable + "' of file '" + e.def.path +
         "')";
}

bool FieldReader::is_due(const std::string& field_id, std::int64_t now) const {
  const Entry& e = entries_[index_.at(field_id)];
  return e.def.schedule->instant(e.def.schedule->first_at_or_after(now)) == now;
}

void FieldReader::open(Entry& e) {
  auto it = files_.find(e.def.path);
  if (it == files_.end()) {
    try {
      it = files_.emplace(e.def.path, formats::netcdf::NcDataset::open_for_reading(e.def.path)).first;
    } catch (const formats::IoError& x) {
      fail(FOEHN_ERR_IO,
           e.def.defined_at + ": field '" + e.def.id + "' of read file '" + e.def.file_id + "': " + x.what());
    }
  }
  const formats::netcdf::NcDataset& ds = it->second;
  const auto var = ds.find_var(e.def.variable);
  if (!var) fail(FOEHN_ERR_IO, where(e) + ": the file has no such variable");
  e.varid = *var;
  const std::vector<int> dims = ds.var_dims(e.varid);
  const std::size_t grid_dims = e.file_length.size();
  // A variable of the grid's dimensions, with a record dimension first or
  // without one (then every read gives the same values).
  auto expected = [&] {
    std::string s;
    for (const std::string& t : e.dim_text) s += (s.empty() ? "" : ", ") + t;
    return "expected (time, " + s + ") or (" + s + ")";
  };
  if (dims.size() != grid_dims + 1 && dims.size() != grid_dims)
    fail(FOEHN_ERR_IO, where(e) + ": the variable has " + std::to_string(dims.size()) + " dimensions, " + expected());
  e.has_record = dims.size() == grid_dims + 1;
  const std::size_t first = e.has_record ? 1 : 0;
  for (std::size_t d = 0; d < grid_dims; ++d) {
    const std::size_t n = ds.dim_length(dims[first + d]);
    if (n != e.file_length[d])
      fail(FOEHN_ERR_IO, where(e) + ": dimension '" + ds.dim_name(dims[first + d]) + "' has " + std::to_string(n) +
                             " values where the model's " + e.dim_text[d] + " has " + std::to_string(e.file_length[d]) +
                             " (" + expected() + ")");
  }
  e.records = e.has_record ? ds.dim_length(dims[0]) : 1;
  e.opened = true;
}

template <class T>
void FieldReader::read(const std::string& field_id, std::int64_t now, T* data, std::size_t n) {
  Entry& e = entries_[index_.at(field_id)];
  if (n != static_cast<std::size_t>(e.def.local_size))
    fail(FOEHN_ERR_ARGUMENT, "foehn_read: field '" + field_id + "' expects " + std::to_string(e.def.local_size) +
                                 " values (" + e.def.shape_text + "), given " + std::to_string(n));
  if (n > 0 && !data) fail(FOEHN_ERR_ARGUMENT, "foehn_read: field '" + field_id + "': data is NULL");
  const calendar::Schedule& schedule = *e.def.schedule;
  const std::int64_t k = schedule.first_at_or_after(now);
  if (schedule.instant(k) != now)
    fail(FOEHN_ERR_STATE, where(e) + ": nothing is read at " + calendar::format_date(calendar_->to_date(now)) +
                              ": records are read at the file's output_freq from the start date (the next at " +
                              calendar::format_date(calendar_->to_date(schedule.instant(k))) +
                              "; foehn_field_is_active says when)");
  if (!e.opened) open(e);
  if (e.has_record && static_cast<std::size_t>(k) >= e.records)
    fail(FOEHN_ERR_IO, where(e) + ": record " + std::to_string(k) + " (" +
                           calendar::format_date(calendar_->to_date(now)) + ") is missing: the file has " +
                           std::to_string(e.records) + " record" + (e.records == 1 ? "" : "s"));
  if (e.box_size == 0) return;  // this rank holds nothing of the grid
  std::vector<std::size_t> start, count;
  if (e.has_record) start.push_back(static_cast<std::size_t>(k)), count.push_back(1);
  start.insert(start.end(), e.box_start.begin(), e.box_start.end());
  count.insert(count.end(), e.box_count.begin(), e.box_count.end());
  box_.resize(e.box_size);
  try {
    files_.at(e.def.path).get(e.varid, start.data(), count.data(), box_.data());
  } catch (const formats::IoError& x) {
    fail(FOEHN_ERR_IO, where(e) + ", record " + std::to_string(k) + ": " + x.what());
  }
  for (std::size_t i = 0; i < n; ++i)
    if (const std::int64_t o = e.offset[i]; o >= 0) data[i] = static_cast<T>(box_[static_cast<std::size_t>(o)]);
}

template void FieldReader::read<float>(const std::string&, std::int64_t, float*, std::size_t);
template void FieldReader::read<double>(const std::string&, std::int64_t, double*, std::size_t);

}  // namespace foehn::client
