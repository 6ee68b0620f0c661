#include "state.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace miniapp {

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
constexpr double kRelax = 0.05;      // physics: share of the way to the forced state per pass
constexpr double kMixing = 0.1;      // physics: vertical diffusion number
constexpr double kDiffusion = 0.05;  // dynamics: diffusion number along rows (with Courant <= 0.5: monotone)
constexpr int kT = 2, kQ = 5, kCc = 6, kCrwc = 8, kCswc = 9, kClwc = 10, kCiwc = 11;

// Where the sun heats at `seconds` after the start: its longitude (radians).
double sun_longitude(double seconds) { return 2.0 * std::numbers::pi * std::fmod(seconds / 86400.0, 1.0); }

}  // namespace

State::State(const Geometry& g, const HaloPlan& halo, int levels, int nproma)
    : halo_(halo), nloc_(g.local_size()), nlev_(levels), np_(static_cast<std::size_t>(nproma)) {
  blocks_ = (nloc_ + nproma - 1) / nproma;
  const int halo_blocks = (halo.halo_size + nproma - 1) / nproma;
  const std::size_t block_values = np_ * nlev_ * kNumFields3d;
  cur_.assign(block_values * (blocks_ + halo_blocks), 0.0);
  next_ = cur_;
  sp_.assign(np_ * blocks_, 0.0);
  for (int p = 0; p < nloc_; ++p) {
    const double phi = g.lat[static_cast<std::size_t>(p)] * kDeg, lam = g.lon[static_cast<std::size_t>(p)] * kDeg;
    cos_lat_.push_back(std::cos(phi));
    lon_rad_.push_back(lam);
    courant_.push_back(0.05 + 0.45 * cos_lat_.back() * cos_lat_.back());  // a westerly jet
  }
  for (int f = 0; f < kNumFields3d; ++f)
    for (int p = 0; p < nloc_; ++p) {
      const double phi = g.lat[static_cast<std::size_t>(p)] * kDeg;
      phase_.push_back(std::sin(2.0 * phi + 0.5 * f) * std::cos(phi + 0.3 * f));
    }
  for (int k = 0; k < nlev_; ++k) eta_.push_back((k + 0.5) / nlev_);
  // Where each neighbour's column starts: the halo slots sit after the local blocks.
  for (int p = 0; p < nloc_; ++p) {
    const int w = halo.west[static_cast<std::size_t>(p)], e = halo.east[static_cast<std::size_t>(p)];
    west_.push_back(at(w < nloc_ ? w : halo_point(w - nloc_), 0, 0));
    east_.push_back(at(e < nloc_ ? e : halo_point(e - nloc_), 0, 0));
  }
  // Start from the forced state of time 0 with a wave-4 disturbance that
  // the dynamics carries east.
  for (int p = 0; p < nloc_; ++p) {
    const double sun = cos_lat_[p] * std::max(0.0, std::cos(lon_rad_[p]));
    const double wave = 0.3 * std::cos(4.0 * lon_rad_[p]) * cos_lat_[p];
    for (int f = 0; f < kNumFields3d; ++f) {
      const FieldInfo& info = kFields3d[static_cast<std::size_t>(f)];
      for (int k = 0; k < nlev_; ++k) {
        const double e = eta_[static_cast<std::size_t>(k)];
        const double forced =
            info.mean * (0.6 + 0.4 * e) +
            info.amplitude * (0.5 * phase_[static_cast<std::size_t>(f) * nloc_ + p] * e + sun * e * e);
        cur_[at(p, f, k)] = forced + info.amplitude * wave;
      }
    }
  }
  for (auto& buf : {&send_buf_, &recv_buf_}) buf->resize(halo.peers.size());
  for (std::size_t i = 0; i < halo.peers.size(); ++i) {
    send_buf_[i].resize(halo.send_points[i].size() * nlev_ * kNumFields3d);
    recv_buf_[i].resize(halo.recv_slots[i].size() * nlev_ * kNumFields3d);
  }
  physics(0, 0.0);  // surface pressure of the initial state
}

void State::exchange_halo(MPI_Comm comm) {
  const std::size_t n = halo_.peers.size();
  std::vector<MPI_Request> req(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    MPI_Irecv(recv_buf_[i].data(), static_cast<int>(recv_buf_[i].size()), MPI_DOUBLE, halo_.peers[i], 7, comm, &req[i]);
    double* out = send_buf_[i].data();
    for (int f = 0; f < kNumFields3d; ++f)
      for (int k = 0; k < nlev_; ++k)
        for (const int p : halo_.send_points[i]) *out++ = cur_[at(p, f, k)];
    MPI_Isend(send_buf_[i].data(), static_cast<int>(send_buf_[i].size()), MPI_DOUBLE, halo_.peers[i], 7, comm,
              &req[n + i]);
  }
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  for (std::size_t i = 0; i < n; ++i) {
    const double* in = recv_buf_[i].data();
    for (int f = 0; f < kNumFields3d; ++f)
      for (int k = 0; k < nlev_; ++k)
        for (const int s : halo_.recv_slots[i]) cur_[at(halo_point(s), f, k)] = *in++;
  }
}

