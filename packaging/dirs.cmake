# SPDX-License-Identifier: Apache-2.0
# Where ksumprov's files go under an install prefix.  Included at configure
# time, to print it, and again at install time, where the prefix may be
# another one (cmake --install --prefix P, cpack).
#
# Set before including: KSUM_MODULES_DIR (the user's choice: empty, absolute,
# or relative to the prefix), KSUM_OSSL_PREFIX, KSUM_OSSL_MODULESDIR and
# KSUM_OSSL_PCDIR and KSUM_OSSL_LIBDIR (libcrypto's, from pkg-config; empty
# if unknown),
# KSUM_LIBDIR, KSUM_INCLUDEDIR and KSUM_DATADIR (GNUInstallDirs' choices).

function(ksum_under prefix dir out)
  if(IS_ABSOLUTE "${dir}")
    set(path "${dir}")
  else()
    set(path "${prefix}/${dir}")
  endif()
  get_filename_component(path "${path}" ABSOLUTE)
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# Sets KSUM_INST_PREFIX, KSUM_INST_MODULESDIR, KSUM_INST_PCDIR, KSUM_INST_LIBDIR,
# KSUM_INST_INCLUDEDIR, KSUM_INST_DATADIR (absolute, without DESTDIR) and
# KSUM_INST_OPENSSL_FINDS_IT (TRUE when the module goes where OpenSSL looks).
function(ksum_install_dirs prefix)
  get_filename_component(prefix "${prefix}" ABSOLUTE)
  set(ossl_prefix "")
  if(KSUM_OSSL_PREFIX)
    get_filename_component(ossl_prefix "${KSUM_OSSL_PREFIX}" ABSOLUTE)
  endif()
  # Only a package for OpenSSL's own prefix (/usr on a distribution) may
  # drop its module into OpenSSL's directory; anywhere else stays inside.
  set(system FALSE)
  if(KSUM_OSSL_MODULESDIR AND prefix STREQUAL ossl_prefix)
    set(system TRUE)
  endif()
  if(NOT KSUM_MODULES_DIR STREQUAL "")
    ksum_under("${prefix}" "${KSUM_MODULES_DIR}" moddir)
  elseif(system)
    set(moddir "${KSUM_OSSL_MODULESDIR}")
  else()
    ksum_under("${prefix}" "${KSUM_LIBDIR}/ossl-modules" moddir)
  endif()
  if(system AND KSUM_OSSL_PCDIR)
    set(pcdir "${KSUM_OSSL_PCDIR}")
  else()
    ksum_under("${prefix}" "${KSUM_LIBDIR}/pkgconfig" pcdir)
  endif()
  # libksumprov.a: beside libcrypto (the multiarch directory) in a package
  if(system AND KSUM_OSSL_LIBDIR)
    set(libdir "${KSUM_OSSL_LIBDIR}")
  else()
    ksum_under("${prefix}" "${KSUM_LIBDIR}" libdir)
  endif()
  ksum_under("${prefix}" "${KSUM_INCLUDEDIR}" incdir)
  ksum_under("${prefix}" "${KSUM_DATADIR}/ksum" datadir)
  set(finds FALSE)
  if(KSUM_OSSL_MODULESDIR)
    get_filename_component(ossl_moddir "${KSUM_OSSL_MODULESDIR}" ABSOLUTE)
    if(moddir STREQUAL ossl_moddir)
      set(finds TRUE)
    endif()
  endif()
  set(KSUM_INST_PREFIX "${prefix}" PARENT_SCOPE)
  set(KSUM_INST_MODULESDIR "${moddir}" PARENT_SCOPE)
  set(KSUM_INST_PCDIR "${pcdir}" PARENT_SCOPE)
  set(KSUM_INST_LIBDIR "${libdir}" PARENT_SCOPE)
  set(KSUM_INST_INCLUDEDIR "${incdir}" PARENT_SCOPE)
  set(KSUM_INST_DATADIR "${datadir}" PARENT_SCOPE)
  set(KSUM_INST_OPENSSL_FINDS_IT ${finds} PARENT_SCOPE)
endfunction()

# What to tell the user about finding the module.
function(ksum_where_message verb)
  set(msg "ksumprov.so ${verb} ${KSUM_INST_MODULESDIR}")
  if(KSUM_INST_OPENSSL_FINDS_IT)
    string(APPEND msg " (OpenSSL's module directory)")
  else()
    if(KSUM_OSSL_MODULESDIR)
      string(APPEND msg ", not OpenSSL's module directory (${KSUM_OSSL_MODULESDIR})")
    else()
      string(APPEND msg " (OpenSSL's module directory is unknown: no pkg-config)")
    endif()
    string(APPEND msg ": run programs with OPENSSL_MODULES=${KSUM_INST_MODULESDIR}")
  endif()
  message(STATUS "${msg}")
  message(STATUS "or with OPENSSL_CONF=${KSUM_INST_DATADIR}/ksumprov.cnf "
          "(or ksumprov-preferred.cnf), which names the module by its path")
endfunction()
