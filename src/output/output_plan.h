// What a writer needs to know about a context's output, resolved on the
// clients at close of definition and sent to the servers: the domains and
// axes with their global coordinates, each output variable with its
// dimensions, and each file. Nothing here refers to XML any more.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calendar/calendar.h"
#include "grid/box.h"

namespace foehn::output {

struct LocalBlock {  // a box of a domain (0-based): a client's part, a writer's part
  std::int64_t ibegin = 0, ni = 0, jbegin = 0, nj = 0;
};

// The points of a domain one client sends, when they are not simply its
// block row by row (index lists, halos, compressed data, masks).
struct ClientPoints {
  bool dense = true;  // true: the client sends its block whole, row by row; `sent` is empty
  // The global index (j * ni_glo + i) of each value the client sends, in
  // the order of its data (halo, masked and left-out values skipped).
  std::vector<std::int64_t> sent;
  // The global index of each point the client owns, when they are not its
  // block. Only attached writers need it (for their own entry): it is not
  // encoded, so servers never receive it.
  std::vector<std::int64_t> owned;
};

// Every domain is a 1-D global index space of ni_glo * nj_glo points
// (index j * ni_glo + i); see docs/grids.md.
struct DomainInfo {
  std::string id, name, long_name;
  std::string type = "rectilinear";     // rectilinear, curvilinear, gaussian, unstructured, healpix
  std::int64_t ni_glo = 0, nj_glo = 0;  // 1-D domains (gaussian, unstructured, healpix): nj_glo = 1
  // healpix: the refinement level (nside = 2^level, 12 nside^2 cells, the
  // global index is the cell index) and its scheme; foehn computes the
  // geometry (grid/healpix.h). Cells no rank holds are written as fill.
  std::int32_t healpix_level = -1;
  bool healpix_nested = true;
  // XIOS's naming attributes of the netCDF coordinates and dimensions
  // (empty: not given; formats/netcdf/netcdf_define.cpp applies XIOS's rules).
  std::string lon_name, lat_name, bounds_lon_name, bounds_lat_name, dim_i_name, dim_j_name;
  std::string nvertex_name;  // 1-D domains: the corners' dimension, as given (XIOS: unstructured only)
  // Rectilinear: ni_glo longitudes and nj_glo latitudes; other types: one
  // of each per point, in global index order.
  std::vector<double> lon, lat;
  std::int32_t nvertex = 0;                    // corners per value in the bounds (rectilinear: 2); 0: no bounds
  std::vector<double> bounds_lon, bounds_lat;  // nvertex per lon and lat value
  bool needs_fill = false;           // some points are never sent (masked, left out): they hold the fill value
  std::vector<LocalBlock> clients;   // by client index (model rank): the bounding box of its points
  std::vector<ClientPoints> points;  // by client index; empty: every client dense

