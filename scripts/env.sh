# Sourced by the scripts: how MPI and HDF5 must run on these machines.
# Running as root needs Open MPI's consent; more ranks than cores need
# oversubscription, and idle ranks must yield the core to busy ones;
# HDF5 file locking fails on some file systems with a misleading error.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export HDF5_USE_FILE_LOCKING=FALSE
