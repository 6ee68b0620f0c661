// The C API: argument checks, error codes and messages, and the time spent
// inside foehn. Everything else is delegated to the runtime and contexts.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "calendar/calendar.h"
#include "client/agree.h"
#include "client/context.h"
#include "server/server_loop.h"
#include "client/errors.h"
#include "client/step_driver.h"
#include "config/config.h"
#include "formats/registry.h"
#include "report/report.h"
#include "transport/event.h"
#include "transport/liveness.h"
#include "transport/wire.h"
#include "transport/world.h"

using foehn::client::ApiError;
using foehn::client::Context;
using foehn::client::fail;

// A handle outlives its context: after foehn_context_close it keeps only the
// id, so that any later call with it is an error naming the context rather
// than a use of freed memory (a few bytes per closed context until exit).
struct foehn_context_impl {
  std::unique_ptr<Context> context;
  std::string id;
};

namespace {

struct Runtime {
  bool initialized = false;
  bool finalized = false;  // MPI cannot join the servers again: init after finalize is refused
  foehn::transport::World world;
  foehn::config::Simulation config;
  std::string config_path;  // read again for a context opened a second time
  // Contexts whose definition went to their first opening (moved, not copied:
  // with 20,000 fields a copy is tens of MB); config keeps their variables.
  std::set<std::string> handed_out;
  std::string code_id;
  foehn::transport::ClientCounters counters;
  double start_time = 0, inside_seconds = 0;
  double call_started = 0;  // of the API call running: foehn_init's is start_time, so inside <= wall
  double step_seconds = 0;  // inside the per-step calls (time, activity, writes)
  int contexts_opened = 0, contexts_open = 0;
  std::vector<Context*> open;                // the open contexts, to drain before waiting for the servers
  std::vector<foehn_context_impl*> handles;  // every handle given out, in opening order
  std::vector<std::string> resumed;          // exact restarts: the states contexts resumed from, for the report
  foehn::report::Details details;            // of the closed contexts: files (attached), non-finite values
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

thread_local std::string last_error;

// A server that fails in a context (a write error: disk full, ...) tells
// its clients at once (kTagError); the model hears of it at its next
// per-step call (not a collective one, which other ranks may have entered),
// not only when it closes the context after the whole run. Every such
// message waiting is taken; the first is raised. Looked for at most every
// millisecond: a model may make thousands of writes a step.
void raise_server_errors(const foehn::transport::World& w, double now) {
  static double last = -1;
  if (w.attached() || now - last < 1e-3) return;
  last = now;
  std::string first;
  while (true) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, foehn::transport::kTagError, w.comm, &flag, &st);
    if (!flag) break;
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::vector<char> buf(static_cast<std::size_t>(bytes));
    MPI_Recv(buf.data(), bytes, MPI_BYTE, st.MPI_SOURCE, foehn::transport::kTagError, w.comm, MPI_STATUS_IGNORE);
    foehn::transport::WireReader r(buf.data(), buf.size());
    std::uint32_t key = 0;
    std::string message;
    r.get(key);
    r.get(message);
    if (first.empty()) first = message;
  }
  if (!first.empty()) fail(FOEHN_ERR_IO, "foehn server failed writing the files: " + first);
}

// Runs an API call: times it, turns exceptions into a status and a message.
template <class F>
int api_call(F&& f, bool per_step = false) {
  const double t0 = MPI_Wtime();
  runtime().call_started = t0;
  int status = FOEHN_OK;
  try {
    if (per_step && runtime().initialized) raise_server_errors(runtime().world, t0);
    f();
  } catch (const std::exception& e) {
    const auto failure = foehn::client::failure_of(e);
    last_error = failure.message;
    status = failure.status;
  }
  const double spent = MPI_Wtime() - t0;
  runtime().inside_seconds += spent;
  if (per_step) runtime().step_seconds += spent;
  return status;
}

Runtime& initialized_runtime(const char* call) {
  Runtime& r = runtime();
  if (!r.initialized) fail(FOEHN_ERR_STATE, std::string(call) + ": foehn_init has not been called");
  return r;
}