  bool one_dimensional() const { return type == "gaussian" || type == "unstructured" || type == "healpix"; }
  std::int64_t size() const { return ni_glo * nj_glo; }
};

// A NetCDF attribute asked for by the XML: a <variable> of a file (global),
// of a field or of an axis, or valid_min/valid_max. type: "string", "int", "double",
// "bool" (config::Variable's types, written as text, NC_INT64 or NC_INT,
// NC_DOUBLE, text), or "data": the variable's own type (float or double).
struct Attribute {
  std::string name, type, value;
  friend bool operator==(const Attribute&, const Attribute&) = default;
};

struct AxisInfo {
  std::string id, name, long_name, standard_name, units, positive;
  std::string axis_type;       // CF axis attribute: X, Y, Z or T ("": Z)
  std::string bounds_name;     // name of the bounds variable ("": <name>_bnds)
  std::string dim_name;        // XIOS's name of its dimension ("": the axis's name)
  std::vector<double> values;  // n_glo values
  std::vector<double> bounds;  // 2 per value (lower, upper), or empty
  // On the coordinate variable: formula, formula_terms (a parametric
  // vertical coordinate) and the axis's <variable>s; on the bounds variable:
  // formula and formula_terms from formula_bounds, formula_term_bounds.
  std::vector<Attribute> attributes, bounds_attributes;
  // By client: the global indices of its part, in its data order. Empty:
  // every client holds the whole axis (then grids of axes only are sent
  // by client 0 alone).
  std::vector<std::vector<std::int64_t>> parts;
  bool decomposed() const { return !parts.empty(); }
  std::int64_t size() const { return static_cast<std::int64_t>(values.size()); }
};

// A scalar grid component: no dimension; written as a 0-d coordinate
// variable when it has a value.
struct ScalarInfo {
  std::string id, name, long_name, standard_name, units, positive, axis_type, bounds_name;
  bool has_value = false;
  double value = 0;
};

// One dimension of a variable, slowest first (C order), time excluded.
struct Dim {
  enum Kind : std::int32_t { domain_j = 0, domain_i = 1, axis = 2 };
  std::int32_t kind = axis;
  std::int32_t index = 0;  // into domains or axes
};

struct VariableInfo {
  std::string field_id, name, long_name, standard_name, units, operation, cell_methods, comment;
  std::int32_t prec = 4;          // 4: float, 8: double
  std::int32_t file = 0;          // index into files
  std::int32_t op = 0;            // filters::TemporalOp
  bool reduce_on_server = false;  // the server accumulates the samples the clients send
  bool has_fill = false;          // _FillValue/missing_value written; NaN results become it
  double fill_value = 0;
  std::int32_t compression_level = 0;  // deflate level (with shuffle) 1..9; 0: none
  // compression_type beyond deflate: "szip", or "" (deflate at compression_level).
  std::string compression_filter;
  // Lossy quantization before compression: "", "bitround", "granular_bitround"
  // or "bitgroom", keeping quantization_keep significant bits (bitround) or
  // decimal digits (the others).
  std::string quantization;
  std::int32_t quantization_keep = 0;
  // chunking_blocksize_target (XIOS's, MiB): the chunk of a record at most
  // about this size, split along the outer axis as XIOS does; 0: the
  // writer's own choice (formats/netcdf/netcdf_chunks.cpp).
  double chunk_target_mib = 0;
  std::vector<Attribute> attributes;  // the field's <variable>s, valid_min, valid_max
  std::vector<Dim> dims;
  std::vector<std::int32_t> scalars;  // indices into scalars: 0-d coordinates of the variable
};

struct FileInfo {
  // base_path: directory and name without extension; formats::file_name
  // adds the period's dates, the part number and the format's extension.
  std::string id, base_path, title, output_freq;
  std::string defined_at;          // "iodef.xml:12": where the <file> is, for messages
  std::string format = "netcdf4";  // the writer (formats/registry.cpp)
  // The XML's convention (words: "UGRID", "CDI"), for the writer to read:
  // UGRID gives unstructured domains a mesh topology, CDI gives gaussian
  // domains CDI's reduced Gaussian rows.
  std::string convention;
  bool one_file = true;
  bool append = false;  // append="true": an existing file gets this run's records after its own
  // An exact restart (docs/restart.md): the records the file held at the
  // checkpoint; this run writes from there, over any written after it. -1: none.
  std::int64_t resume_records = -1;
  // The file this run continues: split_freq, the period of the checkpoint's
  // last record (-1: the first); and the records that file held (of the
  // whole output without split_freq). -1: none.
  std::int64_t resume_period = -1, resume_file_records = -1;
  // Created through the parallel API even for one writer: a file a later
  // run may continue (append, restart_dir) with more writers. A file created
  // serially cannot grow under several (Open MPI's ompio fails in pwritev,
  // "NetCDF: HDF error"); serial creation keeps errno's words for a full disk.
  bool continuable = false;
  std::int32_t min_digits = 0;          // multiple_file: part numbers zero-padded to at least this width
  std::vector<std::int32_t> variables;  // indices into variables, in file order
  std::vector<Attribute> attributes;    // the file's <variable>s: global attributes
  // File periods (durations as calendar::format_duration writes them; empty:
  // none): a new file every split_freq, named with the period's dates in
  // split_format (formats::file_name); the writer syncs every sync_freq.
  std::string split_freq, split_format, sync_freq;
  // The time variables (formats/netcdf/time_layout.h): XIOS's time_counter
  // mode ("": its default), the record dimension's name, and time values in
  // days (of 86400 s) instead of seconds.
  std::string time_counter, time_counter_name = "time_counter";
  bool time_in_days = false;
  // XIOS's global attributes of a new file: the wall-clock time of its
  // creation (strftime's format, UTC) and a random uuid (uuid_format: "" or
  // a text whose %uuid% stands for it), under these names.
  std::string time_stamp_name = "timeStamp", time_stamp_format = "%Y-%b-%d %H:%M:%S %Z";
  std::string uuid_name = "uuid", uuid_format;
  // record_offset: the index of the first record (negative: that many of
  // the first records are not written, as XIOS).
  std::int64_t record_offset = 0;

