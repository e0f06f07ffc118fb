# install.cmake: what `cmake --install` puts under the prefix.
#
#   include/spherecollide.h, include/spherecollide_sim.h
#   lib/libspherecollide.so.1.2.0 (+ .so.1, .so) and lib/libspherecollide.a
#   lib/libspherecollide_sim.so.1.2.0 (+ .so.1, .so) and lib/libspherecollide_sim.a
#                                (the ball simulation, on the pair search's API)
#   lib/cmake/spherecollide/     find_package(spherecollide) -> spherecollide::spherecollide
#                                (shared), spherecollide::spherecollide_static,
#                                spherecollide::spherecollide_sim(_static)
#   lib/pkgconfig/spherecollide.pc, spherecollide_sim.pc
#   with MPI (cmake/mpi.cmake): include/spherecollide_mpi.h,
#   lib/libspherecollide_mpi.so.1.2.0 (+ .so.1, .so), spherecollide_mpi.pc,
#   spherecollide::spherecollide_mpi
#   bin/spherecollide            (the CLI; its rule lives in tools/CMakeLists.txt)
#
# The two library targets go to two export sets because their dependencies
# differ: the shared library links hwloc privately (a consumer never sees it),
# while the static archive carries $<LINK_ONLY:PkgConfig::HWLOC>, so only a
# consumer of the static target needs hwloc at link time. The package config
# loads the static export only once it has found hwloc.

option(SC_INSTALL "Generate the install rules and the exported CMake package" ON)
if(NOT SC_INSTALL)
  return()
endif()

include(CMakePackageConfigHelpers)

set(SC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/spherecollide" CACHE STRING
    "Where the CMake package files go, relative to the prefix")
set(SC_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where spherecollide.pc goes, relative to the prefix")
mark_as_advanced(SC_INSTALL_CMAKEDIR SC_INSTALL_PKGCONFIGDIR)

# ---- header and libraries --------------------------------------------------
install(FILES "${PROJECT_SOURCE_DIR}/include/spherecollide.h" "${PROJECT_SOURCE_DIR}/include/spherecollide_sim.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT Development)

install(TARGETS spherecollide spherecollide_sim EXPORT spherecollideTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Runtime
          NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Development
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT Runtime)
install(TARGETS spherecollide_static spherecollide_sim_static EXPORT spherecollideStaticTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Development)
# (Both targets carry $<INSTALL_INTERFACE:include> already.)
set(_sc_pcs spherecollide spherecollide_sim)
if(TARGET spherecollide_mpi)
  install(FILES "${PROJECT_SOURCE_DIR}/include/spherecollide_mpi.h"
          DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT Development)
  install(TARGETS spherecollide_mpi EXPORT spherecollideMpiTargets
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT Runtime
            NAMELINK_COMPONENT Development)
  install(EXPORT spherecollideMpiTargets NAMESPACE spherecollide::
          FILE spherecollideMpiTargets.cmake
          DESTINATION "${SC_INSTALL_CMAKEDIR}" COMPONENT Development)
  list(APPEND _sc_pcs spherecollide_mpi)
endif()

# ---- CMake package ---------------------------------------------------------
install(EXPORT spherecollideTargets NAMESPACE spherecollide::
        FILE spherecollideTargets.cmake
        DESTINATION "${SC_INSTALL_CMAKEDIR}" COMPONENT Development)
install(EXPORT spherecollideStaticTargets NAMESPACE spherecollide::
        FILE spherecollideStaticTargets.cmake
        DESTINATION "${SC_INSTALL_CMAKEDIR}" COMPONENT Development)

# Build options the config file needs to know (substituted as ON/OFF).
set(SC_PACKAGE_OPENMP ${SC_OPENMP})
set(SC_PACKAGE_HWLOC ${SC_HWLOC})
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/spherecollideConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/spherecollideConfig.cmake"
  INSTALL_DESTINATION "${SC_INSTALL_CMAKEDIR}")
# Releases add to the API and ABI without breaking it (CHANGELOG.md: the
# policy), so a request for 0.1 accepts any 0.y from 0.1 on.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/spherecollideConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/spherecollideConfig.cmake"
              "${PROJECT_BINARY_DIR}/spherecollideConfigVersion.cmake"
        DESTINATION "${SC_INSTALL_CMAKEDIR}" COMPONENT Development)

