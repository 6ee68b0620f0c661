// `foehn plan`: how many bytes each output file will hold over a simulated
// duration, from the grid sizes (XML or command line), the precision of each
// field and the number of records the calendar gives.
//
// Counted: the data of the fields, uncompressed (prec bytes per point and
// record). Not counted: coordinates, bounds, the time axis and NetCDF
// headers, which are small next to the data of any large run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"

namespace foehn::tools {

struct PlanOptions {
  std::string context;                                // empty: every context that has output files
  std::map<std::string, std::int64_t> domain_points;  // --domain ID=NI,NJ or ID=NPOINTS
  std::map<std::string, std::int64_t> axis_points;    // --axis ID=N
  std::map<std::string, std::int64_t> domain_ni;      // --domain ID=NI,NJ: NI (transformations need the shape)
  std::string duration = "1d";                        // simulated time covered
  // Fill in (or replace) the XML's <calendar>, which models often set through the API.
  std::string calendar_type, start_date, timestep;
};

struct FieldPlan {
  std::string name, operation, grid;
  std::int64_t points = 0;
  int prec = 4;
  std::int64_t bytes_per_record = 0;
  std::vector<std::string> transformations;  // "zoom_domain 360x180 -> 10x5", from its source field's grid
  // Deflate (compression_level, with its quantization): compressed / raw
  // bytes of a synthetic sample (plan_compression.cpp); 1 when not deflated.
  double compressed_fraction = 1;
};

struct FilePlan {
  std::string id, name, type, output_freq;
  config::Location where;
  std::vector<FieldPlan> fields;
  std::int64_t records = 0;           // output instants in (start, start + duration]
  std::string split_freq;             // empty: one file
  std::int64_t files = 1;             // split_freq: the files the records fall in (the first period's always)
  std::int64_t bytes_per_record = 0;  // fields written every record
  std::int64_t once_bytes = 0;        // operation="once" fields, written at the first record only
  std::int64_t total_bytes = 0;
  bool compressed = false;          // a field is deflated: estimated_bytes says how much less
  std::int64_t estimated_bytes = 0;  // total_bytes with each field's compressed_fraction
};

struct ContextPlan {
  std::string id, calendar, start, end;
  double simulated_days = 0;
  std::vector<FilePlan> files;
  std::int64_t total_bytes = 0;
};

struct Plan {
  std::string duration;
  std::vector<ContextPlan> contexts;
  std::int64_t total_bytes = 0;
  double bytes_per_day = 0;  // summed over contexts
};

// Throws config::ConfigError (at the XML line) for what the configuration
// lacks, std::invalid_argument for bad options (both name what to pass).
Plan make_plan(const config::Simulation& sim, const PlanOptions& options);

// "ID=NI,NJ" or "ID=NPOINTS" (for --domain), "ID=N" (for --axis; two numbers
// refused). Adds to `out`; throws std::invalid_argument naming the option.
void parse_size_option(const std::string& option, const std::string& text, bool allow_two,
                       std::map<std::string, std::int64_t>& out,
                       std::map<std::string, std::int64_t>* widths = nullptr);  // ID=NI,NJ: NI

// The compressed / raw fraction of a sample of `points` (at most 65536)
// values of precision prec, quantized (quantization: "", bitround with keep
// bits, or a digit algorithm with keep digits) and deflated with shuffle at
// `level` (0: not deflated, 1).
double compressed_fraction(int prec, int level, const std::string& quantization, int keep, std::int64_t points);

// The report printed by `foehn plan`.
std::string format_plan(const Plan& plan);
// The same figures as one JSON object (exact integers for byte counts):
// {"duration", "total_bytes", "total_human", "total_human_binary", "files",
//  "bytes_per_day", "contexts": [{"id", "calendar", "start", "end",
//  "simulated_days", "total_bytes", "files": [{"id", "name", "type",
//  "output_freq", "xml_file", "xml_line", "records", "bytes_per_record",
//  "once_bytes", "total_bytes", "total_human", "estimated_bytes",
//  "fields": [{"name", "operation", "grid", "points", "prec",
//  "bytes_per_record", "compressed_fraction"}]}]}]}
std::string format_plan_json(const Plan& plan);
// "512 B", "43.4 GB", "3.47 TB" (powers of 1000, three significant digits).
std::string human_bytes(std::int64_t bytes);
// "3.16 TiB" (powers of 1024).
std::string human_bytes_binary(std::int64_t bytes);

}  // namespace foehn::tools
