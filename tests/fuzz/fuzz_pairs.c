/*
 * fuzz_pairs.c: the streaming pair writers. Bytes choose the format (npy,
 * csv, bin), the target (a new file, an existing one, /dev/full where every
 * write fails, /dev/null), n, and chunks of pairs, mostly valid (i < j < n),
 * sometimes not. A valid run's file must hold exactly the pairs written; a
 * failing write or a bad pair must fail with a one-line message and leave
 * no file and no temporary behind.
 *
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L
#include "sc_io.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void pairs_fail(const char *what, const char *err) {
    fprintf(stderr, "fuzz_pairs: %s: %s\n", what, err);
    abort();
}

static char dir[256];

static void make_dir(void) {
    if (dir[0])
        return;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/sc-fuzz-pairs.%ld", base, (long)getpid());
    mkdir(dir, 0700);
}

/* Files in dir other than `keep`: temporaries left behind. */
static int strays(const char *keep) {
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!keep || strcmp(e->d_name, keep)))
            found++;
    if (d)
        closedir(d);
    return found;
}

/* Reads the written file back: 0 when it holds exactly want[0 .. count). */
static int read_back(const char *path, sc_io_format fmt, const uint32_t *want, size_t count) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int ok = 0;
    if (fmt == SC_IO_FORMAT_CSV) {
        unsigned long a, b;
        size_t k = 0;
        while (fscanf(f, "%lu,%lu\n", &a, &b) == 2) {
            if (k >= count || a != want[2 * k] || b != want[2 * k + 1])
                ok = -1;
            k++;
        }
        if (k != count || !feof(f))
            ok = -1;
    } else {
        unsigned char h[128];
        if (fmt == SC_IO_FORMAT_NPY) {
            char shape[64];
            snprintf(shape, sizeof shape, "'shape': (%zu, 2)", count);
            if (fread(h, 1, 128, f) != 128 || memcmp(h, "\x93NUMPY\x01\x00", 8) != 0 ||
                !memmem(h, 128, shape, strlen(shape)) || !memmem(h, 128, "'<u4'", 5))
                ok = -1;
        }
        for (size_t k = 0; k < 2 * count && ok == 0; k++) {
            unsigned char b[4];
            if (fread(b, 1, 4, f) != 4 || ((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                                           (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) != want[k])
                ok = -1;
        }
        if (fgetc(f) != EOF)
            ok = -1;
    }
    fclose(f);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4 || size > 1 << 16)
        return 0;
    make_dir();
    static const sc_io_format formats[] = {SC_IO_FORMAT_NPY, SC_IO_FORMAT_CSV, SC_IO_FORMAT_BIN};
    static const char *const ext[] = {"npy", "csv", "bin"};
    const unsigned f = data[0] % 3, target = (data[0] / 3) % 4;
    const size_t n = (size_t)data[1] << 8 | data[2];
    data += 3;
    size -= 3;
    char path[512], name[64];
    snprintf(name, sizeof name, "out.%s", ext[f]);
    if (target == 2)
        snprintf(path, sizeof path, "/dev/full");
    else if (target == 3)
        snprintf(path, sizeof path, "/dev/null");
    else
        snprintf(path, sizeof path, "%s/%s", dir, name);
    if (target == 1) { /* an existing file to replace */
        FILE *old = fopen(path, "w");
        if (old) {
            fputs("old\n", old);
            fclose(old);
        }
    }
    if ((target == 2 || target == 3) && access(path, W_OK) != 0)
        return 0;
    char err[1024] = "";
    sc_pair_writer *w = NULL;
    sc_io_status st = sc_pair_writer_open(path, formats[f], n, &w, err, sizeof err);
    if (st != SC_IO_OK)
        pairs_fail("open", err);
    if (sc_pair_writer_needs_total(w))
        pairs_fail("a seekable target waits for a total", path);
    /* pairs: each 3 bytes: i, gap, chunk break */
    const size_t maxp = size / 3;
    uint32_t *pairs = malloc((2 * maxp + 2) * sizeof *pairs);
    size_t count = 0, written = 0;
    int bad = 0;
    for (size_t k = 0; k + 2 < size; k += 3) {
        uint32_t i = (uint32_t)(data[k] % (n ? n : 1));
        uint32_t j = i + 1 + data[k + 1];
        if (data[k + 2] == 0xFF) /* now and then, an invalid pair */
            j = i;
        bad |= !(i < j && j < n);
        pairs[2 * count] = i;
        pairs[2 * count + 1] = j;
        count++;
        if ((data[k + 2] & 7) == 0 || k + 5 >= size) { /* end of a chunk */
            st = sc_pair_writer_write(w, pairs + 2 * written, count - written, err, sizeof err);
            if (st != SC_IO_OK)
                break;
            written = count;
        }
    }
    if (st == SC_IO_OK)
        st = sc_pair_writer_finish(w, count, err, sizeof err);
    else
        sc_pair_writer_abort(w);
    const int fails_to_write = target == 2 && count > 0;
    if (st == SC_IO_OK) {
        if (bad)
            pairs_fail("an invalid pair was written", path);
        if (target == 2 && formats[f] == SC_IO_FORMAT_NPY)
            pairs_fail("/dev/full took a .npy header", path);
        if (fails_to_write)
            pairs_fail("/dev/full took pairs", path);
        if (target < 2 && read_back(path, formats[f], pairs, count) != 0)
            pairs_fail("the file does not hold the pairs written", path);
    } else {
        if (err[0] == '\0' || strchr(err, '\n'))
            pairs_fail("an error without a one-line message", err);
        if (!bad && target != 2)
            pairs_fail("a valid run failed", err);
        if (target == 0 && access(path, F_OK) == 0)
            pairs_fail("a failed run left the file", path);
        if (target == 1) { /* the old file, untouched */
            char old[16] = "";
            FILE *o = fopen(path, "r");
            if (!o || !fgets(old, sizeof old, o) || strcmp(old, "old\n") != 0)
                pairs_fail("a failed run damaged the file it was to replace", path);
            fclose(o);
        }
    }
    if (target < 2 && strays(st == SC_IO_OK || target == 1 ? name : NULL) != 0)
        pairs_fail("a temporary file was left behind", dir);
    if (target < 2)
        unlink(path);
    free(pairs);
    return 0;
}
