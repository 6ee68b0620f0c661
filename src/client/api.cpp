// The C API: argument checks, error codes and messages, and the time spent
// inside foehn. Everything else is delegated to the runtime and contexts.
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "client/agree.h"
#include "client/context.h"
#include "client/errors.h"
#include "config/config.h"
#include "report/report.h"
#include "transport/event.h"
#include "transport/world.h"

using foehn::client::ApiError;
using foehn::client::Context;
using foehn::client::fail;

struct foehn_context_impl {
  std::unique_ptr<Context> context;
};

namespace {

struct Runtime {
  bool initialized = false;
  foehn::transport::World world;
  foehn::config::Simulation config;
  std::string code_id;
  foehn::transport::ClientCounters counters;
  double start_time = 0, inside_seconds = 0;
  int contexts_opened = 0, contexts_open = 0;
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

thread_local std::string last_error;

// Runs an API call: times it, turns exceptions into a status and a message.
template <class F>
int api_call(F&& f) {
  const double t0 = MPI_Wtime();
  int status = FOEHN_OK;
  try {
    f();
  } catch (const std::exception& e) {
    const auto failure = foehn::client::failure_of(e);
    last_error = failure.message;
    status = failure.status;
  }
  runtime().inside_seconds += MPI_Wtime() - t0;
  return status;
}

Runtime& initialized_runtime(const char* call) {
  Runtime& r = runtime();
  if (!r.initialized) fail(FOEHN_ERR_STATE, std::string(call) + ": foehn_init has not been called");
  return r;
}

Context& context_of(foehn_context ctx, const char* call) {
  if (!ctx || !ctx->context) fail(FOEHN_ERR_ARGUMENT, std::string(call) + ": null context");
  return *ctx->context;
}

std::string text(const char* s, const char* what) {
  if (!s) fail(FOEHN_ERR_ARGUMENT, std::string(what) + " is NULL");
  return s;
}

// Tells every server this client is done, outside any context.
void send_finalize(const foehn::transport::World& w) {
  struct {
    foehn::transport::BufferHeader bh;
    foehn::transport::EventHeader eh;
  } msg{};
  msg.bh.bytes = sizeof msg;
  msg.eh.type = foehn::transport::EventType::finalize;
  for (int s : w.server_ranks) MPI_Send(&msg, sizeof msg, MPI_BYTE, s, foehn::transport::kTagEvents, w.comm);
}

}  // namespace

extern "C" {

const char* foehn_last_error(void) { return last_error.c_str(); }

int foehn_init(const char* code_id, const char* config_path, MPI_Comm world, MPI_Comm* model_comm) {
  const int status = api_call([&] {
    Runtime& r = runtime();
    if (r.initialized) fail(FOEHN_ERR_STATE, "foehn_init: already initialized");
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) fail(FOEHN_ERR_STATE, "foehn_init: call MPI_Init first");
    if (!model_comm) fail(FOEHN_ERR_ARGUMENT, "foehn_init: model_comm is NULL");
    r.start_time = MPI_Wtime();
    r.code_id = code_id ? code_id : "";
    r.world = foehn::transport::join_world(world, r.code_id);
    r.initialized = true;
    MPI_Comm_dup(r.world.local, model_comm);  // the model owns its copy
    // The configuration is read after joining, so that the servers are never
    // left waiting: on an error they are released at once (below).
    foehn::client::collectively(r.world.local, [&] {
      r.config = foehn::config::parse_file(text(config_path, "foehn_init: config_path"));
    });
  });
  Runtime& r = runtime();
  if (status != FOEHN_OK && r.initialized) {
    send_finalize(r.world);
    foehn::transport::leave_world(r.world);
    r.initialized = false;
  }
  return status;
}

int foehn_finalize(void) {
  return api_call([&] {
    Runtime& r = initialized_runtime("foehn_finalize");
    if (r.contexts_open) fail(FOEHN_ERR_STATE, "foehn_finalize: " + std::to_string(r.contexts_open) + " context(s) still open (call foehn_context_close)");
    send_finalize(r.world);
    foehn::report::ClientFigures mine;
    mine.wall_seconds = MPI_Wtime() - r.start_time;
    mine.inside_seconds = r.inside_seconds;
    mine.wait_seconds = r.counters.wait_seconds;
    mine.close_seconds = r.counters.close_seconds;
    mine.bytes_sent = static_cast<double>(r.counters.bytes_sent);
    mine.messages_sent = static_cast<double>(r.counters.messages_sent);
    const auto all = foehn::report::gather(mine, r.world.local);
    int rank = 0;
    MPI_Comm_rank(r.world.local, &rank);
    if (rank == 0) foehn::report::print_clients(std::cout, r.code_id, all);
    foehn::transport::leave_world(r.world);
    r.initialized = false;
  });
}

int foehn_context_open(const char* context_id, MPI_Comm comm, foehn_context* ctx) {
  return api_call([&] {
    Runtime& r = initialized_runtime("foehn_context_open");
    if (!ctx) fail(FOEHN_ERR_ARGUMENT, "foehn_context_open: ctx is NULL");
    const std::string id = text(context_id, "foehn_context_open: context_id");
    const auto* def = r.config.find_context(id);
    if (!def) fail(FOEHN_ERR_CONFIG, "context '" + id + "' is not defined in the XML configuration");
    // One key per (model, context opening) so that servers tell contexts apart.
    const std::uint32_t key = (static_cast<std::uint32_t>(r.world.code_index) << 16) | static_cast<std::uint32_t>(r.contexts_opened);
    auto impl = std::make_unique<foehn_context_impl>();
    impl->context = std::make_unique<Context>(id, comm, *def, r.world, key, r.counters);
    ++r.contexts_opened;
    ++r.contexts_open;
    *ctx = impl.release();
  });
}

int foehn_set_calendar(foehn_context ctx, const char* type, const char* start_date, const char* time_origin,
                       const char* timestep) {
  return api_call([&] { context_of(ctx, "foehn_set_calendar").set_calendar(type, start_date, time_origin, timestep); });
}

int foehn_set_domain_rectilinear(foehn_context ctx, const char* domain_id, int ni_glo, int nj_glo, int ibegin, int ni,
                                 int jbegin, int nj, const double* lon, const double* lat) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_rectilinear");
    const std::string id = text(domain_id, "foehn_set_domain_rectilinear: domain_id");
    if ((ni > 0 && !lon) || (nj > 0 && !lat))
      fail(FOEHN_ERR_ARGUMENT, "foehn_set_domain_rectilinear: domain '" + id + "': lon and lat values are required");
    foehn::client::DomainSetting s;
    s.ni_glo = ni_glo;
    s.nj_glo = nj_glo;
    s.block = {ibegin, ni, jbegin, nj};
    if (ni > 0) s.lon.assign(lon, lon + ni);
    if (nj > 0) s.lat.assign(lat, lat + nj);
    c.set_domain(id, std::move(s));
  });
}

