#!/usr/bin/env bash
# Installs what metawarp needs from Debian/Ubuntu packages, if missing.
# The CUDA toolkit is expected to be installed already (nvcc on PATH or in
# /usr/local/cuda/bin); without it only the CPU path is built.
set -euo pipefail
need=()
dpkg -s cmake >/dev/null 2>&1 || need+=(cmake)
dpkg -s g++ >/dev/null 2>&1 || need+=(g++)
dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
dpkg -s libcli11-dev >/dev/null 2>&1 || need+=(libcli11-dev)
dpkg -s catch2 >/dev/null 2>&1 || need+=(catch2)
# Compressed input: bzip2 and zstd (required), ISA-L (fast gzip) and
# libdeflate (whole gzip members); without the last two gzip is read by zlib.
for package in libbz2-dev libzstd-dev libisal-dev libdeflate-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
# OpenMPI (optional): `metawarp query --mpi` over several hosts, and its test.
for package in libopenmpi-dev openmpi-bin; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "note: add /usr/local/cuda/bin to PATH to build the GPU code" >&2
fi
