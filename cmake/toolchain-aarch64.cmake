# Cross-compile zchan for 64-bit Arm Linux with Debian's cross toolchain, and let ctest run
# the binaries under qemu-user (scripts/cross.sh aarch64 does all of this):
#     apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
#     dpkg --add-architecture arm64 && apt-get update && apt-get install libcmocka-dev:arm64
#     cmake -S . -B build/aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
# Target libraries (cmocka, and libuv/libev if wanted) come from Debian multiarch
# (/usr/lib/aarch64-linux-gnu, headers in /usr/include); the C library from the cross
# package (/usr/aarch64-linux-gnu). Without libcmocka-dev:arm64, configure with
# -DZCHAN_BUILD_TESTS=OFF and run the examples only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
# Named so that the C++ example (examples/loops/cpp_raii) is built for the target too, or
# skipped when the cross g++ is missing: never built for the host by the host's c++.
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# ctest runs each target binary through this emulator. -L is the prefix under which qemu
# looks for the dynamic loader (and every other file) first: the cross package's loader.
# LD_LIBRARY_PATH makes that loader take the C library (and libstdc++) from the same
# package: once libc6:arm64 is installed for cmocka, the host's ld.so.cache points at the
# multiarch libc, and a loader from one glibc build with the libc of another hangs the
# first pthread_create (seen with Debian 12's 2.36-8cross1 and 2.36-9+deb12u14).
set(CMAKE_CROSSCOMPILING_EMULATOR
  "qemu-aarch64;-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib")

# Search the target's directories for libraries, headers and packages; the host's for
# programs (doxygen, pkg-config). The multiarch paths sit under "/", so "/" is a root too;
# CMAKE_LIBRARY_ARCHITECTURE keeps find_library in lib/aarch64-linux-gnu, away from the
# host's lib/x86_64-linux-gnu.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (tests/CMakeLists.txt finds cmocka with it) must read the target's .pc files
# only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
