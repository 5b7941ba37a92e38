/*
 * Vector layer, 256- and 512-bit levels: lane selectors kept in registers. A selector for window j of
 * every lane is the lane's index rel + j and the mask j < cnt; the level file provides vi, vm, vi_loadu,
 * vi_add, vi_set1 and vm_gt before including this, and the picks (vf_pick1, vf_pick2, vf_pick) after.
 * The 128-bit level rebuilds selectors from the lane table instead (vec128.h).
 */
#ifndef POOLGRAD_KERNELS_SIMD_VSEL_REG_H
#define POOLGRAD_KERNELS_SIMD_VSEL_REG_H

typedef struct vlanes {
    vi rel, cnt;
} vlanes;
typedef struct vsel {
    vi idx; /* rel + j */
    vm m;   /* j < cnt */
} vsel;

PG_AI vlanes vlanes_load(const int32_t *rel, const int32_t *cnt) { return (vlanes){ vi_loadu(rel), vi_loadu(cnt) }; }
PG_AI vsel vsel_at(vlanes t, int j) { return (vsel){ vi_add(t.rel, vi_set1(j)), vm_gt(t.cnt, vi_set1(j)) }; }
/* a kept selector: computed once (per chunk), read back for every window row */
typedef struct vsel_keep {
    vsel s;
} vsel_keep;
PG_AI void vsel_put(vsel_keep *k, vsel s) { k->s = s; }
PG_AI vsel vsel_get(const vsel_keep *k, vlanes t, int j)
{
    (void)t;
    (void)j;
    return k->s;
}

#endif
