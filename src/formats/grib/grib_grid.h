// The GRIB2 grid of a domain (section 3): a rectilinear domain with evenly
// spaced longitudes and latitudes becomes regular_ll; a gaussian domain
// becomes regular_gg when all its rows have one length, else reduced_gg
// with its rows' lengths (pl), which is how octahedral O<N> grids are told;
// an unstructured domain becomes unstructured_grid (template 3.101, a uuid
// derived from its coordinates). Curvilinear domains are refused.
#pragma once

#include <string>

#include "formats/grib/grib_handle.h"
#include "output/output_plan.h"

namespace foehn::formats::grib {

// A handle of the sample for the domain's grid type with the grid set;
// where names the file and field in errors (IoError).
GribHandle grid_handle(const output::DomainInfo& d, const std::string& where);

}  // namespace foehn::formats::grib
