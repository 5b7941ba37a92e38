#!/bin/sh
# Every global symbol libpoolgrad.a defines must start with poolgrad_ (so it can be linked into a
# process that also loads the vendor's aclnn libraries); libpoolgrad-aclnn.a may only add acl* names.
# Usage: check_symbols.sh NM LIBPOOLGRAD LIBPOOLGRAD_ACLNN
set -eu
nm=$1
echo "1..2"
# Sanitizer instrumentation adds its own globals (__odr_asan.*, __asan_*, __ubsan_*, __sancov_*).
instrumentation='^(__odr_asan|__asan|__ubsan|__sancov|__llvm|___asan)'
bad=$("$nm" -g --defined-only "$2" | awk 'NF == 3 { print $3 }' | grep -Ev "$instrumentation" | grep -v '^poolgrad_' || true)
if [ -z "$bad" ]; then echo "ok 1 - libpoolgrad exports only poolgrad_* symbols"; else
    echo "not ok 1 - libpoolgrad exports unprefixed symbols:"; echo "$bad" | sed 's/^/#   /'; fi
bad2=$("$nm" -g --defined-only "$3" | awk 'NF == 3 { print $3 }' | grep -Ev "$instrumentation" | grep -Ev '^(acl|aclnn|aclrt)[A-Z]' || true)
if [ -z "$bad2" ]; then echo "ok 2 - libpoolgrad-aclnn exports only acl* API symbols"; else
    echo "not ok 2 - libpoolgrad-aclnn exports other symbols:"; echo "$bad2" | sed 's/^/#   /'; fi
[ -z "$bad" ] && [ -z "$bad2" ]
