#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Many files: a tree of 100,000 files with ksum -r against find/xargs
# sha256sum and rhash -r (peak memory; several algorithms in one read);
# 16 files of 64 MiB batched against unbatched and openssl at one thread,
# all threads against one, 10,000 files of 4 KiB, one 1 GiB file.  Each table's commands run in
# turns, RUNS rounds, warm cache (one untimed run first); it prints the best
# and the median wall time of each and the ratio of the bests to the first
# row.  Compare within a table: the machine may be shared.
# Usage: bench/bench_files.sh [RUNS (default 5)] [BUILD_DIR] [TREE_FILES (default 100000)]
set -euo pipefail
here=$(dirname "$(realpath "$0")")
runs=${1:-5}
build=${2:-$(dirname "$0")/../build}
tree_files=${3:-100000}
ksum=$(realpath "$build/ksum")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# shellcheck source=bench/table.sh
. "$here/table.sh"
RUNS=$runs

have() { command -v "$1" > /dev/null 2>&1; }

echo "ksum many-files benchmark, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- a tree of TREE_FILES files, 0 to 64 KiB, 3 directories deep ----
python3 - "$tree_files" <<'EOF'
import os, random, sys
n = int(sys.argv[1]); rng = random.Random(12); data = os.urandom(65536 + 4096)
per = max(1, n // 1000)
for i in range(n):
    d = f"T/d{i // (per * 100) % 10}/e{i // (per * 10) % 10}/f{i // per % 10}"
    if i % per == 0:
        os.makedirs(d, exist_ok=True)
    size = rng.randrange(65537); start = rng.randrange(4096)
    with open(f"{d}/x{i}", "wb") as f:
        f.write(data[start:start + size])
EOF
sync
echo
echo "Tree: $(find T -type f | wc -l) files, $(du -sh T | cut -f1), $(find T -type d | wc -l) directories"
rows=("ksum -r --sha3-256" "$ksum -r --sha3-256 T"
      "find | sort -z | xargs -0 sha256sum" "find T -type f -print0 | sort -z | xargs -0 sha256sum"
      "ksum -r --sha3-256, KSUM_BATCH=0" "KSUM_BATCH=0 $ksum -r --sha3-256 T"
      "ksum -r --sha3-256 --threads 1" "$ksum -r --sha3-256 --threads 1 T")
if have rhash; then
  rows+=("rhash -r --sha3-256" "rhash -r --sha3-256 T")
else
  echo "(rhash is not installed: apt-get install rhash for its row)"
fi
table "ksum -r on the tree against the pipeline and rhash" "${rows[@]}"

echo
echo "Peak memory of ksum -r on the tree (/usr/bin/time -v, maximum resident set):"
echo
for args in "-r --sha3-256 T" "-r --sha3-256 --threads 1 T" "-r --sha3-256 --sha3-512 --shake128 T"; do
  # shellcheck disable=SC2086
  kib=$(/usr/bin/time -v "$ksum" $args 2>&1 > /dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
  echo "- \`ksum $args\`: $((kib / 1024)) MiB ($kib KiB)"
done

table "Several algorithms from one read of the tree, against one run each" \
  "ksum -r --sha3-256 --sha3-512 --shake128" "$ksum -r --sha3-256 --sha3-512 --shake128 T" \
  "the three runs one after the other" "$ksum -r --sha3-256 T; $ksum -r --sha3-512 T; $ksum -r --shake128 T" \
  "ksum -r --sha3-256 (one read, one algorithm)" "$ksum -r --sha3-256 T"
rm -rf T

# ---- 16 files of 64 MiB ----
head -c $((64 << 20)) /dev/urandom > m0
for i in $(seq 1 15); do head -c $((64 << 20)) /dev/urandom > "m$i"; done
sync
m="m0 m1 m2 m3 m4 m5 m6 m7 m8 m9 m10 m11 m12 m13 m14 m15"
key=000102030405060708090a0b0c0d0e0f
kmac_openssl="for f in $m; do openssl mac -macopt hexkey:$key -in \$f KMAC128; done"
table "16 files of 64 MiB, SHA3-256" \
  "ksum --sha3-256 --threads 1 (batched)" "$ksum --sha3-256 --threads 1 $m" \
  "ksum --sha3-256 --threads 1, KSUM_BATCH=0" "KSUM_BATCH=0 $ksum --sha3-256 --threads 1 $m" \
  "openssl dgst -sha3-256" "openssl dgst -sha3-256 $m" \
  "ksum --sha3-256 (all threads)" "$ksum --sha3-256 $m" \
  "ksum --sha3-256 (all threads), KSUM_BATCH=0" "KSUM_BATCH=0 $ksum --sha3-256 $m"
table "16 files of 64 MiB, SHAKE128" \
  "ksum --shake128 --threads 1 (batched)" "$ksum --shake128 --threads 1 $m" \
  "ksum --shake128 --threads 1, KSUM_BATCH=0" "KSUM_BATCH=0 $ksum --shake128 --threads 1 $m" \
  "openssl dgst -shake128" "openssl dgst -shake128 $m" \
  "ksum --shake128 (all threads)" "$ksum --shake128 $m"
table "16 files of 64 MiB, KMAC128 (a 16-byte key)" \
  "ksum --kmac128 --threads 1 (batched)" "$ksum --kmac128 -k $key --threads 1 $m" \
  "ksum --kmac128 --threads 1, KSUM_BATCH=0" "KSUM_BATCH=0 $ksum --kmac128 -k $key --threads 1 $m" \
  "openssl mac KMAC128, file after file" "$kmac_openssl" \
  "ksum --kmac128 (all threads)" "$ksum --kmac128 -k $key $m"
table "Several algorithms from one read of the 16 files (all threads)" \
  "ksum --sha3-256 --sha3-512 --shake128" "$ksum --sha3-256 --sha3-512 --shake128 $m" \
  "the three runs one after the other" "$ksum --sha3-256 $m; $ksum --sha3-512 $m; $ksum --shake128 $m"
rm -f m*

mkdir small
python3 -c "
import os
data = os.urandom(4096 + 10000)
for i in range(10000):
    open(f'small/{i}', 'wb').write(data[i:i + 4096])"
sync
table "10,000 files of 4 KiB" \
  "ksum --sha3-256" "cd small && $ksum --sha3-256 *" \
  "ksum --sha3-256, KSUM_BATCH=0" "cd small && KSUM_BATCH=0 $ksum --sha3-256 *" \
  "sha256sum" "cd small && sha256sum *" \
  "openssl dgst -sha3-256" "cd small && openssl dgst -sha3-256 *"
rm -rf small

head -c $((1 << 30)) /dev/urandom > one
sync
table "One file of 1 GiB (a single file is never batched)" \
  "ksum --sha3-256" "$ksum --sha3-256 one" \
  "ksum --sha3-256, KSUM_BATCH=0" "KSUM_BATCH=0 $ksum --sha3-256 one" \
  "openssl dgst -sha3-256" "openssl dgst -sha3-256 one"
