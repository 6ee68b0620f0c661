// The proxy model's prognostic fields: the thesis' output set (12 3-D
// fields and surface pressure). Ids, names and units are those of the
// iodef.xml files beside this one; the NetCDF baselines write the same
// metadata so that every scheme produces the same file.
#pragma once

#include <array>

namespace miniapp {

struct FieldInfo {
  const char* id;
  const char* long_name;
  const char* standard_name;  // "" when CF has none
  const char* units;
  double mean;       // typical value at the surface
  double amplitude;  // size of the forced variation
};

// The 3-D fields, in the order they are stored in the NPROMA-blocked array.
inline constexpr std::array<FieldInfo, 12> kFields3d = {{
    {"u", "U component of wind", "eastward_wind", "m s-1", 5.0, 15.0},
    {"v", "V component of wind", "northward_wind", "m s-1", 0.0, 8.0},
    {"t", "Temperature", "air_temperature", "K", 250.0, 40.0},
    {"d", "Divergence", "divergence_of_wind", "s-1", 0.0, 2e-5},
    {"vo", "Vorticity (relative)", "atmosphere_upward_relative_vorticity", "s-1", 0.0, 5e-5},
    {"q", "Specific humidity", "specific_humidity", "kg kg-1", 4e-3, 4e-3},
    {"cc", "Fraction of cloud cover", "cloud_area_fraction_in_atmosphere_layer", "1", 0.4, 0.4},
    {"o3", "Ozone mass mixing ratio", "mass_fraction_of_ozone_in_air", "kg kg-1", 4e-6, 3e-6},
    {"crwc", "Specific rain water content", "", "kg kg-1", 2e-5, 2e-5},
    {"cswc", "Specific snow water content", "mass_fraction_of_snow_in_air", "kg kg-1", 2e-5, 2e-5},
    {"clwc", "Specific cloud liquid water content", "mass_fraction_of_cloud_liquid_water_in_air", "kg kg-1", 3e-5,
     3e-5},
    {"ciwc", "Specific cloud ice water content", "mass_fraction_of_cloud_ice_in_air", "kg kg-1", 1e-5, 1e-5},
}};

inline constexpr FieldInfo kSurfacePressure = {"sp", "Surface pressure", "surface_air_pressure", "Pa", 1.0e5, 3.0e3};

inline constexpr int kNumFields3d = static_cast<int>(kFields3d.size());

// Pressure on the model levels, as IFS gives it: p_k = a_k + b_k * ps on
// hybrid levels, pure pressure near the top (b = 0) and following the
// terrain at the bottom (a = 0, b = 1 at the lowest level, k = levels - 1).
// Sent to foehn when the iodef uses it (the coordinate of pressure-level
// output, iodef_plev.xml); the model's state does not depend on it.
inline constexpr FieldInfo kPressure = {"pres", "Air pressure", "air_pressure", "Pa", 5.0e4, 0.0};

inline double hybrid_a(int k, int levels) {  // Pa
  const double eta = static_cast<double>(k + 1) / levels;
  return 8.0e4 * eta * (1.0 - eta);
}
inline double hybrid_b(int k, int levels) {
  const double eta = static_cast<double>(k + 1) / levels;
  return eta * eta;
}

}  // namespace miniapp