# ---- pkg-config ------------------------------------------------------------
# Libs.private is what a static link adds: hwloc (when built with it), libm and
# the OpenMP runtime. The shared library already records them as DT_NEEDED.
set(SC_PC_LIBS_PRIVATE "")
if(SC_HWLOC)
  # hwloc's own link flags, less -L of the compiler's default directories.
  set(_sc_hwloc_flags ${HWLOC_LDFLAGS})
  if(NOT _sc_hwloc_flags)
    set(_sc_hwloc_flags -lhwloc)
  endif()
  foreach(_sc_flag IN LISTS _sc_hwloc_flags)
    if(_sc_flag MATCHES "^-L(.*)$")
      get_filename_component(_sc_ldir "${CMAKE_MATCH_1}" REALPATH)
      set(_sc_implicit FALSE)
      foreach(_sc_idir IN LISTS CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
        get_filename_component(_sc_idir "${_sc_idir}" REALPATH)
        if(_sc_ldir STREQUAL _sc_idir)
          set(_sc_implicit TRUE)
        endif()
      endforeach()
      if(_sc_implicit)
        continue()
      endif()
    endif()
    list(APPEND SC_PC_LIBS_PRIVATE "${_sc_flag}")
  endforeach()
endif()
list(APPEND SC_PC_LIBS_PRIVATE -lm)
if(SC_OPENMP)
  # -fopenmp (GCC) links libgomp and its pthread needs; other compilers name
  # their own flag, which the same variable carries.
  separate_arguments(_sc_omp_flags UNIX_COMMAND "${OpenMP_C_FLAGS}")
  list(APPEND SC_PC_LIBS_PRIVATE ${_sc_omp_flags})
endif()
list(REMOVE_DUPLICATES SC_PC_LIBS_PRIVATE)
string(JOIN " " SC_PC_LIBS_PRIVATE ${SC_PC_LIBS_PRIVATE})

# The prefix is only known at install time (`cmake --install --prefix DIR`
# overrides CMAKE_INSTALL_PREFIX), so the .pc file is made in two steps: now,
# everything but the prefix; at install time, the prefix.
foreach(_sc_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_sc_dir}}")
    set(SC_PC_${_sc_dir} "${CMAKE_INSTALL_${_sc_dir}}")
  else()
    set(SC_PC_${_sc_dir} "\${prefix}/${CMAKE_INSTALL_${_sc_dir}}")
  endif()
endforeach()
set(SC_PC_PREFIX "@SC_PC_PREFIX@")   # left for the install-time step
foreach(_sc_pc ${_sc_pcs})
  configure_file("${CMAKE_CURRENT_LIST_DIR}/${_sc_pc}.pc.in"
                 "${PROJECT_BINARY_DIR}/${_sc_pc}.pc.stage" @ONLY)
endforeach()
unset(SC_PC_PREFIX)

install(CODE "
  set(SC_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  if(IS_ABSOLUTE \"${SC_INSTALL_PKGCONFIGDIR}\")
    set(_sc_pcdir \"${SC_INSTALL_PKGCONFIGDIR}\")
  else()
    set(_sc_pcdir \"\${CMAKE_INSTALL_PREFIX}/${SC_INSTALL_PKGCONFIGDIR}\")
  endif()
  foreach(_sc_pc ${_sc_pcs})
    configure_file(\"${PROJECT_BINARY_DIR}/\${_sc_pc}.pc.stage\"
                   \"${PROJECT_BINARY_DIR}/pc-install/\${_sc_pc}.pc\" @ONLY)
    file(INSTALL DESTINATION \"\${_sc_pcdir}\" TYPE FILE
         FILES \"${PROJECT_BINARY_DIR}/pc-install/\${_sc_pc}.pc\")
  endforeach()
" COMPONENT Development)

# ---- documents -------------------------------------------------------------
foreach(_sc_doc LICENSE README.md)
  if(EXISTS "${PROJECT_SOURCE_DIR}/${_sc_doc}")
    install(FILES "${PROJECT_SOURCE_DIR}/${_sc_doc}"
            DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT Runtime)
  endif()
endforeach()
