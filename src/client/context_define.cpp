// Definition phase of a client context: the API setters, and close of
// definition, which resolves the XML against what the model set, builds the
// output plan (on model rank 0, then shared), the pack plans and schedules.
#include <algorithm>
#include <filesystem>
#include <numeric>

#include "client/agree.h"
#include "client/context.h"
#include "client/errors.h"
#include "transport/event.h"
#include "transport/wire.h"

namespace foehn::client {

namespace {

std::string location_prefix(const config::Location& where) { return where.file.empty() ? "" : where.str() + ": "; }

}  // namespace

Context::Context(const std::string& id, MPI_Comm comm, const config::ContextDef& def, transport::World& world,
                 std::uint32_t key, transport::ClientCounters& counters)
    : id_(id), comm_(comm), def_(def), world_(&world), key_(key), counters_(&counters) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  calendar_def_ = def_.calendar;
}

Context::~Context() = default;

void Context::check_open(const char* call) const {
  if (closed_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is closed");
}

void Context::set_calendar(const char* type, const char* start, const char* origin, const char* timestep) {
  check_open("foehn_set_calendar");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_set_calendar: context '" + id_ + "' is already defined");
  if (type) calendar::parse_calendar_type(type), calendar_def_.type = type;
  if (start) calendar::parse_date(start), calendar_def_.start_date = start;
  if (origin) calendar::parse_date(origin), calendar_def_.time_origin = origin;
  if (timestep) calendar::parse_duration(timestep), calendar_def_.timestep = timestep;
}

void Context::set_domain(const std::string& id, DomainSetting s) {
  check_open("foehn_set_domain_rectilinear");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_set_domain_rectilinear: context '" + id_ + "' is already defined");
  const auto* d = def_.find_domain(id);
  if (!d) fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "' is not defined in context '" + id_ + "' of the XML");
  const auto& b = s.block;
  if (s.ni_glo <= 0 || s.nj_glo <= 0)
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': global size " + std::to_string(s.ni_glo) + " x " +
                                 std::to_string(s.nj_glo) + " must be positive");
  if (b.ibegin < 0 || b.ni < 0 || b.ibegin + b.ni > s.ni_glo || b.jbegin < 0 || b.nj < 0 || b.jbegin + b.nj > s.nj_glo)
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': local block i " + std::to_string(b.ibegin) + "+" + std::to_string(b.ni) +
                                 ", j " + std::to_string(b.jbegin) + "+" + std::to_string(b.nj) +
                                 " lies outside the global " + std::to_string(s.ni_glo) + " x " + std::to_string(s.nj_glo));
  if ((d->ni_glo && *d->ni_glo != s.ni_glo) || (d->nj_glo && *d->nj_glo != s.nj_glo))
    fail(FOEHN_ERR_ARGUMENT, location_prefix(d->where) + "domain '" + id + "': the XML says ni_glo/nj_glo " +
                                 std::to_string(d->ni_glo.value_or(0)) + "/" + std::to_string(d->nj_glo.value_or(0)) +
                                 ", the model gives " + std::to_string(s.ni_glo) + "/" + std::to_string(s.nj_glo));
  domains_[id] = std::move(s);
}

void Context::set_axis(const std::string& id, AxisSetting s) {
  check_open("foehn_set_axis");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_set_axis: context '" + id_ + "' is already defined");
  const auto* a = def_.find_axis(id);
  if (!a) fail(FOEHN_ERR_ARGUMENT, "axis '" + id + "' is not defined in context '" + id_ + "' of the XML");
  if (s.values.empty()) fail(FOEHN_ERR_ARGUMENT, "axis '" + id + "' needs at least one value");
  if (a->n_glo && *a->n_glo != static_cast<std::int64_t>(s.values.size()))
    fail(FOEHN_ERR_ARGUMENT, location_prefix(a->where) + "axis '" + id + "': the XML says n_glo=" +
                                 std::to_string(*a->n_glo) + ", the model gives " + std::to_string(s.values.size()) +
                                 " values");
  axes_[id] = std::move(s);
}

void Context::close_definition() {
  check_open("foehn_close_definition");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_close_definition: context '" + id_ + "' is already defined");
  // Every rank resolves the same XML; an error on one is an error on all.
  // Collective exchanges happen only between the agreements, so a rank that
  // failed never leaves the others waiting in a collective.
  collectively(comm_, [&] { resolve_definitions(); });
  exchange_domains();
  collectively(comm_, [&] { prepare_outputs(); });
  if (world_->attached()) {
    collectively(comm_, [&] {
      attached_ = std::make_unique<server::OutputEngine>(plan_, server::WriterRole{true, rank_, size_, comm_});
    });
  } else {
    send_plan_and_wait();
  }
  closed_definition_ = true;
}

void Context::send_plan_and_wait() {
  if (rank_ == 0) {
    const auto bytes = output::encode(plan_);
    // Synchronous sends: each server has received the plan before any
    // client (released by the barrier below) sends it data.
    for (int s : world_->server_ranks)
      MPI_Ssend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, s, transport::kTagPlan, world_->comm);
  }
  collect_acks("creating the output files");
}

void Context::collect_acks(const char* what) {
  LocalFailure mine;
  if (rank_ == 0) {
    for (size_t k = 0; k < world_->server_ranks.size(); ++k) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, transport::kTagAck, world_->comm, &st);
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      std::vector<char> buf(bytes);
      MPI_Recv(buf.data(), bytes, MPI_BYTE, st.MPI_SOURCE, transport::kTagAck, world_->comm, MPI_STATUS_IGNORE);
      transport::WireReader r(buf.data(), buf.size());
      std::int32_t failed = 0;
      std::string message;
      r.get(failed);
      r.get(message);
      if (failed && !mine.failed)
        mine = {true, FOEHN_ERR_IO, std::string("foehn server failed ") + what + ": " + message};
    }
  }
  agree(comm_, mine);
}

}  // namespace foehn::client
