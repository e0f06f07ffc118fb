/*
 * driver.c: replays inputs through a libFuzzer harness without libFuzzer,
 * so that the committed corpora run as ordinary tests in every build (gcc,
 * ASan, no clang needed). Arguments are files or directories (every regular
 * file in a directory, in name order). A harness aborts on a finding; the
 * driver prints how many inputs it ran.
 *
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    /* an exact-size copy, so ASan sees reads past the input */
    uint8_t *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    size_t runs = 0;
    for (int k = 1; k < argc; k++) {
        struct stat st;
        if (stat(argv[k], &st) != 0) {
            perror(argv[k]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[k]) != 0)
                return 2;
            runs++;
            continue;
        }
        DIR *d = opendir(argv[k]);
        if (!d)
            return 2;
        char **names = NULL;
        size_t count = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            names = realloc(names, (count + 1) * sizeof *names);
            size_t l = strlen(argv[k]) + strlen(e->d_name) + 2;
            names[count] = malloc(l);
            snprintf(names[count], l, "%s/%s", argv[k], e->d_name);
            count++;
        }
        closedir(d);
        qsort(names, count, sizeof *names, by_name);
        for (size_t q = 0; q < count; q++) {
            if (stat(names[q], &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(names[q]) != 0)
                    return 2;
                runs++;
            }
            free(names[q]);
        }
        free(names);
    }
    printf("%s: %zu inputs replayed, no finding\n", argv[0], runs);
    return runs > 0 ? 0 : 1;
}
