// The pure part of a client context's close of definition: the XML
// (config::ContextDef), what the model set (calendar, domains, axes,
// scalars) and where the context runs -> the output plan, the fields the
// model writes, the output variables and the filter graph. No MPI and no
// transport: the collective exchanges of the decomposition happen around it
// (client::Context), and what they gather is added by
// assemble_gathered_domain. Errors are config::ConfigError (at a line of
// the XML) or ApiError (client/errors.h), as the API reports them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "calendar/calendar.h"
#include "config/config.h"
#include "filters/graph.h"
#include "filters/temporal.h"
#include "filters/temporal_stage.h"
#include "grid/domain_layout.h"
#include "output/output_plan.h"
#include "transform/build.h"

namespace foehn::client {

// What the model says about its part of a domain (docs/grids.md): set whole
// by foehn_set_domain_rectilinear (ni_glo, nj_glo, block, lon, lat), or
// piece by piece by the foehn_set_domain_* calls (type first).
struct DomainSetting {
  std::int64_t ni_glo = 0, nj_glo = 0;
  output::LocalBlock block;
  std::vector<double> lon, lat;  // rectilinear block: ni and nj values; otherwise one per local point
  std::string type;              // empty: the XML's (rectilinear by default)
  grid::DomainLayout layout;     // local points, data layout, mask (the block is copied in)
  bool has_block = false, has_index = false;
  int nvertex = 0;  // corners per lon / lat value in the bounds (0: none)
  std::vector<double> bounds_lon, bounds_lat;
  int healpix_level = -1;       // healpix: refinement_level (geometry computed at assembly)
  bool healpix_nested = true;   // healpix: nested (else ring) cell indices
  // Derived at close of definition: the global index of each local point,
  // and of each data value (-1: not sent).
  std::vector<std::int64_t> owned, data;
};

// What the model says about an axis (foehn_set_axis*, in any order): its
// values, bounds and metadata, and, when decomposed, its part.
struct AxisSetting {
  std::int64_t n_glo = -1;          // -1: not said (the values' count, or the XML's n_glo)
  bool decomposed = false;          // a part given (foehn_set_axis_decomposition / _index)
  std::vector<std::int64_t> index;  // decomposed: the global index of each local value
  std::vector<double> values;       // one per local value (empty: the XML's)
  std::vector<double> bounds;       // two per local value (lower, upper), or empty
  std::string units, positive;
  std::int64_t local = 0;  // local values, found at close of definition
  bool derived = false;    // made by a transformation (plan_transforms.cpp), not by the model or the XML
  std::string axis_type;   // derived from a domain: Y or X, unless the XML says
};

struct ScalarSetting {
  double value = 0;
  std::string units;
};

using filters::Sampler;

// Everything the model set through the API before close of definition.
// The builder completes the settings it uses (a domain's points, an axis's
// local size).
struct ModelSettings {
  config::CalendarDef calendar;  // the XML's, with the model's foehn_set_calendar over it
  std::unordered_map<std::string, DomainSetting> domains;
  std::unordered_map<std::string, AxisSetting> axes;
  std::unordered_map<std::string, ScalarSetting> scalars;
  // foehn_set_mask: grid masks (one flag per point of the grid's local
  // shape, first component fastest) and the scalars masked on this rank.
  std::unordered_map<std::string, std::vector<std::uint8_t>> grid_masks;
  std::unordered_set<std::string> masked_scalars;
};

// Where the context runs.
struct Placement {
  std::string context_id;
  std::uint32_t key = 0;
  bool attached = false;                   // no server ranks: each model rank writes its own block
  int server_ranks = 0;                    // with servers: how many
  std::vector<std::int32_t> client_ranks;  // the world rank of each model rank of the context
  MPI_Comm comm = MPI_COMM_NULL;           // the context's model ranks (interpolations exchange among them)
};

// A field the model may write.
struct Field {
  std::string id;
  std::int64_t local_size = -1;  // -1: not used by any enabled file
  std::string shape_text;        // e.g. "40 x 20 x 3", for messages
  std::vector<int> outputs;      // output vars fed directly by its writes
  int source = -1;               // its source node in the graph, when expressions use it
  double missing = std::numeric_limits<double>::quiet_NaN();
  // The data positions a grid or scalar mask hides (foehn_set_mask): they
  // become NaN before anything else sees the values, and so the fill value.
  std::vector<std::int64_t> masked;
};

// An output variable as the client feeds it.
struct OutputDef {
  int plan_index = 0;
  int file = 0;
  std::size_t elem = 4;
  std::int64_t local_size = 0;  // values per step from this rank (the grid's local size)
  bool on_server = false;       // samples go to the servers, which reduce them
  // Its output node in the graph: the temporal stage (reducing here unless
  // on_server) and its sampling; the node's input, if any, feeds it,
  // otherwise its field's writes do.
  int node = -1;
};

struct FileSchedule {
  Sampler sampler;
  std::int64_t records = 0;
  std::int64_t record = -1;       // the record due now
  std::int64_t record_start = 0;  // start of the record's interval (instant, microseconds)
  // split_freq (restarts): the period of the last record (-1: none yet) and
  // the records in it, as the writers count them.
  std::int64_t period = -1, period_records = 0;
};

// A field read from a file of mode="read" (client/field_reader.h): record
// k of the variable is what the model receives at instant k of the
// schedule (start + freq_offset + k x the file's output_freq).
struct ReadField {
  std::string id, variable, file_id, path;  // the model's id, the variable read, its file
  std::string defined_at;                   // the field's file:line, for messages
  std::vector<output::Dim> dims;            // the grid, slowest first (as a write)
  std::int64_t local_size = 0;              // values of this rank (the grid's data layout)
  std::string shape_text;
  std::unique_ptr<calendar::Schedule> schedule;
};

// What close of definition builds before the exchanges.
struct BuiltPlan {
  std::unique_ptr<calendar::Calendar> calendar;  // the schedules point to it
  std::int64_t start = 0, origin = 0, timestep_us = 0;
  output::ContextPlan plan;  // without the exchanged parts (points, coordinates, decomposed axes)
  std::vector<Field> fields;
  std::unordered_map<std::string, int> field_index;
  std::vector<OutputDef> outputs;   // by plan variable
  filters::Graph graph;             // in this rank's layout
  std::vector<FileSchedule> files;  // by plan file
  // The grid of each chain node (@id) and of each temporal_splitting node
  // that ends a field's transformations, for checkpoints by global index.
  std::map<int, std::vector<output::Dim>> chain_dims;
  std::vector<ReadField> reads;  // fields of files with mode="read"
};

class PlanBuilder {
 public:
  PlanBuilder(const config::ContextDef& def, ModelSettings& settings, Placement placement);
  // Throws config::ConfigError or ApiError on the first problem found.
  // Once per builder: the result is moved out.
  BuiltPlan build();

