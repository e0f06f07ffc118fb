/*
 * cpu.c: run-time CPU dispatch. Probes AVX2 (and FMA, which the AVX2 unit
 * is compiled with), reads the SC_KERNEL environment variable once, and
 * resolves SC_KERNEL_AUTO.
 *
 * The features come from glibc's table (<sys/platform/x86.h>: filled by
 * the dynamic loader at start-up, "active" meaning the CPU has them and
 * the kernel saves their registers), not from the compiler's cpuid
 * wrapper: that wrapper's constructor runs about a dozen cpuid
 * instructions in every process that links it, and under a hypervisor
 * each one traps (5-8 us here). Without that header, the wrapper.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "kernels.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<cpuid.h>)
#include <cpuid.h>
#define SC_HAVE_CPUID 1
#endif
#endif

#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
/* CPU_FEATURE_ACTIVE's own reading, with an unsigned shift: the header's
 * x86_cpu_active shifts an int 1 left by the feature's bit, which is
 * undefined for bit 31 (AVX512VL; UBSan reports it). Same table, same
 * words, same bit. */
static int cpu_active(unsigned index) {
    const unsigned word = 8 * sizeof(unsigned);
    const struct cpuid_feature *f = __x86_get_cpuid_feature_leaf(index / (word * 4));
    return (int)((f->active_array[(index & (word * 4 - 1)) / word] >> (index & (word - 1))) & 1u);
}
#define SC_CPU_HAS(glibc, gcc) cpu_active(x86_cpu_##glibc)
#endif
#endif
#if (defined(__x86_64__) || defined(__i386__)) && !defined(SC_CPU_HAS)
#define SC_CPU_HAS(glibc, gcc) (__builtin_cpu_init(), __builtin_cpu_supports(gcc))
#endif

#ifdef SC_HAVE_AVX2_KERNEL
static int cpu_has_avx2(void) {
#ifdef SC_CPU_HAS
    return SC_CPU_HAS(AVX2, "avx2") && SC_CPU_HAS(FMA, "fma") && SC_CPU_HAS(POPCNT, "popcnt");
#else
    return 0;
#endif
}
#endif

/* The radix sort's streaming scatter (radix_sort.c) helps where a plain
 * scatter is bound by the lines it reads for ownership (the Intel CPUs
 * measured) and hurts where it runs near its bytes (AMD Zen 4):
 * docs/decisions/0003-stage-tuning.md. So it is on for Intel CPUs only;
 * the answer is the same either way. The vendor is cpuid leaf 0, read once. */
int sc_cpu_streaming_scatter(void) {
#ifdef SC_HAVE_CPUID
    static _Atomic int known = -1; /* racing first calls store the same value */
    int v = known;
    if (v < 0) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        /* "GenuineIntel" in ebx, edx, ecx */
        v = __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u &&
            c == 0x6c65746eu;
        known = v;
    }
    return v;
#else
    return 0;
#endif
}

int sc_kernel_available(sc_kernel k) {
    switch (k) {
    case SC_KERNEL_AUTO:
    case SC_KERNEL_SCALAR: return 1;
    case SC_KERNEL_AVX2:
#ifdef SC_HAVE_AVX2_KERNEL
        return cpu_has_avx2();
#else
        return 0;
#endif
    }
    return 0;
}

/* SC_KERNEL=scalar|avx2 forces a path (tests, comparisons); "auto" or unset
 * leaves the choice to the CPU; anything else is ignored, and a context's
 * log hook hears of it (sc_kernel_env_problem). */
static sc_kernel env_kernel(void) {
    const char *e = getenv("SC_KERNEL");
    if (!e)
        return SC_KERNEL_AUTO;
    if (strcmp(e, "scalar") == 0)
        return SC_KERNEL_SCALAR;
    if (strcmp(e, "avx2") == 0)
        return SC_KERNEL_AVX2;
    return SC_KERNEL_AUTO;
}

