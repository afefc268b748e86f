#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ksum --tree against the goals of docs/tree.md's "Speed and memory": a
# tree of small files (0 to 16 KiB) against ksum -r of the same tree, one
# big file in a directory against ksum of the file, and the peak memory of
# a tree of many empty files in a few directories.  Tables as table.sh
# prints them (RUNS rounds in turns, warm cache); docs/benchmarks.md has
# the figures and the machine.
# Usage: bench/tree.sh [RUNS (default 5)] [BUILD_DIR] [SMALL_FILES (default 20000)]
#        [BIG_MIB (default 512)] [EMPTY_FILES (default 1000000)]
set -euo pipefail
here=$(dirname "$(realpath "$0")")
runs=${1:-5}
build=${2:-$(dirname "$0")/../build}
small_files=${3:-20000}
big_mib=${4:-512}
empty_files=${5:-1000000}
ksum=$(realpath "$build/ksum")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# shellcheck source=bench/table.sh
. "$here/table.sh"
RUNS=$runs

echo "ksum --tree benchmark, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- small files: 40 directories of 500, two levels ----
python3 - "$small_files" <<'EOF'
import os, random, sys
n = int(sys.argv[1]); rng = random.Random(35); data = os.urandom(16384 + 4096)
for i in range(n):
    d = f"S/d{i // 500:03d}/e{i // 50 % 10}"
    if i % 50 == 0:
        os.makedirs(d, exist_ok=True)
    start = rng.randrange(4096)
    with open(f"{d}/f{i}", "wb") as f:
        f.write(data[start:start + rng.randrange(16385)])
EOF
sync
echo
echo "Small files: $(find S -type f | wc -l) files, $(du -sh S | cut -f1)"
table "ksum --tree --k12 against ksum -r --k12 (goal: at most 1.10)" \
  "ksum -r --k12" "$ksum -r --k12 S" \
  "ksum --tree --k12" "$ksum --tree --k12 S" \
  "ksum -r --sha3-256" "$ksum -r --sha3-256 S" \
  "ksum --tree --sha3-256" "$ksum --tree --sha3-256 S"

# ---- one big file in a directory ----
mkdir B
head -c "$((big_mib << 20))" /dev/urandom > B/file
sync
table "ksum --tree --k12 of a directory holding one $big_mib MiB file (goal: at most 1.05)" \
  "ksum --k12 B/file" "$ksum --k12 B/file" \
  "ksum --tree --k12 B" "$ksum --tree --k12 B"
rm -r B

# ---- memory: many empty files in a few directories ----
python3 - "$empty_files" <<'EOF'
import os, sys
n = int(sys.argv[1])
for d in range(4):
    os.makedirs(f"E/d{d}")
for i in range(n):
    os.close(os.open(f"E/d{i % 4}/empty-file-{i}", os.O_CREAT | os.O_WRONLY, 0o644))
EOF
echo
echo "Peak memory (maximum resident set, /usr/bin/time -v) and time of $empty_files empty files in 4 directories (goal: under 200 MiB):"
echo
for args in "--tree --k12 E" "--tree --k12 --manifest E" "-r --k12 E"; do
  /usr/bin/time -v "$ksum" $args 2> time.txt > /dev/null
  echo "- ksum $args: $(awk -F': ' '/Maximum resident/ {printf "%.1f MiB", $2 / 1024}' time.txt)," \
       "$(awk -F': ' '/Elapsed/ {print $2}' time.txt) wall"
done