int foehn_set_axis(foehn_context ctx, const char* axis_id, int n, const double* values, const char* units,
                   const char* positive) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_axis");
    const std::string id = text(axis_id, "foehn_set_axis: axis_id");
    if (n <= 0 || !values) fail(FOEHN_ERR_ARGUMENT, "foehn_set_axis: axis '" + id + "' needs n > 0 values");
    foehn::client::AxisSetting s;
    s.values.assign(values, values + n);
    s.units = units ? units : "";
    s.positive = positive ? positive : "";
    c.set_axis(id, std::move(s));
  });
}

int foehn_close_definition(foehn_context ctx) {
  return api_call([&] { context_of(ctx, "foehn_close_definition").close_definition(); });
}

int foehn_update_calendar(foehn_context ctx, int step) {
  return api_call([&] { context_of(ctx, "foehn_update_calendar").update_calendar(step); });
}

int foehn_set_model_time(foehn_context ctx, double seconds) {
  return api_call([&] { context_of(ctx, "foehn_set_model_time").set_model_time(seconds); });
}

int foehn_field_handle(foehn_context ctx, const char* field_id, int* handle) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_field_handle");
    if (!handle) fail(FOEHN_ERR_ARGUMENT, "foehn_field_handle: handle is NULL");
    *handle = c.handle(text(field_id, "foehn_field_handle: field_id"));
  });
}

int foehn_field_is_active(foehn_context ctx, const char* field_id, int* active) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_field_is_active");
    if (!active) fail(FOEHN_ERR_ARGUMENT, "foehn_field_is_active: active is NULL");
    *active = c.is_active(c.handle(text(field_id, "foehn_field_is_active: field_id"))) ? 1 : 0;
  });
}

int foehn_write_float(foehn_context ctx, const char* field_id, const float* data, size_t n) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_write_float");
    c.write(c.handle(text(field_id, "foehn_write_float: field_id")), data, n);
  });
}

int foehn_write_double(foehn_context ctx, const char* field_id, const double* data, size_t n) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_write_double");
    c.write(c.handle(text(field_id, "foehn_write_double: field_id")), data, n);
  });
}

int foehn_write_float_h(foehn_context ctx, int handle, const float* data, size_t n) {
  return api_call([&] { context_of(ctx, "foehn_write_float_h").write(handle, data, n); });
}

int foehn_write_double_h(foehn_context ctx, int handle, const double* data, size_t n) {
  return api_call([&] { context_of(ctx, "foehn_write_double_h").write(handle, data, n); });
}

int foehn_context_close(foehn_context ctx) {
  const int status = api_call([&] { context_of(ctx, "foehn_context_close").close(); });
  if (ctx && ctx->context) {
    --runtime().contexts_open;
    delete ctx;
  }
  return status;
}

}  // extern "C"