Context& context_of(foehn_context ctx, const char* call) {
  if (!ctx) fail(FOEHN_ERR_ARGUMENT, std::string(call) + ": null context");
  if (!ctx->context)
    fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + ctx->id +
                              "' is closed (foehn_context_close); its handle cannot be used again");
  return *ctx->context;
}

std::string text(const char* s, const char* what) {
  if (!s) fail(FOEHN_ERR_ARGUMENT, std::string(what) + " is NULL");
  return s;
}

// Tells every server this client is done, outside any context.
void send_finalize(const foehn::transport::World& w, foehn::transport::ClientCounters& counters) {
  struct {
    foehn::transport::BufferHeader bh;
    foehn::transport::EventHeader eh;
  } msg{};
  msg.bh.bytes = sizeof msg;
  msg.eh.type = foehn::transport::EventType::finalize;
  for (int s : w.server_ranks) {
    MPI_Send(&msg, sizeof msg, MPI_BYTE, s, foehn::transport::kTagEvents, w.comm);
    counters.bytes_sent += sizeof msg;
    ++counters.messages_sent;
  }
}

// Model rank 0: the servers' figures, the text report and the JSON file.
void write_report(Runtime& r, foehn::report::RunReport& report) {
  if (!r.world.attached()) {
    MPI_Status st;
    foehn::transport::wait_for_message(r.world.comm, r.world.server_ranks[0], foehn::transport::kTagReport, st,
                                       {r.world.server_ranks[0]});
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    report.servers.resize(static_cast<size_t>(bytes) / sizeof(foehn::report::ServerFigures));
    MPI_Recv(report.servers.data(), bytes, MPI_BYTE, st.MPI_SOURCE, foehn::transport::kTagReport, r.world.comm,
             MPI_STATUS_IGNORE);
    // Then this model's files, as the servers wrote them (server_loop.cpp).
    MPI_Probe(st.MPI_SOURCE, foehn::transport::kTagReport, r.world.comm, &st);
    MPI_Get_count(&st, MPI_CHAR, &bytes);
    std::string text(static_cast<std::size_t>(bytes), '\0');
    MPI_Recv(text.data(), bytes, MPI_CHAR, st.MPI_SOURCE, foehn::transport::kTagReport, r.world.comm,
             MPI_STATUS_IGNORE);
    foehn::report::merge(report.details, foehn::report::from_text(text));
  }
  report.resumed = r.resumed;
  foehn::report::print_clients(std::cerr, r.code_id, report.clients);
  for (const auto& line : report.resumed) std::cerr << "foehn report: resumed " << line << "\n";
  foehn::report::print_files(std::cerr, report.details.files);
  foehn::report::print_non_finite(std::cerr, report.details.fields);
  for (const auto& line : foehn::report::advice(report)) std::cerr << "foehn advice: " << line << "\n";
  for (const auto& ctx : r.config.contexts) {
    const auto* var = ctx.find_variable("report_file");
    if (!var) continue;
    std::ofstream out(var->value);
    out << foehn::report::to_json(report);
    if (!out) fail(FOEHN_ERR_IO, "cannot write the report to '" + var->value + "' (variable report_file)");
    break;
  }
}

// The definition a context opening starts from. The first opening takes
// the parsed one (the model may change it before close of definition, so a
// later opening cannot share it); a later one reads the XML again, as
// foehn_init did.
foehn::config::ContextDef definition_for_opening(Runtime& r, const std::string& id, MPI_Comm comm) {
  auto parsed = std::find_if(r.config.contexts.begin(), r.config.contexts.end(),
                             [&](const foehn::config::ContextDef& c) { return c.id == id; });
  if (r.handed_out.insert(id).second) {
    foehn::config::ContextDef taken = std::move(*parsed);
    *parsed = {};
    parsed->id = id;
    parsed->variables = taken.variables;  // report_file (write_report)
    return taken;
  }
  foehn::config::ContextDef again;
  foehn::client::collectively(comm, [&] {
    auto config = foehn::config::parse_file(r.config_path);
    auto it = std::find_if(config.contexts.begin(), config.contexts.end(),
                           [&](const foehn::config::ContextDef& c) { return c.id == id; });
    if (it == config.contexts.end())
      fail(FOEHN_ERR_CONFIG, "context '" + id + "' is no longer defined in " + r.config_path +
                                 " (read again for its second opening)");
    again = std::move(*it);
  });
  return again;
}

