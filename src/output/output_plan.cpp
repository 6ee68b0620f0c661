#include "output/output_plan.h"

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

grid::Box ContextPlan::server_block(const VariableInfo& v, int server, int nservers) const {
  const auto s = shape(v);
  if (has_domain(v)) return grid::server_slab(s, split_dim(v), server, nservers);
  grid::Box b{std::vector<std::int64_t>(s.size(), 0), s};
  if (server != 0) b.count.assign(s.size(), 0);
  return b;
}

grid::Box ContextPlan::client_box(const VariableInfo& v, int client) const {
  grid::Box b;
  const bool only_root = !has_domain(v) && client != 0;
  for (const Dim& d : v.dims) {
    if (d.kind == Dim::axis) {
      b.start.push_back(0);
      b.count.push_back(only_root ? 0 : static_cast<std::int64_t>(axes[d.index].values.size()));
      continue;
    }
    const LocalBlock& blk = domains[d.index].clients[client];
    b.start.push_back(d.kind == Dim::domain_j ? blk.jbegin : blk.ibegin);
    b.count.push_back(d.kind == Dim::domain_j ? blk.nj : blk.ni);
  }
  return b;
}

using transport::WireReader;
using transport::WireWriter;

namespace {
void put(WireWriter& w, const LocalBlock& b) { w.put(b.ibegin); w.put(b.ni); w.put(b.jbegin); w.put(b.nj); }
void get(WireReader& r, LocalBlock& b) { r.get(b.ibegin); r.get(b.ni); r.get(b.jbegin); r.get(b.nj); }
}  // namespace

std::vector<char> encode(const ContextPlan& p) {
  WireWriter w;
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
  }
  w.put<std::uint64_t>(p.variables.size());
  for (const auto& v : p.variables) {
    w.put(v.field_id); w.put(v.name); w.put(v.long_name); w.put(v.standard_name); w.put(v.units);
    w.put(v.operation); w.put(v.cell_methods); w.put(v.comment); w.put(v.prec); w.put(v.file); w.put(v.op);
    w.put<std::uint8_t>(v.reduce_on_server); w.put<std::uint8_t>(v.has_fill); w.put(v.fill_value);
    w.put<std::uint64_t>(v.dims.size());
    for (const auto& d : v.dims) { w.put(d.kind); w.put(d.index); }
  }
  w.put<std::uint64_t>(p.files.size());
  for (const auto& f : p.files) {
    w.put(f.id); w.put(f.path); w.put(f.title); w.put(f.output_freq);
    w.put<std::uint8_t>(f.one_file ? 1 : 0); w.put(f.variables);
    w.put<std::uint64_t>(f.attributes.size());
    for (const auto& [k, v] : f.attributes) { w.put(k); w.put(v); }
  }
  return w.bytes();
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
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.variables.resize(n);
  for (auto& v : p.variables) {
    r.get(v.field_id); r.get(v.name); r.get(v.long_name); r.get(v.standard_name); r.get(v.units);
    std::uint8_t on_server = 0, has_fill = 0;
    r.get(v.operation); r.get(v.cell_methods); r.get(v.comment); r.get(v.prec); r.get(v.file); r.get(v.op);
    r.get(on_server); r.get(has_fill); r.get(v.fill_value);
    v.reduce_on_server = on_server != 0;
    v.has_fill = has_fill != 0;
    std::uint64_t m = 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    v.dims.resize(m);
    for (auto& d : v.dims) { r.get(d.kind); r.get(d.index); }
  }
  r.get(n);
  if (n > size) throw transport::WireError("corrupt plan");
  p.files.resize(n);
  for (auto& f : p.files) {
    std::uint8_t one = 0;
    r.get(f.id); r.get(f.path); r.get(f.title); r.get(f.output_freq);
    r.get(one); f.one_file = one != 0; r.get(f.variables);
    std::uint64_t m = 0;
    r.get(m);
    if (m > size) throw transport::WireError("corrupt plan");
    f.attributes.resize(m);
    for (auto& [k, v] : f.attributes) { r.get(k); r.get(v); }
  }
  if (!r.at_end()) throw transport::WireError("corrupt plan: trailing bytes");
  return p;
}

}  // namespace foehn::output
