// A model's context on the client side, as the C API (api.cpp) calls it: a
// thin façade over its parts.
// - The definitions the model sets and close of definition
//   (context_define.cpp): the plan builder (plan_builder.h, no MPI) turns
//   them into the output plan, the fields, the outputs and the filter graph
//   (filters/graph.h); the model ranks exchange their decomposition; the
//   step driver prepares the per-step path.
// - The step driver (step_driver.h): update_calendar, write, close.
// - Attributes and variables at run time (context_attributes.cpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/errors.h"
#include "client/plan_builder.h"
#include "client/restart_state.h"
#include "config/config.h"
#include "report/details.h"
#include "transport/send_channel.h"
#include "transport/world.h"

namespace foehn::client {

class StepDriver;
class FieldReader;

// Whether a kind is one of XIOS's transformation classes (zoom_domain,
// reduce_domain_to_axis, ...) that the tree from code takes (context_tree.cpp).
bool is_transformation_class(const std::string& kind);

// date + duration in a calendar, "ts" standing for timestep ("" : none);
// errors start with `call` (context_calendar.cpp).
std::string add_to_date(const calendar::Calendar& cal, const std::string& date, const std::string& duration,
                        const std::string& timestep, const char* call);

class Context {
 public:
  Context(const std::string& id, MPI_Comm comm, config::ContextDef def, transport::World& world,
          std::uint32_t key, transport::ClientCounters& counters);
  ~Context();

  void set_calendar(const char* type, const char* start, const char* origin, const char* timestep);
  void set_domain(const std::string& id, DomainSetting setting);
  // The foehn_set_domain_* calls (context_define.cpp).
  void set_domain_type(const std::string& id, const char* type, std::int64_t ni_glo, std::int64_t nj_glo);
  void set_domain_block(const std::string& id, std::int64_t ibegin, std::int64_t ni, std::int64_t jbegin,
                        std::int64_t nj);
  void set_domain_index(const std::string& id, std::vector<std::int64_t> i_index, std::vector<std::int64_t> j_index);
  void set_domain_data(const std::string& id, int data_dim, std::int64_t data_ibegin, std::int64_t data_ni,
                       std::int64_t data_jbegin, std::int64_t data_nj);
  void set_domain_data_index(const std::string& id, std::vector<std::int64_t> data_i_index,
                             std::vector<std::int64_t> data_j_index);
  void set_domain_coordinates(const std::string& id, std::vector<double> lon, std::vector<double> lat, int nvertex,
                              std::vector<double> bounds_lon, std::vector<double> bounds_lat);
  void set_domain_mask(const std::string& id, std::vector<std::uint8_t> mask);
  // foehn_set_mask: kind domain, grid or scalar (one flag).
  void set_mask(const std::string& kind, const std::string& id, std::vector<std::uint8_t> mask);
  // foehn_set_domain_healpix: type, size and local cells at once (level < 0,
  // scheme NULL: the XML's).
  void set_domain_healpix(const std::string& id, int level, const char* scheme, std::vector<std::int64_t> cells);
  // The foehn_set_axis* and foehn_set_scalar calls (context_define.cpp).
  void set_axis(const std::string& id, std::vector<double> values, const char* units, const char* positive);
  void set_axis_part(const std::string& id, std::int64_t n_glo, std::vector<std::int64_t> index, const char* call);
  void set_axis_bounds(const std::string& id, std::vector<double> bounds);
  void set_scalar(const std::string& id, double value, const char* units);
  // `others`: the process's other open contexts; a file of this one with
  // the path of one of theirs is refused (output::file_clash).
  void close_definition(const std::vector<const Context*>& others = {});
  // The plan, from close of definition on (else null).
  const output::ContextPlan* plan() const;
  void update_calendar(std::int64_t step);
  // Dynamic time stepping: the model time, in seconds since the start date.
  void set_model_time(double seconds);
  int handle(const std::string& field_id) const;  // throws for an unknown field
  // The field's local data shape, Fortran order ("40 x 20 x 3"); "" if no output uses it. For the bindings.
  // Throws std::out_of_range for a bad handle.
  const std::string& shape_text(int handle) const;
  bool is_active(int handle) const;
  // Fields of files with mode="read" (field_reader.h): whether the id is
  // one, whether a record is read now, and this rank's part of it.
  bool reads(const std::string& field_id) const;
  bool read_is_due(const std::string& field_id) const;
  template <class T>
  void read(const std::string& field_id, T* data, std::size_t n, const char* call);
  // The per-step path: foehn_write* calls the step driver directly once the
  // context is defined and not closed (here, inline: the path of a field,
  // docs/design.md, does not pass through the façade's files).
  StepDriver& steps(const char* call) {
    check_open(call);
    if (!closed_definition_)
      fail(FOEHN_ERR_STATE,
           std::string(call) + ": context '" + id_ + "' is still being defined (call foehn_close_definition)");
    return *driver_;
  }
  void close();
  // The report's lines of this context (step_driver.h); empty before close of definition.
  report::Details report_details() const;
  // foehn_checkpoint: the state after the current step into restart_dir.
  void checkpoint();
  // An exact restart: "context '<id>': state of <date> (<path>)"; "" otherwise.
  std::string resumed_from() const {
    return resume_ ? "context '" + id_ + "': state of " + resume_->date + " (" + resume_->path + ")" : "";
  }
  // Sends everything buffered for the servers and waits until it has left.
  // Another context calls this before it waits for the servers (its close
  // or close of definition): the servers work through the contexts' records
  // in one order, so data held here could keep them from that context.
  void drain_sends();
  // Whether other contexts of this process are open (set by the API). A
  // context alone announces each record when its step begins, so that the
  // servers write each variable as soon as its values are in; beside others
  // it announces at the step's end (step_driver.h).
  void set_shared(bool shared);
  // Attributes and variables at run time (context_attributes.cpp): the
  // resolved value of an attribute as text (null when not defined), setting
  // a field or file attribute before close of definition, a variable's text.
  const std::string* attribute(const std::string& kind, const std::string& id, const std::string& name);
  void set_attribute(const std::string& kind, const std::string& id, const std::string& name, const std::string& value);
  const std::string* variable(const std::string& id) const;
  // The tree from code (context_tree.cpp), for xios_get_handle,
  // xios_is_valid_* and xios_add_child: whether an element or group of a
  // kind exists ("field", "field_group", ...; a group kind also knows its
  // *_definition root), and a new child under a parent before close of
  // definition, returning its id (made up when child_id is empty).
  bool has_element(const std::string& kind, const std::string& id);
  std::string add_child(const std::string& parent_kind, const std::string& parent_id, const std::string& child_kind,
                        const std::string& child_id);
  // The id of the index-th domain, axis or scalar of a field's grid (context_tree.cpp).
  std::string field_component(const std::string& field_id, const std::string& kind, int index);
  // A fact about a date (text) in the context's calendar (context_calendar.cpp):
  // day_length, year_length (of the date's year), second_of_year, day_of_year,
  // fraction_of_year, second_of_day, fraction_of_day, seconds_since_origin.
  double calendar_query(const std::string& what, const std::string& date) const;
  // date + duration in the context's calendar (user_defined ones included),
  // "ts" standing for its timestep (context_calendar.cpp).
  std::string date_add(const std::string& date, const std::string& duration) const;
  // Whether any enabled output or expression ever needs the field's data.
  bool is_used(int handle) const;

