// The one list of output formats (registry.cpp) and the way to open a
// writer by a file's format. A new format adds one line to that list; the
// list is written by hand because static self-registration objects are
// dropped by the linker from static libraries.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "formats/writer.h"
#include "output/output_plan.h"

namespace foehn::formats {

using OpenWriter = std::unique_ptr<Writer> (*)(const output::ContextPlan& plan, int file, WriterTarget target);

struct FormatEntry {
  std::string_view name;  // the XML's file format="..."
  OpenWriter open;
  WriterTraits traits;
};

std::span<const FormatEntry> known_formats();
// The entry of `name`; throws IoError naming the known formats when there is none.
const FormatEntry& format_entry(std::string_view name);
inline const WriterTraits& traits_of(std::string_view name) { return format_entry(name).traits; }
// Opens (creates, or with append="true" continues) file `file` of the plan
// in its format, collectively over target.comm.
std::unique_ptr<Writer> open_writer(const output::ContextPlan& plan, int file, WriterTarget target);
// After a process's last writer, before MPI_Finalize: a format library left
// broken by a file that failed to close must not crash the process at exit.
void before_mpi_finalize();

}  // namespace foehn::formats
