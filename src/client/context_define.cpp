// Definition phase of a client context: the API setters (domains of every
// kind: docs/grids.md), the plan builder's part (plan_builder.h), the
// exchange of the decomposition between the model ranks, and close of
// definition, which runs the phases in order and hands the result to the
// step driver (step_driver.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <optional>
#include <type_traits>

#include "calendar/date_expression.h"
#include "client/agree.h"
#include "client/context.h"
#include "client/definition_memory.h"
#include "client/domain_ownership.h"
#include "client/restart_state.h"
#include "client/errors.h"
#include "client/plan_builder.h"
#include "client/field_reader.h"
#include "client/step_driver.h"
#include "config/calendar_setup.h"
#include "grid/healpix.h"
#include "transport/event.h"

namespace foehn::client {

namespace {

// A domain made by zoom_domain or extract_domain, whose sizes and points XIOS
// recomputes from the source whatever the model said.
bool resets_model_description(const config::DomainDef& d) {
  for (const config::TransformationDef& t : d.transformations)
    if (t.kind == "zoom_domain" || t.kind == "extract_domain") return true;
  return false;
}

std::string location_prefix(const config::Location& where) { return where.file.empty() ? "" : where.str() + ": "; }

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else
    return MPI_INT64_T;
}

// Every rank's values, concatenated by rank, on model rank 0 (or on every
// rank); counts[r] is rank r's number of values and first[r] its offset.
template <class T>
std::vector<T> gather_values(MPI_Comm comm, int rank, bool to_all, const std::vector<T>& mine,
                             const std::vector<int>& counts, std::vector<int>& first) {
  first.assign(counts.size(), 0);
  std::partial_sum(counts.begin(), counts.end() - 1, first.begin() + 1);
  std::vector<T> all(to_all || rank == 0 ? static_cast<std::size_t>(first.back() + counts.back()) : 0);
  const int n = static_cast<int>(mine.size());
  if (to_all)
    MPI_Allgatherv(mine.data(), n, mpi_type<T>(), all.data(), counts.data(), first.data(), mpi_type<T>(), comm);
  else
    MPI_Gatherv(mine.data(), n, mpi_type<T>(), all.data(), counts.data(), first.data(), mpi_type<T>(), 0, comm);
  return all;
}

// What each rank says about its part of a domain, gathered on every rank.
enum Summary {
  kNiGlo,
  kNjGlo,
  kType,
  kNvertex,
  kOwned,
  kSent,
  kLon,
  kLat,
  kByIndex,
  kDense,
  kIb,
  kNi,
  kJb,
  kNj,
  kFields
};

std::int64_t type_code(const std::string& type) {
  const std::array<const char*, 5> types{"rectilinear", "curvilinear", "gaussian", "unstructured", "healpix"};
  for (std::size_t k = 0; k < types.size(); ++k)
    if (type == types[k]) return static_cast<std::int64_t>(k);
  return -1;
}

}  // namespace

Context::Context(const std::string& id, MPI_Comm comm, config::ContextDef def, transport::World& world,
                 std::uint32_t key, transport::ClientCounters& counters)
    : id_(id), comm_(comm), def_(std::move(def)), world_(&world), key_(key), counters_(&counters) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  settings_.calendar = def_.calendar;
}

Context::~Context() = default;

void Context::set_calendar(const char* type, const char* start, const char* origin, const char* timestep) {
  check_open("foehn_set_calendar");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_set_calendar: context '" + id_ + "' is already defined");
  if (type) calendar::parse_calendar_type(type), settings_.calendar.type = type;
  if (start) calendar::parse_date_expression(start), settings_.calendar.start_date = start;
  if (origin) calendar::parse_date_expression(origin), settings_.calendar.time_origin = origin;
  if (timestep) calendar::parse_duration(timestep), settings_.calendar.timestep = timestep;
  // Date expressions ("2000-01-01 + 1d") become plain dates as soon as the
  // calendar is known, so that reading the date back gives the date.
  if (!settings_.calendar.type.empty() &&
      (calendar::parse_calendar_type(settings_.calendar.type) != calendar::CalendarType::user_defined ||
       settings_.calendar.user))
    config::evaluate_date_expressions(settings_.calendar);
}

void Context::set_domain(const std::string& id, DomainSetting s) {
  check_open("foehn_set_domain_rectilinear");
  if (closed_definition_)
    fail(FOEHN_ERR_STATE, "foehn_set_domain_rectilinear: context '" + id_ + "' is already defined");
  const auto* d = def_.find_domain(id);
  if (!d) fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "' is not defined in context '" + id_ + "' of the XML");
  const auto& b = s.block;
  if (s.ni_glo <= 0 || s.nj_glo <= 0)
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': global size " + std::to_string(s.ni_glo) + " x " +
                                 std::to_string(s.nj_glo) + " must be positive");
  if (b.ibegin < 0 || b.ni < 0 || b.ibegin + b.ni > s.ni_glo || b.jbegin < 0 || b.nj < 0 || b.jbegin + b.nj > s.nj_glo)
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': local block i " + std::to_string(b.ibegin) + "+" +
                                 std::to_string(b.ni) + ", j " + std::to_string(b.jbegin) + "+" + std::to_string(b.nj) +
                                 " lies outside the global " + std::to_string(s.ni_glo) + " x " +
                                 std::to_string(s.nj_glo));
  if ((d->ni_glo && *d->ni_glo != s.ni_glo) || (d->nj_glo && *d->nj_glo != s.nj_glo))
    fail(FOEHN_ERR_ARGUMENT, location_prefix(d->where) + "domain '" + id + "': the XML says ni_glo/nj_glo " +
                                 std::to_string(d->ni_glo.value_or(0)) + "/" + std::to_string(d->nj_glo.value_or(0)) +
                                 ", the model gives " + std::to_string(s.ni_glo) + "/" + std::to_string(s.nj_glo));
  s.type = "rectilinear";
  s.layout.ni_glo = s.ni_glo;
  s.layout.nj_glo = s.nj_glo;
  s.layout.ibegin = b.ibegin, s.layout.ni = b.ni, s.layout.jbegin = b.jbegin, s.layout.nj = b.nj;
  s.has_block = true;
  settings_.domains[id] = std::move(s);
}