// Before a call that waits for every server: the data other contexts hold
// leaves first (the servers may need it before they can answer this one).
// Every open context learns whether it is alone (Context::set_shared).
void note_open_contexts() {
  for (Context* c : runtime().open) c->set_shared(runtime().open.size() > 1);
}

void drain_others(const Context& self) {
  for (Context* c : runtime().open)
    if (c != &self) c->drain_sends();
}

// Closes a context; its handle stays, empty, whether closing worked or not.
void close_context(foehn_context ctx, const char* call) {
  Context& c = context_of(ctx, call);
  struct Release {  // runs after close(), even when it throws
    foehn_context ctx;
    ~Release() {
      try {
        foehn::report::merge(runtime().details, ctx->context->report_details());
      } catch (const std::exception&) {}  // the report only loses this context's lines
      --runtime().contexts_open;
      std::erase(runtime().open, ctx->context.get());
      ctx->context.reset();
      note_open_contexts();
    }
  } release{ctx};
  drain_others(c);
  c.close();
}

// foehn_finalize with contexts still open: closes them in opening order
// (collective, as every model rank of a context is in finalize), and
// returns their ids for the message, with any error closing them.
std::string close_open_contexts(Runtime& r) {
  std::string ids;
  for (foehn_context_impl* h : r.handles) {
    if (!h->context) continue;
    ids += (ids.empty() ? "'" : ", '") + h->id + "'";
    try {
      close_context(h, "foehn_finalize");
    } catch (const std::exception& e) { ids += " (closing failed: " + std::string(e.what()) + ")"; }
  }
  return ids;
}

}  // namespace

// foehn_write_float/_double by field id: an unknown field is reported
// first, then the context's state; the step driver does the rest.
template <class T>
int write_by_id(foehn_context ctx, const char* field_id, const T* data, size_t n, const char* call, const char* what) {
  return api_call(
      [&] {
        Context& c = context_of(ctx, call);
        const int handle = c.handle(text(field_id, what));
        c.steps("foehn_write").write(handle, data, n);
      },
      true);
}

extern "C" {

const char* foehn_last_error(void) { return last_error.c_str(); }

// For the language bindings only (not in foehn.h): an argument error they
// find before calling C (e.g. Fortran arrays of different sizes) becomes
// the last error, so foehn_last_error() explains the code they return.
int foehn_binding_argument_error(const char* message);
int foehn_binding_argument_error(const char* message) {
  last_error = message ? message : "invalid argument";
  return FOEHN_ERR_ARGUMENT;
}

// For the language bindings only: the local data shape a write of the
// field expects (by id, or by handle when field_id is NULL), fastest
// dimension first ("40 x 20 x 3"); "" while undefined or when no output
// uses the field. The binding checks an array's shape against it, where
// the array has one (a transposed array has the right size).
int foehn_binding_field_shape(foehn_context ctx, const char* field_id, int handle, const char** shape);
int foehn_binding_field_shape(foehn_context ctx, const char* field_id, int handle, const char** shape) {
  static const std::string none;
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_binding_field_shape");
    const int h = field_id ? c.handle(field_id) : handle;
    try {
      *shape = c.shape_text(h).c_str();
    } catch (const std::out_of_range&) { *shape = none.c_str(); }
  });
}

