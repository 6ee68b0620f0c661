#include "transform/remap/nearest.h"

#include <cmath>
#include <string>
#include <vector>

#include "transform/remap/cell_polygons.h"
#include "transform/remap/kd_tree.h"

namespace foehn::transform::remap {

RemapWeights nearest_weights(std::span<const double> src_lon, std::span<const double> src_lat,
                             std::span<const std::uint8_t> src_mask, std::span<const double> dst_lon,
                             std::span<const double> dst_lat, std::span<const std::uint8_t> dst_mask) {
  if (src_lon.size() != src_lat.size() || dst_lon.size() != dst_lat.size() ||
      (!src_mask.empty() && src_mask.size() != src_lon.size()) ||
      (!dst_mask.empty() && dst_mask.size() != dst_lon.size()))
    throw RemapError("nearest remapping: longitudes, latitudes and mask differ in size (source " +
                     std::to_string(src_lon.size()) + "/" + std::to_string(src_lat.size()) + "/" +
                     std::to_string(src_mask.size()) + ", target " + std::to_string(dst_lon.size()) + "/" +
                     std::to_string(dst_lat.size()) + "/" + std::to_string(dst_mask.size()) + ")");
  std::vector<Vec3> points;
  std::vector<std::int64_t> source_of;  // tree point -> source index (masked sources left out)
  auto check = [](double lon, double lat, const char* side, std::size_t k) {
    if (!std::isfinite(lon) || !(std::abs(lat) <= 90.0))
      throw RemapError(std::string("nearest remapping: ") + side + " point " + std::to_string(k) + " at longitude " +
                       std::to_string(lon) + ", latitude " + std::to_string(lat) + " is not a point of the sphere");
  };
  for (std::size_t j = 0; j < dst_lon.size(); ++j)
    if (dst_mask.empty() || dst_mask[j]) check(dst_lon[j], dst_lat[j], "target", j);
  for (std::size_t i = 0; i < src_lon.size(); ++i) {
    if (!src_mask.empty() && !src_mask[i]) continue;
    check(src_lon[i], src_lat[i], "source", i);
    points.push_back(unit_vector(src_lon[i], src_lat[i]));
    source_of.push_back(static_cast<std::int64_t>(i));
  }
  const KdTree tree(std::move(points));
  std::vector<WeightTriplet> terms;
  terms.reserve(dst_lon.size());
  for (std::size_t j = 0; j < dst_lon.size(); ++j) {
    if (!dst_mask.empty() && !dst_mask[j]) continue;
    const std::int64_t k = tree.nearest(unit_vector(dst_lon[j], dst_lat[j]));
    if (k >= 0) terms.push_back({static_cast<std::int64_t>(j), source_of[static_cast<std::size_t>(k)], 1.0});
  }
  return weights_from_triplets(static_cast<std::int64_t>(src_lon.size()), static_cast<std::int64_t>(dst_lon.size()),
                               terms);
}

}  // namespace foehn::transform::remap
