#!/usr/bin/env bash
# The whole default test suite (Criterion suites included) of an AArch64 cross build (NEON kernels),
# run under qemu-aarch64 with Debian's arm64 multiarch packages. Run as root (or with sudo available):
# installs what it needs, registers qemu's binfmt_misc handler, builds in /tmp/pg-arm64 and runs
# `meson test` plus checkasm with a second seed.
# Usage: .ci/arm64-suite.sh [SOURCE_DIR]   (default: this repository)
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
build=/tmp/pg-arm64
start=$SECONDS

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# libcriterion-dev:arm64 and the native libcriterion-dev cannot be installed together (their
# libnanomsg dependencies are not multi-arch), so apt swaps one for the other: put the native one back
# on the way out, whatever happens, or later native builds would silently configure without tests.
native_arch=$(dpkg --print-architecture)
restore_native_criterion() {
    $SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 \
        "libcriterion-dev:$native_arch" >/dev/null || echo "warning: could not reinstall libcriterion-dev:$native_arch" >&2
}
trap restore_native_criterion EXIT

echo "--- packages (arm64 multiarch)"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq -o DPkg::Lock::Timeout=600
$SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 \
    meson ninja-build pkg-config libsimde-dev \
    gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user qemu-user-binfmt \
    libc6-dev:arm64 libcriterion-dev:arm64 libgomp1:arm64 libstdc++6:arm64 >/dev/null

echo "--- binfmt_misc handler for arm64 ELF files (Criterion re-executes its test binaries)"
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
    $SUDO mount -t binfmt_misc binfmt_misc "$binfmt"
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    # Where systemd-binfmt does not run (containers, CI machines), register qemu-user-binfmt's entry.
    grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf | $SUDO tee "$binfmt/register" >/dev/null
fi
grep -qx enabled "$binfmt/qemu-aarch64" || { echo "qemu-aarch64 binfmt handler is not enabled" >&2; exit 1; }
# qemu without -L uses / as the loader prefix, which is the multiarch root: same as the exe_wrapper.
export QEMU_LD_PREFIX=/

echo "--- cross build in $build"
rm -rf "$build"
meson setup "$build" "$src" --cross-file "$src/tests/cross/aarch64-linux-gnu.ini" \
    -Dtests=enabled -Dbench=false >"$build.setup.log" 2>&1 || { cat "$build.setup.log"; exit 1; }
grep -A4 '^  poolgrad' "$build.setup.log" || true
meson compile -C "$build" >"$build.compile.log" 2>&1 || { tail -n 60 "$build.compile.log"; exit 1; }

# An arm64 program must run directly (through binfmt_misc), not only through the exe_wrapper.
aarch64-linux-gnu-readelf -h "$build/tests/examples/native_example" | grep -q 'Machine: *AArch64' \
    || { echo "not an arm64 build" >&2; exit 1; }
"$build/tests/examples/native_example" >/dev/null || { echo "arm64 binary does not run directly" >&2; exit 1; }

# The tests' timeouts are set for native runs; under emulation (and on two shared cores) the longest
# Criterion programs take several times longer, so they are stretched here.
export OMP_WAIT_POLICY=passive
echo "--- built in $((SECONDS - start)) s"
tests_start=$SECONDS
echo "--- meson test (all default suites) under qemu-aarch64"
# The stress test's default 4000 problems take minutes emulated; 600 keep every kernel exercised. The
# conversions test checks every 16th block of 2^16 f32 values (2^28 of them) instead of all 2^32.
export POOLGRAD_EXHAUSTIVE_STEP=16
POOLGRAD_STRESS_CASES=600 POOLGRAD_EXPECT_ISA=neon \
    meson test -C "$build" --no-rebuild --print-errorlogs --timeout-multiplier 4
echo "--- checkasm, second seed"
POOLGRAD_TEST_SEED=7 meson test -C "$build" --no-rebuild --print-errorlogs --timeout-multiplier 4 checkasm

echo "--- AArch64 suite done: tests $((SECONDS - tests_start)) s, total $((SECONDS - start)) s"