int foehn_init(const char* code_id, const char* config_path, MPI_Comm world, MPI_Comm* model_comm) {
  const int status = api_call([&] {
    Runtime& r = runtime();
    if (r.initialized) fail(FOEHN_ERR_STATE, "foehn_init: already initialized");
    if (r.finalized)
      fail(FOEHN_ERR_STATE,
           "foehn_init: foehn_finalize was called on this rank; foehn runs once per MPI job "
           "(its servers have exited)");
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) fail(FOEHN_ERR_STATE, "foehn_init: call MPI_Init first");
    if (!model_comm) fail(FOEHN_ERR_ARGUMENT, "foehn_init: model_comm is NULL");
    r.start_time = r.call_started;
    r.code_id = code_id ? code_id : "";
    r.world = foehn::transport::join_world(world, r.code_id);
    r.initialized = true;
    MPI_Comm_dup(r.world.local, model_comm);  // the model owns its copy
    // The configuration is read after joining, so that the servers are never
    // left waiting: on an error they are released at once (below).
    foehn::client::collectively(
        r.world.local, [&] {
          r.config_path = text(config_path, "foehn_init: config_path");
          r.config = foehn::config::parse_file(r.config_path);
        });
    // What the XML asks that XIOS would skip (docs/xml.md): said once, by model rank 0.
    int rank = 0;
    MPI_Comm_rank(r.world.local, &rank);
    if (rank == 0)
      for (const auto& w : r.config.warnings) std::cerr << "foehn: " << w.str() << "\n";
  });
  Runtime& r = runtime();
  if (status != FOEHN_OK && r.initialized) {
    send_finalize(r.world, r.counters);
    foehn::transport::leave_world(r.world);
    r.initialized = false;
  }
  return status;
}

int foehn_finalize(void) {
  return api_call([&] {
    Runtime& r = initialized_runtime("foehn_finalize");
    // Contexts left open are closed here, so that their records reach the
    // files and the servers are released; the call still fails (below).
    std::string still_open = close_open_contexts(r);
    send_finalize(r.world, r.counters);
    foehn::report::ClientFigures mine;
    mine.wall_seconds = MPI_Wtime() - r.start_time;
    mine.inside_seconds = r.inside_seconds;
    mine.step_seconds = r.step_seconds;
    mine.wait_seconds = r.counters.wait_seconds;
    mine.close_seconds = r.counters.close_seconds;
    mine.bytes_sent = static_cast<double>(r.counters.bytes_sent);
    mine.messages_sent = static_cast<double>(r.counters.messages_sent);
    mine.waits = static_cast<double>(r.counters.waits);
    mine.buffer_bytes = static_cast<double>(r.counters.buffer_bytes);
    mine.largest_message_bytes = static_cast<double>(r.counters.largest_message_bytes);
    mine.credit_wait_seconds = r.counters.credit_wait_seconds;
    mine.credit_waits = static_cast<double>(r.counters.credit_waits);
    mine.credit_bytes = static_cast<double>(r.counters.credit_bytes);
    mine.progress_threads = static_cast<double>(r.counters.progress_threads);
    mine.peak_rss_bytes = foehn::report::peak_rss_bytes();
    foehn::report::RunReport report;
    report.code = r.code_id;
    report.clients = foehn::report::gather(mine, r.world.local);
    report.details = foehn::report::gather(r.details, r.world.local);
    int rank = 0;
    MPI_Comm_rank(r.world.local, &rank);
    if (rank == 0) write_report(r, report);
    foehn::transport::leave_world(r.world);
    foehn::formats::before_mpi_finalize();  // attached: its files are closed
    r.initialized = false;
    r.finalized = true;
    if (!still_open.empty())
      fail(FOEHN_ERR_STATE, "foehn_finalize: context(s) " + still_open +
                                " were still open: foehn closed them (their files are complete); call "
                                "foehn_context_close before foehn_finalize");
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
    const std::uint32_t key =
        (static_cast<std::uint32_t>(r.world.code_index) << 16) | static_cast<std::uint32_t>(r.contexts_opened);
    auto impl = std::make_unique<foehn_context_impl>();
    impl->context = std::make_unique<Context>(id, comm, definition_for_opening(r, id, comm), r.world, key, r.counters);
    impl->id = id;
    r.handles.push_back(impl.get());
    ++r.contexts_opened;
    ++r.contexts_open;
    r.open.push_back(impl->context.get());
    note_open_contexts();
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
    if (n < 0 || (n > 0 && !values)) fail(FOEHN_ERR_ARGUMENT, "foehn_set_axis: axis '" + id + "' needs n >= 0 values");
    c.set_axis(id, std::vector<double>(values, values + n), units, positive);
  });
}