 private:
  struct GridShape {
    std::vector<output::Dim> dims;
    std::vector<std::int32_t> scalars;  // plan scalars: coordinates without a dimension
    std::int64_t local = 1;
    std::string text;
    std::vector<std::int64_t> masked;  // data positions hidden by a grid or scalar mask, ascending
  };
  // The data positions of `components` a grid mask or a masked scalar hides.
  std::vector<std::int64_t> masked_positions(const std::vector<config::GridComponent>& components,
                                             const std::string& grid_id, const std::string& field_id,
                                             const config::Location& where) const;
  // A field's spatial transformations (plan_transforms.cpp): the maps from
  // its source field's grid to its own, in order, and the source's grid.
  struct Transformations {
    std::vector<std::shared_ptr<const transform::Transform>> maps;
    std::vector<std::string> texts;  // "zoom_domain 40x20 -> 10x5" per step
    std::vector<const config::TransformationDef*> defs;  // the XML element of each step
    std::vector<config::GridComponent> origin, target;   // the source field's grid and the field's
  };
  // Empty when the field's grid is its source's or no component of it is
  // transformed; otherwise builds the maps and gives the transformed
  // components' settings (domains_, axes_) before its grid is resolved.
  Transformations plan_transformations(const config::FieldDef& f, const std::string& source);
  transform::Component source_component(const config::GridComponent& c);
  void store_target(const config::GridComponent& c, const transform::Component& target, bool block_source);
  void ignore_model_setting(const config::GridComponent& c, const std::string& what) const;
  // A domain the model did not describe that only names another
  // (domain_ref, e.g. a grid's <domain domain_ref="d" id="d2"/>) takes what
  // the model said of that one; false if none of its chain was described.
  bool inherit_domain_setting(const std::string& id);
  // Adds step k of `tr` to the graph after `input`, with the nodes of its
  // coordinate fields (interpolate_axis coordinate=...) in its layouts.
  int add_transform_step(const Transformations& tr, std::size_t k, int input);
  int coordinate_node(const Transformations& tr, std::size_t k, bool source_side);

