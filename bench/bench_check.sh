#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Check mode against writing the list: `ksum -c LIST`
# against the `ksum FILE... > LIST` that wrote it, SHA3-256, on 8 files of
# 32 MiB and on 20,000 files of 0 to 16 KiB (random sizes); `ksum --k12 -c`
# against `b3sum -c` and `sha256sum -c`, each over its own list of the same
# files; and a list of a million missing files, against a ksum given as
# the second argument's sibling (BASELINE, optional: another build's ksum).
# hyperfine, the commands of a table side by side in one run, warm cache;
# compare within a table: the machine may be shared.
# Usage: bench/bench_check.sh [RUNS (default 20)] [BUILD_DIR] [BASELINE_KSUM]
set -euo pipefail
runs=${1:-20}
build=${2:-$(dirname "$0")/../build}
baseline=${3:-}
ksum=$(realpath "$build/ksum")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

have() { command -v "$1" > /dev/null 2>&1; }
have hyperfine || { echo "bench_check.sh needs hyperfine"; exit 1; }

echo "ksum check-mode benchmark, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - <<'EOF'
import os, random
rng = random.Random(21)
os.makedirs("big"); os.makedirs("small")
for i in range(8):
    with open(f"big/f{i}", "wb") as f:
        f.write(os.urandom(32 << 20))
data = os.urandom(16384 + 4096)
for i in range(20000):
    size, start = rng.randrange(16385), rng.randrange(4096)
    with open(f"small/x{i:05d}", "wb") as f:
        f.write(data[start:start + size])
EOF
sync

# table TITLE DIR then commands (sh -c lines), run in DIR side by side
table() {
  local title=$1 where=$2; shift 2
  echo
  echo "$title"
  echo
  (cd "$where" && hyperfine -N -i -w 2 -r "$runs" --style none --export-markdown "$dir/t.md" "$@" \
     > /dev/null 2>&1)
  cat "$dir/t.md"
}

for set in big small; do
  files=$(cd $set && ls | tr '\n' ' ')
  (cd $set && "$ksum" $files > ../$set.sha3 && "$ksum" --k12 $files > ../$set.k12)
  if have b3sum; then (cd $set && b3sum $files > ../$set.b3); fi
  (cd $set && sha256sum $files > ../$set.sha256)
  echo "$files" > $set.names
done

# The writing side goes through a shell either way (20,000 operands), so
# both sides do, with the output to /dev/null.
table "8 files of 32 MiB, SHA3-256: writing the list, then checking it" big \
  "sh -c '$ksum \$(cat ../big.names) > /dev/null'" "sh -c '$ksum -c ../big.sha3 > /dev/null'"
table "20,000 files of 0-16 KiB, SHA3-256: writing the list, then checking it" small \
  "sh -c '$ksum \$(cat ../small.names) > /dev/null'" "sh -c '$ksum -c ../small.sha3 > /dev/null'"
for set in big small; do
  cmds=("sh -c '$ksum --k12 -c ../$set.k12 > /dev/null'")
  if have b3sum; then cmds+=("sh -c 'b3sum -c ../$set.b3 > /dev/null'"); fi
  cmds+=("sh -c 'sha256sum -c ../$set.sha256 > /dev/null'")
  table "$set files: ksum --k12 -c against the others' checks over their own lists" $set "${cmds[@]}"
done

python3 -c "
import hashlib
h = hashlib.sha3_256(b'abc').hexdigest()
open('missing.sums', 'w').write(''.join(f'{h}  missing{i}\n' for i in range(1000000)))"
cmds=("sh -c '$ksum -c missing.sums > out 2>&1'" "sh -c '$ksum -c --ignore-missing missing.sums'")
if [ -n "$baseline" ]; then
  cmds+=("sh -c '$baseline -c missing.sums > out 2>&1'" "sh -c '$baseline -c --ignore-missing missing.sums'")
fi
table "A list of a million missing files (output and messages to a file; --ignore-missing)" . "${cmds[@]}"
