// Before a server's engine allocates anything: whether the records it will
// assemble fit in the node's memory and the process's limit.
#pragma once

#include "output/output_plan.h"

namespace foehn::server {

// The records server `index` of `count` assembles for plan (two of each
// variable's block in flight, its accumulators when it reduces) against the
// node's memory, the `servers_on_node` servers there having balanced blocks
// alike; throws a message for the model's close of definition if they do not fit.
void check_memory(const output::ContextPlan& plan, int index, int count, int servers_on_node);

}  // namespace foehn::server
