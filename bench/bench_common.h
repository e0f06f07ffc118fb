/*
 * bench_common.h: what sc_bench and the study's sc_study share: the clock,
 * the load average, folder creation, size parsing ("1e6", "20k", "4M") and
 * the machine description both name their result folders and CSV rows by.
 */
#ifndef SC_BENCH_COMMON_H
#define SC_BENCH_COMMON_H

#include <stddef.h>

typedef struct bench_host {
    char cpu[128];     /* model name from /proc/cpuinfo, or "unknown" */
    char tag[96];      /* the given tag, else the model lower-cased with dashes + "-<cpus>c" */
    int cores;         /* logical CPUs online */
    char isa[16];      /* the kernel SC_KERNEL_AUTO picks */
    char compiler[64]; /* "gcc 12.2.0", "clang ..." */
} bench_host;

double bench_now_s(void);                         /* monotonic seconds */
double bench_median(double *v, int k);            /* median of v[0..k) (sorts v); 0 when k <= 0 */
double bench_load_average(void);                  /* 1-minute load, or -1 */
int bench_mkdir_p(const char *path);              /* 0, or -1 with errno */
int bench_parse_size(const char *s, size_t *out); /* 0, or -1 when not a size */
void bench_host_probe(const char *tag, bench_host *h);
int bench_write_all(int fd, const void *buf, size_t len); /* 0, or -1: retries EINTR */
struct sc_box;
/* A periodic box on every axis over the centres of n (x, y, z, r) rows:
 * [min, next double above max) ([0, 1) when n is 0). */
void bench_periodic_box(const double *rows, size_t n, struct sc_box *box);

#endif
