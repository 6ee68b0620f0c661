#!/usr/bin/env bash
# A model that writes a file in one job and reads it back in a second job
# with another number of ranks, in the same fresh directory: WRITERS ranks
# of `PROGRAM write`, then READERS ranks of `PROGRAM read [ARGS...]`, each
# beside SERVERS foehn-server ranks (0: attached).
# usage: run_write_read.sh OUTDIR WRITERS READERS SERVERS SERVER_EXE PROGRAM [ARGS...]
set -euo pipefail
outdir=$1 writers=$2 readers=$3 servers=$4 server_exe=$5 program=$6
shift 6
run=$(dirname "$0")/../run_mpi.sh
bash "$run" "$outdir" "$writers" "$servers" "$server_exe" "$program" write
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export HDF5_USE_FILE_LOCKING=FALSE
cd "$outdir"
cmd=(mpiexec --oversubscribe -n "$readers" "$program" read "$@")
[ "$servers" -gt 0 ] && cmd+=(: -n "$servers" "$server_exe")
exec timeout --signal=KILL 120 "${cmd[@]}"