int foehn_close_definition(foehn_context ctx) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_close_definition");
    drain_others(c);
    std::vector<const Context*> others;
    for (const Context* o : runtime().open)
      if (o != &c) others.push_back(o);
    c.close_definition(others);
    if (!c.resumed_from().empty()) runtime().resumed.push_back(c.resumed_from());
  });
}

int foehn_update_calendar(foehn_context ctx, int step) {
  return api_call([&] { context_of(ctx, "foehn_update_calendar").update_calendar(step); }, true);
}

int foehn_set_model_time(foehn_context ctx, double seconds) {
  return api_call([&] { context_of(ctx, "foehn_set_model_time").set_model_time(seconds); }, true);
}

int foehn_checkpoint(foehn_context ctx) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_checkpoint");
    drain_others(c);  // with servers, it waits for them to write the records before it
    c.checkpoint();
  });
}

int foehn_field_handle(foehn_context ctx, const char* field_id, int* handle) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_field_handle");
    if (!handle) fail(FOEHN_ERR_ARGUMENT, "foehn_field_handle: handle is NULL");
    *handle = c.handle(text(field_id, "foehn_field_handle: field_id"));
  });
}

int foehn_field_is_active(foehn_context ctx, const char* field_id, int* active) {
  return api_call(
      [&] {
        Context& c = context_of(ctx, "foehn_field_is_active");
        if (!active) fail(FOEHN_ERR_ARGUMENT, "foehn_field_is_active: active is NULL");
        const std::string id = text(field_id, "foehn_field_is_active: field_id");
        *active = (c.reads(id) ? c.read_is_due(id) : c.is_active(c.handle(id))) ? 1 : 0;
      },
      true);
}

int foehn_field_is_active_h(foehn_context ctx, int handle, int* active) {
  return api_call(
      [&] {
        Context& c = context_of(ctx, "foehn_field_is_active_h");
        if (!active) fail(FOEHN_ERR_ARGUMENT, "foehn_field_is_active_h: active is NULL");
        *active = c.steps("foehn_field_is_active_h").checked_is_active(handle) ? 1 : 0;
      },
      true);
}

int foehn_write_float(foehn_context ctx, const char* field_id, const float* data, size_t n) {
  return write_by_id(ctx, field_id, data, n, "foehn_write_float", "foehn_write_float: field_id");
}

int foehn_write_double(foehn_context ctx, const char* field_id, const double* data, size_t n) {
  return write_by_id(ctx, field_id, data, n, "foehn_write_double", "foehn_write_double: field_id");
}

int foehn_write_float_h(foehn_context ctx, int handle, const float* data, size_t n) {
  return api_call([&] { context_of(ctx, "foehn_write_float_h").steps("foehn_write").write(handle, data, n); }, true);
}

int foehn_write_double_h(foehn_context ctx, int handle, const double* data, size_t n) {
  return api_call([&] { context_of(ctx, "foehn_write_double_h").steps("foehn_write").write(handle, data, n); }, true);
}

int foehn_read_float(foehn_context ctx, const char* field_id, float* data, size_t n) {
  return api_call(
      [&] {
        context_of(ctx, "foehn_read_float")
            .read(text(field_id, "foehn_read_float: field_id"), data, n, "foehn_read_float");
      },
      true);
}

int foehn_read_double(foehn_context ctx, const char* field_id, double* data, size_t n) {
  return api_call(
      [&] {
        context_of(ctx, "foehn_read_double")
            .read(text(field_id, "foehn_read_double: field_id"), data, n, "foehn_read_double");
      },
      true);
}

int foehn_context_close(foehn_context ctx) {
  return api_call([&] { close_context(ctx, "foehn_context_close"); });
}

}  // extern "C"

// ---- Domains of every kind (docs/grids.md) --------------------------------

