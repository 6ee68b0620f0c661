// Subcommands of `foehn`. Argument parsing is CLI11's; everything else is in
// check.cpp and plan.cpp.
#include "tools/cli.h"

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"
#include "tools/check.h"
#include "tools/explain.h"
#include "tools/plan.h"
#include "tools/report_summary.h"

namespace foehn::tools {

namespace {

int run_check(const std::vector<std::string>& files, const std::string& explain, std::ostream& out, std::ostream& err) {
  int status = 0;
  for (const std::string& path : files) {
    CheckResult r;
    try {
      const config::Simulation sim = config::parse_file(path);
      r = check_simulation(sim);
      if (!explain.empty()) {
        const std::string text = explain_id(sim, explain);
        if (text.empty()) {
          err << path << ": no field, file, domain, axis, scalar or grid has the id '" << explain << "'\n";
          status = 1;
        }
        out << text;
      }
    } catch (const config::ConfigError& e) { r.add_reader_errors(e); }
    for (const config::ConfigWarning& w : r.warnings) err << w.str() << "\n";
    if (r.ok()) {
      out << path << ": OK (" << r.contexts << " context" << (r.contexts == 1 ? "" : "s") << ", " << r.files << " file"
          << (r.files == 1 ? "" : "s") << ", " << r.fields << " field" << (r.fields == 1 ? "" : "s") << ")\n";
      continue;
    }
    status = 1;
    for (const config::ConfigError& e : r.problems) err << e.what() << "\n";
    if (r.omitted > 0) err << "... and " << r.omitted << " more\n";
    const std::size_t total = r.problems.size() + r.omitted;
    if (total > 1) err << path << ": " << total << " problems\n";
  }
  return status;
}

struct PlanArgs {
  std::string file;
  std::vector<std::string> domains, axes;
  PlanOptions options;
  bool json = false;
};

int run_plan(const PlanArgs& args, std::ostream& out, std::ostream& err) {
  try {
    PlanOptions o = args.options;
    for (const std::string& d : args.domains) parse_size_option("--domain", d, true, o.domain_points, &o.domain_ni);
    for (const std::string& a : args.axes) parse_size_option("--axis", a, false, o.axis_points);
    const Plan plan = make_plan(config::parse_file(args.file), o);
    out << (args.json ? format_plan_json(plan) : format_plan(plan));
    return 0;
  } catch (const config::ConfigError& e) { err << e.what() << "\n"; } catch (const std::exception& e) {
    err << "foehn plan: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"foehn: check XIOS-style XML configurations and plan their output volume"};
  app.name("foehn");
  app.set_version_flag("--version", "foehn " FOEHN_VERSION_TEXT);
  app.require_subcommand(1);

  std::vector<std::string> check_files;
  std::string explain;
  CLI::App* check = app.add_subcommand("check", "read and validate configuration files");
  check->add_option("files", check_files, "iodef.xml files (includes are read relative to each)")->required();
  check
      ->add_option("--explain", explain,
                   "print every resolved attribute of the element(s) with this id, and where it came from")
      ->allow_extra_args(false);

  PlanArgs plan_args;
  PlanOptions& o = plan_args.options;
  CLI::App* plan = app.add_subcommand("plan", "bytes each enabled output file will hold over a simulated duration");
  plan->add_option("file", plan_args.file, "the iodef.xml file")->required();
  plan->add_option("--context", o.context, "only this context (default: every context with output files)");
  // One value per occurrence, so that `--domain d=4 iodef.xml` leaves the file alone.
  plan->add_option("--domain", plan_args.domains, "domain size, ID=NI,NJ or ID=NPOINTS (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--axis", plan_args.axes, "axis size, ID=N (repeatable)")->allow_extra_args(false);
  plan->add_option("--duration", o.duration, "simulated time, e.g. 10d, 1mo, 1y 6mo")->capture_default_str();
  plan->add_option("--calendar", o.calendar_type, "calendar type, if the XML does not set it (or to replace it)");
  plan->add_option("--start-date", o.start_date, "start date, e.g. \"2020-01-01 00:00:00\"");
  plan->add_option("--timestep", o.timestep, "model time step, e.g. 600s (needed for 'ts' frequencies)");
  plan->add_flag("--json", plan_args.json, "print the plan as JSON (same figures, exact byte counts)");

  std::vector<std::string> report_files;
  CLI::App* report = app.add_subcommand("report", "summarise a JSON performance report, or compare two");
  report->add_option("files", report_files, "one report, or two to compare")->required()->expected(1, 2);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any usage error 2, like most command line tools.
    return app.exit(e, out, err) == 0 ? 0 : 2;
  }
  if (check->parsed()) return run_check(check_files, explain, out, err);
  if (report->parsed()) {
    try {
      out << summarise_reports(report_files);
      return 0;
    } catch (const std::exception& e) {
      err << "foehn report: " << e.what() << "\n";
      return 1;
    }
  }
  return run_plan(plan_args, out, err);
}

}  // namespace foehn::tools
