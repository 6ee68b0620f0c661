// The façade's per-step calls: the state checks of the C API (a context
// being defined, closed), then the step driver (step_driver.h).
#include "client/agree.h"
#include "client/context.h"
#include "client/errors.h"
#include "client/field_reader.h"
#include "client/step_driver.h"

namespace foehn::client {

void Context::update_calendar(std::int64_t step) {
  check_open("foehn_update_calendar");
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE,
         "foehn_update_calendar: context '" + id_ + "' is still being defined (call foehn_close_definition)");
  driver_->update_calendar(step);
}

void Context::set_model_time(double seconds) {
  check_open("foehn_set_model_time");
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE,
         "foehn_set_model_time: context '" + id_ + "' is still being defined (call foehn_close_definition)");
  driver_->set_model_time(seconds);
}

int Context::handle(const std::string& field_id) const {
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE,
         "field '" + field_id + "': context '" + id_ + "' is still being defined (call foehn_close_definition first)");
  return driver_->handle(field_id);
}

const std::string& Context::shape_text(int handle) const {
  static const std::string none;  // still being defined
  return driver_ ? driver_->shape_text(handle) : none;
}

bool Context::is_active(int handle) const { return closed_definition_ && !closed_ && driver_->is_active(handle); }

bool Context::reads(const std::string& field_id) const {
  return closed_definition_ && !closed_ && reader_->reads(field_id);
}

bool Context::read_is_due(const std::string& field_id) const {
  return reads(field_id) && reader_->is_due(field_id, driver_->model_time());
}

template <class T>
void Context::read(const std::string& field_id, T* data, std::size_t n, const char* call) {
  StepDriver& driver = steps(call);
  if (!reader_->reads(field_id))
    fail(FOEHN_ERR_ARGUMENT,
         std::string(call) + ": field '" + field_id + "' of context '" + id_ + "' is not in a file with mode=\"read\"");
  reader_->read(field_id, driver.model_time(), data, n);
}

template void Context::read<float>(const std::string&, float*, std::size_t, const char*);
template void Context::read<double>(const std::string&, double*, std::size_t, const char*);

void Context::close() {
  check_open("foehn_context_close");
  if (!closed_definition_) {  // nothing was sent or created
    closed_ = true;
    return;
  }
  driver_->end_last_step();  // the last step's records
  closed_ = true;
  reader_.reset();  // closes the files read
  driver_->close();
}

report::Details Context::report_details() const {
  return driver_ ? driver_->report_details() : report::Details{};
}

void Context::checkpoint() {
  check_open("foehn_checkpoint");
  if (!closed_definition_)
    fail(FOEHN_ERR_STATE,
         "foehn_checkpoint: context '" + id_ + "' is still being defined (call foehn_close_definition)");
  collectively(comm_, [&] { driver_->checkpoint(); });
}

void Context::drain_sends() {
  if (!closed_definition_ || closed_) return;
  driver_->drain_sends();
}

void Context::set_shared(bool shared) {
  shared_ = shared;
  if (driver_) driver_->set_shared(shared);
}

}  // namespace foehn::client
