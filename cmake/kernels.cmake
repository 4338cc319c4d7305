# Reads the one kernel list (src/varint/kernel_list.h) for CMake:
#   AVK_KERNELS         every kernel's name, best first (tests and fuzz replays
#                       register one run per name; a run this machine cannot
#                       do reports itself skipped)
#   AVK_KERNEL_SOURCES  the sources of the kernels built for this target
set(AVK_KERNEL_LIST_FILE ${PROJECT_SOURCE_DIR}/src/varint/kernel_list.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${AVK_KERNEL_LIST_FILE})

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(AVK_TARGET_ARCH x86_64)
else()
  set(AVK_TARGET_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()

set(AVK_KERNELS)
set(AVK_KERNEL_SOURCES)
file(STRINGS ${AVK_KERNEL_LIST_FILE} avk_kernel_lines REGEX "^AVKI_KERNEL\\(")
foreach(line IN LISTS avk_kernel_lines)
  if(NOT line MATCHES "^AVKI_KERNEL\\(([a-z0-9_]+), *([a-z0-9_]+), *([^)]+)\\)$")
    message(FATAL_ERROR "kernel_list.h: cannot read '${line}'")
  endif()
  list(APPEND AVK_KERNELS ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 STREQUAL "any" OR CMAKE_MATCH_2 STREQUAL AVK_TARGET_ARCH)
    list(APPEND AVK_KERNEL_SOURCES src/varint/${CMAKE_MATCH_3})
  endif()
endforeach()
if(NOT AVK_KERNELS)
  message(FATAL_ERROR "kernel_list.h lists no kernel")
endif()
message(STATUS "avrokit kernels: ${AVK_KERNELS}; built for ${AVK_TARGET_ARCH}: ${AVK_KERNEL_SOURCES}")
