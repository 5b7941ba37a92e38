/*
 * Vector layer, every level: the scalar gather of picked lanes from memory, for segments longer than
 * two registers (and the 128-bit picks). Needs VL, vf and vf_loadu from the level file.
 */
#ifndef POOLGRAD_KERNELS_SIMD_GATHER_H
#define POOLGRAD_KERNELS_SIMD_GATHER_H

/* lane l = seg[rel[l] + j] if j < cnt[l] else +0.0 */
PG_AI vf vf_pick_mem(const float *seg, const int32_t *rel, const int32_t *cnt, int j)
{
    float t[VL];
    for (int l = 0; l < VL; l++)
        t[l] = j < cnt[l] ? seg[rel[l] + j] : 0.0f;
    return vf_loadu(t);
}

#endif
