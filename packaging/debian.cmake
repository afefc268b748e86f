# SPDX-License-Identifier: Apache-2.0
# Debian packages, one per CPack component: `cpack -G DEB` in the build
# tree makes
#   ksum_<version>_<arch>.deb                  the command and its man page
#   openssl-provider-ksum_<version>_<arch>.deb ksumprov.so and its confs
#   libksumprov-dev_<version>_<arch>.deb       ksumprov.h, ksumprov.pc and
#                                              libksumprov.a
# each with its -dbgsym .ddeb (the debug symbols split out of the stripped
# binaries), Debian's copyright file and a changelog.gz, checked by lintian
# in tests/python/test_install.py (the .ddebs as well).  See docs/packaging.md.

find_program(KSUM_GZIP gzip)
if(NOT KSUM_GZIP)
  message(FATAL_ERROR "gzip is needed to compress the man page and the changelog")
endif()
# gzip -9n: no name or time stamp in the header, so the same bytes every
# build.  The changelog loses its comment lines (the SPDX line).
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/doc/ksum.1.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/doc
  COMMAND sh -c "'${KSUM_GZIP}' -9n -c '${CMAKE_SOURCE_DIR}/cli/ksum.1' > '${CMAKE_BINARY_DIR}/doc/ksum.1.gz'"
  DEPENDS ${CMAKE_SOURCE_DIR}/cli/ksum.1 VERBATIM)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/doc/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/doc
  COMMAND sh -c "sed '/^#/d' '${CMAKE_SOURCE_DIR}/packaging/debian/changelog' | '${KSUM_GZIP}' -9n > '${CMAKE_BINARY_DIR}/doc/changelog.gz'"
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog VERBATIM)
add_custom_target(ksum_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/doc/ksum.1.gz
                                        ${CMAKE_BINARY_DIR}/doc/changelog.gz)

set(KSUM_DEB_cli ksum)
set(KSUM_DEB_provider openssl-provider-ksum)
set(KSUM_DEB_dev libksumprov-dev)
# Only in the packages (a component install): an install from source has
# LICENSE in share/doc/ksum instead.
foreach(component cli provider dev)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright
                ${CMAKE_BINARY_DIR}/doc/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${KSUM_DEB_${component}}
          COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()

set(CPACK_PACKAGE_NAME ksum)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "ksum maintainers")
set(CPACK_PACKAGE_CONTACT "ksum maintainers <maintainers@users.noreply.a-seed-b319e550.example>")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack puts it before each
# component's description, so every package got the same synopsis and its
# own first line became the long description's.
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_CURRENT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Install with DESTDIR, so that the install-time code sees the real prefix
# (/usr) and writes the module's real path into the confs.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli provider dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Stripped binaries; their symbols and debug information go to the
# <package>-dbgsym .ddeb beside (full with -DCMAKE_BUILD_TYPE=RelWithDebInfo).
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# CPack's .ddebs need two repairs before lintian accepts them
# (packaging/fix-ddeb.cmake), which need dpkg-deb and CMake 3.19; without
# them the packages are made as before, the .ddebs unrepaired.
find_program(KSUM_DPKG_DEB dpkg-deb)
if(KSUM_DPKG_DEB AND NOT CMAKE_VERSION VERSION_LESS 3.19)
  set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/packaging/fix-ddeb.cmake)
else()
  message(WARNING "no dpkg-deb or CMake before 3.19: the -dbgsym .ddebs of cpack -G DEB "
                  "keep CPack's md5sums and have no /usr/share/doc link (lintian errors)")
endif()
find_program(KSUM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(KSUM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # libc6, libssl3 with their versions
  set(KSUM_DEB_RUNTIME_DEPENDS "")
else()
  # What dpkg-shlibdeps gives on Debian 12.
  set(KSUM_DEB_RUNTIME_DEPENDS "libc6 (>= 2.34), libssl3 (>= 3.0.0)")
endif()

set(CPACK_DEBIAN_CLI_PACKAGE_NAME ksum)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${KSUM_DEB_RUNTIME_DEPENDS}")
set(CPACK_DEBIAN_CLI_DESCRIPTION "Keccak-family checksums of files (SHA-3, KangarooTwelve, KMAC...)
ksum computes SHA-3, SHAKE, cSHAKE, KMAC, ParallelHash, TupleHash,
TurboSHAKE, KangarooTwelve, KT256 and MarsupilamiFourteen checksums of
files and checks lists of them, in the style of sha256sum.  It hashes
through OpenSSL 3 with the ksumprov provider built in, several files at
once and large files on several threads.")

set(CPACK_DEBIAN_PROVIDER_PACKAGE_NAME openssl-provider-ksum)
set(CPACK_DEBIAN_PROVIDER_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PROVIDER_PACKAGE_DEPENDS "${KSUM_DEB_RUNTIME_DEPENDS}")
set(CPACK_DEBIAN_PROVIDER_DESCRIPTION "OpenSSL 3 provider for the Keccak family (ksumprov)
ksumprov.so gives any program that uses OpenSSL 3 SHA-3, SHAKE, RawSHAKE,
Keccak, cSHAKE, KMAC, ParallelHash, TupleHash, TurboSHAKE, KangarooTwelve,
KT256 and MarsupilamiFourteen, on its own Keccak-p[1600] kernels.  It is
installed in OpenSSL's module directory, where -provider ksumprov finds it.
/usr/share/ksum/ksumprov.cnf activates it beside the default provider and
/usr/share/ksum/ksumprov-preferred.cnf also makes it preferred, both on top
of the system's OpenSSL configuration.  The package changes no system
configuration.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libksumprov-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libssl-dev (>= 3.0.0)")
set(CPACK_COMPONENT_DEV_DEPENDS provider)   # the .pc names its modulesdir
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_DEV_DESCRIPTION "OpenSSL 3 provider for the Keccak family (development files)
The header ksumprov.h (the provider's parameters and its entry point
ksumprov_init), the pkg-config file ksumprov.pc, and libksumprov.a, the
provider as a static library: a program links it in and registers it
with OSSL_PROVIDER_add_builtin(), as ksum does, instead of loading
ksumprov.so.")
include(CPack)
