#!/usr/bin/env bash
# Run-time dispatch under other x86-64 CPU models: the native (x86-64) release build's Criterion-free
# test programs run under qemu-x86_64 (user mode, TCG) with CPU models that report fewer ISA extensions
# than the build machine:
#   -cpu Haswell  AVX2, no AVX-512   -> the avx2 kernels are dispatched (POOLGRAD_EXPECT_ISA=avx2)
#   -cpu Nehalem  SSE2..SSE4.2 only  -> the sse2 kernels are dispatched (POOLGRAD_EXPECT_ISA=sse2)
# Each model runs tests/checkasm/checkasm (every kernel family of every ISA the model's CPUID allows,
# called directly over random work splits, and the public path under every ISA cap with 1-7 threads,
# compared byte for byte with the reference; the kernels it calls must be of the expected ISA or lower,
# and some of the expected ISA's must have run) and tests/determinism/determinism_stress (the same rule,
# 1-8 threads, gradOutputs dense in special values). Both fail unless the ISA detected through CPUID
# (POOLGRAD_ISA unset) is the expected one (POOLGRAD_EXPECT_ISA), and the digest of determinism_stress's
# reference outputs must equal the native run's.
#
# Usage: .ci/qemu-x86.sh BUILD_DIR     (a native x86-64 build, e.g. the release build of .ci/run)
# Environment: QEMU_STRESS_CASES (determinism_stress problems per model, default 1500),
#              QEMU_CHECKASM_CASES (checkasm random cases per loop, default 30), QEMU_EXHAUSTIVE_STEP (the
#              conversions test checks every Nth block of 2^16 f32 values, default 64), POOLGRAD_TEST_SEED.
#
# What this does and does not prove (checked with Debian 12's qemu-user 7.2):
# - QEMU 7.2's TCG implements SSE..SSE4.2, AVX, AVX2, FMA, but no AVX-512 (EVEX is #UD under every
#   model, even -cpu max). So AVX-512 kernels cannot run here; they are tested natively.
# - The trap: "it runs under -cpu Nehalem" is not by itself "the SSE2 path contains no AVX2 instruction".
#   TCG is commonly assumed (and was briefed here) to execute AVX2 even under -cpu Nehalem; then a Nehalem
#   run proves only dispatch (the library reads CPUID and selects sse2), not the absence of illegal
#   instructions. Debian 12's QEMU 7.2 does in fact check the model's CPUID bits (AVX, AVX2 and FMA
#   instructions raise SIGILL under -cpu Nehalem, SSE4.1 under -cpu Conroe), but other QEMU versions may
#   not: the probe below checks this QEMU on each run and says which of the two the Nehalem run proves.
#   Either way it only covers the code paths the tests reach.
# - Criterion test binaries must NOT be run under qemu-x86_64: Criterion's workers re-exec the binary
#   natively and escape the emulator, so they would test the host CPU. Only the framework-free TAP
#   programs run here.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR (native x86-64 build containing tests/checkasm/checkasm and tests/determinism/determinism_stress)" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
checkasm_bin=$build/tests/checkasm/checkasm
stress_bin=$build/tests/determinism/determinism_stress
for b in "$checkasm_bin" "$stress_bin"; do
    [ -x "$b" ] || { echo "missing $b (build it first: meson compile -C $1)" >&2; exit 2; }
done
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 not found (Debian: qemu-user)" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "needs an x86-64 host running x86-64 binaries" >&2; exit 2; }

stress_cases=${QEMU_STRESS_CASES:-1500}
checkasm_cases=${QEMU_CHECKASM_CASES:-30}
export OMP_WAIT_POLICY=passive
unset POOLGRAD_ISA
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Model names; features that TCG does not emulate (and which do not matter here) are switched off so
# qemu does not print a warning for each of them. AVX2/FMA/BMI stay on.
haswell="Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm"
nehalem="Nehalem"

qemu-x86_64 --version | head -n1
script_start=$(date +%s)

# Probe: does this QEMU refuse AVX2 under -cpu Nehalem, and run it under Haswell?
nehalem_strict=unknown
if command -v cc >/dev/null; then
    printf '%s\n' 'int main(void) { __asm__ volatile("vpaddd %%ymm0, %%ymm0, %%ymm1" ::: "xmm0", "xmm1"); return 0; }' \
        > "$tmp/probe.c"
    if cc -O0 -o "$tmp/probe" "$tmp/probe.c" 2>/dev/null; then
        qemu-x86_64 -cpu "$haswell" "$tmp/probe" || { echo "FAIL: qemu-x86_64 -cpu Haswell cannot run AVX2" >&2; exit 1; }
        rc=0
        # (inner shell: its "Illegal instruction" notice goes to /dev/null too)
        bash -c 'qemu-x86_64 -cpu "$1" "$2" 2>/dev/null; exit $?' _ "$nehalem" "$tmp/probe" 2>/dev/null || rc=$?
        case $rc in
            0) nehalem_strict=no ;;
            132) nehalem_strict=yes ;; # 128 + SIGILL
        esac
    fi
