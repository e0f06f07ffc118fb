/*
 * bench_common.c: see bench_common.h.
 */
#include "bench_common.h"

#include "spherecollide.h"

#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bench_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int k) {
    if (k <= 0)
        return 0.0;
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

double bench_load_average(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1.0;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1.0;
        fclose(f);
    }
    return l;
}

int bench_mkdir_p(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
    return 0;
}

int bench_parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1e6, end++;
    if (*end || !(v >= 0) || v > 4e9 || v != (double)(size_t)v)
        return -1;
    *out = (size_t)v;
    return 0;
}

void bench_host_probe(const char *tag, bench_host *h) {
    memset(h, 0, sizeof *h);
    snprintf(h->cpu, sizeof h->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    snprintf(h->cpu, sizeof h->cpu, "%s", p);
                    h->cpu[strcspn(h->cpu, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = cores > 0 ? (int)cores : 1;
    if (tag) {
        snprintf(h->tag, sizeof h->tag, "%s", tag);
    } else {
        char base[80];
        size_t k = 0;
        int dash = 1;
        for (const char *p = h->cpu; *p && k + 1 < sizeof base; p++) {
            if (isalnum((unsigned char)*p)) {
                base[k++] = (char)tolower((unsigned char)*p);
                dash = 0;
            } else if (!dash) {
                base[k++] = '-';
                dash = 1;
            }
        }
        while (k > 0 && base[k - 1] == '-')
            k--;
        base[k] = 0;
        snprintf(h->tag, sizeof h->tag, "%s-%dc", k ? base : "unknown", h->cores);
    }
    snprintf(h->isa, sizeof h->isa, "%s", sc_kernel_name(sc_kernel_auto()));
#if defined(__clang__)
    snprintf(h->compiler, sizeof h->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(h->compiler, sizeof h->compiler, "gcc %s", __VERSION__);
#else
    snprintf(h->compiler, sizeof h->compiler, "unknown");
#endif
}

int bench_write_all(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

void bench_periodic_box(const double *rows, size_t n, sc_box *box) {
    for (int a = 0; a < 3; a++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < n; k++) {
            lo = rows[4 * k + a] < lo ? rows[4 * k + a] : lo;
            hi = rows[4 * k + a] > hi ? rows[4 * k + a] : hi;
        }
        box->periodic[a] = 1;
        box->lo[a] = n ? lo : 0.0;
        box->hi[a] = n ? nextafter(hi, INFINITY) : 1.0;
    }
}