// n values from a C array, as a vector of U; NULL is refused when n > 0.
template <class U, class T>
static std::vector<U> domain_values(const T* p, int n, const std::string& what) {
  if (n < 0) fail(FOEHN_ERR_ARGUMENT, what + ": negative count " + std::to_string(n));
  if (n > 0 && !p) fail(FOEHN_ERR_ARGUMENT, what + " is NULL");
  return n > 0 ? std::vector<U>(p, p + n) : std::vector<U>{};
}

extern "C" {

int foehn_set_domain_type(foehn_context ctx, const char* domain_id, const char* type, int ni_glo, int nj_glo) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_type");
    c.set_domain_type(text(domain_id, "foehn_set_domain_type: domain_id"), type, ni_glo, nj_glo);
  });
}

int foehn_set_domain_block(foehn_context ctx, const char* domain_id, int ibegin, int ni, int jbegin, int nj) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_block");
    c.set_domain_block(text(domain_id, "foehn_set_domain_block: domain_id"), ibegin, ni, jbegin, nj);
  });
}

int foehn_set_domain_index(foehn_context ctx, const char* domain_id, int n, const int* i_index, const int* j_index) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_index");
    const std::string id = text(domain_id, "foehn_set_domain_index: domain_id");
    c.set_domain_index(id, domain_values<std::int64_t>(i_index, n, "foehn_set_domain_index: i_index"),
                       j_index ? domain_values<std::int64_t>(j_index, n, "foehn_set_domain_index: j_index")
                               : std::vector<std::int64_t>{});
  });
}

int foehn_set_domain_healpix(foehn_context ctx, const char* domain_id, int refinement_level,
                             const char* indexing_scheme, int n, const int64_t* cells) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_healpix");
    const std::string id = text(domain_id, "foehn_set_domain_healpix: domain_id");
    c.set_domain_healpix(id, refinement_level, indexing_scheme,
                         domain_values<std::int64_t>(cells, n, "foehn_set_domain_healpix: cells"));
  });
}

int foehn_set_domain_data(foehn_context ctx, const char* domain_id, int data_dim, int data_ibegin, int data_ni,
                          int data_jbegin, int data_nj) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_data");
    c.set_domain_data(text(domain_id, "foehn_set_domain_data: domain_id"), data_dim, data_ibegin, data_ni, data_jbegin,
                      data_nj);
  });
}

int foehn_set_domain_data_index(foehn_context ctx, const char* domain_id, int n, const int* data_i_index,
                                const int* data_j_index) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_data_index");
    const std::string id = text(domain_id, "foehn_set_domain_data_index: domain_id");
    c.set_domain_data_index(
        id, domain_values<std::int64_t>(data_i_index, n, "foehn_set_domain_data_index: data_i_index"),
        data_j_index ? domain_values<std::int64_t>(data_j_index, n, "foehn_set_domain_data_index: data_j_index")
                     : std::vector<std::int64_t>{});
  });
}

int foehn_set_domain_coordinates(foehn_context ctx, const char* domain_id, int n_lon, const double* lon, int n_lat,
                                 const double* lat, int nvertex, const double* bounds_lon, const double* bounds_lat) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_domain_coordinates");
    const std::string id = text(domain_id, "foehn_set_domain_coordinates: domain_id");
    if (nvertex < 0 || (nvertex > 0 && (n_lon > INT32_MAX / nvertex || n_lat > INT32_MAX / nvertex)))
      fail(FOEHN_ERR_ARGUMENT,
           "foehn_set_domain_coordinates: domain '" + id + "': bad nvertex " + std::to_string(nvertex));
    c.set_domain_coordinates(
        id, domain_values<double>(lon, n_lon, "foehn_set_domain_coordinates: lon"),
        domain_values<double>(lat, n_lat, "foehn_set_domain_coordinates: lat"), nvertex,
        domain_values<double>(bounds_lon, nvertex * n_lon, "foehn_set_domain_coordinates: bounds_lon"),
        domain_values<double>(bounds_lat, nvertex * n_lat, "foehn_set_domain_coordinates: bounds_lat"));
  });
}

int foehn_set_domain_mask(foehn_context ctx, const char* domain_id, int n, const int* mask) {
  return foehn_set_mask(ctx, "domain", domain_id, n, mask);
}