 private:
  void resolve_definitions();  // local checks: the plan builder's plan, without the exchanged parts
  void exchange_domains();     // collective: every rank's part, its points and coordinates
  void exchange_axes();        // collective: the parts, values and bounds of decomposed axes
  DomainSetting& domain_setting(const std::string& id, const char* call);  // after foehn_set_domain_type
  AxisSetting& axis_setting(const std::string& id, const char* call);
  void check_open(const char* call) const {
    if (closed_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is closed");
  }

  std::string id_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  config::ContextDef def_;  // moved from the runtime (api.cpp), changed by the model until close of definition
  transport::World* world_;
  std::uint32_t key_;
  transport::ClientCounters* counters_;

  // Definitions.
  ModelSettings settings_;
  std::unordered_map<std::string, DomainSetting> ignored_domains_;  // zoom/extract results the model described
  std::string domain_error_;  // found by the exchanges (which must not throw); raised after them
  bool closed_definition_ = false, closed_ = false;
  bool shared_ = false;
  std::optional<ResumeState> resume_;  // an exact restart: the state this run continues from
  std::int64_t resume_start_ = 0;      // and this run's start (instant)
  BuiltPlan built_;  // during close of definition: the plan builder's result, completed by the exchanges
  std::unique_ptr<StepDriver> driver_;  // from close of definition on
  std::unique_ptr<FieldReader> reader_;  // from close of definition to close
  std::string attribute_text_;          // the value attribute() last returned
  int anonymous_children_ = 0;          // ids made up by add_child
  // "<kind> <id>" of a group -> the attributes the model set on it.
  std::map<std::string, config::AttributeOrigins> group_attributes_;
  // A user_defined calendar's attributes set from code (xios_define_calendar),
  // as text: the calendar is made again from them at each set.
  std::map<std::string, std::string> user_calendar_attrs_;
  // A field of field_definition or of a file by id (null when none).
  config::FieldDef* any_field(const std::string& id);
  // A <variable> of the context, of a file or of a field by id (null when none).
  config::Variable* any_variable(const std::string& id);
  // A transformation by XIOS's class name (zoom_domain, reduce_domain_to_axis, ...) and id, or null.
  config::TransformationDef* transformation(const std::string& kind, const std::string& id);
  // A domain, axis or scalar added to a grid from code names the element it
  // stands for through its *_ref: true when `id` is such a child (its ref is
  // then set), false when it is not. check_grid_children refuses one whose
  // ref was never set (context_tree.cpp).
  bool set_grid_child_ref(const std::string& kind, const std::string& id, const std::string& ref,
                          const std::string& what);
  void check_grid_children() const;
  // "domain <id>" of a child added to a grid -> (grid id, component index).
  std::map<std::string, std::pair<std::string, std::size_t>> grid_children_;
  // foehn_set_attribute of the calendar: type, dates and timestep as
  // set_calendar takes them, a user_defined calendar's attributes.
  void set_calendar_attribute(const std::string& what, const std::string& name, const std::string& value);
};

}  // namespace foehn::client
