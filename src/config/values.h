// Small text helpers shared by the reader and the typed variable access:
// trimming, the XIOS spellings of booleans and numbers, variable types, and
// the "did you mean" suggestion used by every unknown-name error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::config::detail {

std::string trim(std::string_view text);

// true/false, .true./.false. (Fortran, any case), 1/0.
std::optional<bool> parse_bool(std::string_view text);
// Whole decimal integers that fit in 64 bits ("+5" and "-3" too; no "5.0").
std::optional<std::int64_t> parse_int(std::string_view text);
// Finite decimal reals; a Fortran exponent ("1.0d20") is accepted.
std::optional<double> parse_double(std::string_view text);
// Either the XIOS array form "(0,2)[1 2 3]" or a plain list "1 2 3" / "1,2,3".
// nullopt when a value is not a number or the count disagrees with (a,b).
std::optional<std::vector<double>> parse_double_list(std::string_view text);

// Normalises the XIOS spellings of a <variable> type to bool, int, double or
// string; nullopt for anything else.
std::optional<std::string> normalise_variable_type(std::string_view type);

// The candidate closest to `word` if it is within edit distance 2 (adjacent
// transpositions count as one edit) and not a wholesale rewrite of a short
// word; empty if none.
std::string closest(std::string_view word, const std::vector<std::string_view>& candidates);
// "; did you mean 'x'?" (with the given quotes) or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates,
                         std::string_view open = "'", std::string_view close = "'");

}  // namespace foehn::config::detail
