# SPDX-License-Identifier: Apache-2.0
# Cross build for s390x-linux-gnu with Debian's cross compiler (gcc-s390x-linux-gnu) and
# OpenSSL from a sysroot of unpacked s390x-linux-gnu packages (tests/cross/sysroot.sh):
#   cmake -S . -B build-s390x -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x-linux-gnu.cmake \
#         -DKSUM_SYSROOT=/path/to/sysroot
# Tests run under qemu-user (qemu-s390x-static or qemu-s390x), which finds the
# C library and libcrypto in the sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(KSUM_TRIPLET s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
