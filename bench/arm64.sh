#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Arm64 Keccak kernels without Arm hardware: instructions counted under
# qemu-user, and cycles modelled by llvm-mca.  Neither is a measurement of
# silicon: counts ignore issue width and latency, models are approximate
# (and llvm-mca falls back to a neighbour's model for some cores).
#
#   - instructions per 136-byte SHA3-256 block and per KT128 byte through
#     EVP, for each ksumprov kernel (KSUM_SIMD) beside OpenSSL's default
#     provider from the arm64 sysroot that tests/cross/run.sh downloads,
#     counted by a TCG plugin under qemu-aarch64 -cpu max;
#   - llvm-mca cycles per 24-round permutation of the a64, a64ror, a64neon
#     and a64sha3 loops and of OpenSSL's scalar round (found in that
#     libcrypto), per core, and of a scalar+Neon hybrid that has no kernel.
#
# Usage: bench/arm64.sh PLUGIN_SOURCE [WORKDIR]
#   PLUGIN_SOURCE: the C source of a qemu plugin (API version 1) counting
#   guest instructions, that writes "TOTAL ..." to the file named by its
#   out= argument (qemu-insncount.c); it is built here with gcc.
#   WORKDIR: default build-cross in the source tree (shared with run.sh).
# Needs: gcc-aarch64-linux-gnu, qemu-user (a dynamic qemu-aarch64: the
# static one cannot load plugins), gcc, llvm-16 (or llvm: llvm-mca).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
plugin_src=${1:-}
work=$(realpath -m "${2:-$src/build-cross}")
need="apt-get install gcc-aarch64-linux-gnu qemu-user gcc llvm-16"

skip() {
  echo "SKIPPED: $* ($need)"
  exit 0
}
[ -n "$plugin_src" ] && [ -r "$plugin_src" ] || skip "no plugin source given"
command -v aarch64-linux-gnu-gcc > /dev/null || skip "no aarch64-linux-gnu-gcc"
command -v qemu-aarch64 > /dev/null || skip "no qemu-aarch64"
mca=$(command -v llvm-mca-16 || command -v llvm-mca || true)
[ -n "$mca" ] || skip "no llvm-mca"

root=$work/arm64-sysroot
build=$work/build-arm64
mkdir -p "$work"
why=$("$src/tests/cross/sysroot.sh" arm64 "$work/arm64-apt" "$root") || skip "$why"
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DKSUM_SYSROOT="$root" -DCMAKE_BUILD_TYPE=Release > "$work/bench-arm64.log" 2>&1 &&
  cmake --build "$build" -j2 --target insn_evp >> "$work/bench-arm64.log" 2>&1 ||
  { tail -n 20 "$work/bench-arm64.log"; echo "FAIL: build"; exit 1; }
plugin=$work/insncount.so
gcc -shared -fPIC -O2 -o "$plugin" "$plugin_src" || { echo "FAIL: plugin build"; exit 1; }

# count PROVIDER ALGORITHM BYTES: guest instructions of one digest
count() {
  local out=$work/insn.out
  QEMU_CPU=${QEMU_CPU:-max} qemu-aarch64 -L "$root" -plugin "$plugin,out=$out" \
    "$build/bench/insn_evp" "$@" > /dev/null || return 1
  cut -d' ' -f1 "$out"
}

# per PROVIDER ALGORITHM UNIT N0 N1: instructions per UNIT bytes between
# N0 and N1 units
per() {
  local a b
  a=$(count "$1" "$2" $(($3 * $4))) && b=$(count "$1" "$2" $(($3 * $5))) || { echo "-"; return; }
  awk -v a="$a" -v b="$b" -v n=$(($5 - $4)) 'BEGIN { printf "%.2f", (b - a) / n }'
}

echo "## Instructions under qemu-aarch64 -cpu max (counted, not timed)"
echo
echo "| provider, kernel | SHA3-256 per 136-byte block | KT128 per byte | KT128 / SHA3-256 per byte |"
echo "|---|---|---|---|"
row() {
  local name=$1 prov=$2 sha kt
  sha=$(per "$prov" SHA3-256 136 100 1100)
  kt=$( [ "$prov" = default ] && echo "-" || per "$prov" KT128 8192 2 130)
  [ "$kt" = "-" ] || kt=$(awk -v k="$kt" 'BEGIN { printf "%.2f", k / 8192 }')
  [ "$sha" = "-" ] || sha=$(awk -v s="$sha" 'BEGIN { printf "%.0f", s }')
  if [ "$kt" = "-" ] || [ "$sha" = "-" ]; then
    echo "| $name | $sha | $kt | - |"
  else
    awk -v n="$name" -v s="$sha" -v k="$kt" \
      'BEGIN { printf "| %s | %s | %s | %.2f |\n", n, s, k, k / (s / 136) }'
  fi
}
row "OpenSSL default provider" default
for k in portable portable8 a64 a64ror a64neon a64sha3 a64sha3x2; do
  KSUM_SIMD=$k row "ksumprov $k" ksumprov