int foehn_set_mask(foehn_context ctx, const char* kind, const char* id, int n, const int* mask) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_mask");
    const std::string k = text(kind, "foehn_set_mask: kind"), name = text(id, "foehn_set_mask: id");
    std::vector<std::uint8_t> flags;
    for (int m : domain_values<int>(mask, n, "foehn_set_mask: " + k + " '" + name + "': mask")) flags.push_back(m != 0);
    c.set_mask(k, name, std::move(flags));
  });
}

int foehn_set_axis_decomposition(foehn_context ctx, const char* axis_id, int n_glo, int begin, int n) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_axis_decomposition");
    const std::string id = text(axis_id, "foehn_set_axis_decomposition: axis_id");
    if (begin < 0 || n < 0 || static_cast<long long>(begin) + n > n_glo)
      fail(FOEHN_ERR_ARGUMENT, "foehn_set_axis_decomposition: axis '" + id + "': the part [" + std::to_string(begin) +
                                   ", " + std::to_string(static_cast<long long>(begin) + n) + ") lies outside [0, " +
                                   std::to_string(n_glo) + ")");
    std::vector<std::int64_t> index(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) index[static_cast<std::size_t>(k)] = begin + k;
    c.set_axis_part(id, n_glo, std::move(index), "foehn_set_axis_decomposition");
  });
}

int foehn_set_axis_index(foehn_context ctx, const char* axis_id, int n_glo, int n, const int* index) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_axis_index");
    const std::string id = text(axis_id, "foehn_set_axis_index: axis_id");
    c.set_axis_part(id, n_glo, domain_values<std::int64_t>(index, n, "foehn_set_axis_index: index"),
                    "foehn_set_axis_index");
  });
}

int foehn_set_axis_bounds(foehn_context ctx, const char* axis_id, int n, const double* bounds) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_axis_bounds");
    const std::string id = text(axis_id, "foehn_set_axis_bounds: axis_id");
    if (n < 0)
      fail(FOEHN_ERR_ARGUMENT, "foehn_set_axis_bounds: axis '" + id + "': negative count " + std::to_string(n));
    c.set_axis_bounds(id, domain_values<double>(bounds, 2 * n, "foehn_set_axis_bounds: bounds"));
  });
}

int foehn_set_scalar(foehn_context ctx, const char* scalar_id, double value, const char* units) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_set_scalar");
    c.set_scalar(text(scalar_id, "foehn_set_scalar: scalar_id"), value, units);
  });
}

}  // extern "C"

// ---- Attributes, variables and dates at run time (XIOS-style calls) -------

extern "C" {

int foehn_get_attribute(foehn_context ctx, const char* kind, const char* id, const char* name, const char** value) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_get_attribute");
    if (!value) fail(FOEHN_ERR_ARGUMENT, "foehn_get_attribute: value is NULL");
    *value = nullptr;
    const std::string* v =
        c.attribute(text(kind, "foehn_get_attribute: kind"), id ? id : "", text(name, "foehn_get_attribute: name"));
    *value = v ? v->c_str() : nullptr;
  });
}

int foehn_set_attribute(foehn_context ctx, const char* kind, const char* id, const char* name, const char* value) {
  return api_call([&] {
    context_of(ctx, "foehn_set_attribute")
        .set_attribute(text(kind, "foehn_set_attribute: kind"), text(id, "foehn_set_attribute: id"),
                       text(name, "foehn_set_attribute: name"), text(value, "foehn_set_attribute: value"));
  });
}

int foehn_has_element(foehn_context ctx, const char* kind, const char* id, int* exists) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_has_element");
    if (!exists) fail(FOEHN_ERR_ARGUMENT, "foehn_has_element: exists is NULL");
    *exists = c.has_element(text(kind, "foehn_has_element: kind"), text(id, "foehn_has_element: id")) ? 1 : 0;
  });
}

