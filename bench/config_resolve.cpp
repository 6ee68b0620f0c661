// Benchmark: how long foehn takes to read and resolve a large configuration
// (includes, group inheritance, field_ref chains, group_ref expansion), with
// pugixml's bare parse of the same files as the baseline measured in the
// same run. Writes the generated XML to --dir and the result as JSON.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"

namespace {

struct Shape {
  int fields = 5000, files = 20, top_groups = 10, sub_groups = 10;
};

// field_def.xml: top groups carry the grid and operation, nested groups the
// unit and sampling; every 10th field refers to the one before it.
std::string field_def(const Shape& s) {
  std::ostringstream x;
  x << "<field_definition prec=\"4\" enabled=\".TRUE.\" default_value=\"1.e20\">\n";
  const int per_sub = (s.fields + s.top_groups * s.sub_groups - 1) / (s.top_groups * s.sub_groups);
  int n = 0;
  for (int g = 0; g < s.top_groups && n < s.fields; ++g) {
    x << " <field_group id=\"top" << g << "\" grid_ref=\"" << (g % 2 ? "g3d" : "g2d") << "\" operation=\"average\">\n";
    for (int sg = 0; sg < s.sub_groups && n < s.fields; ++sg) {
      x << "  <field_group id=\"top" << g << "_sub" << sg << "\" unit=\"u" << sg << "\" freq_op=\"1ts\">\n";
      for (int i = 0; i < per_sub && n < s.fields; ++i, ++n) {
        x << "   <field id=\"f" << n << "\" long_name=\"field number " << n << "\" standard_name=\"sn_" << n << "\"";
        if (n % 10 == 9) x << " field_ref=\"f" << n - 1 << "\"";
        if (n % 7 == 0) x << " operation=\"maximum\"";
        x << " />\n";
      }
      x << "  </field_group>\n";
    }
    x << " </field_group>\n";
  }
  x << "</field_definition>\n";
  return x.str();
}

// iodef.xml: the definitions, field_def.xml by src=, and the files: each
// takes one top group by group_ref and, inside a group of its own, field_refs
// to the first sub-group of the next top group.
std::string iodef(const Shape& s) {
  std::ostringstream x;
  x << "<simulation>\n <context id=\"bench\">\n"
    << "  <calendar type=\"gregorian\" timestep=\"600s\" start_date=\"2000-01-01 00:00:00\" />\n"
    << "  <axis_definition><axis id=\"lev\" n_glo=\"50\" /></axis_definition>\n"
    << "  <domain_definition><domain id=\"globe\" ni_glo=\"360\" nj_glo=\"180\" /></domain_definition>\n"
    << "  <grid_definition>\n   <grid id=\"g2d\"><domain domain_ref=\"globe\" /></grid>\n"
    << "   <grid id=\"g3d\"><domain domain_ref=\"globe\" /><axis axis_ref=\"lev\" /></grid>\n  </grid_definition>\n"
    << "  <field_definition src=\"./field_def.xml\" />\n"
    << "  <file_definition type=\"one_file\" sync_freq=\"1d\">\n";
  const int per_sub = (s.fields + s.top_groups * s.sub_groups - 1) / (s.top_groups * s.sub_groups);
  for (int f = 0; f < s.files; ++f) {
    if (f % 10 == 0) x << "   <file_group id=\"fg" << f / 10 << "\" output_freq=\"" << (f / 10 + 1) << "h\">\n";
    const int g = f % s.top_groups, next = (g + 1) % s.top_groups;
    x << "    <file id=\"file" << f << "\">\n     <field_group group_ref=\"top" << g << "\" />\n"
      << "     <field_group operation=\"instant\">\n";
    for (int i = 0; i < per_sub; ++i) {
      const int n = next * s.sub_groups * per_sub + i;
      if (n < s.fields) x << "      <field field_ref=\"f" << n << "\" name=\"copy_f" << n << "\" />\n";
    }
    x << "     </field_group>\n    </file>\n";
    if (f % 10 == 9 || f + 1 == s.files) x << "   </file_group>\n";
  }
  x << "  </file_definition>\n </context>\n</simulation>\n";
  return x.str();
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

template <typename F>
std::vector<double> time_runs(int runs, F&& f) {
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return seconds;
}

// The 1-minute load average: a busy machine explains a slow run.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string json_list(const std::vector<double>& v) {
  std::ostringstream x;
  x.precision(6);
  x << "[";
  for (std::size_t i = 0; i < v.size(); ++i) x << (i ? ", " : "") << v[i];
  return x.str() + "]";
}

}  // namespace

int main(int argc, char** argv) {
  Shape shape;
  int runs = 5;
  double target = 1.0;
  std::string dir = "config_resolve_xml", out;
  CLI::App app{"Time reading and resolving a generated configuration (median of --runs)"};
  app.add_option("--fields", shape.fields, "fields in field_definition")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000'000));
  app.add_option("--files", shape.files, "files, each with a group_ref and field_refs")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  app.add_option("--runs", runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--target", target, "seconds the median must stay under")->capture_default_str();
  app.add_option("--dir", dir, "where the generated XML is written")->capture_default_str();
  app.add_option("--out", out, "JSON result file (also printed)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::create_directories(dir);
  const std::string main_file = (std::filesystem::path(dir) / "iodef.xml").string();
  const std::string defs_file = (std::filesystem::path(dir) / "field_def.xml").string();
  write(defs_file, field_def(shape));
  write(main_file, iodef(shape));
  const auto xml_bytes = std::filesystem::file_size(main_file) + std::filesystem::file_size(defs_file);

  const double load = load_average();
  std::size_t file_fields = 0, contexts = 0;
  const std::vector<double> foehn = time_runs(runs, [&] {
    const foehn::config::Simulation sim = foehn::config::parse_file(main_file);
    contexts = sim.contexts.size();
    file_fields = 0;
    for (const auto& f : sim.contexts.at(0).files) file_fields += f.fields.size();
  });
  const std::vector<double> baseline = time_runs(runs, [&] {
    for (const std::string& path : {main_file, defs_file}) {
      pugi::xml_document doc;
      if (!doc.load_file(path.c_str())) throw std::runtime_error("pugixml cannot parse " + path);
    }
  });

  const double m = median(foehn);
  std::ostringstream json;
  json << "{\n  \"benchmark\": \"config_resolve\",\n  \"fields\": " << shape.fields
       << ",\n  \"field_groups\": " << shape.top_groups * (1 + shape.sub_groups) << ",\n  \"files\": " << shape.files
       << ",\n  \"file_fields_resolved\": " << file_fields << ",\n  \"xml_bytes\": " << xml_bytes
       << ",\n  \"runs\": " << runs << ",\n  \"parse_resolve_seconds\": " << json_list(foehn)
       << ",\n  \"median_seconds\": " << m << ",\n  \"baseline_pugixml_parse_seconds\": " << json_list(baseline)
       << ",\n  \"baseline_median_seconds\": " << median(baseline) << ",\n  \"target_seconds\": " << target
       << ",\n  \"within_target\": " << (m < target ? "true" : "false") << ",\n  \"load_average_1min\": " << load
       << "\n}\n";
  std::cout << json.str();
  if (!out.empty()) write(out, json.str());
  if (contexts != 1) return 1;
  return m < target ? 0 : 1;
}
