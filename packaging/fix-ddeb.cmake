# SPDX-License-Identifier: Apache-2.0
# CPack post-build script (CPACK_POST_BUILD_SCRIPTS, packaging/debian.cmake):
# repairs the -dbgsym .ddeb files CPack's DEB generator makes (CMake 3.25,
# Debian 12), which lintian rejects:
#   - their md5sums name each file by its absolute path in the build tree,
#     not relative to the package root (md5sums-lists-nonexistent-file,
#     file-missing-in-md5sums), so they also differ from one build
#     directory to the next;
#   - they have no /usr/share/doc entry (no-copyright-file, no-changelog):
#     Debian's own dbgsym packages carry the symbolic link
#     usr/share/doc/<package>-dbgsym -> <package>, the package they depend on.
# Each .ddeb is unpacked with dpkg-deb -R, given both, and built again
# with the owners root/root; SOURCE_DATE_EPOCH, when set, is the time of
# the new link and clamps every other, as dpkg-deb does.

find_program(KSUM_DPKG_DEB dpkg-deb)
foreach(ddeb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT ddeb MATCHES "\\.ddeb$")
    continue()
  endif()
  if(NOT KSUM_DPKG_DEB)
    message(WARNING "no dpkg-deb: ${ddeb} is left as CPack made it")
    continue()
  endif()
  set(root "${ddeb}.d")
  file(REMOVE_RECURSE "${root}")
  execute_process(COMMAND "${KSUM_DPKG_DEB}" -R "${ddeb}" "${root}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${ddeb} failed")
  endif()

  file(STRINGS "${root}/DEBIAN/control" package REGEX "^Package: ")
  string(REGEX REPLACE "^Package: (.*)-dbgsym$" "\\1" package "${package}")
  file(MAKE_DIRECTORY "${root}/usr/share/doc")
  file(CREATE_LINK "${package}" "${root}/usr/share/doc/${package}-dbgsym" SYMBOLIC)

  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${root}" "${root}/usr/*")
  list(SORT files)
  set(sums "")
  foreach(f IN LISTS files)
    if(NOT IS_SYMLINK "${root}/${f}")
      file(MD5 "${root}/${f}" md5)
      string(APPEND sums "${md5}  ${f}\n")
    endif()
  endforeach()
  file(WRITE "${root}/DEBIAN/md5sums" "${sums}")

  execute_process(COMMAND "${KSUM_DPKG_DEB}" --root-owner-group -b "${root}" "${ddeb}"
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  file(REMOVE_RECURSE "${root}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -b ${ddeb} failed")
  endif()
endforeach()
