# SPDX-License-Identifier: Apache-2.0
# Shared by the toolchain files: CMAKE_SYSTEM_PROCESSOR and KSUM_TRIPLET
# are set.  KSUM_SYSROOT (cache or environment) holds the target's unpacked
# libssl-dev, libssl3, libc6 and libgcc-s1; the cross compiler's own C
# library (/usr/<triplet>) is used to link.
set(CMAKE_C_COMPILER ${KSUM_TRIPLET}-gcc)
if(NOT KSUM_SYSROOT AND DEFINED ENV{KSUM_SYSROOT})
  set(KSUM_SYSROOT "$ENV{KSUM_SYSROOT}")
endif()
set(KSUM_SYSROOT "${KSUM_SYSROOT}" CACHE PATH "Unpacked target packages (OpenSSL)")
set(CMAKE_FIND_ROOT_PATH ${KSUM_SYSROOT} /usr/${KSUM_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE ${KSUM_TRIPLET})
if(KSUM_SYSROOT)
  # OpenSSL's configuration.h is in the multiarch include directory.
  set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES ${KSUM_SYSROOT}/usr/include/${KSUM_TRIPLET})
  # libcrypto's own dependencies are resolved in the sysroot too (not in
  # CMAKE_*_LINKER_FLAGS, which would turn off KSUM_HARDEN's defaults).
  set(CMAKE_C_STANDARD_LIBRARIES
      "-Wl,-rpath-link,${KSUM_SYSROOT}/usr/lib/${KSUM_TRIPLET}:${KSUM_SYSROOT}/lib/${KSUM_TRIPLET}")
endif()
# Target programs (try_run, ctest) run under qemu-user with the sysroot
# as the root of absolute paths (the dynamic loader, /lib, /usr/lib).
find_program(KSUM_QEMU NAMES qemu-${CMAKE_SYSTEM_PROCESSOR}-static
                             qemu-${CMAKE_SYSTEM_PROCESSOR})
if(KSUM_QEMU)
  set(ksum_prefix ${KSUM_SYSROOT})
  if(NOT ksum_prefix)
    set(ksum_prefix /usr/${KSUM_TRIPLET})
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${KSUM_QEMU} -L ${ksum_prefix})
endif()
