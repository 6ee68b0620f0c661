// Tests of the client's plan builder (client/plan_builder.h) without MPI:
// small XML definitions and the model's settings -> the output plan (files,
// variables, dimensions, operations, cell_methods), the fields, the outputs
// and the filter graph; bad definitions -> errors at their XML line.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "client/errors.h"
#include "client/plan_builder.h"
#include "config/config.h"

namespace foehn::client {
namespace {

// One context "atm": a 4 x 3 rectilinear domain, a 2-level axis, an
// hourly calendar; `fields` and `files` go into their definitions.
std::string xml(const std::string& fields, const std::string& files, const std::string& extra = "") {
  return R"(<simulation>
  <context id="atm">
    <calendar type="gregorian" start_date="2000-01-01" time_origin="1999-12-31" timestep="1h"/>
    <axis_definition>
      <axis id="lev" unit="m" positive="up" value="(0,1)[10 20]"/>
    </axis_definition>
    <domain_definition>
      <domain id="d" type="rectilinear" ni_glo="4" nj_glo="3"/>
    </domain_definition>
    <grid_definition>
      <grid id="g3"><domain domain_ref="d"/><axis axis_ref="lev"/></grid>
    </grid_definition>
)" + extra +
         R"(    <field_definition>
)" + fields +
         R"(    </field_definition>
    <file_definition>
)" + files +
         R"(    </file_definition>
  </context>
</simulation>
)";
}

const char* kFields = R"(      <field id="t" grid_ref="g3" unit="K"/>
      <field id="ps" domain_ref="d" unit="Pa"/>
)";

// What foehn_set_domain_rectilinear gives on a single rank owning the whole
// domain.
ModelSettings whole_domain(const config::ContextDef& ctx) {
  ModelSettings s;
  s.calendar = ctx.calendar;
  DomainSetting d;
  d.type = "rectilinear";
  d.ni_glo = d.layout.ni_glo = 4;
  d.nj_glo = d.layout.nj_glo = 3;
  d.block = {0, 4, 0, 3};
  d.layout.ibegin = 0, d.layout.ni = 4, d.layout.jbegin = 0, d.layout.nj = 3;
  d.has_block = true;
  d.lon = {0, 90, 180, 270};
  d.lat = {-45, 0, 45};
  s.domains["d"] = d;
  return s;
}

struct Built {
  config::ContextDef def;
  ModelSettings settings;
  BuiltPlan plan;
};

Built build(const std::string& text, Placement where = {}) {
  const config::Simulation sim = config::parse_string(text, "inline.xml", ".");
  Built b;
  b.def = *sim.find_context("atm");
  b.settings = whole_domain(b.def);
  if (where.context_id.empty()) where.context_id = "atm";
  if (where.client_ranks.empty()) where.client_ranks = {0};
  if (!where.attached && where.server_ranks == 0) where.server_ranks = 1;
  b.plan = PlanBuilder(b.def, b.settings, where).build();
  return b;
}

// The message of the error build() throws ("" if none).
std::string error_of(const std::string& text) {
  try {
    build(text);
  } catch (const config::ConfigError& e) { return e.what(); } catch (const ApiError& e) {
    return e.what();
  }
  return "";
}

const output::VariableInfo& variable(const BuiltPlan& b, const std::string& name) {
  for (const auto& v : b.plan.variables)
    if (v.name == name) return v;
  throw std::runtime_error("no variable " + name);
}

