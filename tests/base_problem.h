/* A valid base problem that validation tests mutate, and a plan helper asserting the plan pointer. Header-only. */
#ifndef POOLGRAD_TESTS_BASE_PROBLEM_H
#define POOLGRAD_TESTS_BASE_PROBLEM_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "poolgrad/poolgrad.h"
#include "testutil.h"

/* A valid base problem: NCHW f32 gradInput (2,3,6,6), k=s=2, p=0 -> gradOutput (2,3,3,3). */
typedef struct pgt_base_problem {
    poolgrad_params pa;
    poolgrad_tensor go, gi;
    float go_data[2 * 3 * 3 * 3];
    float gi_data[2 * 3 * 6 * 6];
} pgt_base_problem;

static inline void pgt_base_init(pgt_base_problem *h)
{
    memset(h, 0, sizeof *h);
    h->pa = pgt_params(2, 2, 2, 0, false, true, 0);
    const int64_t gi_shape[4] = { 2, 3, 6, 6 }, go_shape[4] = { 2, 3, 3, 3 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&h->gi, POOLGRAD_F32, 4, gi_shape, h->gi_data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&h->go, POOLGRAD_F32, 4, go_shape, h->go_data), POOLGRAD_OK);
    for (int i = 0; i < 2 * 3 * 3 * 3; i++)
        h->go_data[i] = (float)(i % 7) - 3.0f;
}

/* poolgrad_plan_create on the problem; asserts the plan pointer is NULL exactly on failure. */
static inline poolgrad_status pgt_base_plan(pgt_base_problem *h)
{
    poolgrad_plan *plan = (poolgrad_plan *)(uintptr_t)1;
    poolgrad_status st = poolgrad_plan_create(&h->pa, &h->go, &h->gi, &plan);
    cr_assert_eq(st == POOLGRAD_OK, plan != NULL, "status %d but plan %p", (int)st, (void *)plan);
    poolgrad_plan_destroy(plan);
    return st;
}

#define PGT_EXPECT_PLAN(h, status) \
    cr_assert_eq(pgt_base_plan(h), (status), "expected %s", poolgrad_status_string(status))

#endif