size_t sc_kernel_env_problem(char *buf, size_t cap) {
    const char *e = getenv("SC_KERNEL");
    if (!e || strcmp(e, "auto") == 0 || strcmp(e, "") == 0)
        return 0;
    const sc_kernel k = env_kernel();
    if (k == SC_KERNEL_AUTO)
        return (size_t)snprintf(buf, cap,
                                "SC_KERNEL=%.40s is not auto, scalar or avx2; it is ignored", e);
    if (!sc_kernel_available(k))
        return (size_t)snprintf(buf, cap,
                                "SC_KERNEL=%s: this CPU or build cannot run that kernel; it is "
                                "ignored",
                                e);
    return 0;
}

sc_kernel sc_kernel_auto(void) {
    sc_kernel e = env_kernel();
    if (e != SC_KERNEL_AUTO && sc_kernel_available(e))
        return e;
    return sc_kernel_available(SC_KERNEL_AVX2) ? SC_KERNEL_AVX2 : SC_KERNEL_SCALAR;
}

/* ---- the kernel tables (kernels/kernels.h) ---- */

static const sc_kernels scalar_set = {
    SC_KERNEL_SCALAR,    sc_narrow_scalar,     sc_boxfilter_scalar, sc_boxfilter16_scalar,
    sc_bvh4_walk_scalar, sc_probe_runs_scalar, sc_wrap_scalar,      sc_filter_scalar};
#ifdef SC_HAVE_AVX2_KERNEL
static const sc_kernels avx2_set = {SC_KERNEL_AVX2,      sc_narrow_avx2,    sc_boxfilter_avx2,
                                    sc_boxfilter16_avx2, sc_bvh4_walk_avx2, sc_probe_runs_avx2,
                                    sc_wrap_avx2,        sc_filter_avx2};
#endif

const sc_kernels *sc_kernels_of(sc_kernel_fn narrow) {
#ifdef SC_HAVE_AVX2_KERNEL
    if (narrow == sc_narrow_avx2)
        return &avx2_set;
#else
    (void)narrow;
#endif
    return &scalar_set;
}

const char *sc_kernels_built(void) {
#ifdef SC_HAVE_AVX2_KERNEL
    return " avx2";
#else
    return "";
#endif
}

sc_kernel_fn sc_kernel_resolve(sc_kernel *k) {
    if (*k == SC_KERNEL_AUTO)
        *k = sc_kernel_auto();
    if (!sc_kernel_available(*k))
        return NULL;
#ifdef SC_HAVE_AVX2_KERNEL
    if (*k == SC_KERNEL_AVX2)
        return sc_narrow_avx2;
#endif
    return sc_narrow_scalar;
}

void sc_cpu_features(char *buf, size_t cap) {
    buf[0] = '\0';
#ifdef SC_CPU_HAS
    static const char *const names[] = {"sse2", "sse4.2",  "avx",      "avx2",
                                        "fma",  "avx512f", "avx512dq", "avx512vl"};
    const int sup[8] = {SC_CPU_HAS(SSE2, "sse2"),         SC_CPU_HAS(SSE4_2, "sse4.2"),
                        SC_CPU_HAS(AVX, "avx"),           SC_CPU_HAS(AVX2, "avx2"),
                        SC_CPU_HAS(FMA, "fma"),           SC_CPU_HAS(AVX512F, "avx512f"),
                        SC_CPU_HAS(AVX512DQ, "avx512dq"), SC_CPU_HAS(AVX512VL, "avx512vl")};
    size_t used = 0;
    for (int i = 0; i < 8; i++)
        if (sup[i] && used + strlen(names[i]) + 2 < cap) {
            if (used)
                buf[used++] = ' ';
            strcpy(buf + used, names[i]);
            used += strlen(names[i]);
        }
#else
    strncpy(buf, "(not x86)", cap - 1);
    buf[cap - 1] = '\0';
#endif
}
