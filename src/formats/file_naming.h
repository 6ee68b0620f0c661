// The name of every output file, in one place: the file's base name, the
// dates of its split_freq period, the part number of a multiple_file file
// and the extension of its format. Used by the output engine (servers and
// attached clients); the tests compare it with the names XIOS gives.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace foehn::formats {

struct FileName {
  std::string base;    // directory and name, without extension: <name><name_suffix>
  std::string period;  // split_freq: the period's dates (calendar::SplitPeriods::name_part); "": none
  int part = -1;       // multiple_file: this writer's part, 0-based; -1: one file
  int parts = 1;       // number of parts
  int min_digits = 0;  // part numbers zero-padded to at least this width
};

// <base>[_<period>][_<part>]<extension>. As XIOS, the part number is
// zero-padded to the width of the largest part number, or to min_digits.
std::string file_name(const FileName& name, std::string_view extension);
// The name of part `part` of `parts` (multiple_file) of the same file.
std::string part_file_name(FileName name, int part, int parts, std::string_view extension);

// The files `<base>[_<period>]_<digits><extension><suffix>` in that
// directory, sorted: the multiple_file parts of any count and padding
// (a run continuing parts written by another number of writers finds them
// so). name.part and name.parts are not used.
std::vector<std::filesystem::path> part_files(const FileName& name, std::string_view extension,
                                              std::string_view suffix = "");

}  // namespace foehn::formats
