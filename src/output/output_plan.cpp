#include "output/output_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <type_traits>

#include "grid/healpix.h"
#include "output/plan_fields.h"
#include "transport/wire.h"

namespace foehn::output {

std::vector<std::int64_t> ContextPlan::shape(const VariableInfo& v) const {
  std::vector<std::int64_t> s;
  for (const Dim& d : v.dims) {
    if (d.kind == Dim::domain_j)
      s.push_back(domains[d.index].nj_glo);
    else if (d.kind == Dim::domain_i)
      s.push_back(domains[d.index].ni_glo);
    else
      s.push_back(static_cast<std::int64_t>(axes[d.index].values.size()));
  }
  return s;
}

int ContextPlan::split_dim(const VariableInfo& v) const {
  for (size_t k = 0; k < v.dims.size(); ++k)
    if (v.dims[k].kind == Dim::domain_j) return static_cast<int>(k);
  for (size_t k = 0; k < v.dims.size(); ++k)
    if (v.dims[k].kind == Dim::domain_i && domains[v.dims[k].index].one_dimensional()) return static_cast<int>(k);
  return 0;
}

ContextPlan::Layout ContextPlan::layout(const VariableInfo& v) const {
  Layout l;
  const auto s = shape(v);
  bool after = false;  // past the domain's dimensions
  for (size_t k = 0; k < v.dims.size(); ++k) {
    if (v.dims[k].kind != Dim::axis) {
      l.domain = v.dims[k].index;
      after = true;
    } else if (after) {
      l.inner *= s[k];
    } else {
      l.outer *= s[k];
    }
  }
  if (l.domain < 0) l.inner = l.outer, l.outer = 1;
  return l;
}

calendar::Calendar ContextPlan::make_calendar() const {
  const calendar::CalendarType type = calendar::parse_calendar_type(calendar);
  if (type != calendar::CalendarType::user_defined) return calendar::Calendar(type);
  if (user_calendar.size() != 15) throw calendar::TimeError("plan: a user_defined calendar needs 15 numbers");
  calendar::UserCalendar user;
  for (std::size_t k = 0; k < 12; ++k) user.month_lengths[k] = static_cast<int>(user_calendar[k]);
  user.leap_year_month = static_cast<int>(user_calendar[12]);
  user.leap_year_drift = user_calendar[13];
  user.leap_year_drift_offset = user_calendar[14];
  return calendar::Calendar(user);
}

std::vector<std::int64_t> ContextPlan::sent_points(int domain, int client) const {
  const DomainInfo& d = domains.at(domain);
  if (!d.points.empty() && !d.points.at(client).dense) return d.points[client].sent;
  const LocalBlock& b = d.clients.at(client);
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(b.ni * b.nj));
  for (std::int64_t j = b.jbegin; j < b.jbegin + b.nj; ++j)
    for (std::int64_t i = b.ibegin; i < b.ibegin + b.ni; ++i) out.push_back(j * d.ni_glo + i);
  return out;
}

LocalBlock ContextPlan::server_extent(int domain, int server, int nservers) const {
  const DomainInfo& d = domains.at(domain);
  if (d.one_dimensional()) {
    const grid::Box r = grid::server_slab({d.ni_glo}, 0, server, nservers);
    return {r.start[0], r.count[0], 0, r.count[0] ? 1 : 0};
  }
  const grid::Box band = grid::server_slab({d.nj_glo, d.ni_glo}, 0, server, nservers);
  return {0, band.count[0] ? d.ni_glo : 0, band.start[0], band.count[0]};
}

bool ContextPlan::has_domain(const VariableInfo& v) const {
  for (const Dim& d : v.dims)
    if (d.kind != Dim::axis) return true;
  return false;
}

namespace {
// A box of a variable that holds none of it. A 0-d variable (a scalar)
// gets one dimension of count 0, since a box of no dimension holds a value.
grid::Box nothing_of(std::size_t rank) {
  const std::size_t n = std::max<std::size_t>(rank, 1);
  return {std::vector<std::int64_t>(n, 0), std::vector<std::int64_t>(n, 0)};
}
}  // namespace

grid::Box ContextPlan::server_block(const VariableInfo& v, int server, int nservers) const {
  const auto s = shape(v);
  if (has_domain(v)) return grid::server_slab(s, split_dim(v), server, nservers);
  if (server != 0) return nothing_of(s.size());
  return {std::vector<std::int64_t>(s.size(), 0), s};
}

