// The fields of each output-plan struct, listed once and in wire order. The
// plan's wire writer and reader (output_plan.cpp) walk these lists, and so
// will any other archive (checkpoints): a field added to a struct is added
// here once and travels everywhere. An archive is a callable taking any
// number of fields: io(a, b, c).
#pragma once

#include "output/output_plan.h"

namespace foehn::output {

template <class Io>
void fields(Io& io, LocalBlock& b) {
  io(b.ibegin, b.ni, b.jbegin, b.nj);
}

// `owned` is left out on purpose: only attached writers need it, for their
// own entry, so servers never receive it.
template <class Io>
void fields(Io& io, ClientPoints& c) {
  io(c.dense, c.sent);
}

template <class Io>
void fields(Io& io, DomainInfo& d) {
  io(d.id, d.name, d.long_name, d.ni_glo, d.nj_glo, d.lon, d.lat, d.clients, d.type, d.nvertex, d.bounds_lon,
     d.bounds_lat, d.needs_fill, d.points, d.healpix_level, d.healpix_nested, d.lon_name, d.lat_name, d.bounds_lon_name,
     d.bounds_lat_name, d.dim_i_name, d.dim_j_name, d.nvertex_name);
}

template <class Io>
void fields(Io& io, AxisInfo& a) {
  io(a.id, a.name, a.long_name, a.standard_name, a.units, a.positive, a.values, a.axis_type, a.bounds_name, a.bounds,
     a.parts, a.attributes, a.bounds_attributes, a.dim_name);
}

template <class Io>
void fields(Io& io, ScalarInfo& c) {
  io(c.id, c.name, c.long_name, c.standard_name, c.units, c.positive, c.axis_type, c.bounds_name, c.has_value, c.value);
}

template <class Io>
void fields(Io& io, Attribute& a) {
  io(a.name, a.type, a.value);
}

template <class Io>
void fields(Io& io, Dim& d) {
  io(d.kind, d.index);
}

template <class Io>
void fields(Io& io, VariableInfo& v) {
  io(v.field_id, v.name, v.long_name, v.standard_name, v.units, v.operation, v.cell_methods, v.comment, v.prec, v.file,
     v.op, v.reduce_on_server, v.has_fill, v.fill_value, v.compression_level, v.attributes, v.dims, v.scalars,
     v.compression_filter, v.quantization, v.quantization_keep, v.chunk_target_mib);
}

template <class Io>
void fields(Io& io, FileInfo& f) {
  io(f.id, f.base_path, f.defined_at, f.title, f.output_freq, f.format, f.convention, f.one_file, f.append,
     f.min_digits, f.variables, f.attributes, f.split_freq, f.split_format, f.sync_freq, f.resume_records,
     f.resume_period, f.resume_file_records, f.continuable, f.time_counter, f.time_counter_name, f.time_in_days,
     f.time_stamp_name, f.time_stamp_format, f.uuid_name, f.uuid_format, f.record_offset);
}

template <class Io>
void fields(Io& io, ContextPlan& p) {
  io(p.context_id, p.key, p.calendar, p.time_units, p.start_date, p.client_ranks, p.domains, p.axes, p.scalars,
     p.variables, p.files, p.time_origin, p.timestep_us, p.user_calendar, p.level2_ranks, p.level2_pools,
     p.level1_forward_bytes, p.sync_seconds, p.server_state);
}

}  // namespace foehn::output
