/* foehn: asynchronous MPI I/O server for weather and climate models.
 *
 * The one public header. Every call returns FOEHN_OK (0) or an error code;
 * foehn_last_error() gives the message of the last error on this rank.
 *
 * Typical use (see docs/api.md):
 *   foehn_init("atmosphere", "iodef.xml", MPI_COMM_WORLD, &model_comm);
 *   foehn_context_open("atm", model_comm, &ctx);
 *   foehn_set_calendar(ctx, "gregorian", "2000-01-01", NULL, "600s");
 *   foehn_set_domain_rectilinear(ctx, "grid_t", ...);  foehn_set_axis(ctx, "lev", ...);
 *   foehn_close_definition(ctx);
 *   for (step = 1; ...; ++step) { foehn_update_calendar(ctx, step); foehn_write_double(ctx, "t", t, n); }
 *   foehn_context_close(ctx);  foehn_finalize();
 *
 * Field data is laid out like a Fortran array of the grid's components:
 * for a grid (domain, axis) the local array is (ni, nj, nlev) with i fastest.
 */
#ifndef FOEHN_FOEHN_H
#define FOEHN_FOEHN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum foehn_status {
  FOEHN_OK = 0,
  FOEHN_ERR_ARGUMENT = 1, /* a bad argument: wrong size, unknown id, bad value */
  FOEHN_ERR_CONFIG = 2,   /* the XML configuration is wrong (message has file:line) */
  FOEHN_ERR_STATE = 3,    /* a call out of order (e.g. write before close_definition) */
  FOEHN_ERR_MPI = 4,      /* communication failed (e.g. a server died) */
  FOEHN_ERR_IO = 5,       /* writing a file failed */
  FOEHN_ERR_INTERNAL = 6
};

typedef struct foehn_context_impl* foehn_context;

/* Collective over `world`. Model ranks pass their code id; ranks running
 * foehn-server join the same call internally. Returns in *model_comm the
 * communicator of the ranks with the same code id (use it instead of world).
 * config_path is the XML file (e.g. "iodef.xml"). Without server ranks in
 * `world`, foehn runs attached: the model ranks write the files themselves. */
int foehn_init(const char* code_id, const char* config_path, MPI_Comm world, MPI_Comm* model_comm);
/* Ends foehn on this rank. Servers exit once every model rank has
 * finalized. Prints the performance report. A context still open is closed
 * first (collective, as in foehn_context_close) and the call then returns
 * FOEHN_ERR_STATE naming it. foehn_init cannot be called again afterwards. */
int foehn_finalize(void);
/* The message of the last error on this rank ("" if none). */
const char* foehn_last_error(void);
/* foehn's version, e.g. "0.1.0" (any time, also before foehn_init). */
const char* foehn_version(void);

/* Collective over comm (the model communicator). */
int foehn_context_open(const char* context_id, MPI_Comm comm, foehn_context* ctx);
/* Overrides the XML calendar; pass NULL to keep a value from the XML.
 * type: gregorian, noleap, 360_day, ... ; dates "2000-01-01 00:00:00";
 * timestep a duration such as "600s" or "1h". */
int foehn_set_calendar(foehn_context ctx, const char* type, const char* start_date, const char* time_origin,
                       const char* timestep);
/* A rectilinear lon/lat domain. This rank holds i in [ibegin, ibegin+ni) and
 * j in [jbegin, jbegin+nj) (0-based); lon has ni values, lat has nj values. */
int foehn_set_domain_rectilinear(foehn_context ctx, const char* domain_id, int ni_glo, int nj_glo, int ibegin, int ni,
                                 int jbegin, int nj, const double* lon, const double* lat);
/* A whole (undecomposed) axis, e.g. model levels. units and positive may be NULL. */
int foehn_set_axis(foehn_context ctx, const char* axis_id, int n, const double* values, const char* units,
                   const char* positive);
/* Collective: checks the definitions, computes decompositions, pack plans and
 * schedules, and creates the output files. */
int foehn_close_definition(foehn_context ctx);

/* Sets the model time to start_date + step * timestep. Steps increase. */
int foehn_update_calendar(foehn_context ctx, int step);
/* Dynamic time stepping (instead of foehn_update_calendar): the model time
 * in seconds since start_date; each call is a new step and times increase.
 * Averages then weigh each sample by the time it stands for. */
