#include "config/values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace foehn::config::detail {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// from_chars refuses a leading '+', which people do write ("+1.5").
std::string_view drop_plus(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

// Restricted Damerau-Levenshtein ("optimal string alignment") distance, so
// that the common typo of two swapped letters costs one edit, not two.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

std::string trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return std::string(text);
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t == "true" || t == ".true." || t == "1") return true;
  if (t == "false" || t == ".false." || t == "0") return false;
  return std::nullopt;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  const std::string t = trim(text);
  const std::string_view v = drop_plus(t);
  if (v.empty()) return std::nullopt;
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return out;
}

std::optional<double> parse_double(std::string_view text) {
  std::string t = trim(text);
  // Fortran writes exponents as d or D (1.0d20); from_chars only knows e.
  // Only letters are candidates, so this cannot turn a non-number into one
  // except by exactly that spelling.
  for (char& c : t)
    if (c == 'd' || c == 'D') c = 'e';
  const std::string_view v = drop_plus(t);
  if (v.empty()) return std::nullopt;
  double out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

std::optional<std::vector<double>> parse_double_list(std::string_view text) {
  std::string t = trim(text);
  std::optional<std::int64_t> expected;
  if (!t.empty() && t.front() == '(') {
    // XIOS array syntax: "(first,last)[v v v]" with last - first + 1 values.
    const auto close = t.find(')');
    const auto comma = t.find(',');
    if (close == std::string::npos || comma == std::string::npos || comma > close) return std::nullopt;
    const auto first = parse_int(std::string_view(t).substr(1, comma - 1));
    const auto last = parse_int(std::string_view(t).substr(comma + 1, close - comma - 1));
    if (!first || !last || *last < *first) return std::nullopt;
    expected = *last - *first + 1;
    t = trim(std::string_view(t).substr(close + 1));
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') return std::nullopt;
    t = t.substr(1, t.size() - 2);
  }
  std::replace(t.begin(), t.end(), ',', ' ');
  std::vector<double> values;
  std::size_t pos = 0;
  while (pos < t.size()) {
    while (pos < t.size() && is_space(t[pos])) ++pos;
    if (pos == t.size()) break;
    std::size_t end = pos;
    while (end < t.size() && !is_space(t[end])) ++end;
    const auto v = parse_double(std::string_view(t).substr(pos, end - pos));
    if (!v) return std::nullopt;
    values.push_back(*v);
    pos = end;
  }
  if (values.empty()) return std::nullopt;
  if (expected && static_cast<std::int64_t>(values.size()) != *expected) return std::nullopt;
  return values;
}

std::optional<std::string> normalise_variable_type(std::string_view type) {
  const std::string t = lower(trim(type));
  if (t == "bool" || t == "boolean" || t == "logical") return "bool";
  if (t == "int" || t == "integer" || t == "int16" || t == "int32" || t == "int64" || t == "long") return "int";
  if (t == "double" || t == "float" || t == "real" || t == "real4" || t == "real8") return "double";
  if (t == "string" || t == "char" || t == "character" || t == "std::string") return "string";
  return std::nullopt;
}

std::string closest(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    // A distance of 2 on a 2- or 3-letter word rewrites most of it: that is
    // a different word, not a typo, and the suggestion would only confuse.
    if (d < best_distance && 2 * d <= std::max(word.size(), c.size())) {
      best = c;
      best_distance = d;
    }
  }
  return std::string(best);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates, std::string_view open,
                         std::string_view close) {
  const std::string c = closest(word, candidates);
  if (c.empty()) return "";
  return "; did you mean " + std::string(open) + c + std::string(close) + "?";
}

}  // namespace foehn::config::detail
