# What `cmake --install build --prefix P` (and `make install PREFIX=P`) puts
# under P.  The tree is relocatable: nothing in it names P or a path of the
# build machine (the models are found relative to the binary: src/model/lookup.c;
# sdekit.pc and the CMake package locate themselves), so P can be moved
# (test install_relocate).
#   bin/sdekit                         RPATH $ORIGIN/../lib
#   lib/libsdekit.so.MAJOR (+ .so, .so.VERSION), lib/libsdekit.a
#   include/sdekit.h
#   share/sdekit/models/*.sde          the built-in models
#   lib/pkgconfig/sdekit.pc            pkg-config sdekit (--static: libsdekit.a)
#   lib/cmake/sdekit/                  find_package(sdekit): sdekit::sdekit (the shared library)
#   share/man/man1/sdekit.1            from the --help texts (cmake/manpage.cmake)
#   share/man/man5/sdekit-model.5      the model files (docs/man/sdekit-model.5.in)
include(CMakePackageConfigHelpers)

if(CMAKE_INSTALL_LIBDIR MATCHES "/" OR CMAKE_INSTALL_BINDIR MATCHES "/")
  message(WARNING "CMAKE_INSTALL_LIBDIR (${CMAKE_INSTALL_LIBDIR}) and CMAKE_INSTALL_BINDIR "
          "(${CMAKE_INSTALL_BINDIR}) must be one level below the prefix: the installed sdekit "
          "finds its models as ../${CMAKE_INSTALL_DATADIR}/sdekit/models from there")
endif()

# The manual page, from the tool's help texts.
set(SDK_MAN ${CMAKE_BINARY_DIR}/sdekit.1)
add_custom_command(OUTPUT ${SDK_MAN}
  COMMAND ${CMAKE_COMMAND} -DSDEKIT=$<TARGET_FILE:sdekit>
          -DTEMPLATE=${CMAKE_SOURCE_DIR}/docs/man/sdekit.1.in -DOUT=${SDK_MAN}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  DEPENDS sdekit ${CMAKE_SOURCE_DIR}/docs/man/sdekit.1.in ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  COMMENT "Generating the manual page sdekit.1")
add_custom_target(sdekit_man ALL DEPENDS ${SDK_MAN})
# The model files' page: hand-written (docs/MODEL.md is its long form), the version filled in.
set(SDK_VERSION ${PROJECT_VERSION})
set(SDK_MAN5 ${CMAKE_BINARY_DIR}/sdekit-model.5)
configure_file(${CMAKE_SOURCE_DIR}/docs/man/sdekit-model.5.in ${SDK_MAN5} @ONLY)

# pkg-config: the prefix is found from the .pc file's own place (pcfiledir),
# so that the tree can be moved.  Libs.private: what libsdekit.a needs.
file(RELATIVE_PATH SDK_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" SDK_PC_TO_PREFIX "${SDK_PC_TO_PREFIX}")
set(SDK_PC_LIBS_PRIVATE)
foreach(lib ${INIH_LINK_LIBRARIES} ${HDF5_C_LIBRARIES} ${CMAKE_DL_LIBS} m)
  if(lib MATCHES "^/.*/lib([^/]+)\\.(so|a)(\\.[0-9.]+)?$")
    set(name ${CMAKE_MATCH_1})
    get_filename_component(dir ${lib} DIRECTORY)
    if(NOT dir MATCHES "^/(usr/)?lib(64)?(/[^/]*-linux-gnu)?$")
      list(APPEND SDK_PC_LIBS_PRIVATE -L${dir})
    endif()
    list(APPEND SDK_PC_LIBS_PRIVATE -l${name})
  elseif(lib MATCHES "^-")
    list(APPEND SDK_PC_LIBS_PRIVATE ${lib})
  elseif(lib MATCHES "^[A-Za-z0-9_+.-]+$")
    list(APPEND SDK_PC_LIBS_PRIVATE -l${lib})
  endif()
endforeach()
# OpenMP: only when the library's own code uses it (the CPU kernels bring
# their runtime with them)
get_target_property(SDK_OBJ_LIBS sdekit_objects LINK_LIBRARIES)
if("OpenMP::OpenMP_C" IN_LIST SDK_OBJ_LIBS)
  list(APPEND SDK_PC_LIBS_PRIVATE ${OpenMP_C_FLAGS})
endif()
list(REMOVE_DUPLICATES SDK_PC_LIBS_PRIVATE)
list(JOIN SDK_PC_LIBS_PRIVATE " " SDK_PC_LIBS_PRIVATE)
configure_file(${CMAKE_SOURCE_DIR}/cmake/sdekit.pc.in ${CMAKE_BINARY_DIR}/sdekit.pc @ONLY)

# The CMake package.
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/sdekitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/sdekitConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdekit)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sdekitConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)

install(TARGETS sdekit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS sdekit_shared EXPORT sdekitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS sdekit_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/sdekit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/sdekit/models
  FILES_MATCHING PATTERN "*.sde")
install(FILES ${CMAKE_BINARY_DIR}/sdekit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(EXPORT sdekitTargets NAMESPACE sdekit:: FILE sdekitTargets.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdekit)
install(FILES ${CMAKE_BINARY_DIR}/sdekitConfig.cmake ${CMAKE_BINARY_DIR}/sdekitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sdekit)
install(FILES ${SDK_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${SDK_MAN5} DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
