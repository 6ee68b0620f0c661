#include "client/plan_grib.h"

namespace foehn::client {

void check_grib_field(const config::FieldDef& f, const config::FileDef& file, const std::string& id,
                      const output::VariableInfo& v, const output::ContextPlan& plan) {
  if (file.format != "grib2") return;
  auto refuse = [&](const config::Location& where, const std::string& why) {
    throw config::ConfigError(where, "field '" + id + "' in GRIB2 file '" + file.output_name() + "': " + why);
  };
  int domain = -1, axes_before = 0;
  for (const output::Dim& d : v.dims) {
    if (d.kind != output::Dim::axis)
      domain = d.index;
    else if (domain < 0)
      ++axes_before;
    else
      refuse(f.where, "an axis after the domain in the grid has no place in a GRIB2 message");
  }
  if (domain < 0) refuse(f.where, "a GRIB2 message needs a horizontal domain");
  if (axes_before > 1)
    refuse(f.where, "GRIB2 messages take one axis (the levels), the grid has " + std::to_string(axes_before));
  const std::string& type = plan.domains[domain].type;
  if (type != "rectilinear" && type != "gaussian" && type != "unstructured")
    refuse(f.where, "domain '" + plan.domains[domain].id + "' of type " + type +
                        " has no GRIB2 grid in foehn (rectilinear: regular_ll; gaussian: regular_gg, reduced_gg; "
                        "unstructured: unstructured_grid)");
  bool parameter = false, level_type = false;
  for (const output::Attribute& a : v.attributes) {
    parameter = parameter || a.name == "paramId" || a.name == "shortName" || a.name == "parameterNumber";
    level_type = level_type || a.name == "typeOfLevel" || a.name == "typeOfFirstFixedSurface";
  }
  if (!parameter)
    refuse(f.where,
           "a GRIB2 field needs its parameter: <variable name=\"paramId\" type=\"int\"> (or shortName, or "
           "discipline, parameterCategory and parameterNumber)");
  if (axes_before == 1 && !level_type)
    refuse(f.where,
           "a field with levels needs <variable name=\"typeOfLevel\" type=\"string\"> (hybrid, "
           "isobaricInhPa, depthBelowSea, ...)");
}

}  // namespace foehn::client
