#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One object in parts (docs/parts.md) against the whole:
#   1. ksum --k12 on the whole file (all CPUs), and --threads 1;
#   2. 8 parts (--part K/8 --threads 1) run by GNU parallel -j 2, then
#      --combine; the same digest, and combining's share of the time;
#   3. the CPU time per byte of the parts against --threads 1 whole;
#   4. whole and combine ROUNDS times more (default 15), alternately: the
#      medians of their wall times, and combining's share of the whole.
# Usage: bench/parts.sh [SIZE_MIB [BUILD_DIR]]   (default 1024 MiB, build)
# Figures measured (4 GiB and 1 GiB, 2-CPU AMD EPYC VM under load): docs/parts.md.
# The file is made in $TMPDIR (default /tmp) and hashed once first so that
# every run reads it from the page cache; it is removed at the end.
set -euo pipefail
size_mib=${1:-1024}
build=${2:-build}
ksum=$(cd "$build" && pwd)/ksum
work=$(mktemp -d "${TMPDIR:-/tmp}/ksum-parts.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
command -v parallel > /dev/null || { echo "needs GNU parallel (apt-get install parallel)"; exit 2; }

# seconds (wall), user+sys seconds, of a command; its output into $3
measure() {
  local out=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o cpu.txt "$@" > "$out"
  t1=$(date +%s.%N)
  wall=$(echo "$t1 - $t0" | bc -l)
  cpu=$(awk '{print $1 + $2}' cpu.txt)
}

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
echo "object: $size_mib MiB of random bytes"
head -c $((size_mib << 20)) /dev/urandom > object
"$ksum" --k12 object > /dev/null   # into the page cache

measure whole.txt "$ksum" --k12 object
printf '%-44s %8.2f s wall %8.2f s CPU\n' "ksum --k12 (whole, all CPUs)" "$wall" "$cpu"
whole_wall=$wall whole_cpu=$cpu
measure whole1.txt "$ksum" --k12 --threads 1 object
printf '%-44s %8.2f s wall %8.2f s CPU\n' "ksum --k12 --threads 1 (whole)" "$wall" "$cpu"
whole1_cpu=$cpu

# parallel's own CPU time is in the total: time the 8 parts one after
# another as well (all of them: one part's time depends on where its bytes
# lie in the page cache)
measure parts.txt parallel -j 2 "$ksum --k12 --threads 1 --part {}/8 object > object.part{}" ::: 1 2 3 4 5 6 7 8
printf '%-44s %8.2f s wall %8.2f s CPU\n' "8 parts, GNU parallel -j 2, --threads 1" "$wall" "$cpu"
parts_wall=$wall parts_cpu=$cpu
measure serial.txt sh -c 'for k in 1 2 3 4 5 6 7 8; do "$0" --k12 --threads 1 --part $k/8 object || exit 1; done' "$ksum"
printf '%-44s %8.2f s wall %8.2f s CPU\n' "the 8 parts one after another, --threads 1" "$wall" "$cpu"
part_cpu=$cpu

measure combined.txt "$ksum" --k12 --combine object.part1 object.part2 object.part3 \
  object.part4 object.part5 object.part6 object.part7 object.part8
printf '%-44s %8.3f s wall %8.3f s CPU\n' "ksum --k12 --combine (8 records)" "$wall" "$cpu"
combine_wall=$wall combine_cpu=$cpu
echo "records: $(cat object.part* | wc -c) bytes for $((size_mib << 20)) bytes of object"

cmp -s whole.txt combined.txt || { echo "DIGESTS DIFFER"; cat whole.txt combined.txt; exit 1; }
echo "same digest: $(cut -d' ' -f1 whole.txt)"
echo "combine / whole hash (all CPUs): $(echo "100 * $combine_wall / $whole_wall" | bc -l | cut -c1-5) % wall, $(echo "100 * $combine_cpu / $whole_cpu" | bc -l | cut -c1-5) % CPU"
# One run of each is noise on a shared machine: whole and combine again,
# alternately, timed by Python around the process alone (no time(1) or
# date(1) in the figure), and the medians of their wall times.
python3 - "$ksum" "${ROUNDS:-15}" <<'PY'
import os, statistics, sys, time
ksum, rounds = sys.argv[1], int(sys.argv[2])
cmds = {"whole (all CPUs)": [ksum, "--k12", "object"],
        "--combine (8 records)": [ksum, "--k12", "--combine"] +
                                 [f"object.part{k}" for k in range(1, 9)]}
walls = {name: [] for name in cmds}
for _ in range(rounds):
    for name, cmd in cmds.items():
        # posix_spawn and waitpid, as hyperfine -N does: subprocess.run's
        # own work was milliseconds, a third of combining's time
        t0 = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        _, status = os.waitpid(pid, 0)
        walls[name].append(time.perf_counter() - t0)
        if status != 0:
            sys.exit(f"{name}: exit status {status}")
med = {name: statistics.median(w) for name, w in walls.items()}
for name in cmds:
    print(f"{'median of %d, %s' % (rounds, name):44s} {med[name]:8.3f} s wall")
share = 100 * med["--combine (8 records)"] / med["whole (all CPUs)"]
print(f"combine / whole hash, medians: {share:.2f} % wall")
PY
echo "parts (wall) / whole (all CPUs): $(echo "100 * ($parts_wall + $combine_wall) / $whole_wall" | bc -l | cut -c1-5) %"
echo "CPU per byte, the parts / whole --threads 1: $(echo "$part_cpu / $whole1_cpu" | bc -l | cut -c1-5)"