  bool has_convention(std::string_view word) const;  // convention="CDI UGRID" has both
};

struct ContextPlan {
  std::string context_id;
  std::uint32_t key = 0;   // tags this context's events
  std::string calendar;    // CF calendar name
  std::string time_units;  // "seconds since <time origin>"
  std::string start_date;
  std::vector<std::int32_t> client_ranks;  // world rank of each client (by model rank)
  std::vector<DomainInfo> domains;
  std::vector<AxisInfo> axes;
  std::vector<ScalarInfo> scalars;
  std::vector<VariableInfo> variables;
  std::vector<FileInfo> files;
  std::string time_origin;       // date of time 0 ("YYYY-MM-DD hh:mm:ss"), for file periods
  std::int64_t timestep_us = 0;  // the model time step, for periods counted in 'ts'
  // calendar "user_defined": its 12 month lengths, leap_year_month,
  // leap_year_drift and leap_year_drift_offset (calendar::UserCalendar)
  std::vector<std::int64_t> user_calendar;
  // The calendar these name (throws calendar::TimeError on bad values).
  calendar::Calendar make_calendar() const;
  // Two-level servers (docs/xml.md): the last level2_ranks server ranks
  // write the files in level2_pools pools; the others (level 1) receive
  // and assemble. 0: every server receives and writes.
  std::int32_t level2_ranks = 0, level2_pools = 1;
  // Bytes a level-1 rank may hold in blocks forwarded to level 2 but not yet
  // sent (server_level1_forward_bytes); 0: twice one record of its blocks.
  std::int64_t level1_forward_bytes = 0;
  // Files without sync_freq are flushed after a record once this many
  // wall-clock seconds have passed since their last flush (the context
  // variable sync_seconds; 0: after every record; negative: never), so a
  // killed run keeps what was written before (docs/failures.md).
  double sync_seconds = 10.0;
  // An exact restart of reductions done on the servers (docs/restart.md):
  // the servers' state file to continue their open windows from; empty: none.
  std::string server_state;

