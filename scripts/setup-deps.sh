#!/usr/bin/env bash
# setup-deps.sh: installs, with apt-get, what building and testing spherecollide
# needs and this machine lacks (Debian 12 or a close relative).
#
# Quiet and quick when everything is there; otherwise it runs `apt-get update`
# once and installs only the missing packages, non-interactively. Works as root,
# or through sudo when that is available. On a system without dpkg it checks
# nothing and says so (install the equivalents by hand).
set -euo pipefail

packages=(
  build-essential   # gcc, make, libc headers, binutils (nm, readelf), libgomp, ASan/UBSan runtimes
  cmake
  pkg-config
  libsimde-dev      # the AVX2 kernel is written with SIMDe
  libhwloc-dev      # thread pinning
  clang             # the libFuzzer harnesses (scripts/fuzz.sh) and the ThreadSanitizer build
  libclang-rt-dev   # clang's sanitizer and libFuzzer runtimes
  libomp-dev        # clang's OpenMP runtime, with the Archer tool that lets TSan see OpenMP
  clang-format      # the C files' format (.clang-format), checked by scripts/test.sh
  libcairo2-dev     # spherecollide simulate --frames: drawing and PNG
  libgif-dev        # spherecollide simulate --animate: the animated GIF
  libfast-float-dev # the text reader's decimal parser (C++ header, one file)
  libhdf5-dev       # HDF5 input (optional: the build reads no HDF5 without it)
  zlib1g-dev        # gzip-compressed inputs (optional: the build reads none without it)
  python3-dev       # the Python module (python/): headers
  python3-numpy     # the Python module: the NumPy C API
  python3-pytest    # the Python module's tests
  python3-pip       # pip install . (setup.py drives CMake), tested in a venv:
  python3-setuptools
  python3-wheel
  python3-venv
  openmpi-bin       # libspherecollide_mpi (the pair search over MPI ranks): mpiexec
  libopenmpi-dev    #   and OpenMPI's C bindings, found by CMake's FindMPI
  python3-mpi4py    # spherecollide.mpi, the Python module over MPI (mpi4py's C API)
  mpich             # the MPI layer's second implementation, tested by scripts/test.sh
  libmpich-dev      #   (OpenMPI stays the default mpicc and mpiexec)
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup-deps: no dpkg here; make sure these (or their equivalents) are installed: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "setup-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup-deps: not root and no sudo; as root, run: apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-deps: done"
