#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) and runs
# each for a bounded time, seeded with the test configurations. Fails on a
# crash, a sanitizer report, a leak or an input that hangs; the input is kept
# in build-fuzz/artifacts/.
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default: $FOEHN_FUZZ_SECONDS or 30)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
seconds=${1:-${FOEHN_FUZZ_SECONDS:-30}}
build=${FOEHN_FUZZ_BUILD:-$here/build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/bootstrap.sh installs it)" >&2; exit 1; }

mkdir -p "$build"
cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"

# Seed corpora: the configurations (named after their path, as names repeat
# across directories) and one file per line of the text seeds.
corpus=$build/corpus artifacts=$build/artifacts
rm -rf "$artifacts"
mkdir -p "$corpus/xml" "$corpus/duration" "$corpus/date" "$artifacts"
while IFS= read -r f; do
  cp "$f" "$corpus/xml/seed_$(echo "${f#tests/data/config/}" | tr / _)"
done < <(find tests/data/config -name '*.xml')
for kind in duration date; do
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" >"$corpus/$kind/seed_$n"
  done <"tests/fuzz/seeds_$kind.txt"
done

status=0
for kind in xml duration date; do
  dict=()
  [ "$kind" = xml ] && dict=(-dict=tests/fuzz/xml.dict)
  log=$build/fuzz_$kind.log
  echo "== fuzz_$kind for ${seconds} s"
  if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$build/fuzz_$kind" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/$kind-" "$corpus/$kind" >"$log" 2>&1; then
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$log" | tail -2 || true
  else
    status=1
    echo "fuzz_$kind FAILED; the last lines of $log:" >&2
    tail -40 "$log" >&2
    ls "$artifacts" >&2
  fi
done
[ "$status" -eq 0 ] && echo "fuzz: no crash in ${seconds} s per target"
exit "$status"
