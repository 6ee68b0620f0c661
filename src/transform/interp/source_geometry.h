// The geometry an interpolate_domain needs on every model rank, built once
// at close of definition: the source domain's cells and which rank holds
// each source value (gathered from all ranks: a first step, the values
// themselves are exchanged per step only where needed), and the target
// domain's points and cells from its own settings.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "transform/build.h"
#include "transform/remap/cell_polygons.h"

namespace foehn::transform::interp {

struct SourceGeometry {
  std::vector<int> owner_rank;               // per global point: the rank holding it
  std::vector<std::int64_t> owner_position;  // its data position there (-1: masked)
  std::vector<double> lon, lat;              // per global point, degrees
  remap::CellPolygons cells;                 // per global point, masked where there is no data
};

// Collective over comm (MPI_COMM_NULL: this rank holds the whole domain).
// ConfigError at t's line when a point is held by no rank or the cells
// cannot be made (an unstructured domain without bounds).
SourceGeometry gather_source(const config::TransformationDef& t, const Component& source, MPI_Comm comm);

// The target's points, whatever its type: centres and corners per global
// point (j * ni_glo + i). Rectilinear: generate_rectilinear_domain's
// attributes when the domain has it, else its defaults (the whole sphere).
// Another type (e.g. HEALPix) plugs in here.
struct TargetGeometry {
  TargetShape shape;
  std::vector<double> lon, lat;
  int nvertex = 4;
  std::vector<double> bounds_lon, bounds_lat;  // nvertex corners per point
  std::vector<double> axis_lon, axis_lat;      // rectilinear: the ni longitudes and nj latitudes
};
TargetGeometry target_geometry(const config::TransformationDef& t, const config::DomainDef& target);

}  // namespace foehn::transform::interp
