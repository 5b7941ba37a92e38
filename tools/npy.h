/* Minimal, defensive .npy reader/writer for the poolgrad command (format versions 1, 2 and 3). */
#ifndef POOLGRAD_TOOLS_NPY_H
#define POOLGRAD_TOOLS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poolgrad/poolgrad.h"

typedef struct npy_array {
    char descr[8];           /* "<f4", "<f2", "<u2", "<i2" */
    poolgrad_dtype dtype;
    bool fortran_order;
    int rank;
    int64_t shape[POOLGRAD_MAX_RANK];
    int64_t numel;
    void *data;              /* numel * element size bytes, owned */
} npy_array;

/* want_bf16: 2-byte integer data is bf16 bits (--dtype bf16). On failure returns false and writes a message. */
bool npy_read(const char *path, bool want_bf16, npy_array *out, char *err, size_t err_size);
/* Parse an in-memory file (used by npy_read; exposed for tests). */
bool npy_parse(const unsigned char *buf, size_t len, bool want_bf16, npy_array *out, char *err, size_t err_size);
/* Write a C-order array; bf16 is written as "<u2". */
bool npy_write(const char *path, poolgrad_dtype dtype, int rank, const int64_t *shape, const void *data, char *err,
               size_t err_size);
/* A view of the array (Fortran order becomes column-major strides). */
void npy_view(const npy_array *a, poolgrad_tensor *t);
void npy_free(npy_array *a);

#endif
