# SPDX-License-Identifier: Apache-2.0
# Install-time part of `cmake --install` (and of cpack): everything whose
# place or content depends on the install prefix, which may be given only
# now.  The install(CODE) before this script sets the inputs of dirs.cmake,
# KSUM_SOURCE_DIR, KSUM_MODULE_FILE, KSUM_STATIC_FILE, KSUM_VERSION,
# KSUM_STRIP and KSUM_INSTALL_PART: "provider" (the module and the confs
# naming it) or "dev" (libksumprov.a and the .pc), one component each of
# the Debian packages.
include("${KSUM_SOURCE_DIR}/packaging/dirs.cmake")
ksum_install_dirs("${CMAKE_INSTALL_PREFIX}")

# A file made from a template at install time, written straight to its
# place (nothing is written to the build tree) and recorded in the manifest
# without DESTDIR, as file(INSTALL) records.
macro(ksum_install_generated template path)
  file(READ "${KSUM_SOURCE_DIR}/packaging/${template}" ksum_text)
  string(CONFIGURE "${ksum_text}" ksum_text @ONLY)
  get_filename_component(ksum_dir "$ENV{DESTDIR}${path}" DIRECTORY)
  file(MAKE_DIRECTORY "${ksum_dir}")
  message(STATUS "Installing: $ENV{DESTDIR}${path}")
  file(WRITE "$ENV{DESTDIR}${path}" "${ksum_text}")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${path}")
endmacro()

if(KSUM_INSTALL_PART STREQUAL "provider")
  file(INSTALL DESTINATION "${KSUM_INST_MODULESDIR}" TYPE MODULE
       FILES "${KSUM_MODULE_FILE}")
  if(CMAKE_INSTALL_DO_STRIP AND KSUM_STRIP)
    execute_process(COMMAND "${KSUM_STRIP}" "$ENV{DESTDIR}${KSUM_INST_MODULESDIR}/ksumprov.so")
  endif()
  set(KSUM_MODULE_PATH "${KSUM_INST_MODULESDIR}/ksumprov.so")
  foreach(conf ksumprov ksumprov-preferred)
    set(KSUM_CONF_PATH "${KSUM_INST_DATADIR}/${conf}.cnf")
    ksum_install_generated(${conf}.cnf.in "${KSUM_CONF_PATH}")
  endforeach()
  ksum_where_message("is installed in")
  return()
endif()

# "dev": the static library, beside libcrypto in a package for OpenSSL's
# prefix, and the .pc naming it.
file(INSTALL DESTINATION "${KSUM_INST_LIBDIR}" TYPE STATIC_LIBRARY
     FILES "${KSUM_STATIC_FILE}")
if(CMAKE_INSTALL_DO_STRIP AND KSUM_STRIP)
  get_filename_component(ksum_name "${KSUM_STATIC_FILE}" NAME)
  execute_process(COMMAND "${KSUM_STRIP}" --strip-debug --enable-deterministic-archives
                          "$ENV{DESTDIR}${KSUM_INST_LIBDIR}/${ksum_name}")
endif()

# pkg-config: paths under the prefix are written relative to ${prefix}.
set(KSUM_PC_PREFIX "${KSUM_INST_PREFIX}")
foreach(v LIBDIR INCLUDEDIR MODULESDIR)
  set(KSUM_PC_${v} "${KSUM_INST_${v}}")
  string(FIND "${KSUM_PC_${v}}/" "${KSUM_INST_PREFIX}/" at)
  if(at EQUAL 0 AND NOT KSUM_INST_PREFIX STREQUAL "/")
    string(LENGTH "${KSUM_INST_PREFIX}" n)
    string(SUBSTRING "${KSUM_PC_${v}}" ${n} -1 rest)
    set(KSUM_PC_${v} "\${prefix}${rest}")
  endif()
endforeach()
ksum_install_generated(ksumprov.pc.in "${KSUM_INST_PCDIR}/ksumprov.pc")
