#!/usr/bin/env bash
# build-with-pkg-config.sh PREFIX [OUTDIR]
#
# Builds example.c against the spherecollide installed under PREFIX using only
# pkg-config, twice: linked to the shared library, and linked to the static
# archive with `pkg-config --static` supplying what the archive needs. Runs
# both, and checks that the static one does not load libspherecollide.so.
set -euo pipefail

prefix=${1:?usage: build-with-pkg-config.sh PREFIX [OUTDIR]}
out=${2:-$(mktemp -d)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${CC:-cc}
mkdir -p "$out"

pc=$(find "$prefix" -name spherecollide.pc -print -quit)
if [ -z "$pc" ]; then
  echo "build-with-pkg-config: no spherecollide.pc under $prefix" >&2
  exit 1
fi
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
pkg-config --exists --print-errors spherecollide
libdir=$(pkg-config --variable=libdir spherecollide)
echo "pkg-config: spherecollide $(pkg-config --modversion spherecollide) from $pc"
echo "  cflags:      $(pkg-config --cflags spherecollide)"
echo "  libs:        $(pkg-config --libs spherecollide)"
echo "  static libs: $(pkg-config --static --libs spherecollide)"

# Shared: the run path points at the private prefix.
# shellcheck disable=SC2046  # pkg-config output is a list of words
"$cc" -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags spherecollide) \
  "$here/example.c" -o "$out/example-pkgconfig" \
  $(pkg-config --libs spherecollide) -Wl,-rpath,"$libdir"
"$out/example-pkgconfig"

# Static: the archive by path, then its private dependencies.
static_libs=$(pkg-config --static --libs spherecollide | sed -e 's/\(^\| \)-lspherecollide\( \|$\)/ /')
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags spherecollide) \
  "$here/example.c" -o "$out/example-pkgconfig-static" \
  "$libdir/libspherecollide.a" $static_libs
if readelf -d "$out/example-pkgconfig-static" | grep -q 'NEEDED.*libspherecollide'; then
  echo "build-with-pkg-config: the static build still needs libspherecollide.so" >&2
  exit 1
fi
"$out/example-pkgconfig-static"
# The simulation: its own .pc, which requires spherecollide's.
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags spherecollide_sim) \
  "$here/sim_example.c" -o "$out/sim-example-pkgconfig" \
  $(pkg-config --libs spherecollide_sim) -Wl,-rpath,"$libdir"
"$out/sim-example-pkgconfig"
echo "build-with-pkg-config: shared and static builds ran, and the simulation's"
