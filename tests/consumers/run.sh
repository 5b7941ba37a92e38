#!/bin/sh
# Builds and runs the consumer projects against an installed poolgrad, as its users would:
#   - cmake/: find_package(poolgrad 0.2 REQUIRED), poolgrad::poolgrad + poolgrad::aclnn, once with
#     the static and once with the shared libraries (whichever of the two the install has);
#   - make/:  a plain Makefile through pkg-config, static (--static) and shared;
#   - pkg-config --cflags has no -fopenmp (and main.c refuses to compile with _OPENMP defined);
#   - with --parent SOURCE_DIR: meson-parent/, poolgrad as a Meson subproject, configured with
#     --wrap-mode=forcefallback (poolgrad still takes the system SIMDe): the parent's
#     `meson test` lists only the parent's test and passes, `meson install` installs nothing of
#     poolgrad, and with -Dpoolgrad:install=true it installs libpoolgrad.
# Usage: run.sh DESTDIR [--parent SOURCE_DIR]
#        run.sh --build BUILD_DIR      (installs BUILD_DIR into a temporary DESTDIR first: the meson test)
#   DESTDIR is a `meson install --destdir DESTDIR` tree (any prefix, any -Ddefault_library).
#   $CC (default cc) compiles the consumers: use the compiler poolgrad was built with (its OpenMP
#   runtime, libgomp or libomp, is the one that compiler's -fopenmp links).
# TAP output; exits non-zero if anything fails. Needs cmake and make for those parts (skipped
# without them), meson and ninja for --parent.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$1" = "--build" ]; then
    meson install -C "$2" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
    destdir=$tmp/root
    shift 2
else
    destdir=$(cd "$1" && pwd)
    shift
fi
parent_src=
if [ "${1:-}" = "--parent" ]; then parent_src=$(cd "$2" && pwd); fi
export CC="${CC:-cc}"
n=0 status=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || sed 's/^/#   /' "$2" | tail -n 40; status=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

