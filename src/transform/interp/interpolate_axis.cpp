#include "transform/interp/interpolate_axis.h"

#include <cmath>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>

#include "transform/vertical/vertical_interpolation.h"

namespace foehn::transform::interp {

namespace {

[[noreturn]] void bad(const config::TransformationDef& t, const std::string& message) {
  throw config::ConfigError(t.where, "<" + t.kind + "> in <" + t.target + ">: " + message);
}

// The interpolator of one field: its columns are known once the stage
// knows the components before the axis (prepare), then fixed. With
// coordinate fields the stencils are rebuilt every step from that step's
// coordinates, in the kernel's own buffers (nothing allocated per step).
class AxisInterpolation final : public ColumnOperator {
 public:
  AxisInterpolation(std::vector<double> source_levels, std::vector<double> target_levels,
                    vertical::VerticalOptions options, bool source_field, bool target_field)
      : source_(std::move(source_levels)),
        target_(std::move(target_levels)),
        options_(options),
        source_field_(source_field),
        target_field_(target_field) {}

  void prepare(std::size_t columns) override {
    if (kernel_ && kernel_->columns() == static_cast<std::int64_t>(columns)) return;
    kernel_ = std::make_unique<vertical::VerticalInterpolator>(static_cast<std::int64_t>(columns),
                                                               static_cast<std::int64_t>(source_.size()),
                                                               static_cast<std::int64_t>(target_.size()), options_);
    in_size_ = source_.size() * columns;
    out_size_ = target_.size() * columns;
    axis_coordinate_.clear();
    if (source_field_) return;
    axis_coordinate_.resize(in_size_);  // the axis's values in every column
    for (std::size_t l = 0; l < source_.size(); ++l)
      std::fill_n(axis_coordinate_.begin() + static_cast<std::ptrdiff_t>(l * columns), columns, source_[l]);
    if (!target_field_) kernel_->set_coordinate(axis_coordinate_, target_);
  }

  void apply(const double* in, const double* source_coordinate, const double* target_coordinate,
             double* out) const override {
    if (source_field_ || target_field_) {
      if ((source_field_ && !source_coordinate) || (target_field_ && !target_coordinate))
        throw std::logic_error("interpolate_axis: applied without the values of its coordinate field");
      kernel_->set_coordinate(
          source_field_ ? std::span<const double>(source_coordinate, in_size_)
                        : std::span<const double>(axis_coordinate_),
          target_field_ ? std::span<const double>(target_coordinate, out_size_) : std::span<const double>(target_));
    }
    kernel_->apply(std::span<const double>(in, in_size_), std::span<double>(out, out_size_));
  }

 private:
  std::vector<double> source_, target_;
  vertical::VerticalOptions options_;
  bool source_field_, target_field_;
  std::unique_ptr<vertical::VerticalInterpolator> kernel_;
  std::vector<double> axis_coordinate_;
  std::size_t in_size_ = 0, out_size_ = 0;
};

}  // namespace

Step build_vertical(const config::TransformationDef& t, const config::AxisDef& target, const Component& source) {
  if (source.kind != Component::Kind::axis) bad(t, "its source at this position of the grid is not an axis");
  if (source.decomposed)
    bad(t,
        "the source axis is decomposed among the model ranks; vertical interpolation needs whole columns on "
        "each rank");
  std::vector<double> levels = vertical_target_levels(t, target, source);
  const std::string source_field = vertical_source_coordinate(t), target_field = vertical_target_coordinate(t);
  std::vector<double> source_levels(source.owned.size());  // in global order (a whole axis)
  for (std::size_t k = 0; k < source.owned.size(); ++k)
    source_levels[static_cast<std::size_t>(source.owned[k])] = source.lon[k];
  if (source_field.empty())
    for (double v : source_levels)
      if (std::isnan(v))
        bad(t,
            "the source axis has no values (give value= or foehn_set_axis): they are the coordinate (or name a "
            "coordinate field: coordinate=)");
  if (source.data_size() != source.owned.size())
    bad(t, "the source axis has masked or left-out levels; interpolate_axis needs every level");
  vertical::VerticalOptions options;
  const std::string* order = t.attr("order");
  options.order = order ? std::stoi(*order) : 1;
  const std::string* extrapolate = t.attr("extrapolate");
  options.extrapolate = extrapolate && *extrapolate == "true";
  const std::string* log = t.attr("log_coordinate");
  options.log_coordinate = log && *log == "true";
  Step s;
  Component& c = s.target;
  c.kind = Component::Kind::axis;
  c.ni_glo = static_cast<std::int64_t>(levels.size());
  c.decomposed = false;
  c.owned.resize(levels.size());
  std::iota(c.owned.begin(), c.owned.end(), 0);
  c.data_owner = c.owned;
  c.lon = levels;
  c.lat.assign(levels.size(), 0.0);
  try {
    s.map.columns = std::make_shared<AxisInterpolation>(source_levels, levels, options, !source_field.empty(),
                                                        !target_field.empty());
    vertical::VerticalInterpolator check(1, static_cast<std::int64_t>(source_levels.size()),
                                         static_cast<std::int64_t>(levels.size()), options);
    if (source_field.empty() && target_field.empty())
      check.set_coordinate(source_levels, levels);  // bad levels are the XML's error, at its line
  } catch (const vertical::VerticalError& e) { bad(t, e.what()); }
  s.map.op = Operation::columns;
  s.map.coordinate_source = source_field;
  s.map.coordinate_target = target_field;
  s.map.n_source = source.data_size();
  s.map.n_target = c.data_size();
  s.text = t.kind + " " + std::to_string(source.ni_glo) + " -> " + std::to_string(c.ni_glo) + " (order " +
           std::to_string(options.order) + (options.log_coordinate ? ", in ln" : "") + ")" +
           vertical_coordinate_text(t);
  return s;
}

}  // namespace foehn::transform::interp
