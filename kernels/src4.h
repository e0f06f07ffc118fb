/*
 * src4.h: the caller's spheres as the four-at-a-time passes read them
 * (wrap_avx2.c, filter_avx2.c, through load4_avx2.h): a plain struct, so
 * that the scalar sources that hand it over need not see SIMDe.
 */
#ifndef SC_SRC4_H
#define SC_SRC4_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_src4 {
    const char *x, *y, *z, *r; /* the caller's values */
    size_t stride, rstride;    /* bytes */
    bool f64;                  /* double, else float */
} sc_src4;

#endif /* SC_SRC4_H */
