// `foehn plan --json`: the figures of format_plan as one JSON object, for
// scripts. Byte counts are exact integers; the human-readable forms are
// included as strings next to them.
#include <nlohmann/json.hpp>

#include "tools/plan.h"

namespace foehn::tools {

std::string format_plan_json(const Plan& plan) {
  using nlohmann::json;
  json contexts = json::array();
  for (const ContextPlan& c : plan.contexts) {
    json files = json::array();
    for (const FilePlan& f : c.files) {
      json fields = json::array();
      for (const FieldPlan& p : f.fields)
        fields.push_back({{"name", p.name},
                          {"operation", p.operation},
                          {"grid", p.grid},
                          {"points", p.points},
                          {"transformations", p.transformations},
                          {"prec", p.prec},
                          {"bytes_per_record", p.bytes_per_record},
                          {"compressed_fraction", p.compressed_fraction}});
      files.push_back({{"id", f.id},
                       {"name", f.name},
                       {"type", f.type},
                       {"output_freq", f.output_freq},
                       {"xml_file", f.where.file},
                       {"xml_line", f.where.line},
                       {"records", f.records},
                       {"split_freq", f.split_freq},
                       {"files", f.files},
                       {"bytes_per_record", f.bytes_per_record},
                       {"once_bytes", f.once_bytes},
                       {"total_bytes", f.total_bytes},
                       {"total_human", human_bytes(f.total_bytes)},
                       {"estimated_bytes", f.estimated_bytes},
                       {"fields", std::move(fields)}});
    }
    contexts.push_back({{"id", c.id},
                        {"calendar", c.calendar},
                        {"start", c.start},
                        {"end", c.end},
                        {"simulated_days", c.simulated_days},
                        {"total_bytes", c.total_bytes},
                        {"files", std::move(files)}});
  }
  std::size_t n_files = 0;
  for (const ContextPlan& c : plan.contexts) n_files += c.files.size();
  const json out = {{"duration", plan.duration},
                    {"total_bytes", plan.total_bytes},
                    {"total_human", human_bytes(plan.total_bytes)},
                    {"total_human_binary", human_bytes_binary(plan.total_bytes)},
                    {"files", n_files},
                    {"bytes_per_day", static_cast<std::int64_t>(plan.bytes_per_day + 0.5)},
                    {"contexts", std::move(contexts)}};
  return out.dump(2) + "\n";
}

}  // namespace foehn::tools
