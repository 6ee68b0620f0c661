// Output through foehn, with the two placements of the thesis (chapter 4
// and section 5.4) of its three steps: C (update the calendar and ask which
// fields are due), G (NPROMA blocks gather into a (points, levels) array)
// and S (hand the array to foehn, which packs it and sends it on). The
// gather narrows to float, the files' precision, as the baselines do.
//
// simple:     C G S, field after field, at the end of the step; the gather
//             runs on one thread, as in the first integration.
// overlapped: G at the end of the step, threaded, into one array per
//             field; S (of the previous step's arrays) and then C run on a
//             helper thread during the next step's physics, which does no
//             MPI, so the send overlaps the model's computation (on a node
//             of shared memory the copies of a send need a core, as a
//             network's transfers need its card). The step's end waits for
//             the helper before it gathers. The last S happens in finish().
//             Needs MPI_THREAD_SERIALIZED; without it S and C run in place.
#include <algorithm>
#include <future>
#include <memory>
#include <mpi.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "fields.h"
#include "foehn/foehn.h"
#include "output.h"

namespace miniapp {

namespace {

void must(int status, const char* call) {
  if (status != FOEHN_OK) throw std::runtime_error(std::string(call) + " failed: " + foehn_last_error());
}

constexpr int kFields = kNumFields3d + 1;  // surface pressure last

int field_of(int i) { return i < kNumFields3d ? i : -1; }

class FoehnOutput : public Output {
 public:
  FoehnOutput(const Options& opt, const Geometry& g, int levels, MPI_Comm comm)
      : overlapped_(opt.integration == "overlapped") {
    int world = 0, model = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_size(comm, &model);
    server_mode_ = world > model;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    helper_allowed_ = level >= MPI_THREAD_SERIALIZED;
    must(foehn_context_open("atm", comm, &ctx_), "foehn_context_open");
    must(foehn_set_calendar(ctx_, nullptr, nullptr, nullptr, (std::to_string(opt.timestep) + "s").c_str()),
         "foehn_set_calendar");
    // The reduced Gaussian domain: the model's list of global point indices.
    const int n = g.local_size();
    std::vector<int> index(g.global.begin(), g.global.end());
    std::vector<double> blon(4 * static_cast<std::size_t>(n)), blat(blon.size());
    for (int p = 0; p < n; ++p) g.grid.corners(g.global[static_cast<std::size_t>(p)], &blon[4 * p], &blat[4 * p]);
    const char* dom = "reduced_gaussian";
    must(foehn_set_domain_type(ctx_, dom, "gaussian", static_cast<int>(g.global_size()), 1), "foehn_set_domain_type");
    must(foehn_set_domain_index(ctx_, dom, n, index.data(), nullptr), "foehn_set_domain_index");
    must(foehn_set_domain_coordinates(ctx_, dom, n, g.lon.data(), n, g.lat.data(), 4, blon.data(), blat.data()),
         "foehn_set_domain_coordinates");
    std::vector<double> lev(static_cast<std::size_t>(levels));
    for (int k = 0; k < levels; ++k) lev[static_cast<std::size_t>(k)] = k + 1;
    must(foehn_set_axis(ctx_, "lev", levels, lev.data(), nullptr, nullptr), "foehn_set_axis");
    must(foehn_close_definition(ctx_), "foehn_close_definition");
    for (int i = 0; i < kFields; ++i) {
      const int f = field_of(i);
      must(foehn_field_handle(ctx_, f < 0 ? kSurfacePressure.id : kFields3d[static_cast<std::size_t>(f)].id,
                              &handle_[i]),
           "foehn_field_handle");
    }
    // 3-D pressure (fields.h) when the iodef uses it: unknown to foehn otherwise.
    has_pressure_ = foehn_field_handle(ctx_, kPressure.id, &pressure_handle_) == FOEHN_OK;
    if (has_pressure_) {
      pressure_ = std::make_unique_for_overwrite<float[]>(static_cast<std::size_t>(n) * levels);
      surface_.resize(static_cast<std::size_t>(n));
      for (int k = 0; k < levels; ++k) {
        hybrid_a_.push_back(hybrid_a(k, levels));
        hybrid_b_.push_back(hybrid_b(k, levels));
      }
    }
    values_[kNumFields3d] = static_cast<std::size_t>(n);
    for (int i = 0; i < kNumFields3d; ++i) values_[i] = static_cast<std::size_t>(n) * levels;
    if (overlapped_)
      for (int i = 0; i < kFields; ++i) buffer_[i] = std::make_unique_for_overwrite<float[]>(values_[i]);
    else
      buffer_[0] = std::make_unique_for_overwrite<float[]>(values_[0]);  // one array, reused field after field
    // The overlapped scheme's arrays (84 MB at O96 L40) are touched once
    // before the first output, on the helper while the model starts:
    // otherwise their page faults land in the first output step's gather.
    if (overlapped_ && helper_allowed_)
      helper_ = std::async(std::launch::async, [this] {
        for (int i = 0; i < kFields; ++i) std::fill_n(buffer_[i].get(), values_[i], 0.0f);
      });
  }

