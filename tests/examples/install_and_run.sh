#!/bin/sh
# Installs the build into a temporary DESTDIR, then compiles the example programs against the
# *installed* headers and pkg-config files (--static) with the C and C++ compilers, runs them and
# checks their output. Usage: install_and_run.sh BUILD_DIR SOURCE_DIR CC CXX [EXTRA_FLAGS]
# EXTRA_FLAGS carries e.g. -fsanitize=... when the library itself was built with sanitizers.
# $EXAMPLES_RUNNER, when set, is the command that runs the programs (e.g. qemu in a cross build).
set -eu
build=$1 src=$2 cc=$3 cxx=$4 extra=${5:-}
run=${EXAMPLES_RUNNER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
pcdir=$(dirname "$(find "$tmp/root" -name poolgrad-aclnn.pc | head -n 1)")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
# A shared build (-Ddefault_library=shared or both) links the installed .so: run against it.
export LD_LIBRARY_PATH="$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
aclnn_flags="$(pkg-config --cflags --libs --static poolgrad-aclnn) $extra"
native_flags="$(pkg-config --cflags --libs --static poolgrad) $extra"
echo "# flags for poolgrad-aclnn: $aclnn_flags"

status=0
check() { # name expected-value expected-count
    out="$tmp/$1.out"
    if ! $run "$tmp/$1" >"$out"; then echo "not ok - $1 exited non-zero"; tail -n 3 "$out"; status=1; return; fi
    n=$(grep -c "is: $2\$" "$out" || true)
    if [ "$n" -eq "$3" ]; then echo "ok - $1 prints $2 for all $3 elements"; else echo "not ok - $1: $n of $3 lines are $2"; status=1; fi
}
"$cxx" -o "$tmp/example2d_cxx" "$src/avgpool2d_backward_example.cpp" $aclnn_flags
check example2d_cxx 0.062500 256
"$cc" -std=c11 -o "$tmp/example3d_c" "$src/avgpool3d_backward_example.c" $aclnn_flags
check example3d_c 0.015625 1024
"$cxx" -x c++ -o "$tmp/example3d_cxx" "$src/avgpool3d_backward_example.c" $aclnn_flags
check example3d_cxx 0.015625 1024
"$cc" -std=c11 -o "$tmp/native_c" "$src/native_example.c" $native_flags
if $run "$tmp/native_c" >"$tmp/native.out"; then echo "ok - native example"; else echo "not ok - native example"; cat "$tmp/native.out"; status=1; fi
echo "1..4"
exit $status
