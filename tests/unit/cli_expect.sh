#!/usr/bin/env bash
# usage: cli_expect.sh STATUS REGEX COMMAND [ARGS...]
# Runs COMMAND and passes if it exits with STATUS and some line of its
# output (stdout and stderr together) matches the extended REGEX.
set -uo pipefail
want_status=$1 regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$want_status" ]; then
  echo "cli_expect: exit status $status, expected $want_status" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "cli_expect: no output line matches: $regex" >&2
  exit 1
fi
