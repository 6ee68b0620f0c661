#include "server/memory_check.h"

#include <stdexcept>
#include <string>

#include "report/memory_available.h"
#include "report/report.h"

namespace foehn::server {

void check_memory(const output::ContextPlan& plan, int index, int count, int servers_on_node) {
  double need = 0;
  for (const output::VariableInfo& v : plan.variables) {
    const double points = static_cast<double>(plan.server_block(v, index, count).size());
    need += points * (2.0 * (v.prec == 8 ? 8 : 4) + (v.reduce_on_server ? 16.0 : 0.0));
  }
  const report::MemoryAvailable have = report::memory_available();
  const double node_need = need * servers_on_node;
  const std::string records = "foehn-server " + std::to_string(index) + ": the records of the context's " +
                              std::to_string(plan.variables.size()) + " variables need about ";
  if (have.node_bytes >= 0 && node_need > have.node_bytes)
    throw std::runtime_error(records + report::gib(node_need) + " on its node (" + std::to_string(servers_on_node) +
                             " servers), " + report::gib(have.node_bytes) + " available (" + have.node_source +
                             "): use more server nodes");
  if (have.process_bytes >= 0 && need > have.process_bytes)
    throw std::runtime_error(records + report::gib(need) + ", " + report::gib(have.process_bytes) +
                             " left under the process's address-space limit (ulimit -v)");
}

}  // namespace foehn::server