void State::dynamics(int work, MPI_Comm comm) {
  for (int sweep = 0; sweep < work; ++sweep) {
    exchange_halo(comm);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks_; ++b) {
      const int first = b * static_cast<int>(np_), n = std::min(static_cast<int>(np_), nloc_ - first);
      for (int f = 0; f < kNumFields3d; ++f)
        for (int k = 0; k < nlev_; ++k) {
          const std::size_t level = at(0, f, k);  // offset of (f, k) within any block
          const double* x = &cur_[at(first, f, k)];
          double* out = &next_[at(first, f, k)];
          for (int j = 0; j < n; ++j) {
            const int p = first + j;
            const double xw = cur_[west_[p] + level], xe = cur_[east_[p] + level];
            out[j] = x[j] - courant_[p] * (x[j] - xw) + kDiffusion * (xw - 2.0 * x[j] + xe);
          }
        }
    }
    cur_.swap(next_);
  }
}

void State::physics(int work, double seconds) {
  const double sun_lon = sun_longitude(seconds);
  for (int pass = 0; pass < work; ++pass) {
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks_; ++b) physics_block(b, sun_lon);
  }
  // Surface pressure: a diagnostic of the column's mean temperature.
#pragma omp parallel for schedule(static)
  for (int p = 0; p < nloc_; ++p) {
    double sum = 0;
    for (int k = 0; k < nlev_; ++k) sum += cur_[at(p, kT, k)];
    sp_[static_cast<std::size_t>(p)] =
        kSurfacePressure.mean + kSurfacePressure.amplitude * std::tanh((sum / nlev_ - 230.0) / 20.0);
  }
}

void State::physics_block(int b, double sun_lon) {
  const int first = b * static_cast<int>(np_), n = std::min(static_cast<int>(np_), nloc_ - first);
  // Column (f, k) of this block starts at col(f, k); point j is at col(f, k)[j].
  double* block = &cur_[at(first, 0, 0)];
  auto col = [&](int f, int k) {
    return block + np_ * (static_cast<std::size_t>(k) + nlev_ * static_cast<std::size_t>(f));
  };
  std::vector<double> sun(static_cast<std::size_t>(n));  // where the sun heats this block's columns
  for (int j = 0; j < n; ++j) sun[j] = cos_lat_[first + j] * std::max(0.0, std::cos(lon_rad_[first + j] - sun_lon));
  // Relaxation towards the forced state.
  for (int f = 0; f < kNumFields3d; ++f) {
    const FieldInfo& info = kFields3d[static_cast<std::size_t>(f)];
    const double* phase = &phase_[static_cast<std::size_t>(f) * nloc_ + first];
    for (int k = 0; k < nlev_; ++k) {
      const double e = eta_[static_cast<std::size_t>(k)], base = info.mean * (0.6 + 0.4 * e);
      const double a = info.amplitude * 0.5 * e, c = info.amplitude * e * e;
      double* x = col(f, k);
      for (int j = 0; j < n; ++j) x[j] += kRelax * (base + a * phase[j] + c * sun[j] - x[j]);
    }
  }
  // Moisture: saturation (Tetens) sets the cloud cover, the cover and the
  // temperature the cloud water and ice, which feed rain and snow.
  for (int k = 0; k < nlev_; ++k) {
    const double *t = col(kT, k), *q = col(kQ, k);
    double *cc = col(kCc, k), *clwc = col(kClwc, k), *ciwc = col(kCiwc, k), *crwc = col(kCrwc, k),
           *cswc = col(kCswc, k);
    for (int j = 0; j < n; ++j) {
      const double qsat = 3.8e-3 * std::exp(17.27 * (t[j] - 273.15) / (t[j] - 35.86));
      const double cover = std::clamp((q[j] / qsat - 0.6) / 0.4, 0.0, 1.0);
      const double liquid = std::clamp((t[j] - 253.15) / 20.0, 0.0, 1.0);
      cc[j] += kRelax * (cover - cc[j]);
      clwc[j] += kRelax * (6e-5 * cc[j] * liquid - clwc[j]);
      ciwc[j] += kRelax * (2e-5 * cc[j] * (1.0 - liquid) - ciwc[j]);
      crwc[j] += kRelax * (0.5 * clwc[j] - crwc[j]);
      cswc[j] += kRelax * (0.5 * ciwc[j] - cswc[j]);
    }
  }
  // Vertical mixing, top to bottom.
  for (int f = 0; f < kNumFields3d; ++f)
    for (int k = 1; k + 1 < nlev_; ++k) {
      const double *above = col(f, k - 1), *below = col(f, k + 1);
      double* x = col(f, k);
      for (int j = 0; j < n; ++j) x[j] += kMixing * (above[j] - 2.0 * x[j] + below[j]);
    }
}

template <class T>
void State::gather(int f, T* out, bool threaded) const {
  if (f < 0) {
    for (int p = 0; p < nloc_; ++p) out[p] = static_cast<T>(sp_[static_cast<std::size_t>(p)]);
    return;
  }
#pragma omp parallel for schedule(static) if (threaded)
  for (int b = 0; b < blocks_; ++b) {
    const int first = b * static_cast<int>(np_), n = std::min(static_cast<int>(np_), nloc_ - first);
    for (int k = 0; k < nlev_; ++k) {
      const double* in = &cur_[at(first, f, k)];
      T* row = out + static_cast<std::size_t>(k) * nloc_ + first;
#pragma omp simd  // an NPROMA row: vectorised, as the model's own loops are
      for (int j = 0; j < n; ++j) row[j] = static_cast<T>(in[j]);
    }
  }
}

template void State::gather<float>(int, float*, bool) const;
template void State::gather<double>(int, double*, bool) const;

}  // namespace miniapp
