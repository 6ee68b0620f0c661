// append="true" without an exact restart (docs/restart.md): a run that
// continues a file keeps that file's windows where the unbroken run has
// them, counted from the file's first record, not from this run's start.
// Every record after the cut then has the unbroken run's time and bounds;
// the window open at the cut is written from this run's samples only, with
// its true bounds, and a warning says so.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

#include "client/step_driver.h"
#include "formats/file_naming.h"
#include "formats/netcdf/nc_dataset.h"
#include "formats/netcdf/time_layout.h"
#include "formats/registry.h"

namespace foehn::client {

namespace {

constexpr std::int64_t kNoAnchor = std::numeric_limits<std::int64_t>::min();

std::string date_text(const calendar::Calendar& cal, std::int64_t instant) {
  return calendar::format_date(cal.to_date(instant));
}

// The file an appending run continues: one file, or part 0 of a
// multiple_file file (all parts share the time axis). Empty: none.
std::string existing_file(const output::FileInfo& f, const std::string& extension) {
  if (f.one_file) return std::filesystem::exists(f.base_path + extension) ? f.base_path + extension : "";
  const std::size_t from = std::filesystem::path(f.base_path).filename().string().size() + 1;  // after "<name>_"
  for (const std::filesystem::path& p : formats::part_files({f.base_path, "", -1, 1, 0}, extension)) {
    const std::string n = p.filename().string();
    if (n.substr(from, n.size() - from - extension.size()).find_first_not_of('0') == std::string::npos)
      return p.string();
  }
  return "";
}

}  // namespace

// Where the windows of file `f` began in the run that created it (instant),
// from its first record: the lower bound of an interval, or for a file of
// instant values only its first time less one output_freq (XIOS's layout
// gives instants bounds of zero width). kNoAnchor: no record, or the file
// cannot be read (the writer refuses it later, saying why).
std::int64_t StepDriver::appended_anchor(int f) const {
  const output::FileInfo& info = plan_.files[f];
  const formats::WriterTraits& traits = formats::traits_of(info.format);
  if (traits.extension != ".nc") return kNoAnchor;  // GRIB2 messages carry no bounds
  const std::string path = existing_file(info, std::string(traits.extension));
  if (path.empty()) return kNoAnchor;
  try {
    const auto ds = formats::netcdf::NcDataset::open_for_reading(path);
    const std::optional<int> dim = ds.find_dim(info.time_counter_name);
    if (!dim || ds.dim_length(*dim) == 0) return kNoAnchor;
    const double unit = formats::netcdf::time_unit_seconds(info);
    const auto instant = [&](double value) {
      return origin_ + static_cast<std::int64_t>(std::llround(value * unit * calendar::kMicrosPerSecond));
    };
    const std::size_t first[2] = {0, 0}, first_end[2] = {0, 1};
    std::optional<double> start, end;
    for (const std::string& name : formats::netcdf::time_bounds_names(info.time_counter_name))
      if (const std::optional<int> bounds = ds.find_var(name)) {
        start = ds.get_double(*bounds, first), end = ds.get_double(*bounds, first_end);
        if (*start < *end) return instant(*start);
      }
    if (!end)  // a file of an older layout: instants without bounds
      if (const std::optional<int> time = ds.find_var(info.time_counter_name)) end = ds.get_double(*time, first);
    if (!end) return kNoAnchor;
    const std::int64_t t0 = instant(*end);
    const calendar::Duration freq = calendar::parse_duration(info.output_freq);
    const std::int64_t anchor = calendar_->add(t0, freq * -1, timestep_us_);
    // Month ends are clamped (Mar 31 - 1mo = Feb 28): check the way back.
    return calendar_->add(anchor, freq, timestep_us_) == t0 ? anchor : kNoAnchor;
  } catch (const std::exception&) { return kNoAnchor; }
}

void StepDriver::align_appended_files() {
  std::vector<std::int64_t> anchors(files_.size(), kNoAnchor);
  bool any = false;
  for (std::size_t f = 0; f < files_.size(); ++f) any |= plan_.files[f].append && plan_.files[f].split_freq.empty();
  if (!any) return;
  if (rank_ == 0)
    for (std::size_t f = 0; f < files_.size(); ++f) {
      const output::FileInfo& info = plan_.files[f];
      if (!info.append || !info.split_freq.empty()) continue;
      anchors[f] = appended_anchor(static_cast<int>(f));
      // No record yet (the run before ended inside the first window), or
      // a GRIB2 file: the calendar's time_origin, which an appending run keeps.
      if (anchors[f] == kNoAnchor && origin_ < segment_start_) anchors[f] = origin_;
    }
  MPI_Bcast(anchors.data(), static_cast<int>(anchors.size()), MPI_INT64_T, 0, comm_);
  collectively(comm_, [&] {
    for (std::size_t f = 0; f < files_.size(); ++f)
      if (anchors[f] != kNoAnchor && anchors[f] < segment_start_) align_file(static_cast<int>(f), anchors[f]);
  });
}

// File `f` and the sampling of its reductions count from `anchor`; its
// first record stands for the window that holds this run's start.
void StepDriver::align_file(int f, std::int64_t anchor) {
  FileSchedule& fs = files_[f];
  const calendar::Duration freq = calendar::parse_duration(plan_.files[f].output_freq);
  fs.sampler.schedule =
      std::make_unique<calendar::Schedule>(*calendar_, anchor, freq, calendar::Duration{}, timestep_us_);
  fs.sampler.next_k = fs.sampler.schedule->first_at_or_after(segment_start_ + 1);
  fs.record_start = fs.sampler.schedule->instant(fs.sampler.next_k - 1);
  std::string cut;  // the reductions whose first record misses the samples before this run
  for (const OutputVar& out : outputs_) {
    if (out.file != f) continue;
    filters::Node& node = graph_.node(out.node);
    if (!node.stage.reduces()) continue;
    if (const calendar::Schedule* s = node.sampler.schedule.get()) {
      node.sampler.schedule =
          std::make_unique<calendar::Schedule>(*calendar_, anchor, s->period(), s->offset(), timestep_us_);
      node.sampler.next_k = node.sampler.schedule->first_at_or_after(segment_start_ + 1);
    }
    const output::VariableInfo& v = plan_.variables[out.plan_index];
    cut += (cut.empty() ? "" : ", ") + v.name + " (" + std::string(filters::temporal_op_name(node.stage.op())) + ")";
  }
  if (rank_ != 0 || fs.record_start == segment_start_ || cut.empty()) return;
  std::cerr << "foehn: warning: context '" << id_ << "': file '" << plan_.files[f].id << "' (append) keeps the windows "
            << "of the unbroken run, every " << plan_.files[f].output_freq << " from " << date_text(*calendar_, anchor)
            << "; the window [" << date_text(*calendar_, fs.record_start) << ", "
            << date_text(*calendar_, fs.sampler.schedule->instant(fs.sampler.next_k))
            << ") began before this run's start " << date_text(*calendar_, segment_start_) << ", so its record of "
            << cut
            << " holds only this run's samples (set the context variable restart_dir to carry a window over: "
               "docs/restart.md)"
            << std::endl;
}

}  // namespace foehn::client
