#!/usr/bin/env bash
# Compiles XIOS's own test programs (src/test/*.f90) unchanged against
# foehn's installed `xios` module, then runs those that compile with XIOS's
# input files: 1 client attached, 1 client + 1 foehn-server, 2 clients +
# 2 foehn-servers. XIOS's files are read from a copy given on the command
# line and never copied into this repository.
#
# usage: tests/xios_suite/run_xios_programs.sh XIOS BUILD_DIR [WORK_DIR]
#   XIOS       a checkout of XIOS (with src/test/) or a bare git mirror of it
#              (then its HEAD is exported into WORK_DIR)
#   BUILD_DIR  a foehn build tree; it is installed into WORK_DIR/prefix
#   WORK_DIR   scratch directory outside the repository (default: mktemp -d)
# XIOS_PROGRAMS (space-separated names), when set, limits the runs to those.
# Prints one line per program and run; exits 0 (it reports, it does not judge).
set -uo pipefail
xios=${1:?usage: run_xios_programs.sh XIOS BUILD_DIR [WORK_DIR]}
build=$(cd "${2:?usage: run_xios_programs.sh XIOS BUILD_DIR [WORK_DIR]}" && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
case "$work/" in "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"/*)
  echo "run_xios_programs: WORK_DIR must be outside the repository" >&2; exit 2;; esac

if [ -d "$xios/src/test" ]; then
  src=$(cd "$xios" && pwd)
else
  src=$work/xios
  rm -rf "$src" && mkdir -p "$src"
  git --git-dir="$xios" archive HEAD src/test src/wait.f90 inputs generic_testcase | tar -x -C "$src"
fi

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig LD_LIBRARY_PATH=$work/prefix/lib:${LD_LIBRARY_PATH:-}
read -r -a flags <<<"$(pkg-config --cflags --libs foehn-fortran)"
# Programs that `use netcdf` need netcdf-fortran (when it is installed).
read -r -a netcdf <<<"$(pkg-config --cflags --libs netcdf-fortran 2>/dev/null)"
server=$work/prefix/bin/foehn-server
bin=$work/bin
rm -rf "$bin" && mkdir -p "$bin"
mpif90 -c "$src/src/wait.f90" -J "$bin" -o "$bin/wait.o" >"$bin/wait.log" 2>&1

# The input directory of each program, as XIOS's test set-up pairs them.
inputs_of() {
  case $1 in
    test_complete | test_xios_interface) echo inputs/COMPLETE ;;
    test_basic_2D) echo inputs/Basic ;;
    test_remap) echo inputs/REMAP ;;
    test_unstruct_complete) echo inputs/Unstruct ;;
    test_ugrid) echo inputs/ugrid_test ;;
    test_regular) echo inputs/Regular_ugrid ;;
    test_second_server) echo inputs/Second_server ;;
    test_diurnal_cycle) echo inputs/test_diurnal_cycle ;;
    test_new_features) echo inputs/Version2 ;;
    generic_testcase) echo generic_testcase ;;
    *) echo inputs ;;
  esac
}

compiled=()
for f in "$src"/src/test/*.f90; do
  name=$(basename "$f" .f90)
  extra=()
  grep -qi '^ *use netcdf' "$f" && extra=("${netcdf[@]}")
  if mpif90 -ffree-line-length-none -I"$bin" -o "$bin/$name" "$f" "$bin/wait.o" "${flags[@]}" "${extra[@]}" \
    >"$bin/$name.log" 2>&1; then
    echo "compile $name: yes"
    compiled+=("$name")
  else
    echo "compile $name: no: $(grep -m1 -A1 'Error' "$bin/$name.log" | tr '\n' ' ' | cut -c1-200)"
  fi
done

for name in "${compiled[@]}"; do
  # XIOS_PROGRAMS="test_client test_basic_2D" runs only those (all compile).
  [ -n "${XIOS_PROGRAMS:-}" ] && [[ " $XIOS_PROGRAMS " != *" $name "* ]] && continue
  for layout in "1 0" "1 1" "2 2"; do
    read -r clients servers <<<"$layout"
    dir=$work/run/$name/c${clients}_s${servers}
    rm -rf "$dir" && mkdir -p "$dir" && cp -r "$src/$(inputs_of "$name")"/. "$dir/"
    cmd=(mpiexec --oversubscribe -n "$clients" "$bin/$name")
    [ "$servers" -gt 0 ] && cmd+=(: -n "$servers" "$server")
    if (cd "$dir" && timeout --signal=KILL 120 "${cmd[@]}" >run.log 2>&1); then
      echo "run $name c${clients}+s${servers}: completed; files: $(cd "$dir" && ls ./*.nc 2>/dev/null | wc -l)"
    else
      echo "run $name c${clients}+s${servers}: failed: $(grep -m1 -E 'xios:|foehn:|Error|error' "$dir/run.log" | cut -c1-240)"
    fi
  done
done
