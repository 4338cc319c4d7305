# 32-bit x86 build with the native gcc and -m32. Tests and build-time code
# generation run the 32-bit programs natively where the kernel can execute them
# (IA32 emulation), and under qemu-user where it cannot.
# Needs lib32gcc-12-dev, lib32stdc++-12-dev, libc6-dev-i386 and the dependencies'
# :i386 -dev packages, and qemu-user-static where the kernel has no IA32
# emulation (tools/install-deps.sh m32 installs them; gcc-multilib would pull
# the same in, but Debian makes it conflict with the aarch64 cross compiler,
# so the two builds could not share a machine).
#   cmake -S . -B build-m32 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686-m32.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_C_FLAGS_INIT -m32)
set(CMAKE_CXX_FLAGS_INIT -m32)
set(CMAKE_EXE_LINKER_FLAGS_INIT -m32)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -m32)
set(CMAKE_MODULE_LINKER_FLAGS_INIT -m32)
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)

set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Can this kernel execute a 32-bit program? Some are built without IA32
# emulation ("Exec format error"); there CTest, the code generator's build
# steps and the test scripts run every program under qemu-i386, as the aarch64
# build does. The probe is a tiny program built with the compiler above.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  set(_avk_probe ${CMAKE_BINARY_DIR}/CMakeFiles/avk_m32_probe)
  file(WRITE ${_avk_probe}.c "int main(void) { return 0; }\n")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -m32 ${_avk_probe}.c -o ${_avk_probe}
                  RESULT_VARIABLE _avk_built OUTPUT_QUIET ERROR_QUIET)
  if(_avk_built EQUAL 0)
    execute_process(COMMAND ${_avk_probe} RESULT_VARIABLE _avk_ran OUTPUT_QUIET ERROR_QUIET)
    if(NOT _avk_ran EQUAL 0)
      find_program(AVK_QEMU_I386 NAMES qemu-i386-static qemu-i386)
      if(NOT AVK_QEMU_I386)
        set(AVK_QEMU_I386 qemu-i386-static)
      endif()
      set(CMAKE_CROSSCOMPILING_EMULATOR ${AVK_QEMU_I386})
    endif()
  endif()
endif()
