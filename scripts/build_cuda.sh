#!/usr/bin/env bash
# Builds tengen against upstream libtorch 2.x with CUDA, cuDNN and NCCL compiled in: fetches the
# pinned torch wheel from PyPI with pip (its libtorch: headers, shared libraries, CMake package),
# unpacks it into a cache directory outside the source tree, and builds with scripts/build.sh
# --torch into build/cuda-torch<VERSION>. What libtorch links to comes from this machine's CUDA
# toolkit (cudart, cuBLAS, cuFFT, cuSPARSE, NVRTC, cuDNN); the three libraries a CUDA toolkit
# does not ship (cuSPARSELt, NVSHMEM, cuFile) and the NCCL version libtorch needs come from
# their pinned NVIDIA wheels on PyPI, the same way. Nothing else is downloaded; the wheels are checked against their SHA-256
# and kept in the cache, so a second run needs no network.
#
#   scripts/build_cuda.sh [--torch-version V] [--test [ctest arguments...]]
#
#   --torch-version V  build against torch V's wheel instead of the pinned one (e.g. 2.11.0, to
#             match the PyTorch already installed on a GPU machine that has no compiler, so
#             that the build can use its libtorch): the NVIDIA wheels come at the versions that
#             torch V's metadata asks for; nothing is checked against pinned hashes (their
#             SHA-256 are printed), and the build goes to build/cuda-torchV
#   --test    then run every test against this build (scripts/test.sh --torch); tests that
#             need a GPU say so and are skipped on a machine without one
#
# Environment: TENGEN_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/tengen), CUDA_HOME (default
# /usr/local/cuda), PIP (default "python3 -m pip"), JOBS. docs/GPU.md says how to run the result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

# The pinned libtorch: torch 2.15.0 for CUDA 13 (the PyPI default build, cu132), and the wheels
# of the libraries it links that a CUDA toolkit lacks, plus NCCL 2.30: libtorch 2.15 calls
# functions that the NCCL 2.28 of the CUDA 13.0 toolkit does not have (ncclCommGrow, ...).
# name==version sha256 file.
torch_version=2.15.0
wheels=(
  "torch==$torch_version 48c2d861134c0b5697c7602cb5ffa68f62a2989fdcd1717e593356f67996ca1e torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl"
  "nvidia-cusparselt-cu13==0.8.1 786ce87568c303fadb5afcc7102d454cd3040d75f6f8626f5db460d1871f4dd0 nvidia_cusparselt_cu13-0.8.1-py3-none-manylinux2014_x86_64.whl"
  "nvidia-nvshmem-cu13==3.7.2 b9a4f843c62b5dded8ad33fd6d220e007dcd39f06cee549292f5ba14ce4c235c nvidia_nvshmem_cu13-3.7.2-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
  "nvidia-cufile==1.17.1.22 87feaf8c3ad20d3d03a01933181801ff6892bace5c8f0b1e4b48f319d3e62d36 nvidia_cufile-1.17.1.22-py3-none-manylinux_2_27_x86_64.whl"
  "nvidia-nccl-cu13==2.30.7 cefa7fdb9710efd0f39c5f1be1d61ff6fc9a996c451265bd7fbdcf9455ed4b50 nvidia_nccl_cu13-2.30.7-py3-none-manylinux_2_18_x86_64.whl"
)

run_tests=0
unpinned=0
if [[ ${1:-} == --torch-version ]]; then
  [[ -n ${2:-} ]] || { echo "build_cuda.sh: --torch-version needs a version, e.g. 2.11.0" >&2; exit 2; }
  [[ $2 == "$torch_version" ]] || unpinned=1
  torch_version=$2
  shift 2
fi
if [[ ${1:-} == --test ]]; then
  run_tests=1
  shift
fi
cache=${TENGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengen}
cuda=${CUDA_HOME:-/usr/local/cuda}
read -r -a pip <<< "${PIP:-python3 -m pip}"
prefix=$cache/libtorch-$torch_version-cu13
export BUILD_DIR=${BUILD_DIR:-$root/build/cuda-torch$torch_version}

