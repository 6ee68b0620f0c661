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

std::vector<std::filesystem::path> part_files(const FileName& name, std::string_view extension,
                                              std::string_view suffix) {
  namespace fs = std::filesystem;
  const fs::path stem_path(file_name({name.base, name.period, -1, 1, 0}, ""));
  const std::string stem = stem_path.filename().string() + "_";
  const std::string tail = std::string(extension) + std::string(suffix);
  const fs::path dir = stem_path.parent_path().empty() ? fs::path(".") : stem_path.parent_path();
  std::error_code ec;  // no directory: no parts
  std::vector<fs::path> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() <= stem.size() + tail.size() || n.compare(0, stem.size(), stem) != 0 ||
        n.compare(n.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string digits = n.substr(stem.size(), n.size() - stem.size() - tail.size());
    if (digits.find_first_not_of("0123456789") == std::string::npos) found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string part_file_name(FileName name, int part, int parts, std::string_view extension) {
  name.part = part;
  name.parts = parts;
  return file_name(name, extension);
}

}  // namespace foehn::formats