void Context::set_domain_type(const std::string& id, const char* type, std::int64_t ni_glo, std::int64_t nj_glo) {
  const char* call = "foehn_set_domain_type";
  check_open(call);
  if (closed_definition_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is already defined");
  const auto* d = def_.find_domain(id);
  if (!d) fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "' is not defined in context '" + id_ + "' of the XML");
  const std::string t = type ? type : "";
  if (!t.empty() && t != "rectilinear" && t != "curvilinear" && t != "gaussian" && t != "unstructured")
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': unknown type '" + t +
                                 "' (rectilinear, curvilinear, gaussian or unstructured; " +
                                 "healpix domains are described by foehn_set_domain_healpix)");
  // The XML's type when it gives one (the reader defaults it to rectilinear
  // otherwise, and then the model's type wins, as in XIOS).
  const bool xml_type = d->origins.count("type") > 0;
  if (!t.empty() && xml_type && t != d->type)
    fail(FOEHN_ERR_ARGUMENT, location_prefix(d->where) + "domain '" + id + "': the XML says type '" + d->type +
                                 "', the model gives '" + t + "'");
  const std::string effective = t.empty() ? (d->type.empty() ? "rectilinear" : d->type) : t;
  if (resets_model_description(*d)) {
    // XIOS's zoom and extract algorithms reset what the model set on their
    // result: the description goes to a scratch setting, with a warning.
    if (ignored_domains_.count(id) == 0 && rank_ == 0)
      std::cerr << "foehn: warning: " << location_prefix(d->where) << "domain '" << id
                << "' is made by <zoom_domain>/<extract_domain>: what the model sets on it is ignored (as XIOS "
                   "ignores it)\n";
    DomainSetting& s = ignored_domains_[id];
    s = DomainSetting{};
    s.type = effective;
    s.ni_glo = s.layout.ni_glo = ni_glo;
    s.nj_glo = s.layout.nj_glo = (effective == "gaussian" || effective == "unstructured") ? 1 : nj_glo;
    return;
  }
  if (!xml_type)  // the definition takes the model's type, as if the XML had said it
    for (auto& domain : def_.domains)
      if (domain.id == id) domain.type = effective;
  const bool one_d = effective == "gaussian" || effective == "unstructured";
  if (one_d && nj_glo == 0) nj_glo = 1;
  if (ni_glo <= 0 || nj_glo <= 0 || (one_d && nj_glo != 1))
    fail(FOEHN_ERR_ARGUMENT,
         "domain '" + id + "': global size " + std::to_string(ni_glo) + " x " + std::to_string(nj_glo) +
             (one_d ? " must be n x 1 (a " + effective + " domain is one-dimensional)" : " must be positive"));
  if ((d->ni_glo && *d->ni_glo != ni_glo) || (d->nj_glo && *d->nj_glo != nj_glo))
    fail(FOEHN_ERR_ARGUMENT, location_prefix(d->where) + "domain '" + id + "': the XML says ni_glo/nj_glo " +
                                 std::to_string(d->ni_glo.value_or(0)) + "/" + std::to_string(d->nj_glo.value_or(0)) +
                                 ", the model gives " + std::to_string(ni_glo) + "/" + std::to_string(nj_glo));
  if (!d->transformations.empty()) {
    // A domain a transformation makes (generate_rectilinear_domain,
    // interpolate_domain, ...): the model's sizes describe it as the XML
    // would; its points on each rank are the transformation's.
    for (auto& domain : def_.domains)
      if (domain.id == id) domain.ni_glo = ni_glo, domain.nj_glo = nj_glo;
    return;
  }
  DomainSetting s;
  s.type = effective;
  s.ni_glo = s.layout.ni_glo = ni_glo;
  s.nj_glo = s.layout.nj_glo = nj_glo;
  settings_.domains[id] = std::move(s);
}

