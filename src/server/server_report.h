// The end of a server's run: server 0 sends each model's first rank the
// figures of every server and that model's files (raw and on-disk bytes),
// from which that rank writes the report (docs/report.md).
#pragma once

#include <mpi.h>

#include <vector>

#include "report/details.h"
#include "report/report.h"

namespace foehn::server {

// Collective over nothing: point-to-point sends on comm (kTagReport), two
// per model (the figures, then the files as text), in model order.
void send_reports(const std::vector<report::ServerFigures>& all, const report::Details& files,
                  const std::vector<int>& model_roots, MPI_Comm comm);

}  // namespace foehn::server
