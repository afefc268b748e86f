#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The rows of the AVX-512 issue (docs/benchmarks.md, "Backends and lanes"):
# the same binary with KSUM_SIMD=avx2 and with the backend it picks itself
# (avx512 where the CPU has it), beside b3sum and, when XKCP_KECCAKSUM names
# XKCP's AVX512/KeccakSum binary (built by hand: see docs/benchmarks.md),
# XKCP; then tree modes on 20,000 small files, with the number of threads
# ksum created.  Every table's commands run in turns (bench/table.sh).
# Usage: bench/wide.sh [RUNS (default 10)] [BUILD_DIR]
set -euo pipefail
here=$(dirname "$(realpath "$0")")
RUNS=${1:-10}
build=${2:-$here/../build}
ksum=$(realpath "$build/ksum")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# shellcheck source=bench/table.sh
. "$here/table.sh"

have() { command -v "$1" > /dev/null 2>&1; }
# the backend ksumprov picks by itself: avx512 where the CPU and the OS have AVX-512F and VL
auto=auto
grep -q -w avx512f /proc/cpuinfo && grep -q -w avx512vl /proc/cpuinfo && auto=avx512
echo "ksum wide-backend benchmark, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); AVX-512F: $(grep -q -w avx512f /proc/cpuinfo && echo yes || echo no)), backend picked: $auto, $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"

head -c $((256 << 20)) /dev/urandom > big
for i in 1 2 3 4 5 6 7 8; do head -c $((32 << 20)) /dev/urandom > "m$i"; done
sync
m="m1 m2 m3 m4 m5 m6 m7 m8"
a2="KSUM_SIMD=avx2 $ksum"

rows=("ksum --k12 --threads 1, KSUM_SIMD=avx2" "$a2 --k12 --threads 1 big"
      "ksum --k12 --threads 1 ($auto)" "$ksum --k12 --threads 1 big")
have b3sum && rows+=("b3sum --num-threads 1" "b3sum --num-threads 1 big")
[ -x "${XKCP_KECCAKSUM:-}" ] && rows+=("XKCP KeccakSum --kt128" "$XKCP_KECCAKSUM --kt128 big")
table "KT128, one file of 256 MiB, one thread" "${rows[@]}"

rows=("ksum --parallelhash128 --threads 1, KSUM_SIMD=avx2" "$a2 --parallelhash128 --threads 1 big"
      "ksum --parallelhash128 --threads 1 ($auto)" "$ksum --parallelhash128 --threads 1 big")
[ -x "${XKCP_KECCAKSUM:-}" ] && rows+=("XKCP KeccakSum --ph128" "$XKCP_KECCAKSUM --ph128 big")
table "ParallelHash128, one file of 256 MiB, one thread" "${rows[@]}"

table "SHA3-256, 8 files of 32 MiB, --threads 1 (batched)" \
  "ksum --sha3-256 --threads 1, KSUM_SIMD=avx2" "$a2 --sha3-256 --threads 1 $m" \
  "ksum --sha3-256 --threads 1 ($auto)" "$ksum --sha3-256 --threads 1 $m"

table "SHA3-256, one file of 256 MiB (one state: the single-state code)" \
  "ksum --sha3-256, KSUM_SIMD=avx2" "$a2 --sha3-256 big" \
  "ksum --sha3-256 ($auto)" "$ksum --sha3-256 big"
rm -f big m?

python3 - <<'EOF'
import os, random
rng = random.Random(18); data = os.urandom(16384 + 4096)
for i in range(20000):
    d = f"S/d{i // 1000}"
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    n = rng.randrange(16385); s = rng.randrange(4096)
    with open(f"{d}/x{i}", "wb") as f:
        f.write(data[s:s + n])
EOF
sync
rows=("ksum -r --k12" "$ksum -r --k12 S"
      "ksum -r --sha3-256" "$ksum -r --sha3-256 S")
have b3sum && rows+=("find | xargs b3sum" "find S -type f -print0 | xargs -0 b3sum")
rows+=("ksum -r --k12, KSUM_SIMD=avx2" "$a2 -r --k12 S")
table "20,000 files of 0-16 KiB (random sizes)" "${rows[@]}"
if have strace; then
  n=$(strace -f -e trace=clone,clone3 -o /dev/stdout "$ksum" -r --k12 S 2> /dev/null |
      grep -c -E 'clone3?\(' || true)
  echo
  echo "Threads created by \`ksum -r --k12\` on the 20,000 files: $n (strace)"
fi
