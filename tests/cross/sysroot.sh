#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes a sysroot for another architecture from the Debian packages of the
# system's release (the C library, libgcc, OpenSSL's libraries and
# headers): downloaded with a private apt setup (its own sources list,
# package lists, cache and an empty dpkg status, no foreign architecture
# added to the system) and unpacked with dpkg -x; nothing is installed.
#
# Usage: sysroot.sh ARCH WORKDIR SYSROOT   (ARCH: a Debian architecture)
#   On failure prints one line saying why on stdout and exits 1.
#   KSUM_DEBIAN_MIRROR overrides the archive (default: the system's).
set -uo pipefail

arch=$1 work=$2 root=$3
packages=(libc6 libgcc-s1 libssl3 libssl-dev)

# fail, system_mirror and $mirror
. "$(dirname "${BASH_SOURCE[0]}")/../debian-archive.sh"
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
suite=${suite:-bookworm}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
signed="arch=$arch"
[ -r "$keyring" ] && signed="$signed signed-by=$keyring"

mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" || fail "cannot create $work"
echo "deb [$signed] $mirror $suite main" > "$work/sources.list"
: > "$work/status"
opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
      -o "Dir::State::status=$work/status"
      -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
      -o "APT::Architecture=$arch" -o "APT::Architectures=$arch" -o Debug::NoLocking=1 -q)
# apt hands downloads to its _apt user, who cannot write to our directory.
[ "$(id -u)" = 0 ] && opts+=(-o APT::Sandbox::User=root)

out=$(apt-get "${opts[@]}" update 2>&1)
ls "$work"/lists/*_dists_"${suite}"_*Packages* > /dev/null 2>&1 ||
  fail "apt-get update from $mirror ($suite, $arch) failed: $(echo "$out" | grep -E '^(E|W):' | head -n 1)"
rm -f "$work"/debs/*.deb
if ! out=$(cd "$work/debs" && apt-get "${opts[@]}" download "${packages[@]}" 2>&1); then
  fail "apt-get download ${packages[*]} ($arch) failed: $(echo "$out" | grep -E '^(E|W):' | head -n 1)"
fi
rm -rf "$root"
mkdir -p "$root"
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$root" || fail "cannot unpack $deb"
done
# The unpacked libcrypto.so and libc.so are links or scripts naming
# absolute paths: they resolve inside the sysroot with --sysroot, and
# qemu-user's -L prefix finds /lib/... there.
echo "sysroot for $arch: $(cd "$work/debs" && ls | tr '\n' ' ')"
