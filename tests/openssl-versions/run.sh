#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ksumprov against OpenSSL 3.5 (Debian 13, trixie) and 4.0 (Debian
# experimental), beside the system's OpenSSL of the main build.
#
# For each version its Debian packages are downloaded (fetch.sh) and
# unpacked into a directory of their own, never installed.  The module,
# ksum and the C tests are built with only that directory's OpenSSL headers
# and libraries, and everything runs through its own dynamic loader, since
# its libcrypto needs a newer C library than the system's.  Then:
#   - the C tests (ctest without the pytest harness, the install and package
#     test, which builds its own copy against the system's OpenSSL, and the
#     long tests),
#     OpenSSL's EVP test data, the comparison with the default provider and,
#     from OpenSSL 3.3, EVP_DigestSqueeze among them;
#   - openssl list: every ksumprov digest and KMAC;
#   - openssl dgst of every ksumprov digest under each of its names, with
#     -xoflen (XOFs) and without; openssl mac for KMAC; ksum; ksum -c of
#     the lines openssl dgst writes.  Outputs are
#     checked against hashlib and tests/python/keccak_ref.py, and, for the
#     names the default provider has too, against the default provider
#     (which also decides whether a dgst without -xoflen must fail).
#
# Usage: run.sh [WORKDIR]   (default: build-versions in the source tree;
#   everything is written there).  A version whose packages cannot be
#   downloaded prints SKIPPED and why, and does not fail the run.
#   Exit status 1 if any check of a version that ran failed.
set -uo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
here=$src/tests/openssl-versions
work=$(realpath -m "${1:-$src/build-versions}")
python=${KSUM_PYTHON:-/usr/bin/python3}
multiarch=$(gcc -print-multiarch)
jobs=$(nproc)

# version, suite, library package
versions=("3.5 trixie libssl3t64" "4.0 experimental libssl4")

# Every name ksumprov must answer to, upstream OpenSSL's spellings included.
digest_names="SHA3-224 SHA3-256 SHA3-384 SHA3-512 SHAKE128 SHAKE256 RAWSHAKE128
  RAWSHAKE256 KECCAK-224 KECCAK-256 KECCAK-384 KECCAK-512 CSHAKE128 CSHAKE256
  CSHAKE-128 CSHAKE-256 PARALLELHASH128 PARALLELHASH256 KANGAROOTWELVE KT128 K12
  KT256 MARSUPILAMIFOURTEEN M14 TURBOSHAKE128 TURBOSHAKE256 TUPLEHASH128 TUPLEHASH256"
mac_names="KMAC128 KMAC-128 KMAC256 KMAC-256"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

failed=0 passed=0
summary=()

fail() {
  echo "FAIL (OpenSSL $label): $*"
  failed=$((failed + 1))
}

check() { # DESCRIPTION GOT EXPECTED
  if [ "$2" = "$3" ]; then
    passed=$((passed + 1))
  else
    fail "$1: got '${2:0:80}', expected '${3:0:80}'"
  fi
}

ossl() {
  OPENSSL_CONF=$dir/empty.cnf "$ld" --library-path "$lib" "$root/usr/bin/openssl" "$@"
}

