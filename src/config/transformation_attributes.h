// The check of a transformation's attribute set from code (apart from
// config.h so that the many users of config.h do not depend on it).
#pragma once

#include <string>
#include <string_view>

namespace foehn::config {

// Why a transformation <element> inside a <parent> refuses `name`="value"
// set from code (xios_set_zoom_domain_attr, ...); "" when it takes it, as the
// XML reader would (src/config/transformations.cpp).
std::string transformation_attribute_problem(std::string_view element, std::string_view parent, std::string_view name,
                                             const std::string& value);

}  // namespace foehn::config
