#include "filters/temporal_stage.h"

namespace foehn::filters {

void Sampler::advance(std::int64_t now) {
  if (!schedule) {
    due = true;
    return;
  }
  due = false;
  // Every instant reached by this step counts once.
  while (schedule->instant(next_k) <= now) {
    due = true;
    ++next_k;
  }
}

}  // namespace foehn::filters