bool ContextPlan::decomposed_axes(const VariableInfo& v) const {
  for (const Dim& d : v.dims)
    if (d.kind == Dim::axis && axes[d.index].decomposed()) return true;
  return false;
}

grid::Box ContextPlan::client_box(const VariableInfo& v, int client) const {
  if (!has_domain(v) && !decomposed_axes(v) && client != 0) return nothing_of(v.dims.size());
  grid::Box b;
  for (const Dim& d : v.dims) {
    if (d.kind == Dim::axis) {
      const AxisInfo& a = axes[d.index];
      if (!a.decomposed()) {
        b.start.push_back(0);
        b.count.push_back(a.size());
        continue;
      }
      const auto& part = a.parts.at(client);
      if (part.empty()) return nothing_of(v.dims.size());
      const auto [lo, hi] = std::minmax_element(part.begin(), part.end());
      b.start.push_back(*lo);
      b.count.push_back(*hi - *lo + 1);
      continue;
    }
    const LocalBlock& blk = domains[d.index].clients[client];
    b.start.push_back(d.kind == Dim::domain_j ? blk.jbegin : blk.ibegin);
    b.count.push_back(d.kind == Dim::domain_j ? blk.nj : blk.ni);
  }
  return b;
}

std::vector<std::int64_t> ContextPlan::axis_positions(const VariableInfo& v, int client, const grid::Box& box,
                                                      std::size_t first, std::size_t last) const {
  // C order, slowest dimension first: the last dimension (the grid's first
  // axis) varies fastest, as in the client's data.
  std::vector<std::int64_t> out{0};
  for (std::size_t k = first; k < last; ++k) {
    const AxisInfo& a = axes[v.dims[k].index];
    std::vector<std::int64_t> next;
    const std::int64_t n = a.decomposed() ? static_cast<std::int64_t>(a.parts.at(client).size()) : a.size();
    next.reserve(out.size() * static_cast<std::size_t>(n));
    for (const std::int64_t p : out)
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t g = a.decomposed() ? a.parts[client][static_cast<std::size_t>(i)] : i;
        next.push_back(p * box.count[k] + g - box.start[k]);
      }
    out = std::move(next);
  }
  return out;
}

std::vector<std::vector<std::int64_t>> ContextPlan::split_by_server(int domain, const std::vector<std::int64_t>& points,
                                                                    int nservers) const {
  std::vector<std::int64_t> first(static_cast<std::size_t>(nservers), 0);  // first global index of each range
  for (int s = 0; s < nservers; ++s) {
    const LocalBlock e = server_extent(domain, s, nservers);
    first[static_cast<std::size_t>(s)] =
        e.ni * e.nj > 0 ? e.jbegin * domains[domain].ni_glo + e.ibegin : domains[domain].size();
  }
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(nservers));
  for (std::size_t p = 0; p < points.size(); ++p) {
    if (points[p] < 0) continue;
    const auto s = std::upper_bound(first.begin(), first.end(), points[p]) - first.begin() - 1;
    out[static_cast<std::size_t>(s)].push_back(static_cast<std::int64_t>(p));
  }
  return out;
}

std::string reduced_rows(const DomainInfo& d, ReducedRows& rows) {
  rows = {};
  const std::string what = "domain '" + d.id + "': convention=\"CDI\" ";
  if (d.lat.size() != static_cast<std::size_t>(d.size()) || d.lat.empty())
    return what + "needs the latitude of each of its " + std::to_string(d.size()) + " points, has " +
           std::to_string(d.lat.size());
  for (std::size_t g = 0; g < d.lat.size(); ++g) {
    if (g > 0 && d.lat[g] == d.lat[g - 1]) {
      ++rows.points.back();
      continue;
    }
    // A new row: CDI's rows go from north to south, as foehn numbers them.
    if (g > 0 && !(d.lat[g] < d.lat[g - 1]))
      return what +
             "needs the points row by row from the north (rows of equal latitude), but the latitude rises "
             "from " +
             std::to_string(d.lat[g - 1]) + " to " + std::to_string(d.lat[g]) + " at point " + std::to_string(g);
    rows.lat.push_back(d.lat[g]);
    rows.points.push_back(1);
  }
  if (rows.lat.size() % 2 != 0)
    return what + "needs an even number of latitude rows (2N), the points have " + std::to_string(rows.lat.size());
  return "";
}

