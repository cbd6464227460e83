# `cpack -G DEB` (or plain `cpack`) in a build folder: a Debian package of
# what `cmake --install` installs (cmake/install_app.cmake, and the library's
# headers and CMake package, cmake/install.cmake) under /usr:
# metawarp_<version>_<arch>.deb. Its Depends are computed by dpkg-shlibdeps
# from the binary where that tool exists; elsewhere they are the runtime
# packages of the libraries the build found (Debian 12 names).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME metawarp)
set(CPACK_PACKAGE_VENDOR "the metawarp authors")
set(CPACK_PACKAGE_CONTACT "the metawarp authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU metagenomic classifier (MetaCache-style minhash databases, Kraken2-compatible outputs)")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "metawarp builds minhash databases from reference genomes and classifies reads against "
       "them, on NVIDIA GPUs or on the CPU with identical results, writing per-read results, "
       "Kraken2-style reports and abundances. Also the header-only GPU hash-table library it uses.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
find_program(METAWARP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(METAWARP_DPKG_SHLIBDEPS)
  # (The CUDA runtime a CUDA build carries is in the package itself,
  # cmake/install_app.cmake: found through the binary's RUNPATH, no Depends.)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(METAWARP_DEPENDS "libc6, libstdc++6, libgcc-s1, zlib1g, libbz2-1.0, libzstd1")
  if(ISAL_INCLUDE_DIR AND ISAL_LIBRARY)
    string(APPEND METAWARP_DEPENDS ", libisal2")
  endif()
  if(LIBDEFLATE_INCLUDE_DIR AND LIBDEFLATE_LIBRARY)
    string(APPEND METAWARP_DEPENDS ", libdeflate0")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${METAWARP_DEPENDS}")
endif()
include(CPack)
