// foehn._core: the C API for Python (pybind11). The pure-Python part
// (foehn/__init__.py) turns mpi4py communicators into Fortran integers and
// back, so this file needs no mpi4py headers. write() hands the numpy
// array's own memory to foehn: no copy, so it refuses what would need one.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "foehn/foehn.h"

// Not in foehn.h: for the bindings (src/client/api.cpp).
extern "C" int foehn_binding_field_shape(foehn_context ctx, const char* field_id, int handle, const char** shape);

namespace py = pybind11;

namespace {

PyObject* error_type = nullptr;  // foehn.Error; the module keeps it alive

// A failed C call, raised in Python as foehn.Error with .code = the status.
struct Failure {
  int status;
  std::string message;
};

void check(int status) {
  if (status != FOEHN_OK) throw Failure{status, foehn_last_error()};
}

const char* c_str_or_null(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Ints = py::array_t<int, py::array::c_style | py::array::forcecast>;
using Int64s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

// The C pointer of an optional array (NULL when absent), checked to have n values.
template <class A>
const typename A::value_type* optional_data(const std::optional<A>& a, py::ssize_t n, const std::string& what) {
  if (!a) return nullptr;
  if (a->size() != n)
    throw py::value_error(what + ": expected " + std::to_string(n) + " values, given " + std::to_string(a->size()));
  return a->data();
}

class Context {
 public:
  Context(const std::string& id, int comm_f) : id_(id) { check(foehn_context_open_f(id.c_str(), comm_f, &ctx_)); }

  void set_calendar(const std::optional<std::string>& type, const std::optional<std::string>& start_date,
                    const std::optional<std::string>& time_origin, const std::optional<std::string>& timestep) {
    check(foehn_set_calendar(open(), c_str_or_null(type), c_str_or_null(start_date), c_str_or_null(time_origin),
                             c_str_or_null(timestep)));
  }

  void set_domain_rectilinear(const std::string& id, int ni_glo, int nj_glo, int ibegin, int jbegin, Doubles lon,
                              Doubles lat) {
    // ni and nj are the arrays' lengths: a 2-D array here is a mistake (curvilinear: set_domain_coordinates).
    if (lon.ndim() != 1 || lat.ndim() != 1)
      throw py::value_error("set_domain_rectilinear of domain '" + id +
                            "': lon and lat must be 1-D (one value per "
                            "local column and row), given shapes " +
                            shape_of(lon) + " and " + shape_of(lat));
    check(foehn_set_domain_rectilinear(open(), id.c_str(), ni_glo, nj_glo, ibegin, static_cast<int>(lon.size()), jbegin,
                                       static_cast<int>(lat.size()), lon.data(), lat.data()));
  }

  void set_axis(const std::string& id, Doubles values, const std::optional<std::string>& units,
                const std::optional<std::string>& positive) {
    check(foehn_set_axis(open(), id.c_str(), static_cast<int>(values.size()), values.data(), c_str_or_null(units),
                         c_str_or_null(positive)));
  }

  // The domain calls (docs/grids.md); indices 0-based, counts from the arrays.
  void set_domain_type(const std::string& id, const std::optional<std::string>& type, int ni_glo, int nj_glo) {
    check(foehn_set_domain_type(open(), id.c_str(), c_str_or_null(type), ni_glo, nj_glo));
  }
  void set_domain_block(const std::string& id, int ibegin, int ni, int jbegin, int nj) {
    check(foehn_set_domain_block(open(), id.c_str(), ibegin, ni, jbegin, nj));
  }
  void set_domain_index(const std::string& id, Ints i_index, const std::optional<Ints>& j_index) {
    const int* j = optional_data(j_index, i_index.size(), "set_domain_index of domain '" + id + "': j_index");
    check(foehn_set_domain_index(open(), id.c_str(), static_cast<int>(i_index.size()), i_index.data(), j));
  }
  void set_domain_healpix(const std::string& id, int refinement_level, const std::optional<std::string>& scheme,
                          Int64s cells) {
    check(foehn_set_domain_healpix(open(), id.c_str(), refinement_level, c_str_or_null(scheme),
                                   static_cast<int>(cells.size()), cells.data()));
  }
  void set_domain_data(const std::string& id, int data_dim, int data_ibegin, int data_ni, int data_jbegin,
                       int data_nj) {
    check(foehn_set_domain_data(open(), id.c_str(), data_dim, data_ibegin, data_ni, data_jbegin, data_nj));
  }
  void set_domain_data_index(const std::string& id, Ints data_i_index, const std::optional<Ints>& data_j_index) {
    const int* j =
        optional_data(data_j_index, data_i_index.size(), "set_domain_data_index of domain '" + id + "': data_j_index");
    check(
        foehn_set_domain_data_index(open(), id.c_str(), static_cast<int>(data_i_index.size()), data_i_index.data(), j));
  }
  // bounds: arrays of shape (points, nvertex), corners fastest as in C.
  void set_domain_coordinates(const std::string& id, Doubles lon, Doubles lat, const std::optional<Doubles>& bounds_lon,
                              const std::optional<Doubles>& bounds_lat) {
    const std::string what = "set_domain_coordinates of domain '" + id + "': ";
    if (bounds_lon.has_value() != bounds_lat.has_value()) throw py::value_error(what + "give both bounds or neither");
    int nvertex = 0;
    if (bounds_lon) {
      if (bounds_lon->ndim() != 2) throw py::value_error(what + "bounds_lon must have shape (points, nvertex)");
      nvertex = static_cast<int>(bounds_lon->shape(1));
    }
    const double* blon = optional_data(bounds_lon, lon.size() * nvertex, what + "bounds_lon");
    const double* blat = optional_data(bounds_lat, lat.size() * nvertex, what + "bounds_lat");
    check(foehn_set_domain_coordinates(open(), id.c_str(), static_cast<int>(lon.size()), lon.data(),
                                       static_cast<int>(lat.size()), lat.data(), nvertex, blon, blat));
  }
  // One flag per local point; False (0) masks it.
  void set_domain_mask(const std::string& id, Ints mask) {
    check(foehn_set_domain_mask(open(), id.c_str(), static_cast<int>(mask.size()), mask.data()));
  }

  // Axis parts and scalars (docs/grids.md): indices 0-based, counts from the arrays.
  void set_axis_decomposition(const std::string& id, int n_glo, int begin, int n) {
    check(foehn_set_axis_decomposition(open(), id.c_str(), n_glo, begin, n));
  }
  void set_axis_index(const std::string& id, int n_glo, Ints index) {
    check(foehn_set_axis_index(open(), id.c_str(), n_glo, static_cast<int>(index.size()), index.data()));
  }
  // bounds: shape (n, 2), lower and upper of each local value (as in C).
  void set_axis_bounds(const std::string& id, Doubles bounds) {
    if (bounds.ndim() != 2 || bounds.shape(1) != 2) {
      std::string shape;
      for (py::ssize_t d = 0; d < bounds.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(bounds.shape(d));
      throw py::value_error("set_axis_bounds of axis '" + id + "': bounds must have shape (n, 2), given (" + shape +
                            ")");
    }
    check(foehn_set_axis_bounds(open(), id.c_str(), static_cast<int>(bounds.shape(0)), bounds.data()));
  }
  void set_scalar(const std::string& id, double value, const std::optional<std::string>& units) {
    check(foehn_set_scalar(open(), id.c_str(), value, c_str_or_null(units)));
  }

  // Attributes and variables at run time: None when not defined.
  std::optional<std::string> get_attribute(const std::string& kind, const std::string& id, const std::string& name) {
    const char* value = nullptr;
    check(foehn_get_attribute(open(), kind.c_str(), id.c_str(), name.c_str(), &value));
    return value ? std::optional<std::string>(value) : std::nullopt;
  }
  void set_attribute(const std::string& kind, const std::string& id, const std::string& name,
                     const std::string& value) {
    check(foehn_set_attribute(open(), kind.c_str(), id.c_str(), name.c_str(), value.c_str()));
  }
  std::optional<std::string> get_variable(const std::string& id) {
    const char* value = nullptr;
    check(foehn_get_variable(open(), id.c_str(), &value));
    return value ? std::optional<std::string>(value) : std::nullopt;
  }
  bool is_used(const std::string& field_id) {
    int used = 0;
    check(foehn_field_is_used(open(), field_id.c_str(), &used));
    return used != 0;
  }

  void close_definition() {
    py::gil_scoped_release unlocked;  // collective: other Python threads may run meanwhile
    check(foehn_close_definition(open()));
  }

  void update_calendar(int step) { check(foehn_update_calendar(open(), step)); }
  void set_model_time(double seconds) { check(foehn_set_model_time(open(), seconds)); }
  void checkpoint() { check(foehn_checkpoint(open())); }

  bool is_active(const std::string& field_id) {
    int active = 0;
    check(foehn_field_is_active(open(), field_id.c_str(), &active));
    return active != 0;
  }

  int field_handle(const std::string& field_id) {
    int handle = -1;
    check(foehn_field_handle(open(), field_id.c_str(), &handle));
    return handle;
  }

  // field: an id (str) or a handle (int); array: C-contiguous float32/float64.
  void write(const std::variant<int, std::string>& field, const py::object& array) {
    const bool f32 = py::isinstance<py::array_t<float>>(array), f64 = py::isinstance<py::array_t<double>>(array);
    if (!f32 && !f64) {
      const py::object got =
          py::isinstance<py::array>(array) ? array.attr("dtype") : py::type::of(array).attr("__name__");
      throw py::type_error("foehn write of field " + describe(field) +
                           ": expected a numpy array of float32 or float64, got " + py::str(got).cast<std::string>());
    }
    const auto a = array.cast<py::array>();
    if (!(a.flags() & py::array::c_style))
      throw py::type_error("foehn write of field " + describe(field) +
                           ": the array is not C-contiguous (foehn does not copy; pass numpy.ascontiguousarray(a))");
    foehn_context ctx = open();
    check_shape(ctx, field, a);
    const void* data = a.data();
    const size_t n = static_cast<size_t>(a.size());
    int status;
    {
      py::gil_scoped_release unlocked;  // `array` keeps the memory alive meanwhile
      if (const int* h = std::get_if<int>(&field))
        status = f32 ? foehn_write_float_h(ctx, *h, static_cast<const float*>(data), n)
                     : foehn_write_double_h(ctx, *h, static_cast<const double*>(data), n);
      else
        status =
            f32 ? foehn_write_float(ctx, std::get<std::string>(field).c_str(), static_cast<const float*>(data), n)
                : foehn_write_double(ctx, std::get<std::string>(field).c_str(), static_cast<const double*>(data), n);
    }
    check(status);
  }

  // A field of a file with mode="read": this rank's part of the record
  // read now, into `out` (a writable C-contiguous float32/float64 array of
  // the field's local size, laid out as a write takes it), which it returns.
  py::object read(const std::string& field_id, const py::object& out) {
    const bool f32 = py::isinstance<py::array_t<float>>(out), f64 = py::isinstance<py::array_t<double>>(out);
    if (!f32 && !f64) {
      const py::object got = py::isinstance<py::array>(out) ? out.attr("dtype") : py::type::of(out).attr("__name__");
      throw py::type_error("foehn read of field '" + field_id +
                           "': expected a numpy array of float32 or float64, got " + py::str(got).cast<std::string>());
    }
    auto a = out.cast<py::array>();
    if (!(a.flags() & py::array::c_style) || !a.writeable())
      throw py::type_error("foehn read of field '" + field_id +
                           "': the array must be C-contiguous and writable (it is filled in place)");
    foehn_context ctx = open();
    void* data = a.mutable_data();
    const size_t n = static_cast<size_t>(a.size());
    int status;
    {
      py::gil_scoped_release unlocked;  // `out` keeps the memory alive meanwhile
      status = f32 ? foehn_read_float(ctx, field_id.c_str(), static_cast<float*>(data), n)
                   : foehn_read_double(ctx, field_id.c_str(), static_cast<double*>(data), n);
    }
    check(status);
    return out;
  }

  // Collective; a second close does nothing.
  void close() {
    if (!ctx_) return;
    foehn_context ctx = ctx_;
    ctx_ = nullptr;  // the C call frees it, even when it fails
    int status;
    {
      py::gil_scoped_release unlocked;
      status = foehn_context_close(ctx);
    }
    check(status);
  }

  bool closed() const { return ctx_ == nullptr; }
  const std::string& id() const { return id_; }

 private:
  static std::string shape_of(const py::array& a) {
    std::string text = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) text += (d ? ", " : "") + std::to_string(a.shape(d));
    return text + (a.ndim() == 1 ? ",)" : ")");
  }

  // An array with dimensions must have the field's local shape (C order,
  // slowest first): one of the right size in another shape (transposed)
  // would be written scrambled. A flat array is taken as it is; dimensions
  // of length 1 do not count.
  static void check_shape(foehn_context ctx, const std::variant<int, std::string>& field, const py::array& a) {
    if (a.ndim() < 2) return;
    const std::string* id = std::get_if<std::string>(&field);
    const char* text = nullptr;
    if (foehn_binding_field_shape(ctx, id ? id->c_str() : nullptr, id ? -1 : std::get<int>(field), &text) != FOEHN_OK ||
        !text || !*text)
      return;                       // the write itself says what is wrong
    std::vector<py::ssize_t> want;  // "ni x nj x nlev", fastest first
    for (const char* p = text; *p;) {
      char* end = nullptr;
      want.insert(want.begin(), static_cast<py::ssize_t>(std::strtoll(p, &end, 10)));
      p = end;
      while (*p == ' ' || *p == 'x') ++p;
    }
    std::vector<py::ssize_t> given(a.shape(), a.shape() + a.ndim());
    std::erase(want, 1);
    std::erase(given, 1);
    if (given == want) return;
    std::string expected = "(";
    for (std::size_t d = 0; d < want.size(); ++d) expected += (d ? ", " : "") + std::to_string(want[d]);
    throw Failure{FOEHN_ERR_ARGUMENT, "foehn write of field " + describe(field) + ": an array of shape " + shape_of(a) +
                                          " for local data of shape " + expected + (want.size() == 1 ? ",)" : ")") +
                                          " (C order, slowest dimension first; transposed?)"};
  }

  static std::string describe(const std::variant<int, std::string>& field) {
    if (const int* h = std::get_if<int>(&field)) return "handle " + std::to_string(*h);
    return "'" + std::get<std::string>(field) + "'";
  }

  foehn_context open() const {
    if (!ctx_) throw Failure{FOEHN_ERR_STATE, "context '" + id_ + "' is closed"};
    return ctx_;
  }

  std::string id_;
  foehn_context ctx_ = nullptr;
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "foehn C API (use the package foehn, not this module)";
  error_type = PyErr_NewExceptionWithDoc("foehn.Error", "A foehn call failed; .code is the FOEHN_ERR_* status.",
                                         PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::handle(error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Failure& f) {
      py::object e = py::reinterpret_borrow<py::object>(error_type)(f.message);
      e.attr("code") = f.status;
      PyErr_SetObject(error_type, e.ptr());
    }
  });
  m.attr("OK") = int(FOEHN_OK);
  m.attr("ERR_ARGUMENT") = int(FOEHN_ERR_ARGUMENT);
  m.attr("ERR_CONFIG") = int(FOEHN_ERR_CONFIG);
  m.attr("ERR_STATE") = int(FOEHN_ERR_STATE);
  m.attr("ERR_MPI") = int(FOEHN_ERR_MPI);
  m.attr("ERR_IO") = int(FOEHN_ERR_IO);
  m.attr("ERR_INTERNAL") = int(FOEHN_ERR_INTERNAL);

  m.def(
      "init",
      [](const std::string& code_id, const std::string& config_path, int world_f) {
        int comm_f = 0;
        check(foehn_init_f(code_id.c_str(), config_path.c_str(), world_f, &comm_f));
        return comm_f;
      },
      py::arg("code_id"), py::arg("config_path"), py::arg("world_f"));
  m.def("finalize", [] { check(foehn_finalize()); });
  m.def("last_error", [] { return std::string(foehn_last_error()); });
  m.def("version", [] { return std::string(foehn_version()); });

  m.def(
      "date_add",
      [](const std::string& calendar_type, const std::string& date, const std::string& duration,
         const std::optional<std::string>& timestep) {
        char result[64];
        check(foehn_date_add(calendar_type.c_str(), date.c_str(), duration.c_str(), c_str_or_null(timestep), result,
                             sizeof result));
        return std::string(result);
      },
      py::arg("calendar_type"), py::arg("date"), py::arg("duration"), py::arg("timestep") = py::none());

  py::class_<Context>(m, "Context")
      .def(py::init<const std::string&, int>(), py::arg("context_id"), py::arg("comm_f"))
      .def("set_calendar", &Context::set_calendar, py::arg("type") = py::none(), py::arg("start_date") = py::none(),
           py::arg("time_origin") = py::none(), py::arg("timestep") = py::none())
      .def("set_domain_rectilinear", &Context::set_domain_rectilinear, py::arg("domain_id"), py::arg("ni_glo"),
           py::arg("nj_glo"), py::arg("ibegin"), py::arg("jbegin"), py::arg("lon"), py::arg("lat"))
      .def("set_axis", &Context::set_axis, py::arg("axis_id"), py::arg("values"), py::arg("units") = py::none(),
           py::arg("positive") = py::none())
      .def("set_domain_type", &Context::set_domain_type, py::arg("domain_id"), py::arg("type"), py::arg("ni_glo"),
           py::arg("nj_glo") = 1)
      .def("set_domain_block", &Context::set_domain_block, py::arg("domain_id"), py::arg("ibegin"), py::arg("ni"),
           py::arg("jbegin") = 0, py::arg("nj") = 1)
      .def("set_domain_index", &Context::set_domain_index, py::arg("domain_id"), py::arg("i_index"),
           py::arg("j_index") = py::none())
      .def("set_domain_data", &Context::set_domain_data, py::arg("domain_id"), py::arg("data_dim"),
           py::arg("data_ibegin"), py::arg("data_ni"), py::arg("data_jbegin") = 0, py::arg("data_nj") = 1)
      .def("set_domain_data_index", &Context::set_domain_data_index, py::arg("domain_id"), py::arg("data_i_index"),
           py::arg("data_j_index") = py::none())
      .def("set_domain_coordinates", &Context::set_domain_coordinates, py::arg("domain_id"), py::arg("lon"),
           py::arg("lat"), py::arg("bounds_lon") = py::none(), py::arg("bounds_lat") = py::none())
      .def("set_domain_mask", &Context::set_domain_mask, py::arg("domain_id"), py::arg("mask"))
      .def("set_domain_healpix", &Context::set_domain_healpix, py::arg("domain_id"), py::arg("refinement_level"),
           py::arg("indexing_scheme"), py::arg("cells"))
      .def("set_axis_decomposition", &Context::set_axis_decomposition, py::arg("axis_id"), py::arg("n_glo"),
           py::arg("begin"), py::arg("n"))
      .def("set_axis_index", &Context::set_axis_index, py::arg("axis_id"), py::arg("n_glo"), py::arg("index"))
      .def("set_axis_bounds", &Context::set_axis_bounds, py::arg("axis_id"), py::arg("bounds"))
      .def("set_scalar", &Context::set_scalar, py::arg("scalar_id"), py::arg("value"), py::arg("units") = py::none())
      .def("get_attribute", &Context::get_attribute, py::arg("kind"), py::arg("id"), py::arg("name"))
      .def("set_attribute", &Context::set_attribute, py::arg("kind"), py::arg("id"), py::arg("name"), py::arg("value"))
      .def("get_variable", &Context::get_variable, py::arg("variable_id"))
      .def("is_used", &Context::is_used, py::arg("field_id"))
      .def("close_definition", &Context::close_definition)
      .def("update_calendar", &Context::update_calendar, py::arg("step"))
      .def("set_model_time", &Context::set_model_time, py::arg("seconds"))
      .def("checkpoint", &Context::checkpoint)
      .def("is_active", &Context::is_active, py::arg("field_id"))
      .def("field_handle", &Context::field_handle, py::arg("field_id"))
      .def("write", &Context::write, py::arg("field"), py::arg("array"))
      .def("read", &Context::read, py::arg("field_id"), py::arg("out"))
      .def("close", &Context::close)
      .def_property_readonly("closed", &Context::closed)
      .def_property_readonly("id", &Context::id);
}
