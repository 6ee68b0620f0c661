// multiple_file parts rewritten for another number of writers
// (repartition.cpp, docs/restart.md).
#pragma once

#include <mpi.h>

#include <functional>

#include "formats/file_naming.h"
#include "formats/writer.h"
#include "grid/box.h"
#include "output/output_plan.h"

namespace foehn::server {

// Before writer target.part.number of target.part.total opens its part of
// netCDF multiple_file file `file` (period and base in `name`) to continue
// it: if the parts on disk were written by another number of writers, every
// writer of `writers` (collectively) writes its new part from the old ones,
// holding all their records of its own points (my_block: its box of a
// variable), and the old parts are replaced. Nothing happens when the
// parts on disk are of this count or there are none. can_rewrite false
// (two-level servers, whose writers are not all in `writers`): another
// count is refused, saying so.
void repartition_parts(const output::ContextPlan& plan, int file, const formats::FileName& name,
                       const formats::WriterTarget& target, MPI_Comm writers, bool can_rewrite,
                       const std::function<grid::Box(const output::VariableInfo&)>& my_block);

// The same for a GRIB2 multiple_file file (repartition_grib.cpp): the
// messages are copied from the old parts as they are, the new part holding
// every record's messages of the levels its writer encodes.
void repartition_grib_parts(const output::ContextPlan& plan, int file, const formats::FileName& name,
                            const formats::WriterTarget& target, MPI_Comm writers, bool can_rewrite);

// A new file of a run that continues others (a split period after the
// checkpoint's): parts of another count left by a run killed after the
// checkpoint, under names this count does not write, are removed (the
// first writer, before any writer creates its part).
void remove_stale_parts(const formats::FileName& name, std::string_view ext, int count);
// A Zarr multiple_file store continued by append="true": its part stores
// are not re-partitioned (each is a chunk grid of its writer's block; see
// docs/restart.md), so part stores on disk of another count than this
// run's are refused, naming the file, both counts and what to do. (An
// exact restart refuses it earlier, by the configuration check.)
// Collective over `writers`: the first counts before any creates its store.
void refuse_other_zarr_count(const output::FileInfo& f, const formats::FileName& name, std::string_view ext,
                             int count, MPI_Comm writers);

// The same for GRIB2 (repartition_grib.cpp). Its parts carry no count, but
// every part of a file after the checkpoint's was written after it: the
// names this count does not write go, those it writes are created anew.
void remove_stale_grib_parts(const formats::FileName& name, std::string_view ext, int count);

}  // namespace foehn::server
