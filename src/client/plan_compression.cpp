#include "client/plan_compression.h"

#include <string>

#include "formats/registry.h"

namespace foehn::client {

namespace {

[[noreturn]] void refuse(const config::Location& where, const std::string& id, const std::string& why) {
  throw config::ConfigError(where, "field '" + id + "': " + why);
}

void resolve_filter(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                    output::VariableInfo& v) {
  v.compression_level = f.compression_level.value_or(file.compression_level.value_or(0));
  if (v.compression_level > 0 && !formats::traits_of(file.format).compression)
    refuse(f.compression_level ? f.where : file.where, id,
           "format=\"" + file.format + "\" is not compressed by compression_level (its packing is its own)");
  const std::string& t = f.compression_type;
  if (t.empty()) return;  // deflate when a level is given (XIOS's gzip)
  if (t == "None") {
    v.compression_level = 0;
  } else if (t == "gzip") {
    if (v.compression_level == 0)
      refuse(f.where, id, "compression_type=\"gzip\" needs a compression_level from 1 to 9 (on the field or its file)");
  } else if (t == "szip") {
    v.compression_level = 0;  // szip replaces deflate
    v.compression_filter = "szip";
  } else {  // SZ, ZFP
    refuse(f.where, id,
           "compression_type=\"" + t +
               "\" is not available: it needs an HDF5 filter plugin (SZ 32017, ZFP 32013) that this "
               "netCDF/HDF5 build does not have; use gzip, szip or quantization");
  }
  if (t != "None" && !formats::traits_of(file.format).compression)
    refuse(f.where, id, "format=\"" + file.format + "\" is not compressed by compression_type=\"" + t + "\"");
}

void resolve_quantization(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                          output::VariableInfo& v) {
  // The field's attributes win one by one over its file's; errors point at
  // the element that set the attribute at fault.
  const config::Quantization& q = f.quantization;
  const config::Quantization& d = file.quantization;
  const std::string& a = q.algorithm.empty() ? d.algorithm : q.algorithm;
  const std::optional<int> nsb = q.nsb ? q.nsb : d.nsb, nsd = q.nsd ? q.nsd : d.nsd;
  auto where_of = [&](bool on_field) { return on_field ? f.where : file.where; };
  if (a.empty()) {
    if (nsb || nsd) refuse(where_of(q.nsb || q.nsd), id, "quantization_nsb or quantization_nsd without quantization");
    return;
  }
  const config::Location& at = where_of(!q.algorithm.empty());
  if (!formats::traits_of(file.format).quantization)
    refuse(at, id, "format=\"" + file.format + "\" cannot be quantized (quantization=\"" + a + "\")");
  // Significant bits of the mantissa (23 in float, 52 in double) or decimal
  // digits (about 7 and 15) that the values hold.
  const bool bits = a == "bitround";
  const std::optional<int>& keep = bits ? nsb : nsd;
  const std::optional<int>& other = bits ? nsd : nsb;
  const std::string keep_name = bits ? "quantization_nsb" : "quantization_nsd";
  const std::string other_name = bits ? "quantization_nsd" : "quantization_nsb";
  if (other)
    refuse(where_of(bits ? bool(q.nsd) : bool(q.nsb)), id,
           "quantization=\"" + a + "\" takes " + keep_name + ", not " + other_name);
  if (!keep) refuse(at, id, "quantization=\"" + a + "\" needs " + keep_name);
  const int most = bits ? (v.prec == 8 ? 52 : 23) : (v.prec == 8 ? 15 : 7);
  if (*keep < 1 || *keep > most)
    refuse(where_of(bits ? bool(q.nsb) : bool(q.nsd)), id,
           keep_name + "=" + std::to_string(*keep) + " is out of range for prec=" + std::to_string(v.prec) + " (1 to " +
               std::to_string(most) + ")");
  v.quantization = a;
  v.quantization_keep = *keep;
}

}  // namespace

void resolve_compression(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                         output::VariableInfo& v) {
  resolve_filter(f, file, id, v);
  resolve_quantization(f, file, id, v);
  // XIOS's chunk size target (MiB), kept in `extra` by the reader, which
  // checked it is a number.
  if (auto t = f.extra.find("chunking_blocksize_target"); t != f.extra.end()) {
    v.chunk_target_mib = std::stod(t->second);
    if (!(v.chunk_target_mib > 0))
      refuse(f.where, id, "chunking_blocksize_target=\"" + t->second + "\" must be a size in MiB above 0");
  }
}

}  // namespace foehn::client