  void before_physics(int step) override {
    if (!overlapped_) return;
    // The writes of the previous step's arrays come before this step's
    // calendar update, so foehn files them under the step they belong to.
    auto send_then_calendar = [this, step] {
      send_pending();
      calendar(step);
    };
    if (!helper_allowed_) return send_then_calendar();
    // After what the helper still does (touching the arrays, at step 1).
    helper_ = std::async(std::launch::async, [send_then_calendar, before = std::move(helper_)]() mutable {
      if (before.valid()) before.get();
      send_then_calendar();
    });
  }

  void end_of_step(int step, const State& state) override {
    if (overlapped_) {
      join_helper();  // its calendar says which fields are due; its sends have read the arrays
      for (int i = 0; i < kFields; ++i)
        if (active_[i]) state.gather(field_of(i), buffer_[i].get(), true);
      if (pressure_active_) compute_pressure(state, true);
      pending_ = true;
      return;
    }
    calendar(step);
    if (pressure_active_) {
      compute_pressure(state, false);
      must(foehn_write_float_h(ctx_, pressure_handle_, pressure_.get(), surface_.size() * hybrid_a_.size()),
           "foehn_write_float_h");
    }
    for (int i = 0; i < kFields; ++i) {
      if (!active_[i]) continue;
      state.gather(field_of(i), buffer_[0].get(), false);
      must(foehn_write_float_h(ctx_, handle_[i], buffer_[0].get(), values_[i]), "foehn_write_float_h");
    }
  }

  void finish() override {
    join_helper();
    send_pending();
    must(foehn_context_close(ctx_), "foehn_context_close");
    must(foehn_finalize(), "foehn_finalize");
  }

  std::string mode() const override {
    return std::string(server_mode_ ? "foehn-server" : "foehn-attached") + (overlapped_ ? "-overlapped" : "");
  }

 private:
  void calendar(int step) {
    must(foehn_update_calendar(ctx_, step), "foehn_update_calendar");
    for (int i = 0; i < kFields; ++i) {
      int active = 0;
      must(foehn_field_is_active(
               ctx_, i < kNumFields3d ? kFields3d[static_cast<std::size_t>(i)].id : kSurfacePressure.id, &active),
           "foehn_field_is_active");
      active_[i] = active != 0;
    }
    int active = 0;
    if (has_pressure_) must(foehn_field_is_active(ctx_, kPressure.id, &active), "foehn_field_is_active");
    pressure_active_ = active != 0;
  }

  // p = a_k + b_k * ps on every level, from the state's surface pressure.
  void compute_pressure(const State& state, bool threaded) {
    state.gather(-1, surface_.data(), threaded);
    const std::size_t n = surface_.size();
    for (std::size_t k = 0; k < hybrid_a_.size(); ++k)
      for (std::size_t p = 0; p < n; ++p)
        pressure_[k * n + p] = static_cast<float>(hybrid_a_[k] + hybrid_b_[k] * surface_[p]);
  }

  void send_pending() {
    if (!pending_) return;
    for (int i = 0; i < kFields; ++i)
      if (active_[i]) must(foehn_write_float_h(ctx_, handle_[i], buffer_[i].get(), values_[i]), "foehn_write_float_h");
    if (pressure_active_)
      must(foehn_write_float_h(ctx_, pressure_handle_, pressure_.get(), surface_.size() * hybrid_a_.size()),
           "foehn_write_float_h");
    pending_ = false;
  }

  void join_helper() {
    if (helper_.valid()) helper_.get();  // rethrows what failed on the helper
  }

  bool overlapped_, server_mode_ = false, pending_ = false, helper_allowed_ = false;
  std::future<void> helper_;
  foehn_context ctx_ = nullptr;
  int handle_[kFields] = {};
  bool active_[kFields] = {};
  std::size_t values_[kFields] = {};
  // Gathered in the files' precision, as the baselines do; not zero-filled
  // first (the overlapped scheme's 13 arrays would cost a pass over 84 MB).
  std::unique_ptr<float[]> buffer_[kFields];
  // 3-D pressure: sent only when the iodef uses it.
  bool has_pressure_ = false, pressure_active_ = false;
  int pressure_handle_ = -1;
  std::unique_ptr<float[]> pressure_;
  std::vector<double> surface_, hybrid_a_, hybrid_b_;
};

}  // namespace

std::unique_ptr<Output> make_foehn_output(const Options& opt, const Geometry& g, int levels, MPI_Comm comm) {
  return std::make_unique<FoehnOutput>(opt, g, levels, comm);
}

}  // namespace miniapp