int foehn_set_model_time(foehn_context ctx, double seconds);
/* Collective over the context's model ranks: an exact restart's state after
 * the current step (call it once the step's fields are written) into the
 * directory named by the context variable restart_dir, as
 * <restart_dir>/<date>/<context>.nc. A run whose start date is that date and
 * with the same restart_dir continues every open window and file from it, on
 * any number of model ranks and servers (docs/restart.md). A context closing
 * inside a window checkpoints by itself when restart_dir is set. */
int foehn_checkpoint(foehn_context ctx);
/* Sets *active to 1 if the field is needed at the current step, else 0; for
 * a field of a file with mode="read": 1 when a record is read now. */
int foehn_field_is_active(foehn_context ctx, const char* field_id, int* active);
/* The same by a handle of foehn_field_handle (as the writes take them). */
int foehn_field_is_active_h(foehn_context ctx, int handle, int* active);
/* A precomputed handle for a field id (no string lookup in the write). */
int foehn_field_handle(foehn_context ctx, const char* field_id, int* handle);

/* Hands the local data of a field for the current step. n is the number of
 * values (it must equal the local size of the field's grid). Returns at once
 * when the field is not needed now. */
int foehn_write_float(foehn_context ctx, const char* field_id, const float* data, size_t n);
int foehn_write_double(foehn_context ctx, const char* field_id, const double* data, size_t n);
int foehn_write_float_h(foehn_context ctx, int handle, const float* data, size_t n);
int foehn_write_double_h(foehn_context ctx, int handle, const double* data, size_t n);

/* Fields of files with mode="read" (docs/api.md, "Reading files"): this
 * rank's part of the record read now, into data (n values, laid out as a
 * write of the field would take them; values outside the data's points,
 * halos and masked points, are left as they are). Record k is read at
 * start_date + freq_offset + k x the file's output_freq, the first at the
 * start date (before any foehn_update_calendar, or at step 0);
 * foehn_field_is_active says whether a record is read now. A missing
 * record or variable is FOEHN_ERR_IO naming the file, variable and record.
 * Each model rank reads its part from the file itself (not collective). */
int foehn_read_float(foehn_context ctx, const char* field_id, float* data, size_t n);
int foehn_read_double(foehn_context ctx, const char* field_id, double* data, size_t n);

/* Collective: flushes everything, closes the files (servers close theirs).
 * After this call `ctx` is closed for good, whatever the call returns: any
 * later call with it (a second close too) fails with FOEHN_ERR_STATE naming
 * the context (tests/mpi/misuse_model.cpp). */
int foehn_context_close(foehn_context ctx);

/* ---- Fortran-integer communicators ----------------------------------------
 * The same calls for callers that hold communicators as Fortran integers
 * (MPI_Fint): the Fortran module `foehn` and the Python package, which gets
 * them from mpi4py (comm.py2f() / MPI.Comm.f2py). Converted with
 * MPI_Comm_f2c / MPI_Comm_c2f; otherwise exactly foehn_init and
 * foehn_context_open. */
int foehn_init_f(const char* code_id, const char* config_path, MPI_Fint world, MPI_Fint* model_comm);
int foehn_context_open_f(const char* context_id, MPI_Fint comm, foehn_context* ctx);

/* ---- Domains of every kind (docs/grids.md) --------------------------------
 * Describe a domain with foehn_set_domain_type first, then, in any order
 * before foehn_close_definition: the local points (block or index list),
 * the coordinates, and optionally the data layout (halos, compressed data)
 * and a mask. Indices are 0-based. Every point of the domain must be held
 * by exactly one model rank; masked points (and points the data leave out)
 * are written as the fill value. */

/* type: "rectilinear", "curvilinear", "gaussian" (reduced Gaussian) or
 * "unstructured"; NULL keeps the XML's type. gaussian and unstructured
 * domains are one-dimensional: ni_glo points, nj_glo = 1 (0 is taken as 1).
 * Calling it again starts the description of the domain over. */
int foehn_set_domain_type(foehn_context ctx, const char* domain_id, const char* type, int ni_glo, int nj_glo);
/* The local points as a block: i in [ibegin, ibegin+ni), j in [jbegin,
 * jbegin+nj), i fastest (1-D domains: jbegin and nj are ignored). */
int foehn_set_domain_block(foehn_context ctx, const char* domain_id, int ibegin, int ni, int jbegin, int nj);
/* The local points as a list, in any order: point k is (i_index[k],
 * j_index[k]); j_index may be NULL for 1-D domains. */
