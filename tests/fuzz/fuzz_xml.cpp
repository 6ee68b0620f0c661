// libFuzzer target: any text given to the XML reader either reads or fails
// with a ConfigError; `foehn check` and `foehn plan` on what reads either
// work or fail with their documented errors. Anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "config/config.h"
#include "tools/check.h"
#include "tools/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace foehn;
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  config::Simulation sim;
  try {
    sim = config::parse_string(xml, "fuzz.xml", FOEHN_FUZZ_BASE_DIR);
  } catch (const config::ConfigError& e) {
    if (e.where.line < 0 || e.message.empty()) __builtin_trap();  // errors always say where and what
    return 0;
  }
  tools::check_simulation(sim);  // reports problems, never throws
  try {
    tools::PlanOptions options;
    options.duration = "10d";
    tools::make_plan(sim, options);
  } catch (const config::ConfigError&) {
  } catch (const std::invalid_argument&) {
  } catch (const std::overflow_error&) {}
  return 0;
}