std::string assemble_domain(DomainInfo& d, const std::vector<ClientPart>& parts, bool shared) {
  const bool all_dense = std::all_of(parts.begin(), parts.end(), [](const ClientPart& p) { return p.dense; });
  DomainAssembler assembler(d, parts.size(), all_dense, shared);
  for (std::size_t r = 0; r < parts.size(); ++r)
    if (std::string e = assembler.add(r, parts[r]); !e.empty()) return e;
  return assembler.finish();
}

namespace {
std::string point_name(std::int64_t ni_glo, std::int64_t g) {
  return "the point (i " + std::to_string(g % ni_glo) + ", j " + std::to_string(g / ni_glo) + ")";
}
}  // namespace

std::string clash_message(const std::string& domain, std::int64_t ni_glo, std::int64_t g, std::int64_t first,
                          std::int64_t second) {
  return "domain '" + domain + "': " + point_name(ni_glo, g) + " is held by model ranks " + std::to_string(first) +
         " and " + std::to_string(second) + "; every point needs one owner (halo points belong in the data layout)";
}

std::string hole_message(const std::string& domain, std::int64_t ni_glo, std::int64_t g) {
  return "domain '" + domain + "': no model rank holds " + point_name(ni_glo, g) +
         "; every point needs one owner (a mask marks points without data)";
}

DomainAssembler::DomainAssembler(DomainInfo& d, std::size_t nparts, bool all_dense, bool shared)
    : d_(d), all_dense_(all_dense), shared_(shared), owner_(static_cast<std::size_t>(d.size()), -1) {
  const bool rect = d.type == "rectilinear";
  const std::int64_t nv = d.nvertex;
  const auto nlon = static_cast<std::size_t>(rect ? d.ni_glo : d.size());
  const auto nlat = static_cast<std::size_t>(rect ? d.nj_glo : d.size());
  d.lon.assign(nlon, std::nan(""));
  d.lat.assign(nlat, std::nan(""));
  d.bounds_lon.assign(nv ? nlon * nv : 0, std::nan(""));
  d.bounds_lat.assign(nv ? nlat * nv : 0, std::nan(""));
  d.points.assign(all_dense ? 0 : nparts, {});
}

std::string DomainAssembler::add(std::size_t r, const ClientPart& p) {
  DomainInfo& d = d_;
  const bool rect = d.type == "rectilinear";
  const std::int64_t nv = d.nvertex;
  // Coordinates value by value: k-th value of a part goes to global entry at(k).
  auto place = [&](std::vector<double>& dst, std::vector<double>& bdst, const double* src, const double* bsrc,
                   std::int64_t n, auto at) {
    for (std::int64_t k = 0; k < n; ++k) {
      const auto g = static_cast<std::size_t>(at(k));
      dst[g] = src[k];
      for (std::int64_t v = 0; v < nv; ++v) bdst[g * nv + v] = bsrc[k * nv + v];
    }
  };
  std::vector<std::int64_t> owned;
  if (p.by_index) {
    owned.assign(p.owned, p.owned + p.n_owned);
  } else {
    for (std::int64_t j = p.extent.jbegin; j < p.extent.jbegin + p.extent.nj; ++j)
      for (std::int64_t i = p.extent.ibegin; i < p.extent.ibegin + p.extent.ni; ++i) owned.push_back(j * d.ni_glo + i);
  }
  for (const std::int64_t g : owned) {
    int& o = owner_[static_cast<std::size_t>(g)];
    if (o >= 0 && !shared_) return clash_message(d.id, d.ni_glo, g, o, static_cast<std::int64_t>(r));
    o = static_cast<int>(r);
  }
  if (rect) {  // a longitude per column, a latitude per row (per point for index lists)
    place(d.lon, d.bounds_lon, p.lon, p.bounds_lon, p.n_lon,
          [&](std::int64_t k) { return p.by_index ? owned[k] % d.ni_glo : p.extent.ibegin + k; });
    place(d.lat, d.bounds_lat, p.lat, p.bounds_lat, p.n_lat,
          [&](std::int64_t k) { return p.by_index ? owned[k] / d.ni_glo : p.extent.jbegin + k; });
  } else {
    place(d.lon, d.bounds_lon, p.lon, p.bounds_lon, p.n_lon, [&](std::int64_t k) { return owned[k]; });
    place(d.lat, d.bounds_lat, p.lat, p.bounds_lat, p.n_lat, [&](std::int64_t k) { return owned[k]; });
  }
  if (all_dense_) return "";
  ClientPoints& cp = d.points[r];
  cp.dense = p.dense;
  cp.sent.assign(p.sent, p.sent + p.n_sent);
  if (p.by_index) cp.owned = std::move(owned);
  return "";
}

