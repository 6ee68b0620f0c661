// The report's per-file and per-field lines, beside the fixed per-rank
// figures of report.h: the compression each <file> achieved (the raw bytes
// of its values against its bytes on disk) and the non-finite values
// (NaN, +Inf, -Inf) the model wrote into each field. Their number varies,
// so they travel as text (JSON) and are merged by name on the rank that
// writes the report: the same file from several writers adds up.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace foehn::report {

struct FileBytes {
  std::string context, file;  // the context's and the <file>'s ids
  int code = 0;               // the model (its code index) the context belongs to
  double raw_bytes = 0;       // records x points x element size of the stored type (prec)
  double disk_bytes = 0;      // on disk at close: every period's file or part; a Zarr store's chunk files
};

struct FieldNonFinite {
  std::string context, field;
  double nan = 0, pos_inf = 0, neg_inf = 0;  // values counted (exact up to 2^53)
};

struct Details {
  std::vector<FileBytes> files;
  std::vector<FieldNonFinite> fields;  // only fields with a non-finite value
};

// Adds `more` into `into`, by (context, file) and (context, field), in
// order of first appearance.
void merge(Details& into, const Details& more);
std::string to_text(const Details& d);   // JSON, for MPI
Details from_text(const std::string& s);  // throws std::runtime_error on text that is not to_text's
// Collective over comm: rank 0 returns every rank's details merged, the others an empty one.
Details gather(const Details& mine, MPI_Comm comm);

// raw / disk (0 when nothing reached the disk).
double compression_ratio(const FileBytes& f);
void print_files(std::ostream& out, const std::vector<FileBytes>& files);
void print_non_finite(std::ostream& out, const std::vector<FieldNonFinite>& fields);

}  // namespace foehn::report
