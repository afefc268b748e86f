# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that download Debian packages with a private apt
# setup (tests/openssl-versions/fetch.sh, tests/cross/sysroot.sh): the
# archive to download from, and their one-line failure.

fail() {
  echo "$*"
  exit 1
}

# The first Debian archive (not the security one) in the system's sources,
# deb822 or one-line style.
system_mirror() {
  {
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources 2>/dev/null
    awk '/^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|ftp|file):/) { print $i; break } }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
  } | grep -v -- '-security' | grep -E '/debian/?$' | head -n 1
}

mirror=${KSUM_DEBIAN_MIRROR:-$(system_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}
