#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Other architectures, cross-built with Debian's cross compilers and run
# under qemu-user:
#   - aarch64 (arm64): the whole project with warnings as errors, then the
#     C tests and KATs (ctest without the pytest harness, which runs the
#     host's python and openssl, and without the long tests); the parts
#     that fork with threads running say SKIPPED and why (qemu-user's own
#     locks may be held in such a child).  qemu's default CPU ("max") has
#     the SHA3 instructions, so every Arm64 kernel runs (kat_a64*,
#     batch_a64*, core); the a64_choice_* tests, core_cortex_a72 and
#     kat_cortex_a72 set QEMU_CPU to models without them (tests/CMakeLists.txt,
#     docs/arm64.md);
#   - s390x (big-endian): the KAT and core test programs with warnings as
#     errors, the KATs on the portable backend and on portable8 (the 8-way
#     code, whose big-endian path loads a word at a time), and the core
#     tests (every backend against the portable one).
# OpenSSL for each comes from a sysroot of the release's packages,
# downloaded and unpacked by sysroot.sh (never installed; no foreign
# architecture is added to dpkg).
#
# Usage: run.sh [WORKDIR]   (default: build-cross in the source tree)
#   An architecture whose compiler, qemu or packages are missing prints
#   SKIPPED and why, and does not fail the run.  Exit status 1 if a build
#   or a test of an architecture that ran failed.
#   The cross compilers and qemu: apt-get install gcc-aarch64-linux-gnu
#   gcc-s390x-linux-gnu qemu-user-static
set -uo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$src/build-cross}")
jobs=${KSUM_JOBS:-$(nproc)}

# Debian architecture, GNU triplet, qemu's name, what runs
arches=("arm64 aarch64-linux-gnu aarch64 all" "s390x s390x-linux-gnu s390x kat")
failed=0
summary=()

for entry in "${arches[@]}"; do
  read -r arch triplet qarch what <<< "$entry"
  start=$SECONDS
  echo "-- $arch ($triplet)"
  if ! command -v "$triplet-gcc" > /dev/null; then
    echo "SKIPPED $arch: no $triplet-gcc (apt-get install gcc-$triplet)"
    summary+=("$arch: SKIPPED (no compiler)")
    continue
  fi
  if ! command -v "qemu-$qarch-static" > /dev/null && ! command -v "qemu-$qarch" > /dev/null; then
    echo "SKIPPED $arch: no qemu-$qarch-static or qemu-$qarch (apt-get install qemu-user-static)"
    summary+=("$arch: SKIPPED (no qemu)")
    continue
  fi
  root=$work/$arch-sysroot
  if ! why=$("$src/tests/cross/sysroot.sh" "$arch" "$work/$arch-apt" "$root"); then
    echo "SKIPPED $arch: $why"
    summary+=("$arch: SKIPPED (packages)")
    continue
  fi
  echo "$why"
  build=$work/build-$arch
  log=$work/$arch.log
  if ! cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/$triplet.cmake" \
         -DKSUM_SYSROOT="$root" -DCMAKE_BUILD_TYPE=Release -DKSUM_WERROR=ON > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAIL $arch: configure"
    failed=1 summary+=("$arch: FAIL (configure)")
    continue
  fi
  targets=()
  [ "$what" = kat ] && targets=(--target test_kat --target test_core)
  if ! cmake --build "$build" -j"$jobs" "${targets[@]}" >> "$log" 2>&1; then
    grep -E "error|warning" "$log" | head -n 40
    echo "FAIL $arch: build (warnings are errors)"
    failed=1 summary+=("$arch: FAIL (build)")
    continue
  fi
  file -b "$build/tests/test_kat" | cut -d, -f1-2
  if [ "$what" = kat ]; then
    tests=(-R '^(kat(_portable|_portable8)?|core)$')
  else
    tests=(-E '^(pytest.*|install|reproducible)$')
  fi
  if ! KSUM_NO_FORK_WITH_THREADS="qemu-user cannot fork a process with threads running" \
       ctest --test-dir "$build" -LE long "${tests[@]}" --timeout 600 --output-on-failure -V \
       > "$work/$arch-ctest.log" 2>&1; then
    grep -E "Test +#|Failed|FAIL" "$work/$arch-ctest.log" | tail -n 40
    echo "FAIL $arch: tests (log: $work/$arch-ctest.log)"
    failed=1 summary+=("$arch: FAIL (tests)")
    continue
  fi
  grep -h "SKIPPED:" "$work/$arch-ctest.log" | sed 's/^[0-9]*: //' | sort -u
  grep -E "tests passed" "$work/$arch-ctest.log"
  summary+=("$arch: passed in $((SECONDS - start)) s")
done

printf '%s\n' "${summary[@]}"
exit $failed
