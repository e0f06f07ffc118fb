/*
 * io_file.c: loading an input: a regular file is mapped, anything else
 * (a pipe, a device, standard input for "-") is read into memory.
 *
 * SPDX-License-Identifier: MIT
 */
#define _DEFAULT_SOURCE /* MAP_POPULATE (Linux): the mapping is filled in one call */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ======================================================================== */
/* Loading a file: mmap, or read() for what cannot be mapped                */
/* ======================================================================== */

void io_file_release(io_file *f)
{
    if (f->map)
        munmap(f->map, f->map_len);
    free(f->heap);
    memset(f, 0, sizeof *f);
}

static sc_io_status read_all_fd(int fd, const char *path, io_file *f, char *err, size_t errcap)
{
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    if (buf == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory reading the file", path);
    for (;;) {
        if (len == cap) {
            unsigned char *grown = (cap > SIZE_MAX / 2) ? NULL : realloc(buf, cap * 2);
            if (grown == NULL) {
                free(buf);
                return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory reading the file",
                            path);
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: byte %zu: cannot read: %s", path, len,
                        strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    f->heap = buf;
    f->data = buf;
    f->size = len;
    return SC_IO_OK;
}

sc_io_status io_file_load(const char *path, io_file *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    const int is_stdin = strcmp(path, "-") == 0;
    const char *name = io_display_name(path, 0);
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot open: %s", name, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (!is_stdin)
            close(fd);
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot stat: %s", name, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        if (!is_stdin)
            close(fd);
        return io_fail(err, errcap, SC_IO_ERR_OPEN, "%s: cannot read: is a directory", name);
    }
    sc_io_status status = SC_IO_OK;
    /* Standard input redirected from a file is mapped from where it stands. */
    const off_t at = is_stdin && S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_CUR) : 0;
    if (S_ISREG(st.st_mode) && at == 0 && st.st_size > 0 &&
        (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE;
#endif
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
        if (m != MAP_FAILED) {
            posix_madvise(m, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
            f->map = m;
            f->map_len = (size_t)st.st_size;
            f->data = m;
            f->size = (size_t)st.st_size;
        } else {
            status = read_all_fd(fd, name, f, err, errcap);
        }
    } else if (S_ISREG(st.st_mode) && st.st_size == 0) {
        static const unsigned char empty[1] = {0};
        f->data = empty;
        f->size = 0;
    } else {
        status = read_all_fd(fd, name, f, err, errcap);
    }
    if (!is_stdin)
        close(fd);
    return status;
}
