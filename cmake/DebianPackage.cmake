# `cpack -G DEB`: a Debian package of what `cmake --install` installs, under
# /usr. Its dependencies: the shared libraries the binary links, as
# dpkg-shlibdeps reads them from the binary (the list below where it is
# missing), and the very valgrind release whose core the tool is built
# from, since the tool's core and valgrind's preload must match; rr is
# recommended (the rr engine, where hardware counters exist).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME trms)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "trms developers <trms@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "record a program once, then analyze that exact execution")
set(CPACK_PACKAGE_DESCRIPTION
    "Input-sensitive profiles (how each routine's cost grows with its input,\nby RMS and TRMS), the input other threads and the kernel produced, and\nexact reuse distances, from one recording made with Valgrind, ptrace or rr.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # xz takes a minute over the static tool
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rr")

find_program(DPKG_SHLIBDEPS dpkg-shlibdeps)
if(DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(trms_library_depends "")
else()
  set(trms_library_depends "libc6, libcapstone4, libdw1, liblmdb0, libzstd1, ")
endif()
execute_process(COMMAND dpkg-query -W -f=\${Version} valgrind
                OUTPUT_VARIABLE valgrind_deb_version ERROR_QUIET RESULT_VARIABLE no_valgrind)
if(NOT no_valgrind AND valgrind_deb_version MATCHES "^(([0-9]+:)?([0-9]+)\\.([0-9]+)\\.([0-9]+))")
  math(EXPR next_patch "${CMAKE_MATCH_5} + 1")
  set(trms_valgrind_depends
      "valgrind (>= ${CMAKE_MATCH_1}), valgrind (<< ${CMAKE_MATCH_2}${CMAKE_MATCH_3}.${CMAKE_MATCH_4}.${next_patch}~)")
else()
  set(trms_valgrind_depends "valgrind")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${trms_library_depends}${trms_valgrind_depends}")
include(CPack)
