#include "output/output_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "transport/wire.h"

namespace foehn::output {

std::vector<std::int64_t> ContextPlan::shape(const VariableInfo& v) const {
  std::vector<std::int64_t> s;
  for (const Dim& d : v.dims) {
    if (d.kind == Dim::domain_j) s.push_back(domains[d.index].nj_glo);
    else if (d.kind == Dim::domain_i) s.push_back(domains[d.index].ni_glo);
    else s.push_back(static_cast<std::int64_t>(axes[d.index].values.size()));
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
    first[static_cast<std::size_t>(s)] = e.ni * e.nj > 0 ? e.jbegin * domains[domain].ni_glo + e.ibegin : domains[domain].size();
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
      return what + "needs the points row by row from the north (rows of equal latitude), but the latitude rises "
                    "from " + std::to_string(d.lat[g - 1]) + " to " + std::to_string(d.lat[g]) + " at point " +
             std::to_string(g);
    rows.lat.push_back(d.lat[g]);
    rows.points.push_back(1);
  }
  if (rows.lat.size() % 2 != 0)
    return what + "needs an even number of latitude rows (2N), the points have " + std::to_string(rows.lat.size());
  return "";
}

std::string assemble_domain(DomainInfo& d, const std::vector<ClientPart>& parts, bool shared) {
  const bool rect = d.type == "rectilinear";
  const std::int64_t nv = d.nvertex;
  const auto nlon = static_cast<std::size_t>(rect ? d.ni_glo : d.size());
  const auto nlat = static_cast<std::size_t>(rect ? d.nj_glo : d.size());
  d.lon.assign(nlon, std::nan(""));
  d.lat.assign(nlat, std::nan(""));
  d.bounds_lon.assign(nv ? nlon * nv : 0, std::nan(""));
  d.bounds_lat.assign(nv ? nlat * nv : 0, std::nan(""));
  const bool all_dense = std::all_of(parts.begin(), parts.end(), [](const ClientPart& p) { return p.dense; });
  d.points.assign(all_dense ? 0 : parts.size(), {});
  auto where = [&](std::int64_t g) { return "the point (i " + std::to_string(g % d.ni_glo) + ", j " + std::to_string(g / d.ni_glo) + ")"; };
  // Coordinates value by value: k-th value of a part goes to global entry at(k).
  auto place = [&](std::vector<double>& dst, std::vector<double>& bdst, const double* src, const double* bsrc,
                   std::int64_t n, auto at) {
    for (std::int64_t k = 0; k < n; ++k) {
      const auto g = static_cast<std::size_t>(at(k));
      dst[g] = src[k];
      for (std::int64_t v = 0; v < nv; ++v) bdst[g * nv + v] = bsrc[k * nv + v];
    }
  };
  std::vector<int> owner(static_cast<std::size_t>(d.size()), -1);
  for (std::size_t r = 0; r < parts.size(); ++r) {
    const ClientPart& p = parts[r];
    std::vector<std::int64_t> owned;
    if (p.by_index) {
      owned.assign(p.owned, p.owned + p.n_owned);
    } else {
      for (std::int64_t j = p.extent.jbegin; j < p.extent.jbegin + p.extent.nj; ++j)
        for (std::int64_t i = p.extent.ibegin; i < p.extent.ibegin + p.extent.ni; ++i) owned.push_back(j * d.ni_glo + i);
    }
    for (const std::int64_t g : owned) {
      int& o = owner[static_cast<std::size_t>(g)];
      if (o >= 0 && !shared)
        return "domain '" + d.id + "': " + where(g) + " is held by model ranks " + std::to_string(o) + " and " +
               std::to_string(r) + "; every point needs one owner (halo points belong in the data layout)";
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
    if (all_dense) continue;
    ClientPoints& cp = d.points[r];
    cp.dense = p.dense;
    cp.sent.assign(p.sent, p.sent + p.n_sent);
    if (p.by_index) cp.owned = std::move(owned);
  }
  if (auto hole = std::find(owner.begin(), owner.end(), -1); hole != owner.end())
    return "domain '" + d.id + "': no model rank holds " + where(hole - owner.begin()) +
           "; every point needs one owner (a mask marks points without data)";
  return "";
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
    return "field '" + v.field_id + "': no model rank holds the value " + value(hole - holder.begin()) +
           " of its axes";
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
                 std::to_string(c) + " hold the same values of its axes; ranks holding the same points must split the axes";
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

using transport::WireReader;
using transport::WireWriter;

namespace {
void put(WireWriter& w, const LocalBlock& b) { w.put(b.ibegin); w.put(b.ni); w.put(b.jbegin); w.put(b.nj); }
void put(WireWriter& w, const std::vector<Attribute>& list) {
  w.put<std::uint64_t>(list.size());
  for (const auto& a : list) { w.put(a.name); w.put(a.type); w.put(a.value); }
}
void get(WireReader& r, std::vector<Attribute>& list, std::size_t size) {
  std::uint64_t n = 0;
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  list.resize(n);
  for (auto& a : list) { r.get(a.name); r.get(a.type); r.get(a.value); }
}
void get(WireReader& r, LocalBlock& b) { r.get(b.ibegin); r.get(b.ni); r.get(b.jbegin); r.get(b.nj); }
}  // namespace

std::vector<char> encode(const ContextPlan& p) {
  WireWriter w;
  // The coordinates and point lists are nearly all of it: room for them,
  // so that the buffer does not double (and copy) on its way up.
  std::size_t big = std::size_t{1} << 20;
  for (const auto& d : p.domains) {
    big += 8 * (d.lon.size() + d.lat.size() + d.bounds_lon.size() + d.bounds_lat.size());
    for (const auto& c : d.points) big += 8 * c.sent.size() + 16;
  }
  for (const auto& a : p.axes) {
    big += 8 * (a.values.size() + a.bounds.size());
    for (const auto& part : a.parts) big += 8 * part.size() + 8;
  }
  w.reserve(big);
  w.put(p.context_id); w.put(p.key); w.put(p.calendar); w.put(p.time_units); w.put(p.start_date);
  w.put(p.client_ranks);
  w.put<std::uint64_t>(p.domains.size());
  for (const auto& d : p.domains) {
    w.put(d.id); w.put(d.name); w.put(d.long_name); w.put(d.ni_glo); w.put(d.nj_glo);
    w.put(d.lon); w.put(d.lat);
    w.put<std::uint64_t>(d.clients.size());
    for (const auto& b : d.clients) put(w, b);
    w.put(d.type); w.put(d.nvertex); w.put(d.bounds_lon); w.put(d.bounds_lat);
    w.put<std::uint8_t>(d.needs_fill ? 1 : 0);
    w.put<std::uint64_t>(d.points.size());
    for (const auto& c : d.points) { w.put<std::uint8_t>(c.dense ? 1 : 0); w.put(c.sent); }
  }
  w.put<std::uint64_t>(p.axes.size());
  for (const auto& a : p.axes) {
    w.put(a.id); w.put(a.name); w.put(a.long_name); w.put(a.standard_name); w.put(a.units);
    w.put(a.positive); w.put(a.values);
    w.put(a.axis_type); w.put(a.bounds_name); w.put(a.bounds);
    w.put<std::uint64_t>(a.parts.size());
    for (const auto& part : a.parts) w.put(part);
  }
  w.put<std::uint64_t>(p.scalars.size());
  for (const auto& c : p.scalars) {
    w.put(c.id); w.put(c.name); w.put(c.long_name); w.put(c.standard_name); w.put(c.units); w.put(c.positive);
    w.put(c.axis_type); w.put(c.bounds_name); w.put<std::uint8_t>(c.has_value ? 1 : 0); w.put(c.value);
  }
  w.put<std::uint64_t>(p.variables.size());
  for (const auto& v : p.variables) {
    w.put(v.field_id); w.put(v.name); w.put(v.long_name); w.put(v.standard_name); w.put(v.units);
    w.put(v.operation); w.put(v.cell_methods); w.put(v.comment); w.put(v.prec); w.put(v.file); w.put(v.op);
    w.put<std::uint8_t>(v.reduce_on_server); w.put<std::uint8_t>(v.has_fill); w.put(v.fill_value);
    w.put(v.compression_level);
    put(w, v.attributes);
    w.put<std::uint64_t>(v.dims.size());
    for (const auto& d : v.dims) { w.put(d.kind); w.put(d.index); }
    w.put(v.scalars);
  }
  w.put<std::uint64_t>(p.files.size());
  for (const auto& f : p.files) {
    w.put(f.id); w.put(f.base_path); w.put(f.title); w.put(f.output_freq);
    w.put<std::uint8_t>(f.one_file ? 1 : 0); w.put(f.variables);
    put(w, f.attributes);
    w.put(f.format); w.put(f.convention);
    w.put<std::uint8_t>(f.append ? 1 : 0);
    w.put(f.min_digits);
  }
  // File periods, kept after the rest.
  w.put(p.time_origin); w.put(p.timestep_us); w.put(p.user_calendar);
  w.put(p.level2_ranks); w.put(p.level2_pools); w.put(p.level1_forward_bytes);
  for (const auto& f : p.files) { w.put(f.split_freq); w.put(f.split_format); w.put(f.sync_freq); }
  return w.take();
}

ContextPlan decode_plan(const char* data, std::size_t size) {
  WireReader r(data, size);
  ContextPlan p;
  std::uint64_t n = 0;
  r.get(p.context_id); r.get(p.key); r.get(p.calendar); r.get(p.time_units); r.get(p.start_date);
  r.get(p.client_ranks);
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.domains.resize(n);
  for (auto& d : p.domains) {
    r.get(d.id); r.get(d.name); r.get(d.long_name); r.get(d.ni_glo); r.get(d.nj_glo);
    r.get(d.lon); r.get(d.lat);
    std::uint64_t m = 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    d.clients.resize(m);
    for (auto& b : d.clients) get(r, b);
    std::uint8_t flag = 0;
    r.get(d.type); r.get(d.nvertex); r.get(d.bounds_lon); r.get(d.bounds_lat);
    r.get(flag); d.needs_fill = flag != 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    d.points.resize(m);
    for (auto& c : d.points) { r.get(flag); c.dense = flag != 0; r.get(c.sent); }
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.axes.resize(n);
  for (auto& a : p.axes) {
    r.get(a.id); r.get(a.name); r.get(a.long_name); r.get(a.standard_name); r.get(a.units);
    r.get(a.positive); r.get(a.values);
    r.get(a.axis_type); r.get(a.bounds_name); r.get(a.bounds);
    std::uint64_t m = 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    a.parts.resize(m);
    for (auto& part : a.parts) r.get(part);
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.scalars.resize(n);
  for (auto& c : p.scalars) {
    std::uint8_t has = 0;
    r.get(c.id); r.get(c.name); r.get(c.long_name); r.get(c.standard_name); r.get(c.units); r.get(c.positive);
    r.get(c.axis_type); r.get(c.bounds_name); r.get(has); r.get(c.value);
    c.has_value = has != 0;
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.variables.resize(n);
  for (auto& v : p.variables) {
    r.get(v.field_id); r.get(v.name); r.get(v.long_name); r.get(v.standard_name); r.get(v.units);
    std::uint8_t on_server = 0, has_fill = 0;
    r.get(v.operation); r.get(v.cell_methods); r.get(v.comment); r.get(v.prec); r.get(v.file); r.get(v.op);
    r.get(on_server); r.get(has_fill); r.get(v.fill_value);
    r.get(v.compression_level);
    get(r, v.attributes, size);
    v.reduce_on_server = on_server != 0;
    v.has_fill = has_fill != 0;
    std::uint64_t m = 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    v.dims.resize(m);
    for (auto& d : v.dims) { r.get(d.kind); r.get(d.index); }
    r.get(v.scalars);
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.files.resize(n);
  for (auto& f : p.files) {
    std::uint8_t one = 0;
    r.get(f.id); r.get(f.base_path); r.get(f.title); r.get(f.output_freq);
    r.get(one); f.one_file = one != 0; r.get(f.variables);
    get(r, f.attributes, size);
    r.get(f.format); r.get(f.convention);
    r.get(one); f.append = one != 0;
    r.get(f.min_digits);
  }
  r.get(p.time_origin); r.get(p.timestep_us); r.get(p.user_calendar);
  r.get(p.level2_ranks); r.get(p.level2_pools); r.get(p.level1_forward_bytes);
  for (auto& f : p.files) { r.get(f.split_freq); r.get(f.split_format); r.get(f.sync_freq); }
  if (!r.at_end()) throw transport::WireError("corrupt plan: trailing bytes");
  return p;
}

}  // namespace foehn::output
