#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Wall-clock benchmarks of ksum beside other checksum tools, on inputs it
# creates in a temporary folder.  Prints markdown tables: real/user/sys
# seconds, best of RUNS; compare ratios within one run, not across runs.
# Usage: bench/bench.sh [SIZE_MiB (default 1024)] [RUNS (default 3)] [BUILD_DIR]
set -euo pipefail
size_mib=${1:-1024}
runs=${2:-3}
build=${3:-$(dirname "$0")/../build}
ksum=$(realpath "$build/ksum")
cpus=$(nproc)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c $((size_mib << 20)) /dev/urandom > "$dir/input"
sync  # write-back of fresh inputs would otherwise compete with the timed runs

# best of $runs by wall time: prints "real user sys" in seconds, to the
# millisecond (bash's own timer; /usr/bin/time rounds to 10 ms)
best() {
  local best_line="" best_real=""
  for _ in $(seq "$runs"); do
    local line real
    line=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1)
    real=${line%% *}
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

header() { echo; echo "$1"; echo; echo "| command | real s | user s | sys s |"; echo "|---|---|---|---|"; }

echo "Input: $size_mib MiB, best of $runs, $cpus CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%d)"

header "One file, every algorithm at 1 thread and at all $cpus:"
for alg in sha3-224 sha3-256 sha3-384 sha3-512 shake128 shake256 rawshake128 rawshake256 \
           keccak-256 cshake128 cshake256 kmac128 kmac256 turboshake128 turboshake256 \
           parallelhash128 parallelhash256 k12 kt256 m14; do
  row "ksum --$alg --threads 1" "$ksum" "--$alg" --threads 1 "$dir/input"
  case $alg in parallelhash*|k12|kt256|m14)
    row "ksum --$alg --threads $cpus" "$ksum" "--$alg" --threads "$cpus" "$dir/input" ;;
  esac
done
row "ksum --k12 --threads 1 (KSUM_SIMD=portable)" env KSUM_SIMD=portable "$ksum" --k12 --threads 1 "$dir/input"
row "openssl dgst -sha3-256" openssl dgst -sha3-256 "$dir/input"
row "openssl dgst -shake128" openssl dgst -shake128 "$dir/input"
for tool in sha256sum sha1sum md5sum b2sum b3sum; do
  row "$tool" "$tool" "$dir/input"
done

echo
echo "Tree modes against the thread count (real seconds, best of $runs; speed-up over 1 thread):"
echo
trees="k12 kt256 m14 parallelhash128 parallelhash256"
declare -A one_thread
printf '| threads |'; for alg in $trees; do printf ' %s |' "$alg"; done; echo
printf '|---|'; for _ in $trees; do printf -- '---|'; done; echo
for t in $(seq 1 "$cpus"); do
  printf '| %s |' "$t"
  for alg in $trees; do
    read -r real _ _ < <(best "$ksum" "--$alg" --threads "$t" "$dir/input")
    [ "$t" = 1 ] && one_thread[$alg]=$real
    printf ' %s (%sx) |' "$real" "$(awk "BEGIN{printf \"%.2f\", ${one_thread[$alg]} / $real}")"
  done
  echo
done

for i in 1 2 3 4; do head -c $((64 << 20)) "$dir/input" > "$dir/q$i"; done
sync
header "Four files of 64 MiB:"
row "ksum --sha3-256 (files at once)" "$ksum" --sha3-256 "$dir"/q1 "$dir"/q2 "$dir"/q3 "$dir"/q4
row "ksum --sha3-256 --threads 1" "$ksum" --sha3-256 --threads 1 "$dir"/q1 "$dir"/q2 "$dir"/q3 "$dir"/q4
row "openssl dgst -sha3-256" openssl dgst -sha3-256 "$dir"/q1 "$dir"/q2 "$dir"/q3 "$dir"/q4

mkdir "$dir/small"
for i in $(seq 10000); do head -c 4096 "$dir/input" > "$dir/small/$i"; done
sync
header "Many small files: 10,000 files of 4 KiB:"
( cd "$dir/small"
  files=$(ls)
  # shellcheck disable=SC2086
  row "ksum --sha3-256" "$ksum" --sha3-256 $files
  # shellcheck disable=SC2086
  row "sha256sum" sha256sum $files
  # shellcheck disable=SC2086
  row "openssl dgst -sha3-256" openssl dgst -sha3-256 $files )

echo
echo "Start-up: one run on /dev/null (mean of 200, milliseconds):"
echo
echo "| command | ms |"
echo "|---|---|"
for cmd in "$ksum --sha3-256 /dev/null" "openssl dgst -sha3-256 /dev/null"; do
  start=$(date +%s%N)
  for _ in $(seq 200); do $cmd > /dev/null; done
  end=$(date +%s%N)
  echo "| ${cmd/#$ksum/ksum} | $(awk "BEGIN{printf \"%.2f\", ($end - $start) / 200 / 1e6}") |"
done

# The many-files tables (issues 12 and 13): a tree of 100,000 files, 16
# files of 64 MiB batched and not, 10,000 files of 4 KiB, one 1 GiB file.
"$(dirname "$0")/bench_files.sh" "$runs" "$build"
