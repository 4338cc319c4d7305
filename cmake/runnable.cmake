# avk_runnable(<target> <out-var>): a path that runs the built program <target>
# on the build machine, for test scripts that run built programs themselves.
# Natively the program itself. In a cross build with CMAKE_CROSSCOMPILING_EMULATOR
# (cmake/toolchains/aarch64-linux-gnu.cmake), CTest puts the emulator before a
# test's COMMAND only when that command is a target, not before what a script
# runs: the path is then a small script, <build>/emulated/<target>, that runs
# the program under the emulator. Explicit, so binfmt_misc is not needed.
function(avk_runnable target out)
  if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(${out} $<TARGET_FILE:${target}> PARENT_SCOPE)
    return()
  endif()
  set(words)
  foreach(word IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
    string(APPEND words "'${word}' ")
  endforeach()
  set(wrapper ${PROJECT_BINARY_DIR}/emulated/${target})
  # Several test folders may ask for the same program: its wrapper is
  # written once (CMake refuses two commands generating one file).
  get_property(done GLOBAL PROPERTY AVK_RUNNABLE_${target})
  if(done)
    set(${out} ${wrapper} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY AVK_RUNNABLE_${target} TRUE)
  file(GENERATE OUTPUT ${wrapper}
    CONTENT "#!/bin/sh\n# Runs ${target} (built for ${CMAKE_SYSTEM_PROCESSOR}) under the emulator.\nexec ${words}'$<TARGET_FILE:${target}>' \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
  set(${out} ${wrapper} PARENT_SCOPE)
endfunction()

# Tests under an emulator run 10 to 50 times slower than natively: CTest gives
# each twice the time, and AVKT_EMULATED=1 in their environment tells the
# longest random sweeps (tests/unit/json_double_test.c) to check a tenth as
# many values. Every fixed case and edge still runs.
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set(AVK_TEST_TIMEOUT 600)
  set(AVK_TEST_ENV AVKT_EMULATED=1)
else()
  set(AVK_TEST_TIMEOUT 300)
  set(AVK_TEST_ENV)
endif()
