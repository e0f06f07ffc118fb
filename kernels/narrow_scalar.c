/*
 * narrow_scalar.c: the plain C reference narrowphase, always built, compiled
 * without auto-vectorisation so it stays the scalar baseline. It is the
 * definition every SIMD kernel must match pair for pair, in the same order.
 * It reads the gathered, cell-ordered working copy.
 */
#include "kernel.h"

#define SC_KNAME sc_narrow_scalar
#define SC_LOAD(a, f, k) ((a)->f[k])
#include "scalar_template.h"