std::string DomainAssembler::finish() {
  DomainInfo& d = d_;
  const auto hole = std::find(owner_.begin(), owner_.end(), -1);
  const bool holes = hole != owner_.end();
  const std::int64_t first_hole = hole - owner_.begin();
  std::vector<int>().swap(owner_);
  if (d.type == "healpix") {  // regional subsets: cells no rank holds are fill; the geometry is foehn's
    if (holes) d.needs_fill = true;
    healpix_geometry(d);
    return "";
  }
  if (holes) return hole_message(d.id, d.ni_glo, first_hole);
  return "";
}

void healpix_geometry(DomainInfo& d) {
  const auto n = static_cast<std::size_t>(d.size());
  d.nvertex = 4;
  d.lon.resize(n), d.lat.resize(n), d.bounds_lon.resize(4 * n), d.bounds_lat.resize(4 * n);
  for (std::size_t g = 0; g < n; ++g)
    grid::healpix_cell(d.healpix_level, d.healpix_nested, static_cast<std::int64_t>(g), d.lon[g], d.lat[g],
                       &d.bounds_lon[4 * g], &d.bounds_lat[4 * g]);
}

std::string check_axes_cover(const ContextPlan& plan, const VariableInfo& v) {
  const auto shape = plan.shape(v);
  const grid::Box whole{std::vector<std::int64_t>(shape.size(), 0), shape};
  std::vector<int> holder(static_cast<std::size_t>(whole.size()), -1);
  // A value's name: its index on each axis, the grid's first axis first.
  auto value = [&](std::int64_t flat) {
    std::string text;
    for (std::size_t k = shape.size(); k-- > 0;) {
      std::int64_t rest = flat, stride = 1;
      for (std::size_t m = k + 1; m < shape.size(); ++m) stride *= shape[m];
      rest = (flat / stride) % shape[k];
      text += (text.empty() ? "" : ", ") + plan.axes[v.dims[k].index].id + " " + std::to_string(rest);
    }
    return "(" + text + ")";
  };
  for (std::size_t c = 0; c < plan.client_ranks.size(); ++c)
    for (const std::int64_t p : plan.axis_positions(v, static_cast<int>(c), whole)) {
      int& h = holder[static_cast<std::size_t>(p)];
      if (h >= 0)
        return "field '" + v.field_id + "': the value " + value(p) + " is held by model ranks " + std::to_string(h) +
               " and " + std::to_string(c) + "; the ranks' parts of the axes must not overlap";
      h = static_cast<int>(c);
    }
  if (auto hole = std::find(holder.begin(), holder.end(), -1); hole != holder.end())
    return "field '" + v.field_id + "': no model rank holds the value " + value(hole - holder.begin()) + " of its axes";
  return "";
}

std::string check_shared_points(const ContextPlan& plan, const VariableInfo& v,
                                const std::vector<std::vector<int>>& holders) {
  // The variable's axes alone, and the value of each client's parts in them.
  VariableInfo axes_only;
  axes_only.field_id = v.field_id;
  for (const Dim& d : v.dims)
    if (d.kind == Dim::axis) axes_only.dims.push_back(d);
  const auto shape = plan.shape(axes_only);
  const grid::Box whole{std::vector<std::int64_t>(shape.size(), 0), shape};
  std::vector<std::vector<std::int64_t>> part(plan.client_ranks.size());
  for (std::size_t c = 0; c < part.size(); ++c) part[c] = plan.axis_positions(axes_only, static_cast<int>(c), whole);
  // Points held by the same clients are checked once.
  std::map<std::vector<int>, bool> checked;
  const DomainInfo* dom = nullptr;
  for (const Dim& d : v.dims)
    if (d.kind != Dim::axis) dom = &plan.domains[d.index];
  std::vector<int> holder(static_cast<std::size_t>(whole.size()));
  for (std::size_t g = 0; g < holders.size(); ++g) {
    if (holders[g].empty() || !checked.emplace(holders[g], true).second) continue;
    const std::string point = "at the point (i " + std::to_string(static_cast<std::int64_t>(g) % dom->ni_glo) + ", j " +
                              std::to_string(static_cast<std::int64_t>(g) / dom->ni_glo) + ")";
    std::fill(holder.begin(), holder.end(), -1);
    for (const int c : holders[g])
      for (const std::int64_t p : part[static_cast<std::size_t>(c)]) {
        int& h = holder[static_cast<std::size_t>(p)];
        if (h >= 0)
          return "field '" + v.field_id + "': " + point + ", model ranks " + std::to_string(h) + " and " +
                 std::to_string(c) +
                 " hold the same values of its axes; ranks holding the same points must split the axes";
        h = c;
      }
    if (std::find(holder.begin(), holder.end(), -1) != holder.end())
      return "field '" + v.field_id + "': " + point + ", no model rank holds some values of its axes (the ranks " +
             "holding the point must together hold the whole axes)";
  }
  return "";
}