  void resolve_definitions();
  // file: the field's file, whose compression and quantization its fields
  // inherit.
  void resolve_field(int file_index, const config::FieldDef& f, const config::FileDef& file);
  // A file of mode="read": its fields become reads (no output, no writer).
  void resolve_read_file(const config::FileDef& file, const std::string& file_id);
  std::string data_source(const config::FieldDef& f) const;
  void warn_uncompressed(const config::FieldDef& f, const std::string& source) const;
  static std::string own_label(const config::FieldDef& f, const config::FileDef& file);
  GridShape resolve_grid(const config::FieldDef& f, const std::string& id);
  int register_field(const config::FieldDef& def, const GridShape& shape);
  int node_for_field(const std::string& id, const config::Location& where, std::vector<std::string>& path);
  int node_for_expression(const std::string& owner, const std::string& text, const std::string& self,
                          const config::FieldDef& user, const GridShape& shape, std::vector<std::string>& path);
  // Instants start + offset + k·period (empty period: every step); null
  // when that is every step from the start.
  std::unique_ptr<calendar::Schedule> make_schedule(const std::string& period, const config::Location& where,
                                                    const std::string& what, const std::string& offset = "") const;
  void file_periods(const config::FileDef& file, const std::string& file_id, output::FileInfo& info) const;
  std::string cell_methods(filters::TemporalOp op, const std::string& freq_op) const;
  int plan_domain(const std::string& id, const config::Location& where);
  void resolve_domain(const std::string& id, const config::DomainDef& def, DomainSetting& s);
  int plan_axis(const std::string& id, const config::Location& where);
  int plan_scalar(const std::string& id, const config::Location& where);

  const config::ContextDef& def_;
  ModelSettings& settings_;
  std::unordered_map<std::string, DomainSetting>& domains_;
  std::unordered_map<std::string, AxisSetting>& axes_;
  const Placement placement_;
  const std::string& id_;
  bool reduce_on_server_ = false;
  BuiltPlan out_;
  // The parts of out_ under the names the resolving code uses.
  std::unique_ptr<calendar::Calendar>& calendar_;
  std::int64_t &start_, &origin_, &timestep_us_;
  output::ContextPlan& plan_;
  std::vector<Field>& fields_;
  std::unordered_map<std::string, int>& field_index_;
  std::vector<OutputDef>& outputs_;
  filters::Graph& graph_;
  std::vector<FileSchedule>& files_;
  std::vector<std::string> plan_domain_ids_, plan_axis_ids_, plan_scalar_ids_;
  std::unordered_map<std::string, int> expression_node_;       // field id -> its expression's node in graph_
  std::unordered_map<std::string, std::string> derived_from_;  // domains made by transformations (id -> "transformed")
  // Interpolations built already (weights and exchange, collective), by
  // transformation and the source element its chain starts from: fields
  // that share one reuse it.
  std::map<std::pair<const config::TransformationDef*, std::string>, transform::Step> interpolations_;
  // Steps already built, by source field, source grid and the chain so far:
  // fields that share a chain's beginning (a HEALPix pyramid's levels after
  // one interpolation) share its maps, and the graph then its nodes.
  struct BuiltStep {
    transform::Component target;
    std::shared_ptr<const transform::Transform> map;
    std::string text;
  };
  std::map<std::string, BuiltStep> built_steps_;
};

// Whether the points of plan domain `index` may have several holders: every
// grid of it splits an axis among the ranks (points x levels).
bool domain_points_shared(const output::ContextPlan& plan, int index);

// After the exchange of plan domain `index` (its type, sizes, nvertex,
// clients' extents and needs_fill set): its points and coordinates from
// every model rank's part, in rank order, and the checks that need them
// (one owner per point, rows of CDI gaussian domains, points shared by
// ranks that split an axis). keep_client_points: attached writers keep each
// client's own points. Returns an error message, or "".
std::string assemble_gathered_domain(output::ContextPlan& plan, int index, const std::vector<output::ClientPart>& parts,
                                     bool keep_client_points);
// The same a part at a time, in client order (close of definition receives
// the parts one by one: rank 0 never holds them all at once).
class GatheredDomain {
 public:
  GatheredDomain(output::ContextPlan& plan, int index, std::size_t nparts, bool all_dense, bool keep_client_points);
  void add(std::size_t client, const output::ClientPart& p);
  std::string finish();  // "" or the first error

 private:
  output::ContextPlan& plan_;
  int index_;
  bool keep_, split_axes_ = false;
  output::DomainAssembler assembler_;
  std::string error_;
  std::vector<std::vector<int>> holders_;  // split axes: the clients holding each point
};

}  // namespace foehn::client
