# Writes zchan.pc when installing (CMakeLists.txt runs it through install(CODE)), so that
# its prefix is the one of that install: `cmake --install --prefix X` if given, else
# CMAKE_INSTALL_PREFIX (never with DESTDIR, which is only where the files are staged).
# In: ZCHAN_PC_IN, ZCHAN_PC_OUT (the template and the file to write), ZCHAN_PC_LIBDIR_IN,
# ZCHAN_PC_INCLUDEDIR_IN (CMAKE_INSTALL_LIBDIR and INCLUDEDIR as configured) and
# PROJECT_VERSION. A relative directory is written under ${prefix}; an absolute one (as
# Nix and some distributions pass) as it is.
string(REGEX REPLACE "(.)/+$" "\\1" ZCHAN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${ZCHAN_PC_${dir}_IN}")
    set(ZCHAN_PC_${dir} "${ZCHAN_PC_${dir}_IN}")
  else()
    set(ZCHAN_PC_${dir} "\${prefix}/${ZCHAN_PC_${dir}_IN}")
  endif()
endforeach()
configure_file("${ZCHAN_PC_IN}" "${ZCHAN_PC_OUT}" @ONLY)