done
QEMU_CPU=cortex-a72 row "ksumprov, cortex-a72 (no SHA3): default" ksumprov

# The loops for llvm-mca: one block of eight a64 and a64ror rounds (with
# the lanes put back home), the 24 unrolled a64sha3 rounds, OpenSSL's
# one-round loop.
loops=$work/mca
mkdir -p "$loops"
perm=$src/provider/permutation
block8() {
  awk -v k="$1" '/^6:/ { n++; on = 1; next } /^7:/ { on = 0 } on && n == k' "$perm/a64_scalar.S" |
    grep -v -E '^[0-9]:|b 6b|b.hs 7f'
}
block8 1 > "$loops/a64.s"
block8 2 > "$loops/a64ror.s"
{ echo ".arch armv8.2-a+sha3"
  sed -n '/^.Lkeccak_a64_sha3_x1_r0:/,/subs x6/p' "$perm/a64sha3.S" |
    grep -v -E '^\.L|subs x6'; } > "$loops/a64sha3.s"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$root/usr/lib/aarch64-linux-gnu/libcrypto.so.3" |
  python3 -c '
import re, sys
ins = []
for line in sys.stdin:
    m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*([^<]*)", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2), m.group(3).strip()))
# The first short backward branch over 25 BIC or more: the round loop.
for k, (addr, op, args) in enumerate(ins):
    if op.startswith("b.") and args:
        target = int(args.split()[0], 16)
        if not 0 < addr - target < 4 * 300:
            continue
        body = [i for i in ins[k - 300:k] if target <= i[0] < addr]
        if sum(i[1] == "bic" for i in body) >= 25:
            for _, o, a in body:
                print("\t%s %s" % (o, a.split("//")[0].strip()))
            break
' > "$loops/openssl.s"

# a64neon's 24 rounds (two states), and a hybrid of three states for
# which there is no kernel: eight a64 rounds beside eight of a64neon, as
# llvm-mca interleaves them.
sed -n '/^.Lkeccak_a64_neon_x2_r0:/,/subs x6/p' "$perm/a64neon.S" |
  grep -v -E '^\.L|subs x6' > "$loops/neon.s"
{ cat "$loops/a64.s"
  sed -n '/^.Lkeccak_a64_neon_x2_r0:/,/^.Lkeccak_a64_neon_x2_r8:/p' "$perm/a64neon.S" |
    grep -v -E '^\.L'; } > "$loops/hybrid.s"

mca_cycles() {
  "$mca" -mtriple=aarch64-linux-gnu -mcpu="$1" -mattr=+sha3 -iterations=20 "$2" 2> /dev/null |
    awk '/^Total Cycles:/ { print $3 / 20 }'
}
echo
echo "## llvm-mca ($(basename "$mca")) cycles per 24-round permutation (modelled, not timed)"
echo
echo "In brackets: the ratio to OpenSSL's scalar round."
echo
echo "| -mcpu | OpenSSL scalar | a64 | a64ror | a64sha3 (1 or 2 states) | a64neon two states, per state | a64 + a64neon hybrid (no kernel), per state |"
echo "|---|---|---|---|---|---|---|"
for cpu in cortex-a53 cortex-a55 cortex-a57 cortex-a72 cortex-a76 cortex-a78 cortex-x1 \
           cortex-x2 cortex-a510 cortex-a710 neoverse-n1 neoverse-n2 neoverse-v1 \
           neoverse-v2 apple-m1 ampere1; do
  o=$(mca_cycles "$cpu" "$loops/openssl.s")
  a=$(mca_cycles "$cpu" "$loops/a64.s")
  r=$(mca_cycles "$cpu" "$loops/a64ror.s")
  s=$(mca_cycles "$cpu" "$loops/a64sha3.s")
  n=$(mca_cycles "$cpu" "$loops/neon.s")
  h=$(mca_cycles "$cpu" "$loops/hybrid.s")
  [ -n "$o" ] && [ -n "$a" ] || { echo "| $cpu | not modelled | | | | | |"; continue; }
  awk -v c="$cpu" -v o="$o" -v a="$a" -v r="$r" -v s="${s:-0}" -v n="${n:-0}" -v h="${h:-0}" \
    'BEGIN { printf "| %s | %.0f | %.0f (%.2f) | %.0f (%.2f) | %s | %.0f | %.0f |\n", c,
             24 * o, 3 * a, 3 * a / (24 * o), 3 * r, 3 * r / (24 * o),
             (s > 0 ? sprintf("%.0f", s) : "-"), n / 2, 3 * h / 3 }'
done
echo
echo "Identical rows are one model: llvm-mca gives a core it has no model of its"
echo "neighbour's (Cortex-A57's for most Cortex-A7x, X and Neoverse parts)."
