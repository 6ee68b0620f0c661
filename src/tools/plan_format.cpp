// The text side of `foehn plan`: reading size options and printing the plan.
// Exact byte counts are printed as plain integers so scripts can read them.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "tools/plan.h"

namespace foehn::tools {

namespace {

std::int64_t positive_count(const std::string& option, const std::string& text, std::string_view part) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
  if (ec != std::errc() || end != part.data() + part.size() || n <= 0)
    throw std::invalid_argument(option + " " + text + ": '" + std::string(part) + "' is not a positive whole number");
  return n;
}

std::string human(std::int64_t bytes, double base, const char* const units[], int n_units) {
  if (bytes < base) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= base && u + 1 < n_units) v /= base, ++u;
  // Three significant digits; a value that would round up to `base` moves up a unit.
  if (v >= base - 0.5 && u + 1 < n_units) v /= base, ++u;
  const int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, units[u]);
  return buf;
}

// Left-aligned columns separated by two spaces.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? row[c] + std::string(width[c] - row[c].size() + 2, ' ') : row[c];
    out += line + "\n";
  }
  return out;
}

std::string bytes_text(std::int64_t n) { return std::to_string(n) + " bytes (" + human_bytes(n) + ")"; }

}  // namespace

void parse_size_option(const std::string& option, const std::string& text, bool allow_two,
                       std::map<std::string, std::int64_t>& out, std::map<std::string, std::int64_t>* widths) {
  const auto eq = text.find('=');
  const std::string form = allow_two ? "ID=NI,NJ or ID=NPOINTS" : "ID=N";
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument(option + " " + text + ": expected " + form);
  const std::string id = text.substr(0, eq);
  const std::string_view sizes = std::string_view(text).substr(eq + 1);
  const auto comma = sizes.find(',');
  std::int64_t n = 0;
  if (comma == std::string_view::npos) {
    n = positive_count(option, text, sizes);
  } else {
    if (!allow_two) throw std::invalid_argument(option + " " + text + ": expected " + form);
    const std::int64_t ni = positive_count(option, text, sizes.substr(0, comma));
    const std::int64_t nj = positive_count(option, text, sizes.substr(comma + 1));
    if (__builtin_mul_overflow(ni, nj, &n)) throw std::invalid_argument(option + " " + text + ": too many points");
    if (widths) (*widths)[id] = ni;
  }
  if (!out.emplace(id, n).second) throw std::invalid_argument(option + ": '" + id + "' given twice");
}

std::string human_bytes(std::int64_t bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  return human(bytes, 1000.0, units, 7);
}

std::string human_bytes_binary(std::int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return human(bytes, 1024.0, units, 7);
}

std::string format_plan(const Plan& plan) {
  std::ostringstream out;
  std::size_t n_files = 0;
  for (const ContextPlan& c : plan.contexts) {
    out << "context '" << c.id << "': " << c.calendar << " calendar, " << c.start << " + " << plan.duration << " = "
        << c.end << "\n";
    for (const FilePlan& f : c.files) {
      ++n_files;
      out << "\n  file " << f.name << " (id " << (f.id.empty() ? "-" : f.id) << ", " << f.where.str() << "), " << f.type
          << ", every " << f.output_freq << ": " << f.records << (f.records == 1 ? " record" : " records");
      if (!f.split_freq.empty())
        out << " in " << f.files << (f.files == 1 ? " file" : " files") << " (split every " << f.split_freq << ")";
      out << "\n";
      std::vector<std::vector<std::string>> rows = {{"field", "operation", "grid", "points", "prec", "bytes/record"}};
      for (const FieldPlan& p : f.fields)
        rows.push_back({p.name, p.operation, p.grid, std::to_string(p.points), std::to_string(p.prec),
                        std::to_string(p.bytes_per_record)});
      if (f.fields.empty())
        out << "    (no enabled fields)\n";
      else
        out << table(rows, "    ");
      for (const FieldPlan& p : f.fields)  // each transformed field's chain, sizes before and after
        for (std::size_t k = 0; k < p.transformations.size(); ++k)
          out << "    " << (k == 0 ? p.name + ": " : std::string(p.name.size() + 2, ' ')) << p.transformations[k]
              << "\n";
      out << "    per record: " << bytes_text(f.bytes_per_record);
      if (f.once_bytes > 0) out << ", plus " << bytes_text(f.once_bytes) << " once";
      out << "\n    file total: " << bytes_text(f.total_bytes) << "\n";
      if (f.compressed) {
        const double ratio =
            static_cast<double>(f.total_bytes) / static_cast<double>(std::max<std::int64_t>(1, f.estimated_bytes));
        out << "    compressed (estimated from a sample): " << bytes_text(f.estimated_bytes) << ", ratio " << ratio
            << "\n";
      }
    }
    if (c.files.empty()) out << "  (no enabled output files)\n";
    out << "\n";
  }
  out << "total: " << plan.total_bytes << " bytes (" << human_bytes(plan.total_bytes) << ", "
      << human_bytes_binary(plan.total_bytes) << ") in " << n_files << " file" << (n_files == 1 ? "" : "s") << " over "
      << plan.duration;
  if (plan.bytes_per_day > 0)
    out << "; " << human_bytes(static_cast<std::int64_t>(plan.bytes_per_day + 0.5)) << " per simulated day";
  out << "\n";
  return out.str();
}

}  // namespace foehn::tools
