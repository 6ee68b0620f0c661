// Building one transformation step at close of definition: from the XML's
// <zoom_domain .../> (config::TransformationDef) and what this model rank
// holds of the source component, the target component this rank holds and
// the index map (transform.h). Pure: no MPI; every rank builds its own part
// from its own points, so nothing is exchanged.
//
// Reductions are computed on the model ranks: each target point must have
// all its source points on one rank (a zonal mean: whole rows per rank);
// its values are combined in increasing global index, so the result is the
// same bits whatever the decomposition and the number of servers. A target
// point split between ranks is refused (ConfigError at the transformation's
// line) rather than combined in an order that depends on the decomposition.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "transform/transform.h"

namespace foehn::transform {

// What one rank holds of a grid component (a domain, an axis or a scalar).
struct Component {
  enum class Kind { domain, axis, scalar };
  Kind kind = Kind::domain;
  std::string type = "rectilinear";     // domains: rectilinear, curvilinear, gaussian, unstructured, healpix
  std::int64_t ni_glo = 1, nj_glo = 1;  // axes: n_glo x 1; scalars: 1 x 1
  int healpix_level = -1;               // healpix domains: refinement level and scheme
  bool healpix_nested = true;
  // The global index (j * ni_glo + i) of each point this rank owns, and its
  // coordinates: lon and lat (domains), the axis value (axes; `lat` unused).
  std::vector<std::int64_t> owned;
  std::vector<double> lon, lat;
  // The cell bounds of each owned point, nvertex corners each (0: none).
  // Axes: nvertex 2, the (lower, upper) bounds of each value in bounds_lon.
  int nvertex = 0;
  std::vector<double> bounds_lon, bounds_lat;
  // Position in owned of each local data value (-1: halo or left out), and
  // for each owned point whether it has a data value (masked: no).
  std::vector<std::int64_t> data_owner;
  // Domains: the weight of each owned point in area-weighted averages (the
  // cell area from bounds, else cos(latitude)); empty when not computed.
  std::vector<double> area;
  bool decomposed = true;  // axes: false when every rank holds the whole axis in global order
  // Axes made from a domain: CF's axis (Y along j, X along i) and units.
  std::string axis_type, units;

  std::int64_t size() const { return ni_glo * nj_glo; }
  std::size_t data_size() const { return data_owner.size(); }
};

const char* kind_name(Component::Kind kind);

struct Step {
  // Its data are its owned points in order: data_owner[k] is k, or -1 where
  // the source point is masked (the value is NaN and never sent).
  Component target;
  Transform map;     // its outer and inner are set by the caller
  std::string text;  // for `foehn plan`: "zoom_domain 40x20 -> 10x5"
};

// The kind of component a transformation takes as its source (a domain for
// reduce_domain, ...).
Component::Kind source_kind(const config::TransformationDef& t);
Component::Kind target_kind(const config::TransformationDef& t);

// A step that fills a domain by interpolation from its source domain:
// interpolate_domain, or a generate_rectilinear_domain left alone in its
// domain (chain.h makes it one with interpolate_domain's defaults, where
// XIOS would pass the source's values on unchanged).
bool is_domain_interpolation(const config::TransformationDef& t);

// Throws config::ConfigError at t.where for bad attributes and for
// reductions whose target points are split between ranks. Not for
// interpolate_domain, whose points come from other ranks: interp/ builds it.
// target_axis: the axis holding t, for duplicate_scalar (its size).
Step build_step(const config::TransformationDef& t, const Component& source,
                const config::AxisDef* target_axis = nullptr);

// reduce_domain (to an axis or a scalar), reduce_axis (to a scalar) and
// coarsen_healpix (a coarser level of a nested HEALPix domain): how many
// target points, how many source points each combines, and the target each
// source point (by global index) feeds. nullopt for other transformations
// (and for a coarsen_healpix build_step refuses).
struct ReductionTargets {
  std::int64_t n_target = 0, group_size = 0;
  std::function<std::int64_t(std::int64_t)> target_of;
  bool to_scalar = false;
};
std::optional<ReductionTargets> reduction_targets(const config::TransformationDef& t, const Component& source);

// The domain whose transformations include `t` (null: none).
const config::DomainDef* owner_domain(const config::ContextDef& ctx, const config::TransformationDef& t);

// The size of the domain an interpolate_domain fills: the target domain's
// ni_glo x nj_glo, or a HEALPix domain's 12 x 4^level cells (ConfigError at
// its line when missing or not a type foehn can interpolate to).
struct TargetShape {
  std::string type;
  std::int64_t ni_glo = 0, nj_glo = 0;
  int healpix_level = -1;  // healpix: refinement level and scheme
  bool healpix_nested = true;
};
TargetShape interpolation_target(const config::TransformationDef& t, const config::DomainDef& target);

// interpolate_axis: the axis that holds `t` (null: none), and the target
// levels it gives (value=, checked against n_glo; with coordinate_dst and
// no values, the level numbers 0..n_glo-1); ConfigError at the line at
// fault (no values, an order the source axis cannot carry). The model
// fields giving the coordinate per point (XIOS's coordinate or
// coordinate_src: the source's; coordinate_dst: the target's; "" when the
// axis's values are), and how `foehn plan` names them.
const config::AxisDef* owner_axis(const config::ContextDef& ctx, const config::TransformationDef& t);
std::vector<double> vertical_target_levels(const config::TransformationDef& t, const config::AxisDef& target,
                                           const Component& source);
std::string vertical_source_coordinate(const config::TransformationDef& t);
std::string vertical_target_coordinate(const config::TransformationDef& t);
std::string vertical_coordinate_text(const config::TransformationDef& t);
// What interpolate_axis makes, for `foehn check` and `foehn plan`.
Step vertical_shape(const config::TransformationDef& t, const Component& source, const config::AxisDef& target);

// What interpolate_domain makes, without weights, for `foehn check` and
// `foehn plan` (no decomposition, nothing computed): the whole target.
Step interpolation_shape(const config::TransformationDef& t, const Component& source, const config::DomainDef& target);

}  // namespace foehn::transform