DomainSetting& Context::domain_setting(const std::string& id, const char* call) {
  check_open(call);
  if (closed_definition_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is already defined");
  if (auto ignored = ignored_domains_.find(id); ignored != ignored_domains_.end()) return ignored->second;
  auto it = settings_.domains.find(id);
  if (const auto* d = def_.find_domain(id); it == settings_.domains.end() && d && !d->transformations.empty())
    fail(FOEHN_ERR_ARGUMENT, location_prefix(d->where) + std::string(call) + ": domain '" + id +
                                 "' is made by a transformation; the model may give its type and global size only");
  if (it == settings_.domains.end())
    fail(FOEHN_ERR_STATE, std::string(call) + ": domain '" + id + "': call foehn_set_domain_type first");
  return it->second;
}

void Context::set_domain_block(const std::string& id, std::int64_t ibegin, std::int64_t ni, std::int64_t jbegin,
                               std::int64_t nj) {
  DomainSetting& s = domain_setting(id, "foehn_set_domain_block");
  if (s.type == "gaussian" || s.type == "unstructured") jbegin = 0, nj = 1;  // one-dimensional
  if (ibegin < 0 || ni < 0 || ibegin + ni > s.ni_glo || jbegin < 0 || nj < 0 || jbegin + nj > s.nj_glo)
    fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "': local block i " + std::to_string(ibegin) + "+" + std::to_string(ni) +
                                 ", j " + std::to_string(jbegin) + "+" + std::to_string(nj) +
                                 " lies outside the global " + std::to_string(s.ni_glo) + " x " +
                                 std::to_string(s.nj_glo));
  s.block = {ibegin, ni, jbegin, nj};
  s.layout.ibegin = ibegin, s.layout.ni = ni, s.layout.jbegin = jbegin, s.layout.nj = nj;
  s.layout.by_index = false;
  s.has_block = true, s.has_index = false;
}

void Context::set_domain_index(const std::string& id, std::vector<std::int64_t> i_index,
                               std::vector<std::int64_t> j_index) {
  DomainSetting& s = domain_setting(id, "foehn_set_domain_index");
  s.layout.by_index = true;
  s.layout.i_index = std::move(i_index);
  s.layout.j_index = std::move(j_index);
  s.has_index = true, s.has_block = false;
  try {
    grid::owned_points(s.layout);
  } catch (const std::invalid_argument& e) {
    s.has_index = false;
    fail(FOEHN_ERR_ARGUMENT, "foehn_set_domain_index: domain '" + id + "': " + e.what());
  }
}

void Context::set_domain_data(const std::string& id, int data_dim, std::int64_t data_ibegin, std::int64_t data_ni,
                              std::int64_t data_jbegin, std::int64_t data_nj) {
  DomainSetting& s = domain_setting(id, "foehn_set_domain_data");
  if (data_dim != 1 && data_dim != 2)
    fail(FOEHN_ERR_ARGUMENT,
         "foehn_set_domain_data: domain '" + id + "': data_dim must be 1 or 2, not " + std::to_string(data_dim));
  if (data_ni < 0 || (data_dim == 2 && data_nj < 0))
    fail(FOEHN_ERR_ARGUMENT, "foehn_set_domain_data: domain '" + id + "': data_ni and data_nj must not be negative");
  auto& l = s.layout;
  l.data_dim = data_dim;
  l.data_ibegin = data_ibegin, l.data_ni = data_ni;
  l.data_jbegin = data_dim == 2 ? data_jbegin : 0, l.data_nj = data_dim == 2 ? data_nj : 1;
  l.compressed = false;
}

void Context::set_domain_data_index(const std::string& id, std::vector<std::int64_t> data_i_index,
                                    std::vector<std::int64_t> data_j_index) {
  DomainSetting& s = domain_setting(id, "foehn_set_domain_data_index");
  auto& l = s.layout;
  l.data_dim = data_j_index.empty() ? 1 : 2;
  l.compressed = true;
  l.data_i_index = std::move(data_i_index);
  l.data_j_index = std::move(data_j_index);
}

void Context::set_domain_coordinates(const std::string& id, std::vector<double> lon, std::vector<double> lat,
                                     int nvertex, std::vector<double> bounds_lon, std::vector<double> bounds_lat) {
  DomainSetting& s = domain_setting(id, "foehn_set_domain_coordinates");
  if (nvertex < 0 ||
      (nvertex > 0 && (bounds_lon.size() != lon.size() * nvertex || bounds_lat.size() != lat.size() * nvertex)))
    fail(FOEHN_ERR_ARGUMENT, "foehn_set_domain_coordinates: domain '" + id + "': the bounds need nvertex (" +
                                 std::to_string(nvertex) + ") values per longitude and latitude");
  s.lon = std::move(lon);
  s.lat = std::move(lat);
  s.nvertex = nvertex;
  s.bounds_lon = std::move(bounds_lon);
  s.bounds_lat = std::move(bounds_lat);
}

void Context::set_domain_mask(const std::string& id, std::vector<std::uint8_t> mask) {
  domain_setting(id, "foehn_set_domain_mask").layout.mask = std::move(mask);
}

void Context::set_mask(const std::string& kind, const std::string& id, std::vector<std::uint8_t> mask) {
  if (kind == "domain") return set_domain_mask(id, std::move(mask));
  const std::string call = "foehn_set_mask: " + kind + " '" + id + "'";
  check_open(call.c_str());
  if (closed_definition_) fail(FOEHN_ERR_STATE, call + ": context '" + id_ + "' is already defined");
  if (kind == "grid") {
    if (!def_.find_grid(id)) fail(FOEHN_ERR_ARGUMENT, call + ": no such grid in context '" + id_ + "' of the XML");
    settings_.grid_masks[id] = std::move(mask);  // its size is checked against the grid at close of definition
  } else if (kind == "scalar") {
    if (!def_.find_scalar(id)) fail(FOEHN_ERR_ARGUMENT, call + ": no such scalar in context '" + id_ + "' of the XML");
    if (mask.size() != 1)
      fail(FOEHN_ERR_ARGUMENT, call + ": a scalar's mask is one flag, given " + std::to_string(mask.size()));
    if (mask[0])
      settings_.masked_scalars.erase(id);
    else
      settings_.masked_scalars.insert(id);
  } else {
    fail(FOEHN_ERR_ARGUMENT, "foehn_set_mask: kind '" + kind + "' is not domain, grid or scalar");
  }
}

