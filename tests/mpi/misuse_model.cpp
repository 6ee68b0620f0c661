// Misuses of the C API must end in an error that names what happened, never
// in a crash or a hang, in attached and server mode (issue 18, items 2, 3, 5).
//
// usage: misuse_model <misuse.xml> after_close|reinit|finalize_open|skip_write|wrong_size|step0
//   after_close    any call with a closed context, and a second close: FOEHN_ERR_STATE naming the context
//   reinit         foehn_init after foehn_finalize: FOEHN_ERR_STATE, at once
//   finalize_open  foehn_finalize with the context open: FOEHN_ERR_STATE naming it, and the file holds
//                  every record written (foehn closed the context itself)
//   skip_write     rank 0 does not write ps at step 2 (item 1): the run ends, the record holds fill values
//                  where rank 0's part is, and every other value is exact
//   wrong_size     as skip_write, but rank 0 writes the wrong size at step 2, which is refused (FOEHN_ERR_ARGUMENT)
//   step0          every rank writes ps before the first update (step 0, the start date: a model's initial
//                  state), which succeeds and, as in XIOS, is not written (no output samples the start date);
//                  foehn_update_calendar(0) then does nothing; foehn_field_is_active_h agrees with
//                  foehn_field_is_active at every step, and refuses a handle that is no field's
// Three steps of ps (one record each) are written first. Exits 0 when every
// rank saw what it expected.
#include <netcdf.h>

#include <cstdio>
#include <string>
#include <vector>

#include "foehn/foehn.h"

namespace {
constexpr int kNi = 4, kNj = 2, kSteps = 3;
bool ok = true;

void expect(bool condition, const std::string& what) {
  if (condition) return;
  std::fprintf(stderr, "misuse_model: UNEXPECTED: %s (last error: %s)\n", what.c_str(), foehn_last_error());
  ok = false;
}

void expect_error(int status, int code, const std::string& call, const std::string& part) {
  const std::string message = foehn_last_error();
  std::printf("misuse_model: %s -> status %d, message: %s\n", call.c_str(), status, message.c_str());
  expect(status == code, call + " returns " + std::to_string(code));
  expect(message.find(part) != std::string::npos, call + "'s message names '" + part + "'");
}

double value(int step, int i, int j) { return 1000.0 * step + 10.0 * j + i; }

// The step at which rank 0 does not write in skip_write and wrong_size.
constexpr int kFaultStep = 2;

foehn_context open_and_write(MPI_Comm comm, const std::string& mode) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  foehn_context ctx = nullptr;
  expect(foehn_context_open("misuse", comm, &ctx) == FOEHN_OK, "context_open");
  const int j0 = rank * kNj / size, nj = (rank + 1) * kNj / size - j0;
  const double lon[kNi] = {0, 90, 180, 270}, lat[kNj] = {-45, 45};
  expect(foehn_set_domain_rectilinear(ctx, "dom", kNi, kNj, 0, kNi, j0, nj, lon, lat + j0) == FOEHN_OK, "domain");
  expect(foehn_close_definition(ctx) == FOEHN_OK, "close_definition");
  std::vector<double> ps(static_cast<size_t>(kNi * nj));
  int handle = -1, by_handle = -1, by_id = -1;
  expect(foehn_field_handle(ctx, "ps", &handle) == FOEHN_OK, "field_handle");
  if (mode == "step0") {
    for (int j = 0; j < nj; ++j)
      for (int i = 0; i < kNi; ++i) ps[static_cast<size_t>(j * kNi + i)] = value(0, i, j0 + j);
    expect(foehn_write_double(ctx, "ps", ps.data(), ps.size()) == FOEHN_OK, "write at step 0");
    expect(foehn_field_is_active_h(ctx, handle, &by_handle) == FOEHN_OK && by_handle == 0,
           "ps is not active at step 0 (by handle)");
    expect(foehn_update_calendar(ctx, 0) == FOEHN_OK, "update_calendar(0) after a write at step 0");
    expect_error(foehn_field_is_active_h(ctx, handle + 1000, &by_handle), FOEHN_ERR_ARGUMENT,
                 "is_active of a bad handle", "invalid field handle");
  }
  for (int step = 1; step <= kSteps; ++step) {
    expect(foehn_update_calendar(ctx, step) == FOEHN_OK, "update_calendar");
    expect(foehn_field_is_active_h(ctx, handle, &by_handle) == FOEHN_OK &&
               foehn_field_is_active(ctx, "ps", &by_id) == FOEHN_OK && by_handle == 1 && by_id == 1,
           "ps is active at step " + std::to_string(step) + " by handle and by id");
    for (int j = 0; j < nj; ++j)
      for (int i = 0; i < kNi; ++i) ps[static_cast<size_t>(j * kNi + i)] = value(step, i, j0 + j);
    if (rank == 0 && step == kFaultStep && mode == "skip_write") continue;
    if (rank == 0 && step == kFaultStep && mode == "wrong_size") {
      expect_error(foehn_write_double(ctx, "ps", ps.data(), ps.size() - 1), FOEHN_ERR_ARGUMENT, "write of a wrong size",
                   "'ps'");
      continue;
    }
    expect(foehn_write_double(ctx, "ps", ps.data(), ps.size()) == FOEHN_OK, "write");
  }
  return ctx;
}

