/*
 * first_touch: what this machine charges for memory a process touches for
 * the first time, the floor under a one-shot run (docs/one-shot.md, "First
 * touch"). Passes over B MiB, each timed:
 *   anonymous, 4 KiB pages: the first write to each page (the kernel
 *     zeroes it; a virtual machine's host may back it first), then a
 *     memset of the same bytes, now resident;
 *   anonymous, transparent huge pages (madvise): the same;
 *   a file (FILE, mapped with MAP_POPULATE): the first read of every
 *     double, then a second read;
 *   huge pages, then 4 KiB pages, that this process has just unmapped:
 *     B MiB touched, unmapped and mapped and touched again at once, then
 *     again after a pause of P ms (a guest whose balloon reports free
 *     memory to the host hands freed 2 MiB blocks back, and touching them
 *     again faults on the host: the state a new process meets; 4 KiB pages
 *     come first from smaller free pieces, which are not handed back, and
 *     the library's sc_huge_pages chooses by that). Where the kernel has
 *     free page reporting, its parameters are printed first.
 *   first_touch [--mib B] [--pause P] [FILE]   (64 MiB, 3000 ms; no FILE: no file pass)
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

/* B bytes in fresh pages of one kind: mapped, first written (timed),
 * unmapped. */
static int page_touch(size_t bytes, int huge, double *ms) {
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const double a = now_ms();
    for (size_t k = 0; k < bytes; k += 4096)
        p[k] = 1;
    *ms = now_ms() - a;
    munmap(p, bytes);
    return 0;
}

/* The kernel's free page reporting parameters, where it has them: a guest
 * that reports free memory hands it back to its host. */
static void print_reporting(void) {
    static const char *const names[] = {"page_reporting_order", "min_free_ms"};
    char v[2][32];
    for (int k = 0; k < 2; k++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/module/page_reporting/parameters/%s", names[k]);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        if (!fgets(v[k], sizeof v[k], f))
            v[k][0] = 0;
        v[k][strcspn(v[k], "\n")] = 0;
        fclose(f);
    }
    printf("free page reporting: %s %s, %s %s\n", names[0], v[0], names[1], v[1]);
}

static int reuse(size_t bytes, int huge, unsigned pause_ms) {
    double first, again, later;
    if (page_touch(bytes, huge, &first) || page_touch(bytes, huge, &again))
        return 1;
    usleep(1000 * pause_ms);
    if (page_touch(bytes, huge, &later))
        return 1;
    printf("%-10s pages unmapped and touched again: first %.2f ms, at once %.2f ms, after %u ms "
           "%.2f ms\n",
           huge ? "huge" : "4 KiB", first, again, pause_ms, later);
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
    unsigned pause_ms = 3000;
    const char *file = NULL;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--mib") == 0 && k + 1 < argc)
            mib = (size_t)strtoull(argv[++k], NULL, 10);
        else if (strcmp(argv[k], "--pause") == 0 && k + 1 < argc)
            pause_ms = (unsigned)strtoul(argv[++k], NULL, 10);
        else if (argv[k][0] != '-')
            file = argv[k];
        else {
            fprintf(stderr, "usage: first_touch [--mib B] [--pause P] [FILE]\n");
            return 2;
        }
    }
    if (mib < 1 || mib > 65536 || pause_ms > 600000)
        return 2;
    print_reporting();
    int bad = anonymous(mib << 20, 0) | anonymous(mib << 20, 1);
    if (file)
        bad |= mapped(file);
    /* huge pages first: the 4 KiB pass after it then starts on memory
     * freed P ms before, as the huge pass's last touch did */
    bad |= reuse(mib << 20, 1, pause_ms);
    usleep(1000 * pause_ms);
    bad |= reuse(mib << 20, 0, pause_ms);
    return bad;
}