fi
case $nehalem_strict in
    yes) echo "# probe: this QEMU raises SIGILL for AVX2 under -cpu Nehalem: the Nehalem run also shows the SSE2 path executes no AVX instruction" ;;
    no) echo "# probe: this QEMU EXECUTES AVX2 under -cpu Nehalem: the Nehalem run proves CPUID-driven dispatch only" ;;
    *) echo "# probe inconclusive (no C compiler?): the Nehalem run proves CPUID-driven dispatch only" ;;
esac

# The reference outputs' digest natively, which every emulated run must reproduce (machine independence).
t0=$(date +%s)
POOLGRAD_STRESS_CASES=$stress_cases "$stress_bin" > "$tmp/native.tap" 2>/dev/null || {
    cat "$tmp/native.tap"; echo "FAIL: determinism_stress natively" >&2; exit 1; }
native_digest=$(sed -n 's/^# reference digest \(0x[0-9a-f]*\).*/\1/p' "$tmp/native.tap")
echo "# native determinism_stress ($stress_cases problems): reference digest $native_digest, $(( $(date +%s) - t0 )) s"

# run_model CPU EXPECTED_ISA FORBIDDEN_KERNEL_REGEX
run_model() {
    local cpu=$1 isa=$2 forbidden=$3 t0 t1 t2
    printf '\n=== qemu-x86_64 -cpu %s: expect %s ===\n' "${cpu%%,*}" "$isa"
    t0=$(date +%s)
    if ! POOLGRAD_EXPECT_ISA=$isa POOLGRAD_EXHAUSTIVE_STEP=${QEMU_EXHAUSTIVE_STEP:-64} timeout 300 qemu-x86_64 -cpu "$cpu" "$checkasm_bin" --cases "$checkasm_cases" \
            > "$tmp/checkasm.tap"; then
        grep -v '^ok ' "$tmp/checkasm.tap" || true
        echo "FAIL: checkasm under -cpu $cpu" >&2
        return 1
    fi
    # the kernels called directly must be of the expected ISA (or lower), never a higher one, and every
    # family's kernel of the expected ISA must have run on some case
    local kernels used bad
    kernels=$(grep -E '^# kernels called directly:|cases per kernel:' "$tmp/checkasm.tap")
    used=$(printf '%s\n' "$kernels" | grep -E -o "${isa}_[a-z_]+=[1-9][0-9]*" | wc -l)
    bad=$(printf '%s\n' "$kernels" | grep -E -c "$forbidden" || true)
    grep -E '^# (kernels called|CPU|detected|dispatch|checkasm)|^not ok|^1\.\.' "$tmp/checkasm.tap"
    if [ "$used" -lt 7 ] || [ "$bad" -ne 0 ]; then
        echo "FAIL: checkasm under -cpu $cpu: $used of 7 ${isa} kernel families exercised, $bad lines name a forbidden kernel" >&2
        return 1
    fi
    t1=$(date +%s)
    echo "# checkasm: --cases $checkasm_cases, $used ${isa} kernel families exercised, $((t1 - t0)) s"
    if ! POOLGRAD_EXPECT_ISA=$isa POOLGRAD_STRESS_CASES=$stress_cases timeout 420 \
            qemu-x86_64 -cpu "$cpu" "$stress_bin" > "$tmp/stress.tap"; then
        cat "$tmp/stress.tap"
        echo "FAIL: determinism_stress under -cpu $cpu" >&2
        return 1
    fi
    grep -v '^# problems per kernel' "$tmp/stress.tap"
    local digest
    digest=$(sed -n 's/^# reference digest \(0x[0-9a-f]*\).*/\1/p' "$tmp/stress.tap")
    if [ -z "$digest" ] || [ "$digest" != "$native_digest" ]; then
        echo "FAIL: reference digest ${digest:-missing} under -cpu $cpu, natively $native_digest" >&2
        return 1
    fi
    t2=$(date +%s)
    echo "# determinism_stress: $((t2 - t1)) s"
}

run_model "$haswell" avx2 '(^| )avx512_'
run_model "$nehalem" sse2 '(^| )(avx512|avx2)_'

printf '\n=== qemu-x86 done in %s s ===\n' "$(( $(date +%s) - script_start ))"
