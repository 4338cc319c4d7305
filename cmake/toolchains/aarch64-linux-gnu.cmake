# Cross build for 64-bit Arm Linux with Debian's cross compiler; tests run under qemu-user.
# Needs gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, qemu-user-static and the
# dependencies' :arm64 -dev packages (tools/install-deps.sh aarch64 installs them).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Headers and libraries come from Debian's multiarch packages (libzstd-dev:arm64
# and so on): pkg-config reads their .pc files only, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# CTest runs every test executable through this; scripts that run built
# programs get wrappers that do the same (cmake/runnable.cmake). Explicit
# rather than binfmt_misc, which a container may not have. No -L prefix: the
# loader and libc are libc6:arm64's (multiarch, which the :arm64 -dev packages
# pull in), at their usual paths; and with -L /usr/aarch64-linux-gnu, qemu 7.2
# hangs in a guest's fork() (the child spins), which the pipe and CLI tests use.
find_program(AVK_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(NOT AVK_QEMU_AARCH64)
  set(AVK_QEMU_AARCH64 qemu-aarch64-static)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR ${AVK_QEMU_AARCH64})
