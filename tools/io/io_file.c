/*
 * io_file.c: loading an input: a regular file is mapped, anything else
 * (a pipe, a device, standard input for "-") is read into memory, and
 * gzip data (by its magic bytes, whatever the name) is inflated into memory
 * with zlib, every member of it.
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
#ifdef SC_HAVE_ZLIB
#include <zlib.h>
#endif

/* ======================================================================== */
/* Loading a file: mmap, or read() for what cannot be mapped                */
/* ======================================================================== */

void io_file_release(io_file *f) {
    if (f->map)
        munmap(f->map, f->map_len);
    free(f->heap);
    memset(f, 0, sizeof *f);
}

static sc_io_status read_all_fd(int fd, const char *path, io_file *f, char *err, size_t errcap) {
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

/* gzip's magic bytes */
static int is_gzip(const io_file *f) {
    return f->size >= 2 && f->data[0] == 0x1f && f->data[1] == 0x8b;
}

#ifdef SC_HAVE_ZLIB
/* Replaces f's gzip bytes by what they inflate to: every member, as gzip
 * itself concatenates them. */
static sc_io_status gunzip(const char *name, io_file *f, char *err, size_t errcap) {
    /* the last member's size mod 2^32 (its trailer) is the usual whole size */
    size_t cap = f->size >= 18
                     ? (size_t)f->data[f->size - 4] | (size_t)f->data[f->size - 3] << 8 |
                           (size_t)f->data[f->size - 2] << 16 | (size_t)f->data[f->size - 1] << 24
                     : 0;
    cap = cap < (1 << 16) ? (1 << 16) : cap + 1;
    unsigned char *out = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (out == NULL || inflateInit2(&z, 15 + 16) != Z_OK) {
        free(out);
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory inflating the file", name);
    }
    const unsigned char *in = f->data;
    size_t in_at = 0, len = 0;
    sc_io_status st = SC_IO_OK;
    for (;;) {
        if (len == cap) {
            unsigned char *grown = cap > SIZE_MAX / 2 ? NULL : realloc(out, cap * 2);
            if (grown == NULL) {
                st = io_fail(err, errcap, SC_IO_ERR_NOMEM,
                             "%s: out of memory inflating the file (%zu bytes so far)", name, len);
                break;
            }
            out = grown;
            cap *= 2;
        }
        /* zlib counts in uInt: feed and take at most 1 GiB a call */
        const size_t in_left = f->size - in_at, out_left = cap - len;
        z.next_in = (unsigned char *)(uintptr_t)(in + in_at);
        z.avail_in = (uInt)(in_left < (1u << 30) ? in_left : (1u << 30));
        z.next_out = out + len;
        z.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
        const uInt gave = z.avail_in, room = z.avail_out;
        const int r = inflate(&z, Z_NO_FLUSH);
        in_at += gave - z.avail_in;
        len += room - z.avail_out;
        if (r == Z_STREAM_END) {
            if (in_at == f->size)
                break;
            if (inflateReset(&z) != Z_OK) { /* the next member */
                st = io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: byte %zu: corrupt gzip data", name,
                             in_at);
                break;
            }
        } else if (r == Z_MEM_ERROR) {
            st =
                io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory inflating the file", name);
            break;
        } else if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR) {
            st = io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: byte %zu: corrupt gzip data: %s", name,
                         in_at, z.msg ? z.msg : "bad stream");
            break;
        } else if (r == Z_BUF_ERROR || (r == Z_OK && in_at == f->size && z.avail_out > 0)) {
            if (in_at == f->size) {
                st = io_fail(err, errcap, SC_IO_ERR_TRUNCATED,
                             "%s: byte %zu: truncated gzip data (the stream ends early)", name,
                             in_at);
                break;
            }
        }
    }
    inflateEnd(&z);
    if (st != SC_IO_OK) {
        free(out);
        return st;
    }
    io_file_release(f);
    f->heap = out;
    f->data = out;
    f->size = len;
    return SC_IO_OK;
}
#endif

static sc_io_status load_plain(const char *path, io_file *f, char *err, size_t errcap);

sc_io_status io_file_load(const char *path, io_file *f, char *err, size_t errcap) {
    sc_io_status st = load_plain(path, f, err, errcap);
    if (st != SC_IO_OK || !is_gzip(f))
        return st;
    const char *name = io_display_name(path, 0);
#ifdef SC_HAVE_ZLIB
    st = gunzip(name, f, err, errcap);
#else
    st = io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                 "%s: gzip data, and this build reads none (build with zlib1g-dev)", name);
#endif
    if (st != SC_IO_OK)
        io_file_release(f);
    return st;
}

static sc_io_status load_plain(const char *path, io_file *f, char *err, size_t errcap) {
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
