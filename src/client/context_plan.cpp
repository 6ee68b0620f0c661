// Close of definition around the plan builder (plan_builder.h): the
// definitions resolved into a plan, then, after the exchange of the
// decomposition, everything the per-step path needs (pack plans, send
// buffers).
#include <algorithm>
#include <cmath>
#include <map>

#include "client/agree.h"
#include "client/context.h"
#include "client/errors.h"
#include "client/plan_builder.h"
#include "transport/event.h"

namespace foehn::client {

void Context::resolve_definitions() {
  Placement where;
  where.context_id = id_;
  where.key = key_;
  where.attached = world_->attached();
  where.server_ranks = static_cast<int>(world_->server_ranks.size());
  MPI_Group g1, g2;
  MPI_Comm_group(comm_, &g1);
  MPI_Comm_group(world_->comm, &g2);
  for (int c = 0; c < size_; ++c) {
    int world_rank = 0;
    MPI_Group_translate_ranks(g1, 1, &c, g2, &world_rank);
    where.client_ranks.push_back(world_rank);
  }
  MPI_Group_free(&g1);
  MPI_Group_free(&g2);
  BuiltPlan built = PlanBuilder(def_, settings_, std::move(where)).build();
  calendar_ = std::move(built.calendar);
  start_ = built.start, origin_ = built.origin, timestep_us_ = built.timestep_us;
  plan_ = std::move(built.plan);
  fields_ = std::move(built.fields);
  field_index_ = std::move(built.field_index);
  outputs_.clear();
  for (const OutputDef& d : built.outputs) {
    OutputVar out;
    static_cast<OutputDef&>(out) = d;
    outputs_.push_back(std::move(out));
  }
  graph_ = std::move(built.graph);
  files_ = std::move(built.files);
}

const std::vector<std::vector<std::int64_t>>& Context::destinations_of(
    int domain, int nservers, std::map<int, std::vector<std::vector<std::int64_t>>>& found) const {
  auto [it, fresh] = found.try_emplace(domain);
  if (fresh) it->second = plan_.split_by_server(domain, settings_.domains.at(plan_.domains[domain].id).data, nservers);
  return it->second;
}

void Context::prepare_outputs() {
  if (!domain_error_.empty()) fail(FOEHN_ERR_ARGUMENT, domain_error_);
  // Points no client sends (masks, compressed data) are written as the fill
  // value, so their variables need one.
  for (auto& v : plan_.variables) {
    const auto l = plan_.layout(v);
    if (l.domain < 0 || !plan_.domains[l.domain].needs_fill || v.has_fill) continue;
    v.has_fill = true;
    v.fill_value = v.prec == 8 ? 9.9692099683868690e+36 : 9.96921e+36;
  }
  const bool attached = world_->attached();
  // Clients send to level-1 servers only (all servers with one level).
  const int nservers = attached ? 1 : static_cast<int>(world_->server_ranks.size()) - plan_.level2_ranks;
  std::vector<std::size_t> bytes_per_server(nservers, sizeof(transport::BufferHeader));
  std::size_t largest_local = 0, result_size = 0;
  std::map<int, std::vector<std::vector<std::int64_t>>> by_domain;  // found once per domain
  for (OutputVar& out : outputs_) {
    const auto& v = plan_.variables[out.plan_index];
    const auto layout = plan_.layout(v);
    // For each destination, the data positions whose points it owns, in
    // data order: the packed stream walks the local data forward.
    // Axes only (and scalars): server 0 gets the whole field from client 0,
    // or, when the axes are decomposed, every client's part.
    std::vector<std::vector<std::int64_t>> axis_only(nservers);
    if (layout.domain < 0 && (rank_ == 0 || plan_.decomposed_axes(v)) && out.local_size > 0) axis_only[0].push_back(0);
    const auto& positions = layout.domain < 0 ? axis_only : destinations_of(layout.domain, nservers, by_domain);
    const std::int64_t data_points =
        layout.domain < 0 ? 1 : static_cast<std::int64_t>(settings_.domains.at(plan_.domains[layout.domain].id).data.size());
    // The plan packs by memcpy runs and gathers, or stages the data once per
    // write when many servers' points are interleaved.
    // The data hold this rank's parts of the axes around the domain.
    std::int64_t outer = 1, inner = 1;
    bool after = false;
    for (const output::Dim& d : v.dims) {
      if (d.kind != output::Dim::axis) after = true;
      else (after ? inner : outer) *= settings_.axes.at(plan_.axes[d.index].id).local;
    }
    out.pack = grid::PackPlan(positions, data_points, layout.domain < 0 ? 1 : outer,
                              layout.domain < 0 ? out.local_size : inner);
    out.dest.resize(nservers);
    for (int s = 0; s < nservers; ++s) {
      Destination& d = out.dest[s];
      d.total = out.pack.size(static_cast<std::size_t>(s));
      if (d.total) bytes_per_server[s] += transport::event_bytes(d.total * out.elem);
    }
    // Client-side results are computed in the local layout, in double.
    largest_local = std::max(largest_local, static_cast<std::size_t>(out.local_size) * sizeof(double));
    result_size = std::max(result_size, static_cast<std::size_t>(out.local_size));
  }
  scratch_.resize(largest_local);
  result_.resize(result_size);
  if (attached) return;
  size_channels(bytes_per_server);
}

}  // namespace foehn::client
