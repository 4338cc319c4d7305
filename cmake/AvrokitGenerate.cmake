# avrokit_generate(): C code for Avro schemas from `avrokit gen`, generated at build time (docs/gen.md).
#
#   avrokit_generate(TARGET <target> SCHEMAS <schema files...>
#                    [READER <reader schema file>] [PREFIX <p>] [OUTPUT_DIR <dir>]
#                    [NAMESPACE_PREFIX] [COPY_STRINGS])
#
# Adds a custom command that runs `avrokit gen` on the schemas (relative
# paths are relative to the current source directory) into OUTPUT_DIR
# (default: ${CMAKE_CURRENT_BINARY_DIR}/avrokit_gen/<target>), adds the
# generated sources to <target> and OUTPUT_DIR to its include directories
# (PUBLIC, build tree only). The code is generated again when a schema or
# the avrokit program changes. <target> must also link avrokit
# (avrokit::avrokit or avrokit::avrokit_static).
# READER, PREFIX, NAMESPACE_PREFIX and COPY_STRINGS are the options
# --reader, --prefix, --namespace-prefix and --copy-strings.
#
# The avrokit program: the avrokit_cli target in avrokit's own build, the
# installed bin/avrokit (imported as avrokit::avrokit_cli by
# find_package(avrokit)) otherwise; AVROKIT_GENERATE_COMMAND set by the caller
# (a target or a path) wins over both. In a cross build CMake runs an
# executable target under CMAKE_CROSSCOMPILING_EMULATOR.

# The file name `avrokit gen` gives a schema file's code: the name without
# its directory and ".avsc" / ".json", every character but [A-Za-z0-9_]
# turned into '_', a leading digit preceded by '_'.
function(avrokit_generate_base path out)
  get_filename_component(name "${path}" NAME)
  string(REGEX REPLACE "\\.(avsc|json)$" "" name "${name}")
  string(MAKE_C_IDENTIFIER "${name}" name)
  set(${out} "${name}" PARENT_SCOPE)
endfunction()

function(avrokit_generate)
  cmake_parse_arguments(AG "NAMESPACE_PREFIX;COPY_STRINGS" "TARGET;READER;PREFIX;OUTPUT_DIR"
    "SCHEMAS" ${ARGN})
  if(AG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "avrokit_generate: unknown arguments: ${AG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT AG_TARGET OR NOT TARGET ${AG_TARGET})
    message(FATAL_ERROR "avrokit_generate: TARGET '${AG_TARGET}' is not a target")
  endif()
  if(NOT AG_SCHEMAS)
    message(FATAL_ERROR "avrokit_generate(TARGET ${AG_TARGET}): no SCHEMAS")
  endif()
  if(DEFINED AVROKIT_GENERATE_COMMAND)
    set(cli ${AVROKIT_GENERATE_COMMAND})
    set(cli_dep ${AVROKIT_GENERATE_COMMAND})
  elseif(TARGET avrokit::avrokit_cli)
    # The installed program by its path, under a cross build's emulator when
    # there is one (CMake runs an imported program under none by itself).
    set(cli ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:avrokit::avrokit_cli>)
    set(cli_dep avrokit::avrokit_cli)
  elseif(TARGET avrokit_cli OR AVK_GENERATE_IN_TREE)
    # avrokit's own build, or a subdirectory with AVK_BUILD_TOOLS=ON: the
    # program's path, under the emulator of a cross build that has one (CMake
    # would not put the path for the name in a cross build without one, -m32).
    set(cli ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:avrokit_cli>)
    set(cli_dep avrokit_cli)
  else()
    message(FATAL_ERROR "avrokit_generate(TARGET ${AG_TARGET}): no avrokit program: this avrokit "
      "was built without its CLI (AVK_BUILD_TOOLS=OFF); set AVROKIT_GENERATE_COMMAND to one")
  endif()
  if(NOT AG_OUTPUT_DIR)
    set(AG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/avrokit_gen/${AG_TARGET})
  endif()
  get_filename_component(dir "${AG_OUTPUT_DIR}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})

  set(args gen)
  set(inputs)
  set(outputs)
  if(AG_READER)
    get_filename_component(reader "${AG_READER}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND args --reader ${reader})
    list(APPEND inputs ${reader})
    # Types and functions come from the reader; one resolving pair per writer.
    avrokit_generate_base("${reader}" rbase)
    list(APPEND outputs ${dir}/${rbase}.h ${dir}/${rbase}.c)
  endif()
  if(AG_PREFIX)
    list(APPEND args --prefix ${AG_PREFIX})
  endif()
  if(AG_NAMESPACE_PREFIX)
    list(APPEND args --namespace-prefix)
  endif()
  if(AG_COPY_STRINGS)
    list(APPEND args --copy-strings)
  endif()
  foreach(schema IN LISTS AG_SCHEMAS)
    get_filename_component(schema "${schema}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND args ${schema})
    list(APPEND inputs ${schema})
    avrokit_generate_base("${schema}" base)
    if(AG_READER)
      list(APPEND outputs ${dir}/${rbase}_from_${base}.h ${dir}/${rbase}_from_${base}.c)
    else()
      list(APPEND outputs ${dir}/${base}.h ${dir}/${base}.c)
    endif()
  endforeach()
  list(REMOVE_DUPLICATES outputs)

  list(LENGTH AG_SCHEMAS count)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${cli} ${args} -o ${dir}
    DEPENDS ${inputs} ${cli_dep}
    COMMENT "avrokit gen: ${count} schema file(s) for ${AG_TARGET}"
    VERBATIM)
  target_sources(${AG_TARGET} PRIVATE ${outputs})
  target_include_directories(${AG_TARGET} PUBLIC $<BUILD_INTERFACE:${dir}>)
endfunction()