// What the file holds at a point: the written value, or the fill value
// where rank 0 (rows [0, rows0)) skipped kFaultStep.
double expected(int step, int i, int j, int rows0, bool faulty) {
  return faulty && step == kFaultStep && j < rows0 ? NC_FILL_DOUBLE : value(step, i, j);
}

// Every record of misuse.nc, read back exactly (rows0: rank 0's rows, whose
// values at kFaultStep are fill values when faulty).
void check_file(int rows0 = 0, bool faulty = false) {
  int nc = 0, var = 0, dim = 0;
  size_t records = 0;
  if (nc_open("misuse.nc", NC_NOWRITE, &nc) != NC_NOERR) return expect(false, "misuse.nc opens");
  expect(nc_inq_dimid(nc, "time_counter", &dim) == NC_NOERR && nc_inq_dimlen(nc, dim, &records) == NC_NOERR,
         "misuse.nc has a time dimension");
  expect(records == kSteps, "misuse.nc holds " + std::to_string(kSteps) + " records, not " + std::to_string(records));
  std::vector<double> all(static_cast<size_t>(kSteps * kNj * kNi));
  expect(nc_inq_varid(nc, "ps", &var) == NC_NOERR && nc_get_var_double(nc, var, all.data()) == NC_NOERR,
         "ps reads back");
  for (int s = 0; s < kSteps && records == kSteps; ++s)
    for (int j = 0; j < kNj; ++j)
      for (int i = 0; i < kNi; ++i)
        expect(all[static_cast<size_t>((s * kNj + j) * kNi + i)] == expected(s + 1, i, j, rows0, faulty),
               "ps value at step " + std::to_string(s + 1) + ", point " + std::to_string(i) + "," + std::to_string(j));
  nc_close(nc);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 2 ? argv[2] : "";
  MPI_Comm comm = MPI_COMM_NULL;
  if (foehn_init("misuse", argc > 1 ? argv[1] : "", MPI_COMM_WORLD, &comm) != FOEHN_OK) {
    std::fprintf(stderr, "foehn_init failed: %s\n", foehn_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  foehn_context ctx = open_and_write(comm, mode);
  if (mode == "after_close") {
    expect(foehn_context_close(ctx) == FOEHN_OK, "the first close");
    const double ps[kNi * kNj] = {};
    expect_error(foehn_update_calendar(ctx, kSteps + 1), FOEHN_ERR_STATE, "update_calendar after close",
                 "context 'misuse' is closed");
    expect_error(foehn_write_double(ctx, "ps", ps, kNi), FOEHN_ERR_STATE, "write after close", "'misuse'");
    expect_error(foehn_context_close(ctx), FOEHN_ERR_STATE, "a second close", "context 'misuse' is closed");
    expect(foehn_finalize() == FOEHN_OK, "finalize");
    if (rank == 0) check_file();
  } else if (mode == "reinit") {
    expect(foehn_context_close(ctx) == FOEHN_OK, "close");
    expect(foehn_finalize() == FOEHN_OK, "finalize");
    MPI_Comm again = MPI_COMM_NULL;
    expect_error(foehn_init("misuse", argv[1], MPI_COMM_WORLD, &again), FOEHN_ERR_STATE, "init after finalize",
                 "foehn_finalize was called");
  } else if (mode == "finalize_open") {
    expect_error(foehn_finalize(), FOEHN_ERR_STATE, "finalize with an open context", "'misuse' were still open");
    expect_error(foehn_update_calendar(ctx, kSteps + 1), FOEHN_ERR_STATE, "update_calendar after finalize",
                 "is closed");
    if (rank == 0) check_file();
  } else if (mode == "step0") {
    expect(foehn_context_close(ctx) == FOEHN_OK, "close");
    expect(foehn_finalize() == FOEHN_OK, "finalize");
    if (rank == 0) check_file();  // records of steps 1 to kSteps only
  } else if (mode == "skip_write" || mode == "wrong_size") {
    expect(foehn_context_close(ctx) == FOEHN_OK, "close after a step without ps from rank 0");
    expect(foehn_finalize() == FOEHN_OK, "finalize");
    if (rank == 0) check_file(kNj / size, true);
  } else {
    expect(false, "a mode: after_close, reinit, finalize_open, skip_write, wrong_size or step0");
  }
  MPI_Comm_free(&comm);
  std::printf("misuse_model %s: %s\n", mode.c_str(), ok ? "as expected" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
