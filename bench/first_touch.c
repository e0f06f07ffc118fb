/*
 * first_touch: what this machine charges for memory a process touches for
 * the first time, the floor under a one-shot run (docs/performance.md, "One
 * process, cold"). Four passes over B MiB, each timed:
 *   anonymous, 4 KiB pages: the first write to each page (the kernel
 *     zeroes it; a virtual machine's host may back it first), then a
 *     memset of the same bytes, now resident;
 *   anonymous, transparent huge pages (madvise): the same;
 *   a file (FILE, mapped with MAP_POPULATE): the first read of every
 *     double, then a second read.
 *   first_touch [--mib B] [FILE]     (default 64 MiB; no FILE: no file pass)
 * The library's first query on a fresh context touches n times a few dozen
 * bytes of scratch, and a one-shot run maps and reads its input once: these
 * passes bound what a cold run can save over a warm one here.
 */
#define _GNU_SOURCE /* MAP_POPULATE, MADV_HUGEPAGE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int anonymous(size_t bytes, int huge) {
    char *p = NULL;
    if (posix_memalign((void **)&p, (size_t)2 << 20, bytes) != 0)
        return 1;
    (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const double a = now_ms();
    for (size_t k = 0; k < bytes; k += 4096)
        p[k] = 1;
    const double b = now_ms();
    memset(p, 2, bytes);
    const double c = now_ms();
    printf("anonymous %-9s first touch %8.2f ms  resident memset %7.2f ms  ratio %6.1f\n",
           huge ? "huge" : "4 KiB", b - a, c - b, (b - a) / (c - b));
    free(p);
    return 0;
}

static double sum_pass(const double *v, size_t n) {
    double s = 0.0;
    for (size_t k = 0; k < n; k++)
        s += v[k];
    return s;
}

static int mapped(const char *path) {
    const int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
        fprintf(stderr, "first_touch: %s: cannot read\n", path);
        return 1;
    }
    const size_t bytes = (size_t)st.st_size;
    const double a = now_ms();
    const double *v = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (v == MAP_FAILED)
        return 1;
    const double b = now_ms();
    const double s1 = sum_pass(v, bytes / 8);
    const double c = now_ms();
    const double s2 = sum_pass(v, bytes / 8);
    const double d = now_ms();
    printf("file %.1f MiB: map %.2f ms  first read %.2f ms (%.2f GB/s)  second read %.2f ms%s\n",
           (double)bytes / (1 << 20), b - a, c - b, (double)bytes / (c - b) / 1e6, d - c,
           s1 == s2 || s1 != s1 ? "" : " (sums differ?)");
    munmap((void *)(uintptr_t)v, bytes);
    return 0;
}

int main(int argc, char **argv) {
    size_t mib = 64;
    const char *file = NULL;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--mib") == 0 && k + 1 < argc)
            mib = (size_t)strtoull(argv[++k], NULL, 10);
        else if (argv[k][0] != '-')
            file = argv[k];
        else {
            fprintf(stderr, "usage: first_touch [--mib B] [FILE]\n");
            return 2;
        }
    }
    if (mib < 1 || mib > 65536)
        return 2;
    int bad = anonymous(mib << 20, 0) | anonymous(mib << 20, 1);
    if (file)
        bad |= mapped(file);
    return bad;
}
