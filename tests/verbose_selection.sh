#!/bin/sh
# POOLGRAD_VERBOSE=1 explains a plan's kernel choice: the problem, every candidate passed over with its
# reason, and the chosen kernel, which must be the one the plan reports.
# Usage: verbose_selection.sh NATIVE_EXAMPLE
set -eu
echo "1..3"
out=$(POOLGRAD_VERBOSE=1 "$1" 2>&1)
chosen=$(echo "$out" | sed -n 's/^poolgrad: *\([a-z0-9_]*\) *chosen: .*$/\1/p')
planned=$(echo "$out" | sed -n 's/^kernel avgpool2d_bwd_[a-z0-9]*__\([a-z0-9_]*\),.*/\1/p')
if echo "$out" | grep -q '^poolgrad: plan avgpool2d'; then echo "ok 1 - the problem is described"; else
    echo "not ok 1 - no problem line"; echo "$out" | sed 's/^/# /'; exit 1; fi
if echo "$out" | grep -q 'rejected: '; then echo "ok 2 - rejected candidates carry a reason"; else
    echo "not ok 2 - no rejection reasons"; echo "$out" | sed 's/^/# /'; exit 1; fi
if [ -n "$chosen" ] && [ "$chosen" = "$planned" ]; then echo "ok 3 - chosen $chosen is the plan's kernel"; else
    echo "not ok 3 - chosen '$chosen', plan says '$planned'"; echo "$out" | sed 's/^/# /'; exit 1; fi
