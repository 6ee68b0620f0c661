// The attribute tables generated from src/config/xios_attributes.tsv: the
// reader accepts a refused attribute (so that its value is checked at its
// line) and keeps it for close of definition, which refuses it with the
// table's reason; an attribute only the model's calls give is unknown to
// the reader.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "config/config.h"

using namespace foehn::config;

namespace {

Simulation parse(const std::string& xml) { return parse_string(xml, "inline.xml", "."); }

struct Row {
  std::string kind, name, type, status;
};

// The lines of src/config/xios_attributes.tsv.
std::vector<Row> table_rows() {
  std::ifstream in(std::string(FOEHN_TEST_DATA_DIR) + "/../../src/config/xios_attributes.tsv");
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string col; std::getline(fields, col, '\t');) cols.push_back(col);
    rows.push_back({cols.at(0), cols.at(1), cols.at(2), cols.at(4)});
  }
  return rows;
}

// A value the reader accepts for a type of the table.
std::string valid_value(const std::string& type) {
  if (type == "bool") return "true";
  if (type.rfind("int", 0) == 0) return type.find("[0") != std::string::npos ? "0" : "1";
  if (type == "double") return "1.5";
  if (type.rfind("duration", 0) == 0) return "1d";
  if (type == "date") return "2000-01-01";
  if (type == "prec") return "4";
  if (type.rfind("enum(", 0) == 0) return type.substr(5, type.find_first_of("|)") - 5);
  return "text";
}

// Every XML attribute of `kind` from the table, with a valid value, except
// references and expressions (which must name something that exists).
std::string all_attributes(const std::vector<Row>& rows, const std::string& kind) {
  std::string out;
  for (const Row& r : rows) {
    if (r.kind != kind || r.status == "model" || r.name == "id" || r.name == "expr") continue;
    if (r.name.size() > 4 && r.name.substr(r.name.size() - 4) == "_ref") continue;
    out += " " + r.name + "=\"" + valid_value(r.type) + "\"";
  }
  return out;
}

std::string error_of(const std::string& xml) {
  try {
    parse(xml);
  } catch (const ConfigError& e) { return e.what(); }
  return "";
}

}  // namespace

TEST(ConfigAttributes, RefusalGivesTheTablesReason) {
  EXPECT_EQ(refusal("field", "add_offset"), "packed output is not written");
  EXPECT_EQ(refusal("field", "read_access"), "fields are read from files of mode read only (xios_recv_field)");
  EXPECT_EQ(refusal("file", "using_server2"), "level-2 servers are set by the variable server_level2_ranks");
  EXPECT_EQ(refusal("scalar", "label"), "string-valued scalars are not written");
}

TEST(ConfigAttributes, ActedStoredAndUnknownAttributesAreNotRefused) {
  EXPECT_EQ(refusal("field", "long_name"), "");    // acted on
  EXPECT_EQ(refusal("axis", "formula"), "");       // stored
  EXPECT_EQ(refusal("domain", "ibegin"), "");      // from the model only
  EXPECT_EQ(refusal("field", "no_such_one"), "");  // unknown
  EXPECT_EQ(refusal("file", "add_offset"), "");    // a field's, not a file's
}

TEST(ConfigAttributes, ReaderKeepsARefusedAttributeForCloseOfDefinition) {
  const Simulation s = parse(R"(<simulation><context id="a"><field_definition>
<field id="t" read_access="true" ts_split_freq="1d" /></field_definition></context></simulation>)");
  const FieldDef* f = s.contexts.at(0).find_field("t");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->extra.at("read_access"), "true");
  EXPECT_EQ(f->extra.at("ts_split_freq"), "1d");
}

TEST(ConfigAttributes, RefusedAttributesStillHaveTheirValuesChecked) {
  const std::string e = error_of(R"(<simulation><context id="a"><field_definition>
<field id="t" ts_split_freq="0s" /></field_definition></context></simulation>)");
  EXPECT_NE(e.find("bad ts_split_freq '0s' on <field>: a frequency must be positive"), std::string::npos) << e;
}

TEST(ConfigAttributes, AModelOnlyAttributeIsUnknownToTheReader) {
  const std::string e = error_of(R"(<simulation><context id="a"><domain_definition>
<domain id="d" type="rectilinear" ni_glo="4" nj_glo="2" ibegin="0" /></domain_definition></context></simulation>)");
  EXPECT_NE(e.find("unknown attribute 'ibegin' on <domain>"), std::string::npos) << e;
}

TEST(ConfigAttributes, AGroupRefIsAcceptedOnlyOnAFieldGroupInAFile) {
  const std::string e = error_of(R"(<simulation><context id="a"><field_definition>
<field_group id="g" group_ref="h" /></field_definition></context></simulation>)");
  EXPECT_NE(e.find("unknown attribute 'group_ref' on <field_group>"), std::string::npos) << e;
}

TEST(ConfigAttributes, AStoredAttributeIsKeptAndNotRefused) {
  const Simulation s = parse(R"(<simulation><context id="a"><axis_definition>
<axis id="lev" n_glo="3" n_distributed_partition="4" /></axis_definition></context></simulation>)");
  const AxisDef* a = s.contexts.at(0).find_axis("lev");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->extra.at("n_distributed_partition"), "4");
  EXPECT_EQ(refusal("axis", "n_distributed_partition"), "");
  const std::string e = error_of(R"(<simulation><context id="a"><axis_definition>
<axis id="lev" n_glo="3" n_distributed_partition="0" /></axis_definition></context></simulation>)");
  EXPECT_NE(e.find("bad n_distributed_partition '0' on <axis>: expected an integer >= 1"), std::string::npos) << e;
}

// Close of definition refuses what the reader keeps in a field's or file's
// extra map only when the table says refused: an attribute that lands there
// without a refusal would be silently ignored.
TEST(ConfigAttributes, EveryFieldAndFileAttributeIsActedOnOrRefused) {
  const std::vector<Row> rows = table_rows();
  ASSERT_GT(rows.size(), 150u);
  std::string field = all_attributes(rows, "field");
  field.replace(field.find("operation=\"instant\""), 19, "operation=\"average\"");  // freq_offset needs it
  const Simulation s = parse(R"(<simulation><context id="a"><field_definition><field id="t")" + field +
                             R"(/></field_definition><file_definition><file id="f")" + all_attributes(rows, "file") +
                             R"(/></file_definition></context></simulation>)");
  const FieldDef* f = s.contexts.at(0).find_field("t");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->extra.size(), 9u);
  // chunking_blocksize_target is acted on from `extra` (client/plan_compression.cpp);
  // indexed_output gets a warning there (client/plan_builder.cpp: written uncompressed).
  for (const auto& [name, value] : f->extra)
    if (name != "chunking_blocksize_target" && name != "indexed_output") EXPECT_NE(refusal("field", name), "") << name;
  const FileDef* file = s.contexts.at(0).find_file("f");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->extra.size(), 20u);
  // These are acted on from `extra` (client/plan_builder.cpp): all others are refused.
  const std::set<std::string> acted = {"time_counter_name", "record_offset", "time_stamp_name",
                                       "time_stamp_format", "uuid_name",     "uuid_format"};
  for (const auto& [name, value] : file->extra) {
    if (acted.count(name))
      EXPECT_EQ(refusal("file", name), "") << name;
    else
      EXPECT_NE(refusal("file", name), "") << name;
  }
}
