# SPDX-License-Identifier: Apache-2.0
# Cross build for aarch64-linux-gnu with Debian's cross compiler (gcc-aarch64-linux-gnu) and
# OpenSSL from a sysroot of unpacked aarch64-linux-gnu packages (tests/cross/sysroot.sh):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DKSUM_SYSROOT=/path/to/sysroot
# Tests run under qemu-user (qemu-aarch64-static or qemu-aarch64), which finds the
# C library and libcrypto in the sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(KSUM_TRIPLET aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
