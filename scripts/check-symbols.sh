#!/usr/bin/env bash
# shellcheck disable=SC2001  # sed indents multi-line lists most plainly
# check-symbols.sh [LIBRARY.so] [HEADER...]
#
# The shared library's exported (dynamic, defined) symbols must all start with
# sc_, every function the installed headers declare with SC_API must be among
# them, and every exported sc_ symbol must be declared in one of them (nothing
# internal leaks); every exported sc_ symbol carries a symbol version (the
# library's .map file, docs/api.md "ABI"). Defaults: build-release/libspherecollide.so and
# include/spherecollide.h (libspherecollide_sim.so goes with
# include/spherecollide_sim.h).
# Exit status 0 when all hold, 1 otherwise (2 on a usage error).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lib=${1:-$root/build-release/libspherecollide.so}
shift || true
headers=("$@")
[ ${#headers[@]} -gt 0 ] || headers=("$root/include/spherecollide.h")

for f in "$lib" "${headers[@]}"; do
  if [ ! -r "$f" ]; then
    echo "check-symbols: cannot read $f" >&2
    exit 2
  fi
done

# Symbols the linker itself may define in any shared object; not ours to name.
linker_defined='^(_init|_fini|_edata|_end|__bss_start)$'
# GCC emits `#pragma omp critical(NAME)` as a global lock symbol named
# .gomp_critical_user_NAME that every module of the process shares, hidden
# visibility or not. Accepted when NAME itself is in our namespace.
omp_critical='^\.gomp_critical_user_sc_'

exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sed 's/@.*//' | sort -u)
if [ -z "$exported" ]; then
  echo "check-symbols: $lib exports no symbols" >&2
  exit 1
fi
foreign=$(grep -Ev '^sc_' <<<"$exported" | grep -Ev "$linker_defined" | grep -Ev "$omp_critical" || true)

# Functions declared `SC_API <type> sc_name(` (the name may follow a line break).
declared=$(cat "${headers[@]}" | tr '\n' ' ' | grep -oE 'SC_API[^;{]*\(' |
           grep -oE '\bsc_[A-Za-z0-9_]+[[:space:]]*\($' | tr -d ' (' | sort -u || true)
missing=$(comm -23 <(echo "$declared") <(echo "$exported") | grep . || true)
undeclared=$(comm -13 <(echo "$declared") <(grep -E '^sc_' <<<"$exported") | grep . || true)

unversioned=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | grep -E '^sc_' |
              grep -v '@' || true)
versions=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | { grep -oE '@@?[A-Z0-9_.]+$' || true; } |
           tr -d '@' | sort -u | tr '\n' ' ')

n_exported=$(grep -c . <<<"$exported")
n_declared=$(grep -c . <<<"$declared" || true)
status=0
if [ -n "$foreign" ]; then
  echo "check-symbols: $lib exports symbols without the sc_ prefix:" >&2
  sed 's/^/  /' <<<"$foreign" >&2
  status=1
fi
if [ -n "$missing" ]; then
  echo "check-symbols: declared SC_API in the headers but not exported:" >&2
  sed 's/^/  /' <<<"$missing" >&2
  status=1
fi
if [ -n "$undeclared" ]; then
  echo "check-symbols: exported but declared in no installed header:" >&2
  sed 's/^/  /' <<<"$undeclared" >&2
  status=1
fi
if [ -n "$unversioned" ]; then
  echo "check-symbols: exported without a symbol version:" >&2
  sed 's/^/  /' <<<"$unversioned" >&2
  status=1
fi
if [ "$status" -eq 0 ]; then
  echo "check-symbols: ok, $n_exported exported symbols, all in the sc_ namespace, versioned ${versions% }; all $n_declared SC_API functions of ${#headers[@]} headers exported, none undeclared"
fi
exit "$status"