int foehn_set_domain_index(foehn_context ctx, const char* domain_id, int n, const int* i_index, const int* j_index);
/* The data layout, when the data are not the local points in order.
 * data_dim 2 (block only): the data are a data_ni x data_nj array whose
 * element (a, b) is local point (a + data_ibegin, b + data_jbegin); elements
 * outside the block are halo, ignored. data_dim 1: a data_ni array whose
 * element a is the local point with flat index a + data_ibegin (i fastest);
 * data_jbegin and data_nj are ignored. */
int foehn_set_domain_data(foehn_context ctx, const char* domain_id, int data_dim, int data_ibegin, int data_ni,
                          int data_jbegin, int data_nj);
/* Compressed data: n values, value k being local point data_i_index[k]
 * (flat index) when data_j_index is NULL, else (data_i_index[k],
 * data_j_index[k]); offsets data_ibegin/data_jbegin from foehn_set_domain_data
 * apply. Local points no value refers to are written as the fill value. */
int foehn_set_domain_data_index(foehn_context ctx, const char* domain_id, int n, const int* data_i_index,
                                const int* data_j_index);
/* Coordinates in degrees. Rectilinear blocks: n_lon = ni longitudes and
 * n_lat = nj latitudes; otherwise one longitude and one latitude per local
 * point (n_lon = n_lat = number of local points). Bounds (may be NULL with
 * nvertex 0): nvertex corners per longitude and per latitude, in order
 * (rectilinear: nvertex 2; cells: counterclockwise). */
int foehn_set_domain_coordinates(foehn_context ctx, const char* domain_id, int n_lon, const double* lon, int n_lat,
                                 const double* lat, int nvertex, const double* bounds_lon, const double* bounds_lat);
/* One flag per local point (i fastest for blocks): 0 masks the point. */
int foehn_set_domain_mask(foehn_context ctx, const char* domain_id, int n, const int* mask);
/* A mask of a domain, grid or scalar (kind "domain", "grid", "scalar"), 0
 * masking a point: a domain's as foehn_set_domain_mask; a grid's one flag
 * per point of its local shape (a domain's local points, i fastest, then
 * each axis's local values; scalars count one), first component fastest
 * (XIOS's mask_1d..mask_7d flattened); a scalar's one flag (n = 1). Points
 * masked by a grid or scalar are written as the fill value (docs/grids.md). */
int foehn_set_mask(foehn_context ctx, const char* kind, const char* id, int n, const int* mask);
/* A HEALPix domain (docs/kmscale.md) in one call, instead of
 * foehn_set_domain_type and foehn_set_domain_index: this rank holds the n
 * cells `cells` (HEALPix indices in `indexing_scheme`, "nested" or "ring"),
 * its data being their values in that order. refinement_level < 0 and
 * indexing_scheme NULL take the XML's (refinement_level, indexing_scheme;
 * nested by default); given by both, they must agree. foehn computes the
 * cells' centres and corners; cells no rank holds (regional grids) are
 * written as the fill value. foehn_set_domain_data*, _mask may follow.
 * Tests: tests/python/test_healpix.py. */
int foehn_set_domain_healpix(foehn_context ctx, const char* domain_id, int refinement_level,
                             const char* indexing_scheme, int n, const int64_t* cells);

/* ---- Attributes, variables and dates at run time --------------------------
 * What the XIOS-style calls need (xios_is_defined_*_attr, xios_set_field_attr,
 * xios_getvar, date arithmetic); see docs/api.md. */

/* The resolved value of an attribute as text (after groups and references),
 * or *value = NULL when it is not defined (defaults are not listed). kind:
 * "field", "file", "domain", "axis", "grid", "scalar", "variable" (name,
 * type), or "calendar" (id
 * ignored; type, start_date, time_origin, timestep as the XML and
 * foehn_set_calendar left them). *value stays valid until the next call. */
int foehn_get_attribute(foehn_context ctx, const char* kind, const char* id, const char* name, const char** value);
/* Before foehn_close_definition: an attribute of a field (of field_definition
 * or of a file), a field_group, a file, a domain, axis, scalar or grid, as if
 * written in the XML. A field's value also reaches the fields that take it
 * by field_ref (unless they, or a group around them, set it); field_ref set
 * here gives the field every attribute of its target it does not set. A
 * field_group passes it to its fields that do not set it themselves.
 * Domain, axis, scalar and grid attributes set here are kept and read back
 * with no effect (what foehn acts on comes through foehn_set_domain_* and
 * foehn_set_axis*). */