  std::vector<std::int64_t> shape(const VariableInfo& v) const;
  // The dimension servers split along: the first domain's j (the cells of a
  // 1-D domain), else the slowest.
  int split_dim(const VariableInfo& v) const;
  // A variable around its domain: the values of the dimensions slower than
  // the domain (outer) and faster (inner); domain -1: axes only (outer 1,
  // inner all values).
  struct Layout {
    int domain = -1;
    std::int64_t outer = 1, inner = 1;
  };
  Layout layout(const VariableInfo& v) const;
  // The global indices client c sends of a domain, in its data order.
  std::vector<std::int64_t> sent_points(int domain, int client) const;
  // The part of a domain server s of n owns: a balanced band of rows (2-D)
  // or range of cells (1-D).
  LocalBlock server_extent(int domain, int server, int nservers) const;
  // For each server of n, the positions in `points` (global indices of a
  // domain, -1: none) of the points in its range, in order.
  std::vector<std::vector<std::int64_t>> split_by_server(int domain, const std::vector<std::int64_t>& points,
                                                         int nservers) const;
  // The block of a variable that client c sends. A variable with no domain
  // (an axis profile, a scalar) is taken from client 0 only, unless its
  // axes are decomposed: then from every client, the bounding box of its
  // parts.
  grid::Box client_box(const VariableInfo& v, int client) const;
  // A variable with an axis decomposed among the clients.
  bool decomposed_axes(const VariableInfo& v) const;
  // The position in `box` (C order, over dimensions [first, last) of v,
  // all axes) of each value of client c's parts of those axes, in its data
  // order (the grid's first axis fastest). Without arguments: every
  // dimension (a variable of axes only).
  std::vector<std::int64_t> axis_positions(const VariableInfo& v, int client, const grid::Box& box) const {
    return axis_positions(v, client, box, 0, v.dims.size());
  }
  std::vector<std::int64_t> axis_positions(const VariableInfo& v, int client, const grid::Box& box, std::size_t first,
                                           std::size_t last) const;
  // The block of a variable that server s of n owns: a balanced band of the
  // split dimension; a variable with no domain belongs whole to server 0.
  grid::Box server_block(const VariableInfo& v, int server, int nservers) const;
  bool has_domain(const VariableInfo& v) const;
};

// One client's part of a domain, as gathered at close of definition
// (pointers into the gathered arrays).
struct ClientPart {
  LocalBlock extent;  // its block, or the bounding box of its index list
  bool by_index = false, dense = true;
  const std::int64_t* owned = nullptr;  // by_index: the global index of each local point
  const std::int64_t* sent = nullptr;   // !dense: the global index of each value sent
  std::int64_t n_owned = 0, n_sent = 0;
  const double *lon = nullptr, *lat = nullptr;  // as the model gave them
  const double *bounds_lon = nullptr, *bounds_lat = nullptr;
  std::int64_t n_lon = 0, n_lat = 0;
};
// Fills the global coordinates and the clients' points of `d` (its type,
// sizes and nvertex set) from every client's part. Returns an error message
// when a point has two owners or none, else "".
// shared: points may be held by several clients (grids that split an axis
// among them; check_shared_points checks those grids).
std::string assemble_domain(DomainInfo& d, const std::vector<ClientPart>& parts, bool shared = false);
// Its two errors: point g held by two clients (first, then second), and
// point g held by none (also client::check_ownership's).
std::string clash_message(const std::string& domain, std::int64_t ni_glo, std::int64_t g, std::int64_t first,
                          std::int64_t second);
std::string hole_message(const std::string& domain, std::int64_t ni_glo, std::int64_t g);
// assemble_domain a part at a time, in client order, so that the parts need
// not all be held at once (close of definition receives them one by one).
// all_dense: every client's part is dense (then d.points stays empty).
class DomainAssembler {
 public:
  DomainAssembler(DomainInfo& d, std::size_t nparts, bool all_dense, bool shared);
  std::string add(std::size_t client, const ClientPart& p);  // "" or the clash
  std::string finish();                                      // "" or the hole
 private:
  DomainInfo& d_;
  bool all_dense_, shared_;
  std::vector<int> owner_;  // by global point: its client, -1: none yet
};
// A healpix domain's centres and corners (4, counterclockwise from the
// north), computed for every cell of its level and scheme.
void healpix_geometry(DomainInfo& d);
// The rows of a reduced Gaussian domain, as CDI's netCDF convention gives
// them (convention="CDI", docs/grids.md): each row's latitude, north to
// south, and its number of points.
struct ReducedRows {
  std::vector<double> lat;
  std::vector<std::int32_t> points;
};
// The rows of a gaussian domain: the runs of equal latitude of its points
// in global index order. Returns "" or what is wrong (the latitude rises,
// an odd number of rows, no coordinates).
std::string reduced_rows(const DomainInfo& d, ReducedRows& rows);
// A variable of a domain and decomposed axes: "" if, at every point, the
// axis parts of the clients holding it hold each value of the axes once.
// holders[g]: the clients holding point g, in rank order.
std::string check_shared_points(const ContextPlan& plan, const VariableInfo& v,
                                const std::vector<std::vector<int>>& holders);
// For a variable of decomposed axes: "" if the clients' parts hold every
// value of the grid exactly once, else a message naming a value held twice
// or by no client.
std::string check_axes_cover(const ContextPlan& plan, const VariableInfo& v);

// Files of two contexts open at once that would write one path (the same
// name and format): a message naming both, else empty. The one writing
// would clobber the other, or their parallel writes corrupt it.
std::string file_clash(const ContextPlan& mine, const ContextPlan& other);

std::vector<char> encode(const ContextPlan& plan);
ContextPlan decode_plan(const char* data, std::size_t size);  // throws transport::WireError

}  // namespace foehn::output
