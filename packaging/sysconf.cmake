# SPDX-License-Identifier: Apache-2.0
# Sets KSUM_SYSTEM_OPENSSL_CONF, the system's openssl.cnf that the confs
# .include, and KSUM_SYSTEM_OPENSSL_INIT, the initialization section it
# names ("openssl_conf = ..."), to which the confs add ksumprov.  A builder
# may give either (-D).
#
# The file is OPENSSLDIR/openssl.cnf of the libcrypto ksum is built with:
# OPENSSL_info(OPENSSL_INFO_CONFIG_DIR) from a test program when it can run
# here, else `openssl version -d` (a cross build: the build machine's,
# which on Debian is the same /usr/lib/ssl), else /usr/lib/ssl.
if(NOT KSUM_SYSTEM_OPENSSL_CONF)
  set(ksum_dir "")
  if(NOT CMAKE_CROSSCOMPILING OR CMAKE_CROSSCOMPILING_EMULATOR)
    set(ksum_src ${CMAKE_BINARY_DIR}/CMakeFiles/ksum_opensslinfo.c)
    file(WRITE ${ksum_src} "#include <stdio.h>\n#include <openssl/crypto.h>\n"
         "int main(void) { const char *d = OPENSSL_info(OPENSSL_INFO_CONFIG_DIR);\n"
         "  if (d == NULL) return 1; printf(\"%s\", d); return 0; }\n")
    try_run(ksum_run_rc ksum_compiled ${CMAKE_BINARY_DIR}/CMakeFiles/ksum_opensslinfo
            ${ksum_src}
            CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${OPENSSL_INCLUDE_DIR}"
            LINK_LIBRARIES OpenSSL::Crypto
            RUN_OUTPUT_VARIABLE ksum_out)
    if(ksum_compiled AND ksum_run_rc EQUAL 0)
      set(ksum_dir "${ksum_out}")
    endif()
  endif()
  if(ksum_dir STREQUAL "")
    find_program(KSUM_OPENSSL_PROGRAM openssl)
    if(KSUM_OPENSSL_PROGRAM)
      execute_process(COMMAND ${KSUM_OPENSSL_PROGRAM} version -d
                      OUTPUT_VARIABLE ksum_out RESULT_VARIABLE ksum_rc ERROR_QUIET)
      if(ksum_rc EQUAL 0 AND ksum_out MATCHES "OPENSSLDIR: \"([^\"]+)\"")
        set(ksum_dir "${CMAKE_MATCH_1}")
      endif()
    endif()
  endif()
  if(ksum_dir STREQUAL "")
    set(ksum_dir /usr/lib/ssl)
  endif()
  set(KSUM_SYSTEM_OPENSSL_CONF "${ksum_dir}/openssl.cnf" CACHE FILEPATH
      "The system's OpenSSL configuration, which the installed confs include")
endif()

# The section the default section's last "openssl_conf =" names, as OpenSSL
# reads it (the default section is what comes before the first [section]
# header, or a [default] one); OpenSSL's own openssl.cnf and Debian's name
# openssl_init, which is taken when the file does not say.
if(NOT KSUM_SYSTEM_OPENSSL_INIT)
  set(ksum_init openssl_init)
  if(EXISTS "${KSUM_SYSTEM_OPENSSL_CONF}")
    file(STRINGS "${KSUM_SYSTEM_OPENSSL_CONF}" ksum_lines)
    set(ksum_section default)
    foreach(line IN LISTS ksum_lines)
      if(line MATCHES "^[ \t]*\\[[ \t]*([^] \t]+)[ \t]*\\]")
        set(ksum_section "${CMAKE_MATCH_1}")
      elseif(ksum_section STREQUAL "default"
             AND line MATCHES "^[ \t]*openssl_conf[ \t]*=[ \t]*([^ \t#]+)")
        set(ksum_init "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  set(KSUM_SYSTEM_OPENSSL_INIT "${ksum_init}")   # worked out again at each configure
endif()
message(STATUS "The confs include ${KSUM_SYSTEM_OPENSSL_CONF} and add ksumprov to its "
        "[${KSUM_SYSTEM_OPENSSL_INIT}]")
