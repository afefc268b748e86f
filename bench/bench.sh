#!/usr/bin/env bash
# Wall-clock benchmark of ksum beside other checksum tools, on one input it
# creates.  Prints markdown tables (real/user/sys seconds, best of N runs).
# Usage: bench/bench.sh [SIZE_MiB (default 1024)] [RUNS (default 3)] [BUILD_DIR]
set -euo pipefail
size_mib=${1:-1024}
runs=${2:-3}
build=${3:-$(dirname "$0")/../build}
ksum=$(realpath "$build/ksum")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c $((size_mib << 20)) /dev/urandom > "$dir/input"

# best of $runs: prints "real user sys"
best() {
  local best_line="" best_real=""
  for _ in $(seq "$runs"); do
    local line
    line=$( { /usr/bin/time -f "%e %U %S" "$@" > /dev/null; } 2>&1 | tail -1)
    local real=${line%% *}
    if [ -z "$best_real" ] || awk "BEGIN{exit !($real < $best_real)}"; then
      best_real=$real best_line=$line
    fi
  done
  echo "$best_line"
}

row() { # label command...
  local label=$1; shift
  command -v "$1" > /dev/null 2>&1 || [ -x "$1" ] || { echo "| $label | (not installed) | | |"; return; }
  read -r real user sys < <(best "$@")
  echo "| $label | $real | $user | $sys |"
}

echo "Input: $size_mib MiB, best of $runs, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo
echo "| command | real s | user s | sys s |"
echo "|---|---|---|---|"
for alg in sha3-224 sha3-256 sha3-384 sha3-512 shake128 shake256 rawshake128 rawshake256 \
           keccak-256 cshake128 cshake256 kmac128 kmac256 parallelhash128 parallelhash256 \
           k12 kt256 m14 turboshake128 turboshake256; do
  row "ksum --$alg" "$ksum" "--$alg" "$dir/input"
done
row "ksum --k12 (KSUM_SIMD=portable)" env KSUM_SIMD=portable "$ksum" --k12 "$dir/input"
row "openssl dgst -sha3-256" openssl dgst -sha3-256 "$dir/input"
row "openssl dgst -shake128" openssl dgst -shake128 "$dir/input"
for tool in sha256sum sha1sum md5sum b2sum b3sum; do
  row "$tool" "$tool" "$dir/input"
done

echo
echo "Many small files: 10,000 files of 4 KiB"
mkdir "$dir/small"
for i in $(seq 10000); do head -c 4096 "$dir/input" > "$dir/small/$i"; done 2>/dev/null || true
( cd "$dir/small" && ls > ../list )
echo
echo "| command | real s | user s | sys s |"
echo "|---|---|---|---|"
( cd "$dir/small"
  row "ksum --sha3-256" "$ksum" --sha3-256 $(cat ../list)
  row "sha256sum" sha256sum $(cat ../list)
  row "openssl dgst -sha3-256" openssl dgst -sha3-256 $(cat ../list) )
