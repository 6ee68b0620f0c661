#include "formats/file_naming.h"

#include <algorithm>

namespace foehn::formats {

std::string file_name(const FileName& name, std::string_view extension) {
  std::string path = name.base;
  if (!name.period.empty()) path += "_" + name.period;
  if (name.part >= 0) {
    const int largest = std::max(name.parts - 1, 0);
    const int width = std::max(static_cast<int>(std::to_string(largest).size()), name.min_digits);
    std::string number = std::to_string(name.part);
    number.insert(0, static_cast<std::size_t>(std::max(0, width - static_cast<int>(number.size()))), '0');
    path += "_" + number;
  }
  return path + std::string(extension);
}

}  // namespace foehn::formats
