#include "client/definition_memory.h"

#include <algorithm>
#include <sstream>

#include "grid/domain_layout.h"
#include "report/memory_available.h"

namespace foehn::client {

using report::gib;

MemoryNeed definition_need(const ModelSettings& settings, bool gathers) {
  MemoryNeed need;
  double largest = -1;
  for (const auto& [id, s] : settings.domains) {
    const double local = static_cast<double>(grid::local_point_count(s.layout));
    double bytes = local * kDefinitionBytesPerPoint;
    const double global = static_cast<double>(s.ni_glo) * static_cast<double>(std::max<std::int64_t>(s.nj_glo, 1));
    if (gathers) {
      // Rectilinear blocks send a coordinate per row and column; the other
      // types one (and their bounds) per point, and by-index parts their indices.
      const bool per_point = !(s.type.empty() || s.type == "rectilinear") || s.layout.by_index;
      if (per_point) bytes += global * (16.0 + 16.0 * s.nvertex);
      if (s.layout.by_index) bytes += global * kGatheredBytesPerIndex;
    }
    need.bytes += bytes;
    if (bytes > largest) {
      largest = bytes;
      std::ostringstream what;
      what.precision(0);
      what << std::fixed << "domain '" << id << "': " << local << " local points of " << global << " (" << gib(bytes)
           << ")";
      need.largest = what.str();
    }
  }
  return need;
}

std::string check_definition_memory(const std::string& context_id, const ModelSettings& settings, bool gathers,
                                    MPI_Comm comm) {
  const MemoryNeed need = definition_need(settings, gathers);
  const report::MemoryAvailable have = report::memory_available();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  double node_need = 0;
  MPI_Allreduce(&need.bytes, &node_need, 1, MPI_DOUBLE, MPI_SUM, node);
  int node_ranks = 0;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);

  // The node's memory first, then this process's limit; the highest rank
  // that does not fit writes the message every rank returns.
  std::string mine;
  if (have.node_bytes >= 0 && node_need > have.node_bytes) {
    mine = "foehn_close_definition: context '" + context_id + "' needs about " + gib(node_need) +
           " for its definition on the node of model rank " + std::to_string(rank) + " (" +
           std::to_string(node_ranks) + (node_ranks == 1 ? " rank" : " ranks") + "; this rank's largest " +
           need.largest + "), " + gib(have.node_bytes) + " available (" + have.node_source +
           "): use more nodes, or a smaller domain";
  } else if (have.process_bytes >= 0 && need.bytes > have.process_bytes) {
    mine = "foehn_close_definition: context '" + context_id + "' needs about " + gib(need.bytes) +
           " for its definition on model rank " + std::to_string(rank) + " (" + need.largest + "), " +
           gib(have.process_bytes) + " left under the process's address-space limit (ulimit -v)";
  }
  const int failing_here = mine.empty() ? -1 : rank;
  int first = -1;
  MPI_Allreduce(&failing_here, &first, 1, MPI_INT, MPI_MAX, comm);
  if (first < 0) return "";
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  mine.resize(static_cast<std::size_t>(length));
  MPI_Bcast(mine.data(), length, MPI_CHAR, first, comm);
  return mine;
}

}  // namespace foehn::client