void Context::set_domain_healpix(const std::string& id, int level, const char* scheme,
                                 std::vector<std::int64_t> cells) {
  const std::string call = "foehn_set_domain_healpix";
  check_open(call.c_str());
  if (closed_definition_) fail(FOEHN_ERR_STATE, call + ": context '" + id_ + "' is already defined");
  const auto* d = def_.find_domain(id);
  if (!d) fail(FOEHN_ERR_ARGUMENT, "domain '" + id + "' is not defined in context '" + id_ + "' of the XML");
  const std::string at = location_prefix(d->where) + call + ": domain '" + id + "': ";
  if (d->origins.count("type") && d->type != "healpix")
    fail(FOEHN_ERR_ARGUMENT, at + "the XML says type '" + d->type + "', not 'healpix'");
  // The XML's level and scheme unless the model gives them; given by both, they must agree.
  if (level < 0) level = d->refinement_level.value_or(-1);
  if (level < 0 || level > grid::kHealpixMaxLevel)
    fail(FOEHN_ERR_ARGUMENT, at + "refinement_level " + std::to_string(level) + " is outside 0.." +
                                 std::to_string(grid::kHealpixMaxLevel) + " (give it here or in the XML)");
  if (d->refinement_level && *d->refinement_level != level)
    fail(FOEHN_ERR_ARGUMENT, at + "the XML says refinement_level " + std::to_string(*d->refinement_level) +
                                 ", the model gives " + std::to_string(level));
  const std::string s_scheme = scheme ? scheme : (d->indexing_scheme.empty() ? "nested" : d->indexing_scheme);
  if (s_scheme != "nested" && s_scheme != "ring")
    fail(FOEHN_ERR_ARGUMENT, at + "indexing_scheme '" + s_scheme + "' is not 'nested' or 'ring'");
  if (!d->indexing_scheme.empty() && d->indexing_scheme != s_scheme)
    fail(FOEHN_ERR_ARGUMENT,
         at + "the XML says indexing_scheme '" + d->indexing_scheme + "', the model gives '" + s_scheme + "'");
  const std::int64_t ncells = grid::healpix_cells(level);
  if (d->ni_glo && *d->ni_glo != ncells)
    fail(FOEHN_ERR_ARGUMENT, at + "the XML says ni_glo " + std::to_string(*d->ni_glo) + ", refinement_level " +
                                 std::to_string(level) + " has " + std::to_string(ncells) + " cells");
  if (!d->origins.count("type"))  // the definition takes the model's type, as foehn_set_domain_type does
    for (auto& domain : def_.domains)
      if (domain.id == id) domain.type = "healpix";
  DomainSetting s;
  s.type = "healpix";
  s.ni_glo = s.layout.ni_glo = ncells;
  s.nj_glo = s.layout.nj_glo = 1;
  s.healpix_level = level;
  s.healpix_nested = s_scheme == "nested";
  s.nvertex = 4;
  const std::size_t n = cells.size();
  s.lon.resize(n), s.lat.resize(n), s.bounds_lon.resize(4 * n), s.bounds_lat.resize(4 * n);
  for (std::size_t k = 0; k < n; ++k) {
    if (cells[k] < 0 || cells[k] >= ncells)
      fail(FOEHN_ERR_ARGUMENT, at + "cell " + std::to_string(cells[k]) + " is outside the " + std::to_string(ncells) +
                                   " cells of refinement_level " + std::to_string(level));
    // The rank's own cells' geometry, for transformations; the files get
    // every cell's, computed once on assembly.
    grid::healpix_cell(level, s.healpix_nested, cells[k], s.lon[k], s.lat[k], &s.bounds_lon[4 * k],
                       &s.bounds_lat[4 * k]);
  }
  settings_.domains[id] = std::move(s);
  set_domain_index(id, std::move(cells), {});  // checks each cell is given once
}

