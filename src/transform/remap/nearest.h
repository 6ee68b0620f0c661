// Nearest-neighbour remapping weights (foehn's interpolate_domain
// method="nearest"): each target point takes the value of the source point
// whose centre is closest on the sphere (ties: the lower source index).
// Computed once at close of definition with a kd-tree of the source centres.
#pragma once

#include <cstdint>
#include <span>

#include "transform/remap/remap_weights.h"
#include "transform/remap/sphere_geometry.h"

namespace foehn::transform::remap {

// Centres in degrees; a mask (1: take part; empty: all do) per side. A
// masked target gets no term (the fill value when applied).
RemapWeights nearest_weights(std::span<const double> src_lon, std::span<const double> src_lat,
                             std::span<const std::uint8_t> src_mask, std::span<const double> dst_lon,
                             std::span<const double> dst_lat, std::span<const std::uint8_t> dst_mask);

}  // namespace foehn::transform::remap
