// Files of mode="read" in the plan builder: each enabled field of such a
// file becomes a ReadField (plan_builder.h) that the model receives with
// foehn_read_* (client/field_reader.h). Nothing is written, so a read file
// has no writer, no record announcements and no place in the output plan;
// its fields' grids are resolved like a written field's, so that the
// model's data layout (halos, compressed data, decomposed axes) is the same
// for both directions.
#include <filesystem>

#include "client/errors.h"
#include "client/plan_builder.h"

namespace foehn::client {

void PlanBuilder::resolve_read_file(const config::FileDef& file, const std::string& file_id) {
  auto refuse = [&](const std::string& what) {
    throw config::ConfigError(file.where, "file '" + file_id + "' (mode=\"read\"): " + what);
  };
  if (const std::string why = config::read_file_refusal(file); !why.empty()) refuse(why);
  // XIOS reads a file at its output_freq; without one, every time step.
  const std::string freq_text = file.output_freq.empty() ? "1ts" : file.output_freq;
  const calendar::Duration freq = calendar::parse_duration(freq_text);
  if (freq.is_zero() || freq.months < 0 || freq.microseconds < 0 || freq.timesteps < 0)
    refuse("output_freq '" + freq_text + "' must be positive");
  const std::string path = std::filesystem::absolute(file.output_name() + file.name_suffix + ".nc").string();
  bool any = false;
  for (const config::FieldDef& f : file.fields) {
    if (!config::is_output_field(file, f)) continue;
    any = true;
    ReadField r;
    r.id = f.id.empty() ? data_source(f) : f.id;
    r.variable = f.name.empty() ? r.id : f.name;
    r.file_id = file_id;
    r.path = path;
    r.defined_at = f.where.str();
    if (const std::string why = config::read_field_refusal(f); !why.empty())
      throw config::ConfigError(f.where, "field '" + r.id + "' of read file '" + file_id + "': " + why);
    for (const ReadField& other : out_.reads)
      if (other.id == r.id)
        throw config::ConfigError(
            f.where, "field '" + r.id + "' is read twice (files '" + other.file_id + "' and '" + file_id + "')");
    const GridShape shape = resolve_grid(f, r.id);
    r.dims = shape.dims;
    r.local_size = shape.local;
    r.shape_text = shape.text;
    calendar::Duration offset{};
    if (!f.freq_offset.empty()) offset = calendar::parse_duration(f.freq_offset);
    if (offset.months < 0 || offset.microseconds < 0 || offset.timesteps < 0)
      throw config::ConfigError(f.where,
                                "field '" + r.id + "': freq_offset '" + f.freq_offset + "' must not be negative");
    try {
      r.schedule = std::make_unique<calendar::Schedule>(*calendar_, start_, freq, offset, timestep_us_);
    } catch (const calendar::TimeError& e) { refuse("output_freq '" + freq_text + "': " + e.what()); }
    out_.reads.push_back(std::move(r));
  }
  if (!any) refuse("no enabled field to read");
}

}  // namespace foehn::client