TEST(ClientPlanBuilder, FilesVariablesDimsAndShapes) {
  const Built b = build(xml(kFields, R"(      <file id="h" name="out_h" output_freq="6h">
        <field field_ref="t"/>
        <field field_ref="ps" name="surface_pressure" prec="8"/>
      </file>
)"));
  const output::ContextPlan& p = b.plan.plan;
  EXPECT_EQ(p.context_id, "atm");
  EXPECT_EQ(p.calendar, "standard");  // CF's name
  EXPECT_EQ(p.time_units.rfind("seconds since 1999-12-31", 0), 0u) << p.time_units;
  EXPECT_EQ(p.timestep_us, 3600LL * 1000000);
  EXPECT_EQ(b.plan.start - b.plan.origin, 86400LL * 1000000);
  ASSERT_EQ(p.files.size(), 1u);
  EXPECT_EQ(p.files[0].id, "h");
  EXPECT_EQ(p.files[0].output_freq, "6h");
  EXPECT_NE(p.files[0].base_path.find("out_h"), std::string::npos);
  ASSERT_EQ(p.files[0].variables.size(), 2u);
  ASSERT_EQ(p.domains.size(), 1u);
  EXPECT_EQ(p.domains[0].ni_glo, 4);
  EXPECT_EQ(p.domains[0].nj_glo, 3);
  ASSERT_EQ(p.axes.size(), 1u);
  EXPECT_EQ(p.axes[0].values, (std::vector<double>{10, 20}));
  EXPECT_EQ(p.axes[0].positive, "up");

  const output::VariableInfo& t = variable(b.plan, "t");
  EXPECT_EQ(t.units, "K");
  EXPECT_EQ(t.prec, 4);
  // C order: the axis (slowest), then the domain's j and i.
  ASSERT_EQ(t.dims.size(), 3u);
  EXPECT_EQ(t.dims[0].kind, output::Dim::axis);
  EXPECT_EQ(t.dims[1].kind, output::Dim::domain_j);
  EXPECT_EQ(t.dims[2].kind, output::Dim::domain_i);
  const output::VariableInfo& ps = variable(b.plan, "surface_pressure");
  EXPECT_EQ(ps.field_id, "ps");
  EXPECT_EQ(ps.prec, 8);
  EXPECT_EQ(ps.dims.size(), 2u);

  // The fields the model writes, with their local sizes, and the outputs
  // they feed directly.
  ASSERT_EQ(b.plan.outputs.size(), 2u);
  const Field& ft = b.plan.fields[static_cast<std::size_t>(b.plan.field_index.at("t"))];
  const Field& fps = b.plan.fields[static_cast<std::size_t>(b.plan.field_index.at("ps"))];
  EXPECT_EQ(ft.local_size, 4 * 3 * 2);
  EXPECT_EQ(ft.shape_text, "4 x 3 x 2");
  EXPECT_EQ(fps.local_size, 4 * 3);
  EXPECT_EQ(ft.outputs, std::vector<int>{0});
  EXPECT_EQ(fps.outputs, std::vector<int>{1});
  EXPECT_EQ(ft.source, -1);  // no expression reads it
  EXPECT_EQ(b.plan.outputs[1].elem, 8u);
  EXPECT_EQ(b.plan.outputs[0].local_size, 24);
  ASSERT_EQ(b.plan.files.size(), 1u);
}

TEST(ClientPlanBuilder, OperationsCellMethodsAndTheirStages) {
  const Built b = build(xml(kFields, R"(      <file id="d1" output_freq="1d">
        <field field_ref="t" name="t_mean" operation="average"/>
        <field field_ref="t" name="t_max" operation="maximum" freq_op="3h"/>
        <field field_ref="t" name="t_inst"/>
        <field field_ref="ps" name="ps_once" operation="once"/>
        <field field_ref="ps" name="ps_sum" operation="accumulate" freq_op="1mo"/>
      </file>
)"));
  EXPECT_EQ(variable(b.plan, "t_mean").operation, "average");
  EXPECT_EQ(variable(b.plan, "t_mean").cell_methods, "time: mean (interval: 3600 s)");
  EXPECT_EQ(variable(b.plan, "t_max").cell_methods, "time: maximum (interval: 10800 s)");
  EXPECT_EQ(variable(b.plan, "t_inst").cell_methods, "time: point");
  EXPECT_EQ(variable(b.plan, "ps_once").operation, "once");
  EXPECT_EQ(variable(b.plan, "ps_sum").cell_methods, "time: sum (interval: 1 month)");
  // Each output is an output node of the graph with its temporal stage,
  // reducing on the client (temporal_placement client, the default).
  const std::vector<filters::TemporalOp> ops = {filters::TemporalOp::average, filters::TemporalOp::maximum,
                                                filters::TemporalOp::instant, filters::TemporalOp::once,
                                                filters::TemporalOp::accumulate};
  ASSERT_EQ(b.plan.outputs.size(), ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const OutputDef& o = b.plan.outputs[k];
    EXPECT_FALSE(o.on_server);
    const filters::Node& n = b.plan.graph.node(o.node);
    EXPECT_EQ(n.kind, filters::NodeKind::output);
    EXPECT_TRUE(n.inputs.empty());  // fed by the field's writes
    EXPECT_EQ(n.stage.op(), ops[k]);
    EXPECT_EQ(n.stage.size(), filters::reduces(ops[k]) ? static_cast<std::size_t>(o.local_size) : 0u);
  }
}

TEST(ClientPlanBuilder, ExpressionsAndChainsBuildTheGraph) {
  const std::string fields = std::string(kFields) + R"(      <field id="t_avg" field_ref="t" operation="average"/>
      <field id="tc" grid_ref="g3" unit="degC">t - 273.15</field>
      <field id="anom" grid_ref="g3" freq_op="6h">tc - @t_avg</field>
)";
  const Built b = build(xml(fields, R"(      <file id="h6" output_freq="6h">
        <field field_ref="anom"/>
        <field field_ref="tc" operation="maximum"/>
      </file>
)"));
  const filters::Graph& g = b.plan.graph;
  // anom: source t -> tc (expression) ; t -> @t_avg (chain) ; anom (expression) ; its output.
  const OutputDef& anom = b.plan.outputs[0];
  const filters::Node& out = g.node(anom.node);
  ASSERT_EQ(out.inputs.size(), 1u);
  const filters::Node& e = g.node(out.inputs[0]);
  EXPECT_EQ(e.kind, filters::NodeKind::expression);
  EXPECT_EQ(e.expression->text(), "tc - @t_avg");
  ASSERT_EQ(e.inputs.size(), 2u);
  EXPECT_EQ(g.node(e.inputs[0]).kind, filters::NodeKind::expression);  // tc
  const filters::Node& chain = g.node(e.inputs[1]);
  EXPECT_EQ(chain.kind, filters::NodeKind::chain);
  EXPECT_EQ(chain.stage.op(), filters::TemporalOp::average);
  EXPECT_NE(chain.sampler.schedule, nullptr);  // anom's freq_op: 6h
  const int t = b.plan.field_index.at("t");
  EXPECT_EQ(chain.inputs[0], b.plan.fields[static_cast<std::size_t>(t)].source);
  EXPECT_EQ(g.node(chain.inputs[0]).kind, filters::NodeKind::source);
  // The output of tc reads an expression node of its own text.
  EXPECT_EQ(g.node(g.node(b.plan.outputs[1].node).inputs[0]).expression->text(), "t - 273.15");
  // Inputs before users.
  for (int i = 0; i < static_cast<int>(g.size()); ++i)
    for (int in : g.node(i).inputs) EXPECT_LT(in, i);
  EXPECT_EQ(variable(b.plan, "anom").cell_methods, "time: point");
}

TEST(ClientPlanBuilder, FilePeriodsAndRecordSchedules) {
  const Built b = build(xml(kFields, R"(      <file id="h" output_freq="6h" split_freq="1d" sync_freq="12h">
        <field field_ref="ps"/>
      </file>
      <file id="m" output_freq="1mo" split_freq="1y" split_freq_format="%y">
        <field field_ref="ps" name="ps_m" operation="average"/>
      </file>
)"));
  const output::ContextPlan& p = b.plan.plan;
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_EQ(p.files[0].split_freq, "1d");
  EXPECT_EQ(p.files[0].sync_freq, "12h");
  EXPECT_EQ(p.files[0].split_format, "%y%mo%d");
  EXPECT_EQ(p.files[1].split_freq, "1y");
  EXPECT_EQ(p.files[1].split_format, "%y");
  EXPECT_EQ(p.files[1].sync_freq, "");
  // Each file's records: every output_freq from the start date.
  ASSERT_EQ(b.plan.files.size(), 2u);
  constexpr std::int64_t kHourUs = 3600LL * 1000000;
  EXPECT_EQ(b.plan.files[0].record_start, b.plan.start);
  ASSERT_NE(b.plan.files[0].sampler.schedule, nullptr);
  EXPECT_EQ(b.plan.files[0].sampler.schedule->instant(1) - b.plan.start, 6 * kHourUs);
  EXPECT_EQ(b.plan.files[1].sampler.schedule->instant(1) - b.plan.start, 31 * 24 * kHourUs);  // January 2000
  EXPECT_EQ(error_of(xml(kFields, R"(      <file id="h" output_freq="6h" split_freq_format="%y">
        <field field_ref="ps"/>
      </file>
)"))
                .find("inline.xml:18: "),
            0u);
}

TEST(ClientPlanBuilder, ServerPlacementSendsSamples) {
  Placement where;
  where.server_ranks = 2;
  const std::string extra = R"(    <variable_definition>
      <variable id="temporal_placement" type="string">server</variable>
    </variable_definition>
)";
  const Built b = build(xml(kFields, R"(      <file id="h" output_freq="6h">
        <field field_ref="t" operation="average"/>
        <field field_ref="ps"/>
      </file>
)",
                            extra),
                        where);
  EXPECT_TRUE(b.plan.plan.variables[0].reduce_on_server);
  EXPECT_TRUE(b.plan.outputs[0].on_server);
  EXPECT_EQ(b.plan.graph.node(b.plan.outputs[0].node).stage.size(), 0u);  // the servers accumulate
  EXPECT_FALSE(b.plan.outputs[1].on_server);
}

TEST(ClientPlanBuilder, ErrorsAtTheirLine) {
  // Line numbers count from <simulation> (line 1); with kFields the first
  // file is on line 18.
  EXPECT_NE(error_of(xml(kFields, R"(      <file id="h" output_freq="6h">
        <field field_ref="t" operation="mean"/>
      </file>
)"))
                .find("inline.xml:19: "),
            std::string::npos);
  EXPECT_NE(error_of(xml(kFields, R"(      <file id="h">
        <field field_ref="t"/>
      </file>
)"))
                .find("inline.xml:18: "),
            std::string::npos);
  const std::string cycle = error_of(xml(std::string(kFields) + R"(      <field id="a" grid_ref="g3">b + 1</field>
      <field id="b" grid_ref="g3">a * 2</field>
)",
                                         R"(      <file id="h" output_freq="6h">
        <field field_ref="a"/>
      </file>
)"));
  EXPECT_NE(cycle.find("cycle between fields: a -> b -> a"), std::string::npos) << cycle;
  const std::string syntax = error_of(xml(std::string(kFields) + R"(      <field id="a" grid_ref="g3">t +* 1</field>
)",
                                          R"(      <file id="h" output_freq="6h">
        <field field_ref="a"/>
      </file>
)"));
  // At the file's field that uses the expression (its file is on line 19).
  EXPECT_NE(syntax.find("inline.xml:20: "), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("expression 't +* 1'"), std::string::npos) << syntax;
  const std::string sizes = error_of(xml(std::string(kFields) + R"(      <field id="a" grid_ref="g3">t + ps</field>
)",
                                         R"(      <file id="h" output_freq="6h">
        <field field_ref="a"/>
      </file>
)"));
  EXPECT_NE(sizes.find("'ps' in its expression is on a grid of 4 x 3 values per rank, the field on 4 x 3 x 2"),
            std::string::npos)
      << sizes;
}

// XIOS's test_complete: a file's field refers to k and computes "k": its
// own expression names the field k (k's value), which is no cycle; a field
// whose expression names itself still is one.
TEST(ClientPlanBuilder, AnExpressionNamingTheFieldRefIsNoCycle) {
  const std::string fields = std::string(kFields) + R"(      <field id="k" grid_ref="g3">t + 273.15</field>
      <field id="k2" field_ref="k"/>
)";
  const Built b = build(xml(fields, R"(      <file id="h" output_freq="6h">
        <field field_ref="k" name="k3">k</field>
        <field field_ref="k2" name="k_max" operation="maximum">@k</field>
        <field field_ref="k"/>
      </file>
)"));
  ASSERT_EQ(b.plan.plan.variables.size(), 3u);
  EXPECT_EQ(b.plan.plan.variables[0].name, "k3");
  const std::string self = error_of(xml(std::string(kFields) + R"(      <field id="s" grid_ref="g3">s + 1</field>
)",
                                        R"(      <file id="h" output_freq="6h">
        <field field_ref="s"/>
      </file>
)"));
  EXPECT_NE(self.find("cycle between fields: s -> s"), std::string::npos) << self;
}

// indexed_output="true" (XIOS's compressed output): accepted, written
// uncompressed, with a warning at its line.
TEST(ClientPlanBuilder, IndexedOutputIsWrittenUncompressedWithAWarning) {
  testing::internal::CaptureStderr();
  const Built b = build(xml(kFields, R"(      <file id="h" output_freq="6h">
        <field field_ref="ps" indexed_output="true"/>
        <field field_ref="t" indexed_output="false"/>
      </file>
)"));
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(b.plan.plan.variables.size(), 2u);
  EXPECT_EQ(b.plan.plan.variables[0].dims.size(), 2u);  // (lat, lon), no list dimension
  EXPECT_NE(err.find("inline.xml:19: field 'ps': indexed_output is not done"), std::string::npos) << err;
  EXPECT_EQ(err.find("field 't'"), std::string::npos) << err;
}

TEST(ClientPlanBuilder, ADomainTheModelNeverDescribed) {
  const config::Simulation sim = config::parse_string(xml(kFields, R"(      <file id="h" output_freq="6h">
        <field field_ref="ps"/>
      </file>
)"),
                                                      "inline.xml", ".");
  const config::ContextDef def = *sim.find_context("atm");
  ModelSettings settings;
  settings.calendar = def.calendar;
  Placement where;
  where.context_id = "atm";
  where.attached = true;
  try {
    PlanBuilder(def, settings, where).build();
    ADD_FAILURE() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("domain 'd' is used by an output field but the model never described it"),
              std::string::npos)
        << e.what();
  }
}

// The part after the exchange: one rank's part gives the domain's points
// and coordinates.
TEST(ClientPlanBuilder, AssembleTheGatheredParts) {
  Built b = build(xml(kFields, R"(      <file id="h" output_freq="6h">
        <field field_ref="ps"/>
      </file>
)"));
  output::ContextPlan& p = b.plan.plan;
  const DomainSetting& s = b.settings.domains.at("d");
  EXPECT_EQ(s.owned.size(), 12u);  // completed by the builder
  p.domains[0].clients = {{0, 4, 0, 3}};
  output::ClientPart part;
  part.extent = {0, 4, 0, 3};
  part.lon = s.lon.data(), part.n_lon = 4;
  part.lat = s.lat.data(), part.n_lat = 3;
  EXPECT_EQ(assemble_gathered_domain(p, 0, {part}, true), "");
  EXPECT_EQ(p.domains[0].lon, (std::vector<double>{0, 90, 180, 270}));
  EXPECT_EQ(p.domains[0].lat, (std::vector<double>{-45, 0, 45}));
}

// Grid and scalar masks from code (foehn_set_mask, plan_masks.cpp): the mask
// is over the grid's local shape (4 x 3 points x 2 levels), the data carry a
// halo column on each side (data_ni 6, data_ibegin -1), so local point
// (i, j, k) is data position (i + 1) + 6 j + 18 k.
TEST(ClientPlanBuilder, GridAndScalarMasksHideDataPositions) {
  const std::string files = R"(      <file id="h" output_freq="6h">
        <field field_ref="t"/>
        <field field_ref="ps"/>
        <field field_ref="th"/>
      </file>
)";
  const std::string extra = R"(    <scalar_definition><scalar id="h2" value="2"/></scalar_definition>
    <grid_definition><grid id="gs"><domain domain_ref="d"/><scalar scalar_ref="h2"/></grid></grid_definition>
)";
  const config::Simulation sim =
      config::parse_string(xml(std::string(kFields) + R"(      <field id="th" grid_ref="gs"/>
)", files, extra),
                           "inline.xml", ".");
  const config::ContextDef def = *sim.find_context("atm");
  auto plan_with = [&](const std::vector<std::uint8_t>& grid_mask, bool mask_scalar) {
    ModelSettings s = whole_domain(def);
    grid::DomainLayout& l = s.domains["d"].layout;
    l.data_dim = 2, l.data_ibegin = -1, l.data_ni = 6, l.data_jbegin = 0, l.data_nj = 3;
    s.grid_masks["g3"] = grid_mask;
    if (mask_scalar) s.masked_scalars.insert("h2");
    Placement where;
    where.context_id = "atm";
    where.client_ranks = {0};
    where.server_ranks = 1;
    return PlanBuilder(def, s, where).build();
  };
  std::vector<std::uint8_t> mask(24, 1);
  for (int l : {0 + 4 * 0 + 12 * 0, 1 + 4 * 1 + 12 * 0, 3 + 4 * 2 + 12 * 1}) mask[static_cast<std::size_t>(l)] = 0;
  const BuiltPlan b = plan_with(mask, true);
  const Field& t = b.fields[b.field_index.at("t")];
  EXPECT_EQ(t.local_size, 36);
  EXPECT_EQ(t.masked, (std::vector<std::int64_t>{1, 8, 34}));
  EXPECT_TRUE(b.fields[b.field_index.at("ps")].masked.empty());
  std::vector<std::int64_t> all(18);
  for (std::int64_t d = 0; d < 18; ++d) all[static_cast<std::size_t>(d)] = d;
  EXPECT_EQ(b.fields[b.field_index.at("th")].masked, all);  // a masked scalar hides its whole grid
  // Masked points need a fill value; the unmasked field keeps none.
  EXPECT_TRUE(variable(b, "t").has_fill);
  EXPECT_FLOAT_EQ(static_cast<float>(variable(b, "t").fill_value), 9.96921e+36f);
  EXPECT_TRUE(variable(b, "th").has_fill);
  EXPECT_FALSE(variable(b, "ps").has_fill);
  // An all-true mask and an unmasked scalar hide nothing.
  const BuiltPlan none = plan_with(std::vector<std::uint8_t>(24, 1), false);
  EXPECT_TRUE(none.fields[none.field_index.at("t")].masked.empty());
  EXPECT_FALSE(variable(none, "t").has_fill);
  // A mask of the wrong size names the grid, the field and both sizes.
  try {
    plan_with(std::vector<std::uint8_t>(5, 1), false);
    ADD_FAILURE() << "no error";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "field 't': the mask of grid 'g3' has 5 flags, expected one per point of the grid's local shape (24)"),
              std::string::npos)
        << e.what();
  }
}

// A grid's <domain domain_ref="d" id="d2"/> is a new domain d2 naming d
// (XIOS's generic_testcase): the model described only d, and d2 takes that
// description, as XIOS's inheritance at close of definition gives it.
TEST(ClientPlanBuilder, ADomainNamingAnotherTakesItsDescription) {
  const Built b = build(xml(std::string(kFields) + R"(      <field id="q" grid_ref="g2"/>
)",
                            R"(      <file id="h" output_freq="6h"><field field_ref="q"/></file>
)",
                            R"(    <grid_definition><grid id="g2"><domain domain_ref="d" id="d2"/></grid></grid_definition>
)"));
  ASSERT_EQ(b.plan.plan.domains.size(), 1u);
  const output::DomainInfo& d2 = b.plan.plan.domains[0];
  EXPECT_EQ(d2.id, "d2");
  EXPECT_EQ(d2.ni_glo, 4);
  EXPECT_EQ(d2.nj_glo, 3);
  EXPECT_EQ(b.plan.fields[b.plan.field_index.at("q")].local_size, 12);
  EXPECT_EQ(b.settings.domains.at("d2").owned.size(), 12u);
}

}  // namespace
}  // namespace foehn::client
