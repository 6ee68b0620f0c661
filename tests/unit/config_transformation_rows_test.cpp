// The transformation rows of src/config/xios_attributes.tsv (which give the
// Fortran xios_set/get/is_defined_<transformation>_attr routines) against
// the XML reader's own list (src/config/transformations.cpp): every
// attribute a model can set from code is one the reader knows on that
// element, so the two lists cannot drift apart unnoticed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "config/transformation_attributes.h"

namespace {

struct Row {
  std::string kind, name, type, fortran;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t')
      out.emplace_back();
    else
      out.back().push_back(c);
  }
  return out;
}

// XIOS's transformation class as the XML names it: the element and the
// element it sits in (reduce_domain_to_axis: <reduce_domain> in an <axis>).
std::pair<std::string, std::string> element_and_parent(const std::string& kind) {
  for (const char* parent : {"axis", "scalar"}) {
    const std::string suffix = std::string("_to_") + parent;
    if (kind.size() > suffix.size() && kind.ends_with(suffix))
      return {kind.substr(0, kind.size() - suffix.size()), parent};
  }
  return {kind, kind.ends_with("_domain") ? "domain" : "axis"};
}

std::string valid_value(const std::string& type) {
  if (type.starts_with("int")) return "1";
  if (type == "double") return "1.5";
  if (type == "bool") return "true";
  if (type.starts_with("enum(")) return type.substr(5, type.find_first_of("|)") - 5);
  return "x";
}

TEST(ConfigTransformationRows, EveryAttributeSetFromCodeIsOneTheXmlReaderKnows) {
  std::ifstream tsv(std::string(FOEHN_TEST_DATA_DIR) + "/../../src/config/xios_attributes.tsv");
  ASSERT_TRUE(tsv) << "cannot open the attribute table";
  const std::vector<std::string> classes = {"zoom_domain",
                                            "extract_domain",
                                            "interpolate_domain",
                                            "generate_rectilinear_domain",
                                            "zoom_axis",
                                            "extract_axis",
                                            "inverse_axis",
                                            "interpolate_axis",
                                            "reduce_domain_to_axis",
                                            "extract_domain_to_axis",
                                            "reduce_axis_to_scalar",
                                            "reduce_domain_to_scalar",
                                            "extract_axis_to_scalar"};
  int checked = 0;
  for (std::string line; std::getline(tsv, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_tabs(line);
    ASSERT_GE(f.size(), 6u) << line;
    if (std::find(classes.begin(), classes.end(), f[0]) == classes.end()) continue;
    if (f[5].find('s') == std::string::npos) continue;  // not settable from code
    const auto [element, parent] = element_and_parent(f[0]);
    const std::string problem =
        foehn::config::transformation_attribute_problem(element, parent, f[1], valid_value(f[2]));
    EXPECT_EQ(problem.rfind("unknown attribute", 0), std::string::npos) << f[0] << " " << f[1] << ": " << problem;
    EXPECT_EQ(problem.rfind("no <", 0), std::string::npos) << f[0] << ": " << problem;
    ++checked;
  }
  EXPECT_GT(checked, 40);  // the table has the transformation rows at all
}

}  // namespace