pc=$(find "$destdir" -name poolgrad.pc | head -n 1)
[ -n "$pc" ] || { echo "Bail out! no poolgrad.pc under $destdir"; exit 1; }
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$destdir"
prefix=$(pkg-config --variable=prefix poolgrad)
case $prefix in "$destdir"/*) ;; *) prefix=$destdir$prefix ;; esac  # pkgconf prepends the sysroot, pkg-config not
kinds=
[ -f "$libdir/libpoolgrad.a" ] && kinds="$kinds static"
[ -f "$libdir/libpoolgrad.so.0" ] && kinds="$kinds shared"
echo "# install: $prefix, libdir $libdir, kinds:$kinds"

cflags=$(pkg-config --cflags poolgrad poolgrad-aclnn)
if echo " $cflags " | grep -q -- '-fopenmp'; then echo "$cflags" >"$tmp/cflags"; notok "pkg-config --cflags has -fopenmp" "$tmp/cflags"
else ok "pkg-config --cflags poolgrad poolgrad-aclnn has no -fopenmp ($cflags)"; fi

# linked_as KIND PROGRAM: the program needs libpoolgrad*.so.0 exactly when KIND is shared.
linked_as() {
    if readelf -d "$2" | grep -q 'NEEDED.*libpoolgrad'; then got=shared; else got=static; fi
    [ "$got" = "$1" ]
}
# run_consumer NAME KIND PROGRAM LOG
run_consumer() {
    if ! linked_as "$2" "$3"; then readelf -d "$3" >"$4" 2>&1; notok "$1: not linked against the $2 libraries" "$4"; return; fi
    if LD_LIBRARY_PATH="$libdir" "$3" >"$4" 2>&1 && grep -q '^consumer ok$' "$4"; then ok "$1 builds and runs ($2)"
    else notok "$1 ($2) failed" "$4"; fi
}

if command -v cmake >/dev/null 2>&1; then
    for kind in $kinds; do
        b=$tmp/cmake-$kind
        use_static=OFF
        [ "$kind" = static ] && use_static=ON
        if cmake -S "$here/cmake" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DPOOLGRAD_USE_STATIC_LIBS=$use_static \
                -DCMAKE_BUILD_TYPE=Release >"$b.log" 2>&1 && cmake --build "$b" >>"$b.log" 2>&1; then
            if grep -q -- '-fopenmp' "$b/CMakeFiles/consumer.dir/flags.make"; then
                notok "cmake consumer ($kind): -fopenmp on the consumer's compile line" "$b/CMakeFiles/consumer.dir/flags.make"
            else
                run_consumer "cmake consumer, find_package(poolgrad 0.2 REQUIRED)" "$kind" "$b/consumer" "$b.run.log"
            fi
        else
            notok "cmake consumer ($kind) configure/build failed" "$b.log"
        fi
    done
    # The version file: 0.2 is met, 0.1 and 1.0 are not (0.x minors are not compatible with each other).
    for want in 0.1 1.0; do
        b=$tmp/cmake-version-$want
        mkdir -p "$b/src"
        printf 'cmake_minimum_required(VERSION 3.13)\nproject(v LANGUAGES C)\nfind_package(poolgrad %s REQUIRED)\n' "$want" >"$b/src/CMakeLists.txt"
        if cmake -S "$b/src" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" >"$b.log" 2>&1; then
            notok "find_package(poolgrad $want) accepted version $(pkg-config --modversion poolgrad)" "$b.log"
        elif grep -q 'poolgradConfig.cmake, version: ' "$b.log"; then
            ok "find_package(poolgrad $want) finds and refuses version $(pkg-config --modversion poolgrad)"
        else notok "find_package(poolgrad $want) did not find the package at all" "$b.log"; fi
    done
else
    skip "cmake consumer" "cmake not installed"
fi

if command -v make >/dev/null 2>&1; then
    for kind in $kinds; do
        b=$tmp/make-$kind
        mkdir -p "$b"
        static=
        [ "$kind" = static ] && static=1
        if make -C "$b" -f "$here/make/Makefile" -s STATIC=$static SRC="$here/cmake/main.c" consumer >"$b.log" 2>&1; then
            run_consumer "make consumer through pkg-config" "$kind" "$b/consumer" "$b.run.log"
        else
            notok "make consumer ($kind) build failed" "$b.log"
        fi
    done
else
    skip "make consumer" "make not installed"
fi

if [ -n "$parent_src" ]; then
    p=$tmp/parent
    mkdir -p "$p/src/subprojects"
    cp "$here/meson-parent/meson.build" "$p/src/"
    mkdir -p "$p/cmake" && cp "$here/cmake/main.c" "$p/cmake/"
    ln -s "$parent_src" "$p/src/subprojects/poolgrad"
    if (unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR; meson setup "$p/b" "$p/src" --wrap-mode=forcefallback) >"$p.log" 2>&1 \
            && meson compile -C "$p/b" >>"$p.log" 2>&1; then
        ok "meson parent with poolgrad as a subproject builds (--wrap-mode=forcefallback)"
        # The system SIMDe is used even when the parent forces fallbacks: no SIMDe subproject.
        if [ -e "$p/src/subprojects/simde" ] || grep -q 'Executing subproject simde' "$p.log"; then
            notok "poolgrad fell back to the SIMDe wrap although the system has SIMDe" "$p.log"
        else ok "poolgrad takes the system SIMDe under --wrap-mode=forcefallback"; fi
        meson test -C "$p/b" --list --no-rebuild 2>/dev/null | grep -v "^$" >"$p/tests" || true
        if [ "$(cat "$p/tests")" = "parent_consumer" ]; then ok "the parent's meson test lists only its own test"
        else notok "the parent's meson test lists more than parent_consumer:" "$p/tests"; fi
        if meson test -C "$p/b" --no-rebuild >"$p/test.log" 2>&1; then ok "the parent's meson test passes"
        else notok "the parent's meson test fails" "$p/test.log"; fi
        meson install -C "$p/b" --no-rebuild --destdir "$p/D" >"$p/install.log" 2>&1 || true
        (cd "$p/D" && find . -type f -o -type l) | sort >"$p/installed"
        if [ "$(grep -c . "$p/installed")" -eq 1 ] && grep -q '/parent_consumer$' "$p/installed"; then
            ok "the parent's meson install installs nothing of poolgrad"
        else notok "the parent's meson install installs more than parent_consumer:" "$p/installed"; fi
        if meson configure "$p/b" -Dpoolgrad:install=true >>"$p.log" 2>&1 \
                && meson install -C "$p/b" --destdir "$p/D2" >"$p/install2.log" 2>&1 \
                && find "$p/D2" -name 'libpoolgrad*' | grep -q . && find "$p/D2" -name poolgrad.pc | grep -q .; then
            ok "with -Dpoolgrad:install=true the parent installs poolgrad"
        else notok "-Dpoolgrad:install=true did not install poolgrad" "$p/install2.log"; fi
    else
        notok "meson parent with poolgrad as a subproject: setup/build failed" "$p.log"
    fi
fi

echo "1..$n"
exit $status