int foehn_add_child(foehn_context ctx, const char* parent_kind, const char* parent_id, const char* child_kind,
                    const char* child_id, char* id_out, size_t size) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_add_child");
    const std::string id =
        c.add_child(text(parent_kind, "foehn_add_child: parent_kind"), text(parent_id, "foehn_add_child: parent_id"),
                    text(child_kind, "foehn_add_child: child_kind"), child_id ? child_id : "");
    if (!id_out || size <= id.size())
      fail(FOEHN_ERR_ARGUMENT, "foehn_add_child: id_out holds " + std::to_string(size) + " bytes, the id '" + id +
                                   "' needs " + std::to_string(id.size() + 1));
    std::copy(id.begin(), id.end(), id_out);
    id_out[id.size()] = '\0';
  });
}

int foehn_field_component(foehn_context ctx, const char* field_id, const char* kind, int index, char* id_out,
                          size_t size) {
  return api_call([&] {
    const std::string id = context_of(ctx, "foehn_field_component")
                               .field_component(text(field_id, "foehn_field_component: field_id"),
                                                text(kind, "foehn_field_component: kind"), index);
    if (!id_out || size <= id.size())
      fail(FOEHN_ERR_ARGUMENT, "foehn_field_component: id_out holds " + std::to_string(size) + " bytes, the id '" + id +
                                   "' needs " + std::to_string(id.size() + 1));
    std::copy(id.begin(), id.end(), id_out);
    id_out[id.size()] = '\0';
  });
}

int foehn_serve(MPI_Comm world) {
  return api_call([&] {
    if (foehn::server::run_server(world) != 0)
      fail(FOEHN_ERR_MPI, "foehn_serve: the server stopped with an error (its message is on standard error)");
  });
}

int foehn_calendar_query(foehn_context ctx, const char* what, const char* date, double* value) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_calendar_query");
    if (!value) fail(FOEHN_ERR_ARGUMENT, "foehn_calendar_query: value is NULL");
    *value = c.calendar_query(text(what, "foehn_calendar_query: what"), date ? date : "");
  });
}

int foehn_get_variable(foehn_context ctx, const char* variable_id, const char** value) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_get_variable");
    if (!value) fail(FOEHN_ERR_ARGUMENT, "foehn_get_variable: value is NULL");
    const std::string* v = c.variable(text(variable_id, "foehn_get_variable: variable_id"));
    *value = v ? v->c_str() : nullptr;
  });
}

int foehn_field_is_used(foehn_context ctx, const char* field_id, int* used) {
  return api_call([&] {
    Context& c = context_of(ctx, "foehn_field_is_used");
    if (!used) fail(FOEHN_ERR_ARGUMENT, "foehn_field_is_used: used is NULL");
    const std::string id = text(field_id, "foehn_field_is_used: field_id");
    *used = (c.reads(id) || c.is_used(c.handle(id))) ? 1 : 0;
  });
}

// Copies a date into the caller's buffer of `size` bytes.
static void copy_date(const std::string& out, char* result, size_t size, const char* call) {
  if (!result || out.size() + 1 > size)
    fail(FOEHN_ERR_ARGUMENT, std::string(call) + ": result needs " + std::to_string(out.size() + 1) + " bytes, given " +
                                 std::to_string(result ? size : 0));
  std::memcpy(result, out.c_str(), out.size() + 1);
}

int foehn_date_add(const char* calendar_type, const char* date, const char* duration, const char* timestep,
                   char* result, size_t size) {
  return api_call([&] {
    namespace cal = foehn::calendar;
    const cal::Calendar calendar(cal::parse_calendar_type(text(calendar_type, "foehn_date_add: calendar_type")));
    copy_date(foehn::client::add_to_date(calendar, text(date, "foehn_date_add: date"),
                                         text(duration, "foehn_date_add: duration"), timestep ? timestep : "",
                                         "foehn_date_add"),
              result, size, "foehn_date_add");
  });
}

int foehn_context_date_add(foehn_context ctx, const char* date, const char* duration, char* result, size_t size) {
  return api_call([&] {
    const Context& c = context_of(ctx, "foehn_context_date_add");
    copy_date(
        c.date_add(text(date, "foehn_context_date_add: date"), text(duration, "foehn_context_date_add: duration")),
        result, size, "foehn_context_date_add");
  });
}

}  // extern "C"