bool FileInfo::has_convention(std::string_view word) const {
  std::istringstream in(convention);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

std::string file_clash(const ContextPlan& mine, const ContextPlan& other) {
  for (const FileInfo& f : mine.files)
    for (const FileInfo& g : other.files)
      if (f.base_path == g.base_path && f.format == g.format)
        return "file '" + f.id + "' of context '" + mine.context_id + "' (" + f.defined_at + ") writes '" +
               f.base_path + "', as file '" + g.id + "' of context '" + other.context_id + "' (" + g.defined_at +
               "), open at the same time, does: give one of them another name";
  return "";
}

using transport::WireReader;
using transport::WireWriter;

namespace {
// The plan's archives for the field lists of plan_fields.h: booleans travel
// as one byte, vectors as their length and elements, structs as their fields.
class PlanWriter {
 public:
  explicit PlanWriter(WireWriter& w) : w_(w) {}
  template <class... T>
  void operator()(const T&... values) {
    (put(values), ...);
  }

 private:
  void put(bool b) { w_.put<std::uint8_t>(b ? 1 : 0); }
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T v) { w_.put(v); }
  void put(const std::string& s) { w_.put(s); }
  template <class T>
  void put(const std::vector<T>& list) {
    w_.put<std::uint64_t>(list.size());
    for (const auto& x : list) put(x);
  }
  // fields() takes its struct by non-const reference so that readers can
  // share it; this writer only reads through it.
  template <class T>
  requires std::is_class_v<T>
  void put(const T& s) { fields(*this, const_cast<T&>(s)); }
  WireWriter& w_;
};

class PlanReader {
 public:
  explicit PlanReader(WireReader& r) : r_(r) {}
  template <class... T>
  void operator()(T&... values) {
    (get(values), ...);
  }

 private:
  void get(bool& b) {
    std::uint8_t byte = 0;
    r_.get(byte);
    b = byte != 0;
  }
  template <class T>
  requires std::is_arithmetic_v<T>
  void get(T& v) { r_.get(v); }
  void get(std::string& s) { r_.get(s); }
  template <class T>
  void get(std::vector<T>& list) {
    std::uint64_t n = 0;
    r_.get(n);
    // Every element takes at least one byte: a longer list is corrupt, and
    // is refused before it is allocated.
    if (n > r_.remaining()) throw transport::WireError("corrupt plan: list longer than the message");
    list.resize(n);
    for (auto& x : list) get(x);
  }
  template <class T>
  requires std::is_class_v<T>
  void get(T& s) { fields(*this, s); }
  WireReader& r_;
};

// Room for the coordinates and point lists, nearly all of a plan, so that
// the buffer does not double (and copy) on its way up.
std::size_t estimated_size(const ContextPlan& p) {
  std::size_t big = std::size_t{1} << 20;
  for (const auto& d : p.domains) {
    big += 8 * (d.lon.size() + d.lat.size() + d.bounds_lon.size() + d.bounds_lat.size());
    for (const auto& c : d.points) big += 8 * c.sent.size() + 16;
  }
  for (const auto& a : p.axes) {
    big += 8 * (a.values.size() + a.bounds.size());
    for (const auto& part : a.parts) big += 8 * part.size() + 8;
  }
  return big;
}
}  // namespace

std::vector<char> encode(const ContextPlan& p) {
  WireWriter w;
  w.reserve(estimated_size(p));
  PlanWriter{w}(p);
  return w.take();
}

ContextPlan decode_plan(const char* data, std::size_t size) {
  WireReader r(data, size);
  ContextPlan p;
  PlanReader{r}(p);
  if (!r.at_end()) throw transport::WireError("corrupt plan: trailing bytes");
  return p;
}

}  // namespace foehn::output
