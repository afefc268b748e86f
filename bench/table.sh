# SPDX-License-Identifier: Apache-2.0
# Sourced by the benchmark scripts: table TITLE then pairs of "label" and
# "command line" (run by bash -c in the current directory).  The commands
# run in turns, RUNS rounds after an untimed warm-up (RUNS from the caller,
# default 5), so that a noisy neighbour slows every row alike; it prints
# each row's best and median wall time, the ratio of its best to the first
# row's best, and the user and system seconds of its best run.

# "real user sys" seconds of one run, to the millisecond, output discarded
run_times() {
  { TIMEFORMAT='%3R %3U %3S'; time bash -c "$1" > /dev/null 2>&1; } 2>&1 | tail -1
}

table() {
  local title=$1; shift
  local -a labels=() cmds=() reals=() bests=()
  while [ $# -gt 0 ]; do labels+=("$1"); cmds+=("$2"); shift 2; done
  local n=${#labels[@]} i r line
  for ((i = 0; i < n; i++)); do
    reals[i]="" bests[i]=""
    bash -c "${cmds[i]}" > /dev/null 2>&1 || true   # warm the cache, untimed
  done
  for ((r = 0; r < ${RUNS:-5}; r++)); do
    for ((i = 0; i < n; i++)); do
      line=$(run_times "${cmds[i]}")
      reals[i]+="${line%% *} "
      if [ -z "${bests[i]}" ] || awk "BEGIN{exit !(${line%% *} < ${bests[i]%% *})}"; then
        bests[i]=$line
      fi
    done
  done
  echo
  echo "$title (wall seconds over ${RUNS:-5} rounds in turns; ratio: best / first row's best)"
  echo
  echo "| command | best | median | ratio | user s | sys s |"
  echo "|---|---|---|---|---|---|"
  local first=""
  for ((i = 0; i < n; i++)); do
    local best median user sys
    read -r best user sys <<< "${bests[i]}"
    median=$(tr ' ' '\n' <<< "${reals[i]}" | grep . | sort -g |
             awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    [ -z "$first" ] && first=$best
    echo "| ${labels[i]} | $best | $median | $(awk "BEGIN{printf \"%.2f\", $best / $first}") | $user | $sys |"
  done
}
