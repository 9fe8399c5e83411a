#!/usr/bin/env bash
# Installs what ppsim needs to build and test, from Debian packages. Safe to run again: it only
# calls apt-get when a package is missing. nvcc (CUDA) is optional and is not installed here.
set -euo pipefail

packages=(cmake ninja-build g++ libgtest-dev libcli11-dev nlohmann-json3-dev libpugixml-dev gnuplot-nox graphviz zstd
  # one simulated machine split across MPI ranks, and the tests that run Open MPI's own collectives
  openmpi-bin libopenmpi-dev
  # the Python module (python/), its tests and examples
  pybind11-dev python3-dev python3-numpy python3-pytest python3-pandas python3-matplotlib)
# `setup.sh test` (make test): Chromium, in which the tests load `ppsim view`'s pages headless
if [ "${1:-}" = test ]; then packages+=(chromium); fi
# `setup.sh fuzz` (make fuzz): clang and its runtimes (libFuzzer, the sanitizers)
if [ "${1:-}" = fuzz ]; then packages+=(clang libclang-rt-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