int foehn_set_attribute(foehn_context ctx, const char* kind, const char* id, const char* name, const char* value);
/* *exists = 1 when the context has an element or group of `kind` ("field",
 * "file", "domain", "axis", "scalar", "grid", "variable", or one of these
 * with "_group"; a group kind knows its root, e.g. "field_definition"). */
int foehn_has_element(foehn_context ctx, const char* kind, const char* id, int* exists);
/* Before foehn_close_definition: a new child of kind child_kind under a
 * parent (fields in a field_group or a file, files in a file_group, groups
 * in groups of their kind), as if written in the XML. child_id may be NULL
 * or "": an id is made up. The child's id is written to id_out (size bytes). */
int foehn_add_child(foehn_context ctx, const char* parent_kind, const char* parent_id, const char* child_kind,
                    const char* child_id, char* id_out, size_t size);
/* The id of the index-th (0-based) domain, axis or scalar (`kind`) of a
 * field's grid (or of its domain_ref / axis_ref / scalar_ref), written to
 * id_out (size bytes); FOEHN_ERR_ARGUMENT when the field has no such one. */
int foehn_field_component(foehn_context ctx, const char* field_id, const char* kind, int index, char* id_out,
                          size_t size);
/* Runs this rank as a foehn server until the models finish (what
 * foehn-server does; XIOS's xios_init_server): collective over `world` with
 * the model ranks' foehn_init. FOEHN_ERR_MPI when the server failed. */
int foehn_serve(MPI_Comm world);
int foehn_serve_f(MPI_Fint world);
/* A fact about `date` ("YYYY-MM-DD hh:mm:ss") in the context's calendar:
 * what = "day_length", "year_length" (of the date's year), "second_of_year",
 * "day_of_year" (0 on January 1st at 00:00), "fraction_of_year",
 * "second_of_day", "fraction_of_day", "seconds_since_origin" (from
 * time_origin, else start_date); lengths in seconds. */
int foehn_calendar_query(foehn_context ctx, const char* what, const char* date, double* value);
/* The text of a <variable> of the context, or *value = NULL when absent. */
int foehn_get_variable(foehn_context ctx, const char* variable_id, const char** value);
/* After close of definition: *used = 1 if some enabled output (or an
 * expression) needs the field at some step, else 0 (XIOS's
 * xios_field_is_active without at_current_timestep). */
int foehn_field_is_used(foehn_context ctx, const char* field_id, int* used);
/* date + duration in a calendar, written to result ("YYYY-MM-DD hh:mm:ss").
 * timestep (may be NULL) is what "ts" in the duration stands for. */
int foehn_date_add(const char* calendar_type, const char* date, const char* duration, const char* timestep,
                   char* result, size_t size);
/* date + duration in the context's calendar, user_defined ones included (their
 * month lengths come from the context), "ts" standing for its timestep. */
int foehn_context_date_add(foehn_context ctx, const char* date, const char* duration, char* result, size_t size);

/* ---- Axes and scalars (docs/grids.md) -------------------------------------
 * An axis is whole on every rank unless a part is given. With a part,
 * foehn_set_axis gives the values of the part (n = its size) and may be
 * called before or after; ranks that give no values take them from the
 * XML (value=) or from the ranks holding them. Decomposed axes may form
 * grids of axes only; the ranks' parts must hold every value once. */

/* This rank's part of an axis of n_glo values: [begin, begin+n). */
int foehn_set_axis_decomposition(foehn_context ctx, const char* axis_id, int n_glo, int begin, int n);
/* This rank's part as n global indices (0-based), in the order of its data. */
int foehn_set_axis_index(foehn_context ctx, const char* axis_id, int n_glo, int n, const int* index);
/* Bounds of the n local values: 2n values, lower and upper of each. */
int foehn_set_axis_bounds(foehn_context ctx, const char* axis_id, int n, const double* bounds);
/* The value of a scalar (a 0-d coordinate such as a height of 2 m); units
 * may be NULL (then the XML's unit). Overrides the XML's value. */
int foehn_set_scalar(foehn_context ctx, const char* scalar_id, double value, const char* units);

#ifdef __cplusplus
}
#endif

#endif /* FOEHN_FOEHN_H */
