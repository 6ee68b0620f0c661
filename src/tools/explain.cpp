#include "tools/explain.h"

#include <algorithm>
#include <vector>

namespace foehn::tools {

namespace {

std::string block(const std::string& context, const std::string& what, const std::string& id,
                  const config::Location& where, const config::AttributeOrigins& origins) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, o] : origins) rows.push_back({name, o.value, o.where->str(), o.via});
  std::size_t w[3] = {0, 0, 0};
  for (const auto& r : rows)
    for (int c = 0; c < 3; ++c) w[c] = std::max(w[c], r[c].size());
  std::string out = "context '" + context + "': " + what + " '" + id + "' (" + where.str() + ")\n";
  for (const auto& r : rows) {
    std::string line = "  ";
    for (int c = 0; c < 3; ++c) line += r[c] + std::string(w[c] - r[c].size() + 2, ' ');
    line += r[3];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (rows.empty()) out += "  (no attributes)\n";
  return out;
}

template <typename Def>
void add(std::string& out, const std::string& context, const std::string& what, const std::string& id,
         const std::vector<Def>& defs) {
  for (const Def& d : defs)
    if (d.id == id) out += block(context, what, id, d.where, d.origins);
}

}  // namespace

std::string explain_id(const config::Simulation& sim, const std::string& id) {
  std::string out;
  for (const config::ContextDef& c : sim.contexts) {
    add(out, c.id, "field", id, c.fields);
    for (const config::FileDef& f : c.files) add(out, c.id, "field (in file '" + f.output_name() + "')", id, f.fields);
    add(out, c.id, "file", id, c.files);
    add(out, c.id, "domain", id, c.domains);
    add(out, c.id, "axis", id, c.axes);
    add(out, c.id, "scalar", id, c.scalars);
    add(out, c.id, "grid", id, c.grids);
  }
  return out;
}

}  // namespace foehn::tools
