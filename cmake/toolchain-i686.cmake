# Cross-compile zchan for 32-bit x86 Linux (i686) with Debian's cross toolchain; the
# binaries run natively on an x86-64 kernel with IA32 emulation, so ctest runs them as
# they are; on a kernel without it, configure with -DCMAKE_CROSSCOMPILING_EMULATOR=qemu-i386
# (Debian's qemu-user) and ctest runs each through qemu (scripts/cross.sh i686 finds out
# which, and does all of this):
#     apt-get install gcc-i686-linux-gnu g++-i686-linux-gnu libc6-dev-i386-cross
#     dpkg --add-architecture i386 && apt-get update && apt-get install libcmocka-dev:i386
#     cmake -S . -B build/i686 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-i686.cmake
# What it is for: size_t, pointers and the library's indices and stamps are 32 bits
# wide there, and the code written for that case (segq.h's seen tail is compiled out
# when SIZE_MAX <= UINT32_MAX) is built and run. Target libraries (cmocka) come from
# Debian multiarch (/usr/lib/i386-linux-gnu, headers in /usr/include), which also brings
# the i386 C library and its loader (/lib/ld-linux.so.2) that the binaries run with.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)

set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
# Named so that the C++ example is built for the target too, never by the host's c++.
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)

# Search the target's directories for libraries, headers and packages; the host's for
# programs. The multiarch paths sit under "/", so "/" is a root too.
set(CMAKE_FIND_ROOT_PATH /usr/i686-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (tests/CMakeLists.txt finds cmocka with it) reads the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
