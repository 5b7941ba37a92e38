/*
 * Vector layer, 256- and 512-bit levels: the first bytes of a 128- or 256-bit register, by 128-bit pieces, for
 * the levels' row-tail stores of a partial vector (vf_storeu_part at 256 bits, vh_storeu_part at both). Included
 * by the level file after its SIMDe header.
 */
#ifndef POOLGRAD_KERNELS_SIMD_V128_PART_H
#define POOLGRAD_KERNELS_SIMD_V128_PART_H

/* the first nb bytes (nb even, 2 <= nb <= 16) of x, by pieces of 16, 8, 4 and 2 bytes, nothing past them; integer
 * stores only: d may be 2-byte aligned (16-bit rows), where a float store is undefined */
PG_AI void v128_storeu_first_bytes(char *d, simde__m128i x, int64_t nb)
{
    if (nb == 16) {
        simde_mm_storeu_si128((simde__m128i *)(void *)d, x);
        return;
    }
    if (nb >= 8) {
        simde_mm_storel_epi64((simde__m128i *)(void *)d, x);
        x = simde_mm_srli_si128(x, 8);
        d += 8;
        nb -= 8;
    }
    if (nb >= 4) {
        const int32_t w = simde_mm_cvtsi128_si32(x);
        memcpy(d, &w, 4);
        x = simde_mm_srli_si128(x, 4);
        d += 4;
        nb -= 4;
    }
    if (nb) {
        const uint16_t w = (uint16_t)simde_mm_cvtsi128_si32(x);
        memcpy(d, &w, 2);
    }
}

/* the first nb bytes (nb even, 2 <= nb <= 32) of y: its low half whole when nb > 16, then the first bytes of the
 * half that holds the last one */
PG_AI void v256_storeu_first_bytes(char *d, simde__m256i y, int64_t nb)
{
    if (nb == 32) {
        simde_mm256_storeu_si256((simde__m256i *)(void *)d, y);
        return;
    }
    simde__m128i x = simde_mm256_castsi256_si128(y);
    if (nb > 16) {
        simde_mm_storeu_si128((simde__m128i *)(void *)d, x);
        x = simde_mm256_extracti128_si256(y, 1);
        d += 16;
        nb -= 16;
    }
    v128_storeu_first_bytes(d, x, nb);
}

#endif