fail() { echo "build_cuda.sh: $*" >&2; exit 1; }

# The CUDA toolkit this build links against: nvcc, and the libraries libtorch needs.
check_toolkit() {
  [[ -x $cuda/bin/nvcc ]] ||
    fail "no CUDA toolkit: $cuda/bin/nvcc is missing (install the CUDA 13 toolkit, or set CUDA_HOME)"
  local lib missing=()
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcufft.so.12 libcusparse.so.12 \
    libnvrtc.so.13 libcupti.so.13 libcudnn.so.9 libcusolver.so.12; do
    [[ -e $cuda/lib64/$lib || -e $cuda/lib/$lib ]] || ldconfig -p | grep -q "$lib " ||
      missing+=("$lib")
  done
  ((${#missing[@]} == 0)) ||
    fail "the CUDA toolkit in $cuda lacks ${missing[*]} (cuDNN 9 included), which libtorch $torch_version links to"
}

# Fetches the pinned wheels into $cache/wheels (pip, PyPI only), checked against their hashes.
fetch_wheels() {
  local entry spec sha file requirements=() needed=0
  mkdir -p "$cache/wheels"
  for entry in "${wheels[@]}"; do
    read -r spec sha file <<< "$entry"
    requirements+=("$spec --hash=sha256:$sha")
    [[ -f $cache/wheels/$file ]] || needed=1
  done
  ((needed)) || return 0
  "${pip[@]}" --version > /dev/null 2>&1 || fail "pip is missing (${pip[*]}): install python3-pip"
  echo "build_cuda.sh: fetching torch $torch_version and the NVIDIA wheels it needs from PyPI into $cache/wheels" >&2
  printf '%s\n' "${requirements[@]}" > "$cache/wheels/requirements.txt"
  "${pip[@]}" download --no-deps --require-hashes --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --platform manylinux_2_27_x86_64 --platform manylinux_2_18_x86_64 \
    --platform manylinux2014_x86_64 --python-version 3.11 \
    --implementation cp --abi cp311 --abi none -r "$cache/wheels/requirements.txt" \
    -d "$cache/wheels" ||
    fail "could not fetch the pinned wheels from PyPI (is the registry reachable? pip's message is above)"
}

# For --torch-version: fetches torch V and the NVIDIA wheels its metadata pins into
# $cache/wheels/V/, and lists them in `wheels` with the SHA-256 of what arrived.
fetch_unpinned_wheels() {
  local dir=$cache/wheels/$torch_version file deps spec
  local platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
    --platform manylinux_2_18_x86_64 --platform manylinux2014_x86_64)
  local pip_args=(download --no-deps --only-binary=:all: "${platforms[@]}" --python-version 3.11
    --implementation cp --abi cp311 --abi none -d "$dir")
  mkdir -p "$dir"
  "${pip[@]}" --version > /dev/null 2>&1 || fail "pip is missing (${pip[*]}): install python3-pip"
  if ! compgen -G "$dir/torch-$torch_version-*.whl" > /dev/null; then
    echo "build_cuda.sh: fetching torch $torch_version from PyPI into $dir" >&2
    "${pip[@]}" "${pip_args[@]}" "torch==$torch_version" ||
      fail "could not fetch torch==$torch_version from PyPI (pip's message is above)"
  fi
  file=$(compgen -G "$dir/torch-$torch_version-*.whl" | head -1)
  # The libraries libtorch links that a CUDA toolkit lacks, at the versions torch pins.
  deps=$(python3 - "$file" << 'PY'
import re, sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
for line in wheel.read(meta).decode().splitlines():
    m = re.match(r"Requires-Dist: (nvidia-(?:cusparselt|nvshmem|cufile|nccl)[a-z0-9-]*) ?==([0-9.]+)", line)
    if m:
        print(f"{m.group(1)}=={m.group(2)}")
PY
  ) || fail "cannot read the metadata of $file"
  [[ -n $deps ]] || fail "torch $torch_version's metadata names no NVIDIA CUDA 13 wheels (not a CUDA 13 build?)"
  # Some versions (2.15 among them) do not list cuFile, which libtorch_cuda still links: the
  # pinned one then.
  if [[ $deps != *nvidia-cufile* ]]; then
    for spec in "${wheels[@]}"; do
      if [[ $spec == nvidia-cufile==* ]]; then deps+=" ${spec%% *}"; fi
    done
  fi
  # shellcheck disable=SC2086
  "${pip[@]}" "${pip_args[@]}" $deps || fail "could not fetch $deps from PyPI (pip's message is above)"
  wheels=()
  for file in "$dir"/*.whl; do
    spec=$(basename "$file" | cut -d- -f1-2 | sed 's/-/==/; s/_/-/g')
    wheels+=("$spec $(sha256sum "$file" | cut -d' ' -f1) $torch_version/$(basename "$file")")
    echo "build_cuda.sh: $(basename "$file") sha256 ${wheels[-1]#* }" >&2
  done
}

# Unpacks libtorch (torch/{include,lib,share}) and the extra libraries into $prefix, laid out as
# in site-packages so that libtorch_cuda's RPATH ($ORIGIN/../../nvidia/...) finds them.
unpack() {
  [[ -f $prefix/.complete ]] && return 0
  local tmp=$prefix.tmp.$$ entry spec sha file
  rm -rf "$tmp"
  mkdir -p "$tmp"
  echo "build_cuda.sh: unpacking libtorch $torch_version into $prefix" >&2
  for entry in "${wheels[@]}"; do
    read -r spec sha file <<< "$entry"
    echo "$sha  $cache/wheels/$file" | sha256sum --quiet -c - ||
      fail "$cache/wheels/$file does not match its pinned SHA-256: delete it and run again"
    if [[ $spec == torch==* ]]; then
      python3 -m zipfile -e "$cache/wheels/$file" "$tmp/whl"
      mv "$tmp/whl/torch" "$tmp/torch"
      rm -rf "$tmp/whl"
    else
      python3 -m zipfile -e "$cache/wheels/$file" "$tmp"
    fi
  done
  # Only libtorch's C++ part is needed; the Python bindings and modules are not.
  find "$tmp/torch" -mindepth 1 -maxdepth 1 ! -name include ! -name lib ! -name share \
    -exec rm -rf {} +
  rm -f "$tmp/torch/lib/libtorch_python.so"
  find "$tmp" -name '*.so*' -exec chmod 755 {} +
  touch "$tmp/.complete"
  rm -rf "$prefix"
  mv "$tmp" "$prefix"
}

check_toolkit
if ((unpinned)); then fetch_unpinned_wheels; else fetch_wheels; fi
unpack
ensure_packages g++ cmake make
# -rpath-link: the linker must take NCCL from the wheel (libtorch_cuda's own RPATH, as the
# loader does at run time), not the older one in the toolkit's directory on the link line.
"$root/scripts/build.sh" --torch "$prefix/torch" -DCUDAToolkit_ROOT="$cuda" \
  -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" -DCUDNN_ROOT="$cuda" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$prefix/nvidia/nccl/lib"

# The programs that run a net link libtorch_cuda, and the NCCL process group is compiled in.
bin=$BUILD_DIR/bin
# (Whole outputs into grep: grep -q would end the pipe early, which pipefail reports.)
for program in trainer selfplay gtp gatekeeper exporter; do
  [[ $(ldd "$bin/tengen-$program") == *libtorch_cuda.so* ]] ||
    fail "$bin/tengen-$program does not link libtorch_cuda.so"
done
[[ $(nm -D --undefined-only -C "$bin/tengen-trainer") == *c10d::ProcessGroupNCCL::ProcessGroupNCCL* ]] ||
  fail "$bin/tengen-trainer has no NCCL process group (USE_C10D_NCCL was not defined)"
echo "build_cuda.sh: built $bin against libtorch $torch_version with CUDA and NCCL ($prefix)" >&2

if ((run_tests)); then
  exec "$root/scripts/test.sh" --torch "$prefix/torch" "$@"
fi
