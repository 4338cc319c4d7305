# Writes avrokit.pc with clean absolute paths, in two steps:
#   avk_pc_template, at configure time: cmake/avrokit.pc.in with every
#     @VAR@ filled in (version, private libraries, ...) except the paths,
#     which stay placeholders;
#   avk_write_pc, at configure time for the build tree's copy (the
#     configured prefix) and again at install time (install(CODE) in
#     CMakeLists.txt), because `cmake --install --prefix P` changes the
#     prefix after configuring and the installed file must name P.
#
# The paths are written out, not derived from ${pcfiledir}: a relative
# prefix gives libdir values such as /p/lib/pkgconfig/../../lib, which
# pkg-config prints as they are, into -L and -I flags and into the rpath
# users build from `pkg-config --variable=libdir`. The cost is that a tree
# moved after installing needs its .pc rewritten (find_package relocates).
#
# libdir and includedir may be relative to the prefix (GNUInstallDirs'
# usual form) or absolute (-DCMAKE_INSTALL_LIBDIR=/usr/lib64), and may
# hold "//", "./" or a trailing slash: all are normalised away.
# As a script (tests/install/install_check.sh checks odd inputs this way),
# on the template avk_pc_template wrote:
#   cmake -DAVK_PC_TEMPLATE=build/avrokit.pc.in -DAVK_PC_OUTPUT=...
#         -DAVK_PC_PREFIX=... -DAVK_PC_LIBDIR=... -DAVK_PC_INCLUDEDIR=...
#         -P cmake/avrokit_pc.cmake

set(AVK_PC_PATH_VARS AVK_PC_PREFIX_CLEAN AVK_PC_LIBDIR_VALUE AVK_PC_INCLUDEDIR_VALUE)

# The normal form of a path, made absolute: no "//", ".", "..", trailing
# "/". A relative prefix (`cmake --install --prefix rel`) is relative to the
# working directory, as the installed files are: script mode's current
# source directory.
function(avk_pc_clean path out)
  cmake_path(SET p NORMALIZE "${path}")
  if(NOT IS_ABSOLUTE "${p}")
    cmake_path(ABSOLUTE_PATH p NORMALIZE)
  endif()
  string(REGEX REPLACE "(.)/$" "\\1" p "${p}")
  set(${out} "${p}" PARENT_SCOPE)
endfunction()

# A directory for the .pc file: "${var}/rest" when it lies under the
# prefix (so the file reads as pkg-config files usually do), else the
# absolute path itself (an absolute libdir elsewhere, or the prefix "/",
# where "${prefix}/lib" would read as "//lib").
function(avk_pc_dir prefix var dir out)
  if(IS_ABSOLUTE "${dir}")
    avk_pc_clean("${dir}" full)
  else()
    avk_pc_clean("${prefix}/${dir}" full)
  endif()
  string(LENGTH "${prefix}/" plen)
  string(SUBSTRING "${full}/" 0 ${plen} head)
  if(NOT prefix STREQUAL "/" AND head STREQUAL "${prefix}/" AND NOT full STREQUAL prefix)
    string(SUBSTRING "${full}" ${plen} -1 rest)
    set(${out} "\${${var}}/${rest}" PARENT_SCOPE)
  else()
    set(${out} "${full}" PARENT_SCOPE)
  endif()
endfunction()

# template with everything but the paths filled in from the caller's
# variables (a function sees them), the paths left as @...@ for later.
function(avk_pc_template template output)
  foreach(v IN LISTS AVK_PC_PATH_VARS)
    set(${v} "@${v}@")
  endforeach()
  configure_file("${template}" "${output}" @ONLY)
endfunction()

function(avk_write_pc template output prefix libdir includedir)
  avk_pc_clean("${prefix}" AVK_PC_PREFIX_CLEAN)
  avk_pc_dir("${AVK_PC_PREFIX_CLEAN}" exec_prefix "${libdir}" AVK_PC_LIBDIR_VALUE)
  avk_pc_dir("${AVK_PC_PREFIX_CLEAN}" prefix "${includedir}" AVK_PC_INCLUDEDIR_VALUE)
  configure_file("${template}" "${output}" @ONLY)
endfunction()

if(AVK_PC_TEMPLATE AND AVK_PC_OUTPUT)
  avk_write_pc("${AVK_PC_TEMPLATE}" "${AVK_PC_OUTPUT}" "${AVK_PC_PREFIX}" "${AVK_PC_LIBDIR}"
               "${AVK_PC_INCLUDEDIR}")
endif()
