# `cmake --install` of the application, under the prefix (GNUInstallDirs):
#   bin/metawarp
#   share/man/man1/metawarp.1, metawarp-{build,query,info,profile-db,serve,kraken2}.1   (docs/man/)
#   share/bash-completion/completions/metawarp                  (completions/)
#   share/doc/metawarp/: README.md, CHANGELOG.md, CITATION.cff, LICENSE, docs/*.md
# A CUDA build also installs the CUDA runtime library it links (NVIDIA's
# libcudart, redistributable with applications) into lib/metawarp/, found
# through the binary's RUNPATH ($ORIGIN, so the tree may move): the installed
# binary, and the Debian package made of it (cmake/package.cmake), start on a
# host without the CUDA toolkit and run on the CPU there.
# The library's own rules are cmake/install.cmake.
install(TARGETS metawarp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# metawarp-mpi (built where MPI is found) beside it: `metawarp query --mpi`
# runs it from the binary's own folder.
if(TARGET metawarp-mpi)
  install(TARGETS metawarp-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
file(GLOB METAWARP_MAN_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.1)
install(FILES ${METAWARP_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/completions/metawarp.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME metawarp)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/CITATION.cff ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB METAWARP_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${METAWARP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

if(METAWARP_CUDA)
  get_target_property(METAWARP_CUDART CUDA::cudart IMPORTED_LOCATION)
  get_filename_component(METAWARP_CUDART_DIR "${METAWARP_CUDART}" DIRECTORY)
  # The file the binary asks for by its SONAME.
  set(METAWARP_CUDART_SONAME "libcudart.so.${CUDAToolkit_VERSION_MAJOR}")
  if(EXISTS "${METAWARP_CUDART_DIR}/${METAWARP_CUDART_SONAME}")
    set(METAWARP_PRIVATE_LIBDIR ${CMAKE_INSTALL_LIBDIR}/metawarp)
    install(FILES "${METAWARP_CUDART_DIR}/${METAWARP_CUDART_SONAME}"
            DESTINATION ${METAWARP_PRIVATE_LIBDIR})
    set_target_properties(metawarp PROPERTIES INSTALL_RPATH "$ORIGIN/../${METAWARP_PRIVATE_LIBDIR}")
    if(TARGET metawarp-mpi)
      set_target_properties(metawarp-mpi PROPERTIES INSTALL_RPATH "$ORIGIN/../${METAWARP_PRIVATE_LIBDIR}")
    endif()
  else()
    message(WARNING "metawarp: ${METAWARP_CUDART_SONAME} not found next to ${METAWARP_CUDART}: "
                    "the installed binary needs the CUDA toolkit's runtime on the library path")
  endif()
endif()
