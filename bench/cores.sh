#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One big file on every core (docs/benchmarks.md): --threads 1 and
# --threads 2 side by side, best of RUNS wall times each, alternating, and
# the ratio; K12, KT256 and ParallelHash128 on one SIZE MiB file, SHA3-256
# over 16 files of SIZE/64 MiB.  Inputs are made in $TMPDIR and read once
# first, so that every run reads the page cache.  With BASE_DIR, the ksum
# of another build runs beside, for a before and after.
# Usage: bench/cores.sh [SIZE_MIB (1024) [RUNS (5) [BUILD_DIR [BASE_DIR]]]]
set -euo pipefail
size_mib=${1:-1024}
runs=${2:-5}
build=${3:-$(dirname "$0")/../build}
ksums=("$(realpath "$build/ksum")")
[ -n "${4:-}" ] && ksums+=("$(realpath "$4/ksum")")
dir=$(mktemp -d "${TMPDIR:-/tmp}/ksum-cores.XXXXXX")
trap 'rm -rf "$dir"' EXIT
head -c $((size_mib << 20)) /dev/urandom > "$dir/one"
for i in $(seq 16); do head -c $((size_mib << 14)) /dev/urandom > "$dir/many$i"; done
cat "$dir"/* > /dev/null

# the best wall time of $runs, in seconds
best() {
  local b=""
  for _ in $(seq "$runs"); do
    local t
    t=$( { TIMEFORMAT=%3R; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
    if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
  done
  echo "$b"
}

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs," \
     "$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2), $size_mib MiB, best of $runs"
echo "| ksum | input | 1 thread s | 2 threads s | ratio |"
echo "|---|---|---|---|---|"
for k in "${ksums[@]}"; do
  for alg in k12 kt256 parallelhash128 sha3-256; do
    if [ $alg = sha3-256 ]; then files=("$dir"/many*); what="16 files"; else files=("$dir/one"); what="1 file"; fi
    one=$(best "$k" --$alg --threads 1 "${files[@]}")
    two=$(best "$k" --$alg --threads 2 "${files[@]}")
    echo "| $k --$alg | $what | $one | $two | $(awk "BEGIN{printf \"%.2f\", $one / $two}") |"
  done
done
