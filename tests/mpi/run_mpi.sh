#!/usr/bin/env bash
# Runs an MPMD job for a test: N model ranks of PROGRAM and M foehn-server
# ranks (M = 0: attached mode), inside a fresh output directory.
# usage: run_mpi.sh OUTDIR N M SERVER_EXE PROGRAM [ARGS...]
set -euo pipefail
outdir=$1 clients=$2 servers=$3 server_exe=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export HDF5_USE_FILE_LOCKING=FALSE
rm -rf "$outdir" && mkdir -p "$outdir" && cd "$outdir"
cmd=(mpiexec --oversubscribe -n "$clients" "$@")
[ "$servers" -gt 0 ] && cmd+=(: -n "$servers" "$server_exe")
exec timeout --signal=KILL 120 "${cmd[@]}"
