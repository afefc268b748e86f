#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Downloads Debian packages and unpacks them into a directory, leaving the
# system's apt setup alone: a private sources list (suites trixie and
# experimental of the Debian archive the system's sources name), private
# package lists and cache, no preferences; nothing is installed.
#
# Usage: fetch.sh SUITE WORKDIR ROOT PACKAGE...
#   Each package comes from SUITE when SUITE has it, else from the other
#   suite (experimental holds only what is newer than unstable).  Package
#   lists and .deb files go to WORKDIR, the unpacked files to ROOT.
#   On failure prints one line saying why on stdout and exits 1.
#   KSUM_DEBIAN_MIRROR overrides the archive (default: the system's).
set -uo pipefail

suite=$1 work=$2 root=$3
shift 3

# fail, system_mirror and $mirror
. "$(dirname "${BASH_SOURCE[0]}")/../debian-archive.sh"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
signed=""
[ -r "$keyring" ] && signed="[signed-by=$keyring] "

mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$root" ||
  fail "cannot create $work"
for s in trixie experimental; do
  echo "deb ${signed}${mirror} $s main"
done > "$work/sources.list"
opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
      -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
      -o "APT::Default-Release=$suite" -o Debug::NoLocking=1 -q)
# apt hands downloads to its _apt user, who cannot write to our directory.
[ "$(id -u)" = 0 ] && opts+=(-o APT::Sandbox::User=root)

# apt-get update succeeds with warnings when the archive cannot be
# reached: the package list it wrote is the proof.
rm -rf "$work/lists"
mkdir -p "$work/lists/partial"
out=$(apt-get "${opts[@]}" update 2>&1)
if ! ls "$work"/lists/*_dists_"${suite}"_*Packages* > /dev/null 2>&1; then
  fail "apt-get update from $mirror ($suite) failed: $(echo "$out" | grep -E '^(E|W):' | head -n 1)"
fi
rm -f "$work"/debs/*.deb
if ! out=$(cd "$work/debs" && apt-get "${opts[@]}" download "$@" 2>&1); then
  fail "apt-get download from $suite failed: $(echo "$out" | grep -E '^E:' | head -n 1)"
fi
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$root" || fail "cannot unpack $deb"
done
ls "$work"/debs/*.deb | sed 's|.*/||' >&2
