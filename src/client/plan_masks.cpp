// Grid and scalar masks set from code (foehn_set_mask; XIOS's grid mask_1d
// .. mask_7d and scalar mask): which data positions of a field they hide.
// XIOS takes a grid's mask over the grid's local shape (a domain's local
// points, then each axis's local values; a scalar counts one), not over the
// data layout, so each data position is mapped to its local point first;
// halo and domain-masked positions are never sent and are left alone.
#include <string>
#include <unordered_map>
#include <vector>

#include "client/errors.h"
#include "client/plan_builder.h"

namespace foehn::client {

std::vector<std::int64_t> PlanBuilder::masked_positions(const std::vector<config::GridComponent>& components,
                                                        const std::string& grid_id, const std::string& field_id,
                                                        const config::Location& where) const {
  const auto grid_mask = grid_id.empty() ? settings_.grid_masks.end() : settings_.grid_masks.find(grid_id);
  const bool has_grid_mask = grid_mask != settings_.grid_masks.end();
  bool scalar_masked = false;
  for (const auto& c : components)
    scalar_masked =
        scalar_masked || (c.kind == config::GridComponent::Kind::scalar && settings_.masked_scalars.count(c.ref));
  if (!has_grid_mask && !scalar_masked) return {};

  struct Part {
    std::int64_t data_n = 1, local_n = 1;
    std::vector<std::int64_t> local_of;  // by data position: the local point, -1 none; empty: the same index
  };
  std::vector<Part> parts;
  std::int64_t data_total = 1, local_total = 1;
  for (const auto& c : components) {
    Part p;
    if (c.kind == config::GridComponent::Kind::domain) {
      const DomainSetting& s = domains_.at(c.ref);
      const std::vector<std::int64_t> owned = s.owned.empty() ? grid::owned_points(s.layout) : s.owned;
      const std::vector<std::int64_t> data = s.data.empty() ? grid::data_points(s.layout, owned) : s.data;
      std::unordered_map<std::int64_t, std::int64_t> local;
      for (std::size_t k = 0; k < owned.size(); ++k) local.emplace(owned[k], static_cast<std::int64_t>(k));
      p.data_n = static_cast<std::int64_t>(data.size());
      p.local_n = static_cast<std::int64_t>(owned.size());
      p.local_of.reserve(data.size());
      for (std::int64_t g : data) p.local_of.push_back(g < 0 ? -1 : local.at(g));
    } else if (c.kind == config::GridComponent::Kind::axis) {
      p.data_n = p.local_n = axes_.at(c.ref).local;
    }
    data_total *= p.data_n;
    local_total *= p.local_n;
    parts.push_back(std::move(p));
  }
  std::vector<std::int64_t> masked;
  if (scalar_masked) {  // a masked scalar hides the whole grid on this rank
    masked.resize(static_cast<std::size_t>(data_total));
    for (std::int64_t d = 0; d < data_total; ++d) masked[static_cast<std::size_t>(d)] = d;
    return masked;
  }
  const std::vector<std::uint8_t>& mask = grid_mask->second;
  if (static_cast<std::int64_t>(mask.size()) != local_total)
    fail(FOEHN_ERR_ARGUMENT, (where.file.empty() ? "" : where.str() + ": ") + "field '" + field_id +
                                 "': the mask of grid '" + grid_id + "' has " + std::to_string(mask.size()) +
                                 " flags, expected one per point of the grid's local shape (" +
                                 std::to_string(local_total) + ")");
  std::vector<std::int64_t> at(parts.size(), 0);  // the data index in each component, first fastest
  for (std::int64_t d = 0; d < data_total; ++d) {
    std::int64_t l = 0, stride = 1;
    bool sent = true;
    for (std::size_t c = 0; c < parts.size() && sent; ++c) {
      const Part& p = parts[c];
      const std::int64_t k = p.local_of.empty() ? at[c] : p.local_of[static_cast<std::size_t>(at[c])];
      sent = k >= 0;
      l += k * stride;
      stride *= p.local_n;
    }
    if (sent && !mask[static_cast<std::size_t>(l)]) masked.push_back(d);
    for (std::size_t c = 0; c < parts.size() && ++at[c] == parts[c].data_n; ++c) at[c] = 0;
  }
  return masked;
}

}  // namespace foehn::client
