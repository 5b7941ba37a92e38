#!/bin/sh
# Build the libFuzzer target with Debian's clang, ASan+UBSan, the whole library instrumented for
# coverage (-fsanitize=fuzzer-no-link), then optionally run it.
#   tests/fuzz/build.sh [BUILDDIR] [SECONDS]
# BUILDDIR defaults to /tmp/build-fuzz; with SECONDS, runs the fuzzer that long on one core over a
# scratch copy of the seed corpus (new inputs land in BUILDDIR/fuzz-corpus, crashes in BUILDDIR/).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-/tmp/build-fuzz}
if [ ! -f "$b/build.ninja" ]; then
    CC=clang CXX=clang++ meson setup "$b" "$src" -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link -Dcpp_args=-fsanitize=fuzzer-no-link -Dbench=false
fi
ninja -C "$b" tests/fuzz/fuzz_plan tests/fuzz/fuzz_replay
if [ $# -ge 2 ]; then
    mkdir -p "$b/fuzz-corpus"
    cd "$b"
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OMP_NUM_THREADS=1 \
        ./tests/fuzz/fuzz_plan -max_total_time="$2" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
        "$b/fuzz-corpus" "$src/tests/fuzz/corpus"
fi
