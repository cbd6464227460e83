# `cmake --install` puts the header-only library and an exported
# metawarp::core target under the prefix, so another project can
#   find_package(metawarp REQUIRED)
#   target_link_libraries(app PRIVATE metawarp::core)
# (docs/examples/ is such a project; CI builds it against an installed tree).
include(CMakePackageConfigHelpers)

set(METAWARP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/metawarp)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/metawarp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS metawarp_core EXPORT metawarpTargets)
install(EXPORT metawarpTargets NAMESPACE metawarp:: DESTINATION ${METAWARP_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/metawarpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/metawarpConfig.cmake INSTALL_DESTINATION ${METAWARP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/metawarpConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/metawarpConfig.cmake
              ${PROJECT_BINARY_DIR}/metawarpConfigVersion.cmake
        DESTINATION ${METAWARP_CMAKE_DIR})