# The value of a dgst or mac line, lower case; "error" if the command failed.
value() {
  local out
  if out=$("$@" 2> /dev/null); then
    out=${out##*= }
    echo "${out,,}"
  else
    echo error
  fi
}

# The algorithms of one provider in `openssl list` output, one line each,
# names separated by spaces, OIDs dropped.
names_of() { # PROVIDER < list output
  local line
  while IFS= read -r line; do
    [[ $line == *" @ $1" ]] || continue
    line=${line% @ *}
    line=${line#*\{ }
    line=${line% \}}
    line=${line//,/}
    line=$(echo $line | tr ' ' '\n' | grep -v '^[0-9]' | tr '\n' ' ')
    echo "${line% }"
  done
}

has_name() { # NAME LIST
  [[ " $(echo $2) " == *" $1 "* ]]
}

fetch() {
  local reason
  rm -rf "$root"
  if ! reason=$("$here/fetch.sh" "$suite" "$dir/apt" "$root" openssl "$libpkg" \
                  libssl-dev libc6 libzstd1 zlib1g 2> "$dir/fetch.log"); then
    echo "OpenSSL $label: SKIPPED ($reason)"
    summary+=("OpenSSL $label: SKIPPED ($reason)")
    return 1
  fi
  lib=$root/usr/lib/$multiarch
  ld=$(ls "$lib"/ld-linux*.so.* 2> /dev/null | head -n 1)
  [ -n "$ld" ] || { fail "no dynamic loader in $lib"; return 1; }
  return 0
}

# The unpacked openssl runs on the root's libraries alone.
check_root() {
  local outside
  outside=$("$ld" --library-path "$lib" --list "$root/usr/bin/openssl" |
            awk '/=>/ { print $3 }' | grep -v "^$root/" || true)
  [ -z "$outside" ] || fail "openssl needs libraries from outside $root: $outside"
  version=$(ossl version | awk '{ print $2 }')
  [[ $version == "$label".* ]] || { fail "unpacked openssl says '$version'"; return 1; }
  echo "unpacked: OpenSSL $version ($(sed 's/_amd64.deb//' "$dir/fetch.log" | tr '\n' ' '))"
}

# ctest runs the test programs through the emulator: the root's loader.
# (CMake uses it for tests when not cross-compiling as long as the project
# requires a CMake older than 3.29, policy CMP0158.)
build() {
  rm -rf "$build"
  if ! PKG_CONFIG_LIBDIR=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
      cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKSUM_WERROR=ON \
        -DOPENSSL_ROOT_DIR="$root/usr" -DOPENSSL_INCLUDE_DIR="$root/usr/include" \
        -DOPENSSL_CRYPTO_LIBRARY="$lib/libcrypto.so" -DOPENSSL_SSL_LIBRARY="$lib/libssl.so" \
        -DCMAKE_C_FLAGS="-I$root/usr/include/$multiarch" \
        -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined \
        -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--allow-shlib-undefined \
        -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--allow-shlib-undefined \
        "-DCMAKE_CROSSCOMPILING_EMULATOR=$ld;--library-path;$lib" > "$dir/configure.log" 2>&1 ||
     ! cmake --build "$build" -j"$jobs" > "$dir/build.log" 2>&1; then
    tail -n 30 "$dir/configure.log" "$dir/build.log" 2> /dev/null
    fail "configure or build failed (logs in $dir)"
    return 1
  fi
  # The compiler's dependency files name every header it read.
  if grep -rlE --include='*.o.d' "(^| )/usr/include/($multiarch/)?openssl/" "$build" > "$dir/leaks"; then
    fail "built with the system's OpenSSL headers: $(head -n 3 "$dir/leaks" | tr '\n' ' ')"
  fi
  grep -rqF --include='*.o.d' "$root/usr/include/openssl/evp.h" "$build" ||
    fail "no dependency file names $root/usr/include/openssl/evp.h"
}

c_tests() {
  local n line
  # Built with this version's headers, running on its libraries.
  line=$("$ld" --library-path "$lib" "$build/tests/test_evpdata" "$src/tests/vectors/openssl" 2> /dev/null |
         head -n 1)
  [[ $line == "OpenSSL $version (headers: OpenSSL $version "* ]] || line="not $version: $line"
  check "test programs' OpenSSL" "${line%% (*}" "OpenSSL $version"
  n=$(ctest --test-dir "$build" -N -LE long -E '^(pytest.*|install)$' | awk '/Total Tests:/ { print $3 }')
  if [[ ! $label < 3.3 ]]; then
    ctest --test-dir "$build" -N -R '^squeeze$' | grep -q 'Total Tests: 1' ||
      fail "the EVP_DigestSqueeze test was not built"
  fi
  if ctest --test-dir "$build" -LE long -E '^(pytest.*|install)$' --output-on-failure > "$dir/ctest.log" 2>&1; then
    echo "C tests: all $n passed"
    passed=$((passed + n))
  else
    grep -E '^(FAIL |[a-z_]+: .*(passed|failed|run through))|tests passed|\*\*\*Failed' "$dir/ctest.log" | head -n 60
    fail "C tests: $(grep 'tests passed' "$dir/ctest.log") (log: $dir/ctest.log)"
  fi
}

# Expected values for the queries in $queries, into the array want.
expected() {
  local q v
  declare -gA want=()
  while read -r q v; do
    want[$q]=$v
  done < <(PYTHONDONTWRITEBYTECODE=1 "$python" "$here/expect.py" "$data" $queries)
}

cli_list() {
  check "openssl list shows ksumprov" "$([ -n "$k_digests" ] && echo yes)" yes
  for n in $digest_names; do
    check "openssl list -digest-algorithms: $n from ksumprov" \
      "$(has_name "$n" "$k_digests" && echo listed)" listed
  done
  for n in $mac_names; do
    check "openssl list -mac-algorithms: $n from ksumprov" \
      "$(has_name "$n" "$k_macs" && echo listed)" listed
  done
}

cli_dgst() {
  local load=(-provider-path "$build" -provider ksumprov -provider default
              -propquery provider=ksumprov)
  local line n got ref
  while read -r line; do
    for n in $line; do
      [[ $n == TUPLEHASH* ]] && continue # dgst's reads would be the tuple's elements
      # a tree in parts takes a range or chaining values, not a message
      # (tests/c/test_parts.c runs among the C tests)
      [[ $n == *-CV || $n == *-FINAL ]] && continue
      if [[ $n != SHA3-* && $n != KECCAK-* ]]; then
        check "dgst -$n -xoflen 75" "$(value ossl dgst "${load[@]}" "-$n" -xoflen 75 "$data")" \
          "${want[$n:75]:-no oracle}"
      fi
      got=$(value ossl dgst "${load[@]}" "-$n" "$data")
      if has_name "$n" "$d_digests"; then
        ref=$(value ossl dgst "-$n" "$data")
        check "dgst -$n (as the default provider's)" "$got" "$ref"
      else
        check "dgst -$n" "$got" "${want[$n]:-no oracle}"
      fi
    done
  done <<< "$k_digests"
}

cli_mac() {
  local load=(-provider-path "$build" -provider ksumprov -provider default
              -propquery provider=ksumprov)
  local m opts got
  for m in $mac_names; do
    for opts in "" "-macopt size:100 -macopt xof:1"; do
      got=$(value ossl mac "${load[@]}" -macopt "hexkey:$key" -macopt custom:tag $opts -in "$data" "$m")
      check "mac $m $opts (as the default provider's)" "$got" \
        "$(value ossl mac -macopt "hexkey:$key" -macopt custom:tag $opts -in "$data" "$m")"
      if [ -z "$opts" ]; then
        check "mac $m" "$got" "${want[${m/-/}:$((${m: -3} / 4)):0:$key:tag]}"
      else
        check "mac $m $opts" "$got" "${want[${m/-/}:100:1:$key:tag]}"
      fi
    done
  done
}

cli_ksum() {
  local ksum=("$ld" --library-path "$lib" "$build/ksum")
  check "ksum -a KT256 -n 75" "$("${ksum[@]}" -a KT256 -n 75 "$data" | awk '{ print $1 }')" \
    "${want[KT256:75]}"
  check "ksum --sha3-256" "$("${ksum[@]}" --sha3-256 "$data" | awk '{ print $1 }')" \
    "${want[SHA3-256]}"
}

# ksum -c reads every line this version's openssl dgst writes for the
# algorithms ksum has: each ksumprov digest under each of its names, and
# each of the default provider's that ksum knows, tagged (with and without
# -xoflen, and with -c's colons) and with -r (checked with -a NAME).  From
# 3.4, dgst refuses an XOF without -xoflen: those lines are simply absent.
# TupleHash is left out: dgst's reads of the data would be its elements.
cli_ksum_check() {
  local ksum=("$ld" --library-path "$lib" "$build/ksum")
  local load=(-provider-path "$build" -provider ksumprov -provider default
              -propquery provider=ksumprov)
  local sums=$dir/dgst.sums line n from args lines got
  : > "$sums"
  for from in ksumprov default; do
    [ $from = ksumprov ] && args=("${load[@]}") || args=()
    while read -r line; do
      for n in $line; do
        [[ $n == TUPLEHASH* ]] && continue
        "${ksum[@]}" -a "$n" /dev/null > /dev/null 2>&1 || continue
        ossl dgst "${args[@]}" "-$n" "$data" >> "$sums" 2> /dev/null
        ossl dgst "${args[@]}" -c "-$n" "$data" >> "$sums" 2> /dev/null
        if [[ $n != SHA3-* && $n != KECCAK-* ]]; then
          ossl dgst "${args[@]}" "-$n" -xoflen 40 "$data" >> "$sums"
          ossl dgst "${args[@]}" -r "-$n" -xoflen 24 "$data" > "$dir/dgst.r"
        else
          ossl dgst "${args[@]}" -r "-$n" "$data" > "$dir/dgst.r"
        fi
        check "ksum -a $n -c of openssl dgst -r -$n ($from)" \
          "$("${ksum[@]}" -a "$n" -c --strict "$dir/dgst.r" 2>&1)" "$data: OK"
      done
    done <<< "$([ $from = ksumprov ] && echo "$k_digests" || echo "$d_digests")"
  done
  lines=$(wc -l < "$sums")
  got=$("${ksum[@]}" -c --strict "$sums" 2>&1 | grep -c ": OK$")
  check "ksum -c of openssl dgst's $lines tagged lines" "$got" "$lines"
}

cli_checks() {
  local line n
  data=$dir/data
  "$python" -c 'import sys; sys.stdout.buffer.write(bytes((7 * i + 3) % 251 for i in range(9100)))' \
    > "$data"
  k_digests=$(ossl list -digest-algorithms -provider-path "$build" -provider ksumprov | names_of ksumprov)
  k_macs=$(ossl list -mac-algorithms -provider-path "$build" -provider ksumprov | names_of ksumprov)
  d_digests=$(ossl list -digest-algorithms | names_of default)
  queries="SHA3-256 KT256:75"
  while read -r line; do
    for n in $line; do
      queries+=" $n $n:75"
    done
  done <<< "$k_digests"
  for n in 128 256; do
    queries+=" KMAC$n:$((n / 4)):0:$key:tag KMAC$n:100:1:$key:tag"
  done
  expected
  cli_list
  cli_dgst
  cli_mac
  cli_ksum
  cli_ksum_check
}

one_version() {
  local start=$SECONDS before=$failed
  read -r label suite libpkg <<< "$1"
  dir=$work/openssl-$label
  root=$dir/root
  build=$dir/build
  echo "== OpenSSL $label (Debian $suite)"
  mkdir -p "$dir" && : > "$dir/empty.cnf"
  fetch || return 0
  check_root || { summary+=("OpenSSL $label: unusable packages"); return 0; }
  if build; then
    c_tests
    cli_checks
  fi
  summary+=("OpenSSL $version: $((failed - before)) failed, $((SECONDS - start)) s")
}

for v in "${versions[@]}"; do
  one_version "$v"
done
echo "== OpenSSL versions: $passed checks passed, $failed failed"
printf '%s\n' "${summary[@]}"
[ "$failed" -eq 0 ]
