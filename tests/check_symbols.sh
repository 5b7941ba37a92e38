#!/bin/sh
# Symbol hygiene of the built libraries.
#  - static archives: every global symbol libpoolgrad.a defines starts with poolgrad_ (so it links
#    into a process that also loads the vendor's aclnn libraries); libpoolgrad-aclnn.a (the front plus
#    its own copy of the core) adds only acl* names to those.
#  - shared objects (nm -D --defined-only): libpoolgrad.so exports exactly the functions declared
#    POOLGRAD_API in include/poolgrad/poolgrad.h, libpoolgrad-aclnn.so exactly those declared
#    POOLGRAD_ACLNN_API under include/poolgrad-aclnn/: nothing internal, nothing missing.
# Usage: check_symbols.sh NM INCLUDE_DIR [static LIBPOOLGRAD.a LIBPOOLGRAD_ACLNN.a]
#                                        [shared LIBPOOLGRAD.so LIBPOOLGRAD_ACLNN.so]
# A kind that was not built (-Ddefault_library=static or shared) is simply not passed: its checks
# are reported as skipped.
set -eu
nm=$1 inc=$2
shift 2
a_pg= a_acl= so_pg= so_acl=
while [ $# -gt 0 ]; do
    case $1 in
        static) a_pg=$2 a_acl=$3 ;;
        shared) so_pg=$2 so_acl=$3 ;;
        *) echo "check_symbols.sh: unknown kind $1" >&2; exit 2 ;;
    esac
    shift 3
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$2"; status=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# Sanitizer and coverage instrumentation adds its own globals (__odr_asan.*, __asan_*, __ubsan_*, ...).
instrumentation='^(__odr_asan|__asan|__ubsan|__sancov|__llvm|___asan|__gcov|__tsan|__msan)'
defined() { # nm flags, file: the names of the defined global symbols
    "$nm" $1 --defined-only "$2" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | grep -Ev "$instrumentation" | sort -u
}
# Names declared with the export macro in the public headers.
declared() { # macro, files...
    m=$1; shift
    grep -h "$m " "$@" | grep -v '^#' | sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/' | sort -u
}
declared POOLGRAD_API "$inc/poolgrad/poolgrad.h" >"$tmp/api_pg"
declared POOLGRAD_ACLNN_API $(find "$inc/poolgrad-aclnn" -name '*.h') >"$tmp/api_acl"

if [ -n "$a_pg" ]; then
    defined -g "$a_pg" >"$tmp/a_pg"
    grep -v '^poolgrad_' "$tmp/a_pg" >"$tmp/bad" || true
    if [ -s "$tmp/bad" ]; then notok "libpoolgrad.a defines unprefixed globals:" "$tmp/bad"
    else ok "libpoolgrad.a defines only poolgrad_* globals"; fi
    defined -g "$a_acl" | comm -23 - "$tmp/a_pg" | grep -Ev '^(acl|aclnn|aclrt)[A-Z]' >"$tmp/bad" || true
    if [ -s "$tmp/bad" ]; then notok "libpoolgrad-aclnn.a adds non-acl* globals:" "$tmp/bad"
    else ok "libpoolgrad-aclnn.a adds only acl* globals to libpoolgrad's"; fi
else
    skip "libpoolgrad.a defines only poolgrad_* globals" "static libraries not built"
    skip "libpoolgrad-aclnn.a adds only acl* globals" "static libraries not built"
fi

check_so() { # label, .so, declared-list
    defined -D "$2" >"$tmp/so"
    comm -23 "$tmp/so" "$3" >"$tmp/extra"
    comm -13 "$tmp/so" "$3" >"$tmp/missing"
    if [ -s "$tmp/extra" ]; then notok "$1 exports symbols that are not public API:" "$tmp/extra"
    else ok "$1 exports no symbol beyond the public API ($(wc -l <"$tmp/so") symbols)"; fi
    if [ -s "$tmp/missing" ]; then notok "$1 does not export these public functions:" "$tmp/missing"
    else ok "$1 exports every public function ($(wc -l <"$3") declared)"; fi
}
if [ -n "$so_pg" ]; then
    check_so libpoolgrad.so "$so_pg" "$tmp/api_pg"
    check_so libpoolgrad-aclnn.so "$so_acl" "$tmp/api_acl"
else
    for t in "libpoolgrad.so exports no symbol beyond the public API" "libpoolgrad.so exports every public function" \
             "libpoolgrad-aclnn.so exports no symbol beyond the public API" "libpoolgrad-aclnn.so exports every public function"; do
        skip "$t" "shared libraries not built"
    done
fi
echo "1..$n"
exit $status
