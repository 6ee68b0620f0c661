// The compression and quantization of one output variable, decided at close
// of definition from its field's attributes and its file's (the field's own
// win, attribute by attribute): compression_level and compression_type
// (XIOS's spellings), quantization with quantization_nsb or
// quantization_nsd. What the file's format or this netCDF build cannot do
// is refused at the XML line that asks for it, with the reason.
#pragma once

#include <string>

#include "config/config.h"
#include "output/output_plan.h"

namespace foehn::client {

// Sets v.compression_level, v.compression_filter, v.quantization and
// v.quantization_keep; throws config::ConfigError. id: the field's name in
// messages.
void resolve_compression(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                         output::VariableInfo& v);

}  // namespace foehn::client