AxisSetting& Context::axis_setting(const std::string& id, const char* call) {
  check_open(call);
  if (closed_definition_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is already defined");
  if (!def_.find_axis(id))
    fail(FOEHN_ERR_ARGUMENT, "axis '" + id + "' is not defined in context '" + id_ + "' of the XML");
  return settings_.axes[id];
}

void Context::set_axis(const std::string& id, std::vector<double> values, const char* units, const char* positive) {
  AxisSetting& s = axis_setting(id, "foehn_set_axis");
  const auto* a = def_.find_axis(id);
  // Without a decomposition the values are the whole axis: check them now.
  if (!s.decomposed && a->n_glo && *a->n_glo != static_cast<std::int64_t>(values.size()))
    fail(FOEHN_ERR_ARGUMENT, location_prefix(a->where) + "axis '" + id +
                                 "': the XML says n_glo=" + std::to_string(*a->n_glo) + ", the model gives " +
                                 std::to_string(values.size()) + " values");
  s.values = std::move(values);
  if (units) s.units = units;
  if (positive) s.positive = positive;
}

void Context::set_axis_part(const std::string& id, std::int64_t n_glo, std::vector<std::int64_t> index,
                            const char* call) {
  AxisSetting& s = axis_setting(id, call);
  const auto* a = def_.find_axis(id);
  const std::string what = std::string(call) + ": axis '" + id + "': ";
  if (n_glo <= 0) fail(FOEHN_ERR_ARGUMENT, what + "n_glo must be positive, not " + std::to_string(n_glo));
  if (a->n_glo && *a->n_glo != n_glo)
    fail(FOEHN_ERR_ARGUMENT, location_prefix(a->where) + what + "the XML says n_glo=" + std::to_string(*a->n_glo) +
                                 ", the model gives " + std::to_string(n_glo));
  std::vector<char> seen(static_cast<std::size_t>(n_glo), 0);
  for (const std::int64_t g : index) {
    if (g < 0 || g >= n_glo)
      fail(FOEHN_ERR_ARGUMENT,
           what + "index " + std::to_string(g) + " lies outside [0, " + std::to_string(n_glo) + ")");
    if (seen[static_cast<std::size_t>(g)]++)
      fail(FOEHN_ERR_ARGUMENT, what + "index " + std::to_string(g) + " is given twice");
  }
  s.n_glo = n_glo;
  // The whole axis in order is no decomposition.
  bool whole = static_cast<std::int64_t>(index.size()) == n_glo;
  for (std::size_t k = 0; whole && k < index.size(); ++k) whole = index[k] == static_cast<std::int64_t>(k);
  s.decomposed = !whole;
  s.index = whole ? std::vector<std::int64_t>{} : std::move(index);
}

void Context::set_axis_bounds(const std::string& id, std::vector<double> bounds) {
  axis_setting(id, "foehn_set_axis_bounds").bounds = std::move(bounds);
}

void Context::set_scalar(const std::string& id, double value, const char* units) {
  const char* call = "foehn_set_scalar";
  check_open(call);
  if (closed_definition_) fail(FOEHN_ERR_STATE, std::string(call) + ": context '" + id_ + "' is already defined");
  if (!def_.find_scalar(id))
    fail(FOEHN_ERR_ARGUMENT, "scalar '" + id + "' is not defined in context '" + id_ + "' of the XML");
  ScalarSetting& s = settings_.scalars[id];
  s.value = value;
  if (units) s.units = units;
}

void Context::exchange_domains() {
  // Collective and never throwing: a problem is kept in domain_error_ and
  // raised after the exchanges, on every rank at once. The servers need every
  // client's points and the coordinates (on model rank 0, which sends the
  // plan); attached writers need them on every rank. One owner per point is
  // checked first, without gathering (domain_ownership.h).
  const bool to_all = world_->attached();
  for (output::DomainInfo& info : built_.plan.domains) {
    DomainSetting& s = settings_.domains.at(info.id);
    std::vector<std::int64_t> sent;
    for (const std::int64_t g : s.data)
      if (g >= 0) sent.push_back(g);
    const bool dense = !s.layout.by_index && sent == s.owned;
    const grid::Extent ext = s.layout.by_index ? grid::extent_of(s.owned, info.ni_glo)
                                               : grid::Extent{s.block.ibegin, s.block.ni, s.block.jbegin, s.block.nj};
    const std::array<std::int64_t, kFields> mine{info.ni_glo,
                                                 info.nj_glo,
                                                 type_code(info.type),
                                                 s.nvertex,
                                                 static_cast<std::int64_t>(s.owned.size()),
                                                 static_cast<std::int64_t>(sent.size()),
                                                 static_cast<std::int64_t>(s.lon.size()),
                                                 static_cast<std::int64_t>(s.lat.size()),
                                                 s.layout.by_index,
                                                 dense,
                                                 ext.ibegin,
                                                 ext.ni,
                                                 ext.jbegin,
                                                 ext.nj};
    std::vector<std::int64_t> all(static_cast<std::size_t>(kFields) * size_);
    MPI_Allgather(mine.data(), kFields, MPI_INT64_T, all.data(), kFields, MPI_INT64_T, comm_);
    auto at = [&](int r, int field) { return all[static_cast<std::size_t>(r) * kFields + field]; };
    std::vector<int> owned_n(size_), sent_n(size_), lon_n(size_), lat_n(size_), blon_n(size_), blat_n(size_);
    info.clients.resize(size_);
    info.nvertex = 0;
    info.needs_fill = false;
    std::int64_t held = 0;  // a healpix domain may be regional: cells no rank holds are fill
    bool agree = true, holder_seen = false;
    for (int r = 0; r < size_; ++r) {
      info.clients[r] = {at(r, kIb), at(r, kNi), at(r, kJb), at(r, kNj)};
      owned_n[r] = at(r, kByIndex) ? static_cast<int>(at(r, kOwned)) : 0;
      sent_n[r] = at(r, kDense) ? 0 : static_cast<int>(at(r, kSent));
      lon_n[r] = static_cast<int>(at(r, kLon));
      lat_n[r] = static_cast<int>(at(r, kLat));
      blon_n[r] = static_cast<int>(at(r, kLon) * at(r, kNvertex));
      blat_n[r] = static_cast<int>(at(r, kLat) * at(r, kNvertex));
      info.needs_fill = info.needs_fill || at(r, kOwned) != at(r, kSent);  // masked or left out: the same in every mode
      held += at(r, kOwned);
      if (at(r, kNiGlo) != info.ni_glo || at(r, kNjGlo) != info.nj_glo || at(r, kType) != mine[kType]) {
        agree = false;
        domain_error_ = "domain '" + info.id + "': model ranks disagree: rank " + std::to_string(rank_) + " has a " +
                        info.type + " domain of " + std::to_string(info.ni_glo) + " x " + std::to_string(info.nj_glo) +
                        ", rank " + std::to_string(r) + " one of " + std::to_string(at(r, kNiGlo)) + " x " +
                        std::to_string(at(r, kNjGlo));
      }
      if (at(r, kOwned) > 0 && !holder_seen) {  // ranks without points may leave the bounds out
        info.nvertex = static_cast<std::int32_t>(at(r, kNvertex));
        holder_seen = true;
      } else if (at(r, kOwned) > 0 && at(r, kNvertex) != info.nvertex) {
        agree = false;
        domain_error_ = "domain '" + info.id + "': model ranks give bounds with different numbers of vertices (" +
                        std::to_string(info.nvertex) + " and " + std::to_string(at(r, kNvertex)) + ")";
      }
    }
    if (info.type == "healpix" && held < info.size()) info.needs_fill = true;
    // One owner per point, checked by blocks of global indices on every
    // rank: a bad decomposition is refused before anything is gathered.
    const int index = static_cast<int>(&info - built_.plan.domains.data());
    if (agree)
      if (std::string e = check_ownership(
              comm_,
              {info.id, info.ni_glo, info.size(), domain_points_shared(built_.plan, index), info.type == "healpix"},
              s.owned);
          !e.empty()) {
        domain_error_ = e;
        continue;
      }
    if (!agree) continue;
    // Each rank's part in turn, placed and released before the next: rank 0
    // (every rank, attached) holds the domain's coordinates once, never all
    // the parts beside them.
    const bool keep = to_all || rank_ == 0;
    std::optional<GatheredDomain> gathered;
    bool all_dense = true;
    for (int r = 0; r < size_; ++r) all_dense = all_dense && at(r, kDense);
    if (keep) gathered.emplace(built_.plan, index, static_cast<std::size_t>(size_), all_dense, to_all);
    const std::vector<std::int64_t> none;
    std::vector<std::int64_t> owned_r, sent_r;
    std::vector<double> lon_r, lat_r, blon_r, blat_r;
    for (int r = 0; r < size_; ++r) {
      const bool own = r == rank_;
      const std::vector<std::int64_t>& owned = own ? (s.layout.by_index ? s.owned : none) : owned_r;
      const std::vector<std::int64_t>& sent_of = own ? (dense ? none : sent) : sent_r;
      const std::vector<double>& lon = own ? s.lon : lon_r;
      const std::vector<double>& lat = own ? s.lat : lat_r;
      const std::vector<double>& blon = own ? s.bounds_lon : blon_r;
      const std::vector<double>& blat = own ? s.bounds_lat : blat_r;
      if (!own && keep) {
        owned_r.resize(static_cast<std::size_t>(owned_n[r])), sent_r.resize(static_cast<std::size_t>(sent_n[r]));
        lon_r.resize(static_cast<std::size_t>(lon_n[r])), lat_r.resize(static_cast<std::size_t>(lat_n[r]));
        blon_r.resize(static_cast<std::size_t>(blon_n[r])), blat_r.resize(static_cast<std::size_t>(blat_n[r]));
      }
      // Attached: rank r broadcasts its part; else rank r sends it to rank 0.
      auto move = [&](const auto& mine, auto& theirs, int n, int tag) {
        using T = typename std::decay_t<decltype(theirs)>::value_type;
        if (n == 0) return;
        if (to_all) {
          MPI_Bcast(own ? const_cast<T*>(mine.data()) : theirs.data(), n, mpi_type<T>(), r, comm_);
        } else if (r != 0 && own) {
          MPI_Send(mine.data(), n, mpi_type<T>(), 0, tag, comm_);
        } else if (r != 0 && rank_ == 0) {
          MPI_Recv(theirs.data(), n, mpi_type<T>(), r, tag, comm_, MPI_STATUS_IGNORE);
        }
      };
      move(owned, owned_r, owned_n[r], 1), move(sent_of, sent_r, sent_n[r], 2);
      move(lon, lon_r, lon_n[r], 3), move(lat, lat_r, lat_n[r], 4);
      move(blon, blon_r, blon_n[r], 5), move(blat, blat_r, blat_n[r], 6);
      if (keep) {
        output::ClientPart p;
        p.extent = info.clients[r];
        p.by_index = at(r, kByIndex), p.dense = at(r, kDense);
        p.owned = owned.data(), p.n_owned = owned_n[r];
        p.sent = sent_of.data(), p.n_sent = sent_n[r];
        p.lon = lon.data(), p.n_lon = lon_n[r];
        p.lat = lat.data(), p.n_lat = lat_n[r];
        p.bounds_lon = blon.data(), p.bounds_lat = blat.data();
        gathered->add(static_cast<std::size_t>(r), p);
      }
      // The model's coordinates are in the plan now (at O1280 with bounds a
      // rank's share is hundreds of MB): release them before the plan grows.
      if (own)
        for (auto* v : {&s.lon, &s.lat, &s.bounds_lon, &s.bounds_lat}) std::vector<double>().swap(*v);
    }
    if (gathered)
      if (std::string e = gathered->finish(); !e.empty()) domain_error_ = e;
  }
}

void Context::exchange_axes() {
  // Collective and never throwing, like exchange_domains. Axes every rank
  // holds whole keep the values plan_axis gave them; decomposed axes get
  // their parts, values and bounds from every rank.
  const bool to_all = world_->attached();
  enum { kN, kDecomposed, kLocal, kValues, kBounds, kAxisFields };
  std::string values_error;  // a value or bound no rank gives
  for (output::AxisInfo& info : built_.plan.axes) {
    const AxisSetting& s = settings_.axes[info.id];
    const std::array<std::int64_t, kAxisFields> mine{info.size(), s.decomposed, s.local,
                                                     static_cast<std::int64_t>(s.values.size()),
                                                     static_cast<std::int64_t>(s.bounds.size())};
    std::vector<std::int64_t> all(static_cast<std::size_t>(kAxisFields) * size_);
    MPI_Allgather(mine.data(), kAxisFields, MPI_INT64_T, all.data(), kAxisFields, MPI_INT64_T, comm_);
    auto at = [&](int r, int field) { return all[static_cast<std::size_t>(r) * kAxisFields + field]; };
    bool decomposed = false;
    for (int r = 0; r < size_; ++r) {
      decomposed = decomposed || at(r, kDecomposed);
      if (at(r, kN) != info.size() && domain_error_.empty())
        domain_error_ = "axis '" + info.id + "': model ranks disagree on its size: rank " + std::to_string(rank_) +
                        " says " + std::to_string(info.size()) + ", rank " + std::to_string(r) + " " +
                        std::to_string(at(r, kN));
    }
    if (!decomposed || !domain_error_.empty()) continue;
    std::vector<int> index_n(size_), values_n(size_), bounds_n(size_), index_at, values_at, bounds_at;
    for (int r = 0; r < size_; ++r) {
      index_n[r] = at(r, kDecomposed) ? static_cast<int>(at(r, kLocal)) : 0;
      values_n[r] = static_cast<int>(at(r, kValues));
      bounds_n[r] = static_cast<int>(at(r, kBounds));
    }
    const auto index_all = gather_values(comm_, rank_, to_all, s.index, index_n, index_at);
    const auto values_all = gather_values(comm_, rank_, to_all, s.values, values_n, values_at);
    const auto bounds_all = gather_values(comm_, rank_, to_all, s.bounds, bounds_n, bounds_at);
    if (!to_all && rank_ != 0) {
      info.parts.assign(static_cast<std::size_t>(size_), {});  // marks the axis decomposed on every rank
      continue;
    }
    // Each rank's part; the values and bounds of the ranks that give them.
    info.parts.assign(static_cast<std::size_t>(size_), {});
    std::vector<char> has_value(static_cast<std::size_t>(info.size()), 0), has_bounds = has_value;
    const bool from_model = std::any_of(values_n.begin(), values_n.end(), [](int n) { return n > 0; });
    const bool bounds_from_model = std::any_of(bounds_n.begin(), bounds_n.end(), [](int n) { return n > 0; });
    if (bounds_from_model) info.bounds.assign(static_cast<std::size_t>(2 * info.size()), 0.0);
    for (int r = 0; r < size_; ++r) {
      auto& part = info.parts[static_cast<std::size_t>(r)];
      if (at(r, kDecomposed))
        part.assign(index_all.begin() + index_at[r], index_all.begin() + index_at[r] + index_n[r]);
      else
        part.resize(static_cast<std::size_t>(info.size())), std::iota(part.begin(), part.end(), 0);
      for (std::size_t k = 0; k < part.size(); ++k) {
        const auto g = static_cast<std::size_t>(part[k]);
        if (values_n[r] > 0) info.values[g] = values_all[values_at[r] + k], has_value[g] = 1;
        if (bounds_n[r] > 0) {
          info.bounds[2 * g] = bounds_all[bounds_at[r] + 2 * k];
          info.bounds[2 * g + 1] = bounds_all[bounds_at[r] + 2 * k + 1];
          has_bounds[g] = 1;
        }
      }
    }
    auto hole = [&](const std::vector<char>& has) { return std::find(has.begin(), has.end(), 0) - has.begin(); };
    if (!values_error.empty()) continue;
    if (from_model && hole(has_value) < info.size())
      values_error = "axis '" + info.id + "': no model rank gives the value of index " +
                     std::to_string(hole(has_value)) + " (foehn_set_axis on the rank holding it)";
    else if (bounds_from_model && hole(has_bounds) < info.size())
      values_error = "axis '" + info.id + "': no model rank gives the bounds of index " +
                     std::to_string(hole(has_bounds)) + " (foehn_set_axis_bounds on the rank holding it)";
  }
  // Grids of decomposed axes: the ranks' parts must hold each value once
  // (said first: overlapping parts also leave values without a value).
  if (!domain_error_.empty() || (!to_all && rank_ != 0)) return;
  for (const output::VariableInfo& v : built_.plan.variables)
    if (!built_.plan.has_domain(v) && built_.plan.decomposed_axes(v))
      if (std::string e = output::check_axes_cover(built_.plan, v); !e.empty()) {
        domain_error_ = e;
        return;
      }
  domain_error_ = values_error;
}

void Context::resolve_definitions() {
  Placement where;
  where.context_id = id_;
  where.key = key_;
  where.attached = world_->attached();
  where.server_ranks = static_cast<int>(world_->server_ranks.size());
  where.comm = comm_;
  MPI_Group g1, g2;
  MPI_Comm_group(comm_, &g1);
  MPI_Comm_group(world_->comm, &g2);
  for (int c = 0; c < size_; ++c) {
    int world_rank = 0;
    MPI_Group_translate_ranks(g1, 1, &c, g2, &world_rank);
    where.client_ranks.push_back(world_rank);
  }
  MPI_Group_free(&g1);
  MPI_Group_free(&g2);
  // An exact restart: the schedules count from the first run's start, the
  // steps from this run's (the checkpoint's date).
  resume_ = {};
  config::evaluate_date_expressions(settings_.calendar);  // a type set after a date expression
  const std::string restart_dir = config::variable_string(def_, "restart_dir", "");
  const std::string segment_start = settings_.calendar.start_date;
  if (!restart_dir.empty() && !segment_start.empty()) {
    resume_ = find_resume_state(restart_dir, id_, calendar::parse_date(segment_start));
    if (resume_) {
      settings_.calendar.start_date = resume_->first_start;
      if (settings_.calendar.time_origin.empty()) settings_.calendar.time_origin = resume_->time_origin;
    }
  }
  built_ = PlanBuilder(def_, settings_, std::move(where)).build();
  if (resume_) {
    resume_start_ = built_.calendar->to_instant(calendar::parse_date(segment_start));
    settings_.calendar.start_date = segment_start;
  }
}

const output::ContextPlan* Context::plan() const { return driver_ ? &driver_->plan() : nullptr; }

void Context::close_definition(const std::vector<const Context*>& others) {
  check_open("foehn_close_definition");
  if (closed_definition_) fail(FOEHN_ERR_STATE, "foehn_close_definition: context '" + id_ + "' is already defined");
  // Before any per-point list exists: a definition the node cannot hold
  // is refused with both figures, the same message on every rank.
  if (std::string e = check_definition_memory(id_, settings_, world_->attached() || rank_ == 0, comm_); !e.empty())
    fail(FOEHN_ERR_ARGUMENT, e);
  // Every rank resolves the same XML; an error on one is an error on all.
  // Collective exchanges happen only between the agreements, so a rank that
  // failed never leaves the others waiting in a collective.
  collectively(comm_, [&] {
    check_grid_children();
    resolve_definitions();
  });
  // Grid and scalar masks may differ by rank (XIOS's generic_testcase masks
  // a scalar on some ranks only): a variable any rank masks has a fill value
  // on every rank, so that the files are defined alike.
  std::vector<std::uint8_t> fill(built_.plan.variables.size());
  for (std::size_t v = 0; v < fill.size(); ++v) fill[v] = built_.plan.variables[v].has_fill ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, fill.data(), static_cast<int>(fill.size()), MPI_UINT8_T, MPI_MAX, comm_);
  for (std::size_t v = 0; v < fill.size(); ++v) {
    output::VariableInfo& info = built_.plan.variables[v];
    if (!fill[v] || info.has_fill) continue;
    info.has_fill = true;
    info.fill_value = info.prec == 8 ? 9.9692099683868690e+36 : 9.96921e+36;
  }
  exchange_axes();  // first: whether the domains' points may be shared
  exchange_domains();
  collectively(comm_, [&] {
    if (!domain_error_.empty()) fail(FOEHN_ERR_ARGUMENT, domain_error_);
    for (const Context* other : others)
      if (const output::ContextPlan* theirs = other->plan())
        if (std::string clash = output::file_clash(built_.plan, *theirs); !clash.empty())
          fail(FOEHN_ERR_CONFIG, "foehn_close_definition: " + clash);
    std::vector<ReadField> reads = std::move(built_.reads);
    driver_ = std::make_unique<StepDriver>(id_, comm_, def_, *world_, key_, *counters_, std::move(built_));
    driver_->set_shared(shared_);
    driver_->prepare(settings_);
    reader_ = std::make_unique<FieldReader>(std::move(reads), driver_->plan(), settings_, driver_->calendar());
    driver_->keep_for_checkpoints(settings_);
  });
  // Before the files open: a refused state damages none.
  if (resume_)
    collectively(comm_, [&] { driver_->resume(settings_, resume_->path, resume_start_); });
  else
    driver_->align_appended_files();
  if (world_->attached()) {
    collectively(comm_, [&] { driver_->attach(); });
  } else {
    driver_->send_plan_and_wait();
    // The servers hold the coordinates and points now; per step the
    // clients need neither.
    for (output::DomainInfo& d : driver_->plan().domains) {
      for (auto* v : {&d.lon, &d.lat, &d.bounds_lon, &d.bounds_lat}) std::vector<double>().swap(*v);
      std::vector<output::ClientPoints>().swap(d.points);
    }
  }
  closed_definition_ = true;
}

}  // namespace foehn::client
