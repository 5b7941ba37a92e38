/* The public f16/bf16 conversions: the library's own code (kernels/convert.h), payload-keeping. */
#include "convert.h"
#include "internal.h"

float poolgrad_f16_to_f32(uint16_t h) { return poolgrad_f16_to_f32_inline(h); }
uint16_t poolgrad_f32_to_f16(float f) { return poolgrad_f32_to_f16_inline(f); }
float poolgrad_bf16_to_f32(uint16_t b) { return poolgrad_bf16_to_f32_inline(b); }
uint16_t poolgrad_f32_to_bf16(float f) { return poolgrad_f32_to_bf16_inline(f); }
