// Entry points for callers that hold communicators as Fortran integers: the
// Fortran module `foehn` and the Python package (mpi4py's py2f/f2py). They
// convert with MPI_Comm_f2c / MPI_Comm_c2f and call the C API, so every check
// and message stays in api.cpp.
#include "foehn/foehn.h"

extern "C" {

int foehn_init_f(const char* code_id, const char* config_path, MPI_Fint world, MPI_Fint* model_comm) {
  MPI_Comm comm = MPI_COMM_NULL;
  const int status = foehn_init(code_id, config_path, MPI_Comm_f2c(world), model_comm ? &comm : nullptr);
  if (model_comm) *model_comm = MPI_Comm_c2f(comm);
  return status;
}

int foehn_context_open_f(const char* context_id, MPI_Fint comm, foehn_context* ctx) {
  return foehn_context_open(context_id, MPI_Comm_f2c(comm), ctx);
}

int foehn_serve_f(MPI_Fint world) { return foehn_serve(MPI_Comm_f2c(world)); }

}  // extern "C"
