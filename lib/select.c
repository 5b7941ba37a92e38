/* Kernel selection: the kernel list (kernels/kernel_list.h) walked best first under the active ISA cap. */
#include "internal.h"
#include "kernel_list.h"

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const kernel_table[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY

const poolgrad_kernel *poolgrad_select_kernel(const poolgrad_problem *pr)
{
    const int cap = poolgrad_isa_level(poolgrad_active_isa());
    const size_t count = sizeof kernel_table / sizeof kernel_table[0];
    /* the first kernel of the best allowed ISA that supports the problem and prefers it; the scalar
     * reference, last, supports everything */
    for (size_t i = 0; i < count; i++) {
        const poolgrad_kernel *k = kernel_table[i];
        if (poolgrad_isa_level(k->isa) <= cap && k->supports(pr) && (!k->preferred || k->preferred(pr)))
            return k;
    }
    return &poolgrad_kernel_reference;
}
