/*
 * io_output.c: where an output goes, and the temporaries a signal must
 * remove.
 *
 * Write-to-a-temporary-then-rename keeps a regular file whole: the old file
 * stays until the new one is complete, and a failed run leaves nothing. It is
 * wrong for anything else: renaming over a symlink replaces the link, and
 * over a FIFO, a device or /dev/stdout replaces the special file with a
 * regular one. So the target is resolved first:
 *   "-"                       standard output, written directly;
 *   a symlink                 followed (up to 40 links) to its target, and
 *                             the target's own directory gets the temporary;
 *   an existing regular file  temporary + rename, keeping its mode (and, as
 *                             root, its owner);
 *   a new name                temporary + rename;
 *   a FIFO, character device  opened and written directly, as a stream;
 *   or socket
 *   a directory               "is a directory".
 * A direct output cannot be taken back: a failure leaves what was written.
 *
 * Signals. Every temporary file is registered in a fixed table that
 * sc_io_remove_temporaries() clears with unlink() only (async-signal-safe),
 * so a tool's signal handler leaves nothing behind.
 *
 * SPDX-License-Identifier: MIT
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporaries a signal removes ---------------------------------------- */

#define TEMP_SLOTS 8
static char temp_names[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_armed[TEMP_SLOTS];

static int temp_register(const char *path) {
    if (strlen(path) >= PATH_MAX)
        return -1;
    for (int k = 0; k < TEMP_SLOTS; k++) {
        if (!temp_armed[k]) {
            memcpy(temp_names[k], path, strlen(path) + 1);
            /* the name is whole before the slot is armed, for a handler on
             * this thread or another */
            atomic_thread_fence(memory_order_seq_cst);
            temp_armed[k] = 1;
            return k;
        }
    }
    return -1; /* more than TEMP_SLOTS open at once: not cleaned on a signal */
}

static void temp_unregister(int slot) {
    if (slot >= 0 && slot < TEMP_SLOTS)
        temp_armed[slot] = 0;
}

void sc_io_remove_temporaries(void) {
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_armed[k]) {
            atomic_thread_fence(memory_order_seq_cst);
            unlink(temp_names[k]);
        }
}

/* ---- resolving the target ------------------------------------------------------ */

typedef enum target_kind {
    TARGET_STDOUT,
    TARGET_NEW,     /* does not exist (its directory may not either) */
    TARGET_REGULAR, /* an existing regular file */
    TARGET_SPECIAL, /* FIFO, character device, socket, block device */
    TARGET_DIR
} target_kind;

/* What path names, and the name to write: an existing target is looked at
 * through stat() (which follows every link, /proc's magic ones included);
 * special files are then opened by the path as given, and a regular file
 * is replaced at its real path (realpath), so a symlink stays a link. A
 * dangling link is followed by hand to the name it would create. */
static sc_io_status resolve(const char *path, char **resolved, target_kind *kind, struct stat *st,
                            char *err, size_t errcap) {
    *resolved = NULL;
    if (strcmp(path, "-") == 0) {
        *kind = TARGET_STDOUT;
        return SC_IO_OK;
    }
    if (path[0] == '\0')
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "cannot write output: empty path");
    if (stat(path, st) == 0) {
        *kind = S_ISDIR(st->st_mode)   ? TARGET_DIR
                : S_ISREG(st->st_mode) ? TARGET_REGULAR
                                       : TARGET_SPECIAL;
        char *real = *kind == TARGET_REGULAR ? realpath(path, NULL) : NULL;
        *resolved = real ? real : strdup(path);
        if (*resolved == NULL)
            return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
        return SC_IO_OK;
    }
    if (errno != ENOENT)
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(errno));
    char *cur = strdup(path);
    if (cur == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
    for (int hops = 0;; hops++) {
        struct stat ls;
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode))
            break; /* the name a new file gets */
        char link[PATH_MAX];
        ssize_t l = hops < 40 ? readlink(cur, link, sizeof link - 1) : -1;
        if (l < 0) {
            int e = hops < 40 ? errno : ELOOP;
            free(cur);
            return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
        }
        link[l] = '\0';
        /* A relative target is relative to the link's directory. */
        const char *slash = strrchr(cur, '/');
        size_t dirlen = (link[0] != '/' && slash) ? (size_t)(slash - cur) + 1 : 0;
        char *next = malloc(dirlen + (size_t)l + 1);
        if (next == NULL) {
            free(cur);
            return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
        }
        memcpy(next, cur, dirlen);
        memcpy(next + dirlen, link, (size_t)l + 1);
        free(cur);
        cur = next;
    }
    *kind = TARGET_NEW;
    *resolved = cur;
    return SC_IO_OK;
}

/* The directory part of path ("." when none), into dir. */
static void dir_of(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* The checks a target must pass before anything is created. */
static sc_io_status check_resolved(const char *path, const char *target, target_kind kind,
                                   char *err, size_t errcap) {
    if (kind == TARGET_STDOUT)
        return SC_IO_OK;
    if (kind == TARGET_DIR)
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: is a directory", path);
    const size_t tl = strlen(target);
    if (tl > 0 && target[tl - 1] == '/')
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: no file name", path);
    if (kind == TARGET_SPECIAL || kind == TARGET_REGULAR) {
        if (access(target, W_OK) != 0) {
            int e = errno;
            return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
        }
        if (kind == TARGET_SPECIAL)
            return SC_IO_OK;
    }
    /* A regular or new file needs a writable directory for the temporary. */
    char dir[PATH_MAX];
    dir_of(target, dir, sizeof dir);
    struct stat ds;
    if (stat(dir, &ds) != 0) {
        int e = errno;
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s (directory %s)", path,
                       strerror(e), dir);
    }
    if (!S_ISDIR(ds.st_mode))
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s is not a directory",
                       path, dir);
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s (directory %s)", path,
                       strerror(e), dir);
    }
    return SC_IO_OK;
}

sc_io_status sc_io_check_writable(const char *path, char *err, size_t errcap) {
    if (err && errcap)
        err[0] = '\0';
    if (path == NULL)
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "cannot write output: no path");
    char *target = NULL;
    target_kind kind;
    struct stat st;
    sc_io_status s = resolve(path, &target, &kind, &st, err, errcap);
    if (s == SC_IO_OK)
        s = check_resolved(path, target, kind, err, errcap);
    free(target);
    return s;
}

/* ---- the sink ------------------------------------------------------------------- */

static void sink_free(io_sink *s) {
    temp_unregister(s->temp_slot);
    free(s->final_path);
    free(s->temp_path);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->temp_slot = -1;
}

/* A direct output: seekable when lseek works and it does not append (pwrite
 * ignores the offset under O_APPEND on Linux). */
static void direct_setup(io_sink *s) {
    s->direct = 1;
    off_t at = lseek(s->fd, 0, SEEK_CUR);
    int fl = fcntl(s->fd, F_GETFL);
    s->seekable = at >= 0 && fl >= 0 && !(fl & O_APPEND);
    s->base = at >= 0 ? at : 0;
}

sc_io_status io_sink_open(io_sink *s, const char *path, char *err, size_t errcap) {
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->temp_slot = -1;
    target_kind kind;
    struct stat st;
    sc_io_status r = resolve(path, &s->final_path, &kind, &st, err, errcap);
    if (r == SC_IO_OK)
        r = check_resolved(path, s->final_path, kind, err, errcap);
    if (r == SC_IO_OK && (s->buf = malloc(SC_IO_BUFFER_BYTES)) == NULL)
        r = io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory opening the output", path);
    if (r != SC_IO_OK) {
        sink_free(s);
        return r;
    }
    s->name = kind == TARGET_STDOUT ? "standard output" : path;
    if (kind == TARGET_STDOUT) {
        s->fd = STDOUT_FILENO;
        direct_setup(s);
        return SC_IO_OK;
    }
    if (kind == TARGET_SPECIAL) {
        s->fd = open(s->final_path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (s->fd < 0) {
            int e = errno;
            sink_free(s);
            return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
        }
        direct_setup(s);
        return SC_IO_OK;
    }
    if (kind == TARGET_REGULAR) {
        s->keep_mode = 1;
        s->mode = st.st_mode & 07777;
        s->uid = st.st_uid;
        s->gid = st.st_gid;
    }
    /* ".NAME.tmp.PID.K" beside the target */
    const char *target = s->final_path;
    const char *slash = strrchr(target, '/');
    const size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    const size_t tlen = strlen(target);
    s->temp_path = malloc(tlen + 64);
    if (s->temp_path == NULL) {
        sink_free(s);
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory opening the output", path);
    }
    static atomic_uint serial; /* distinguishes writers within one process */
    int e = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = atomic_fetch_add_explicit(&serial, 1u, memory_order_relaxed);
        snprintf(s->temp_path, tlen + 64, "%.*s.%s.tmp.%ld.%u", (int)dirlen, target,
                 target + dirlen, (long)getpid(), k);
        /* Registered before it exists: a signal between the open and the
         * registration left the file behind (cli.signals caught it once in
         * CI). The name holds this process's id and a serial no other
         * writer here takes, so a signal in between can only remove a
         * file of ours or one a dead process with our id left. */
        s->temp_slot = temp_register(s->temp_path);
        s->fd = open(s->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        e = errno;
        if (s->fd >= 0)
            break;
        temp_unregister(s->temp_slot);
        s->temp_slot = -1;
        if (e != EEXIST)
            break;
    }
    if (s->fd < 0) {
        free(s->temp_path);
        s->temp_path = NULL;
        sink_free(s);
        return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: %s", path, strerror(e));
    }
    s->seekable = 1;
    s->base = 0;
    return SC_IO_OK;
}

/* Writes all of b; *done gets the bytes that reached the file. */
static int write_fully(int fd, const unsigned char *b, size_t len, size_t *done) {
    *done = 0;
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        b += w;
        len -= (size_t)w;
        *done += (size_t)w;
    }
    return 0;
}

static sc_io_status write_error(io_sink *s, int e, char *err, size_t errcap) {
    return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %llu: cannot write: %s", s->name,
                   (unsigned long long)s->written, strerror(e));
}

static sc_io_status put_raw(io_sink *s, const unsigned char *b, size_t len, char *err,
                            size_t errcap) {
    size_t done = 0;
    int rc = write_fully(s->fd, b, len, &done);
    s->written += done;
    return rc == 0 ? SC_IO_OK : write_error(s, errno, err, errcap);
}

sc_io_status io_sink_flush(io_sink *s, char *err, size_t errcap) {
    if (s->used == 0)
        return SC_IO_OK;
    sc_io_status r = put_raw(s, s->buf, s->used, err, errcap);
    s->used = 0; /* what did not reach the file is lost either way */
    return r;
}

sc_io_status io_sink_reserve(io_sink *s, size_t need, char *err, size_t errcap) {
    if (SC_IO_BUFFER_BYTES - s->used >= need)
        return SC_IO_OK;
    return io_sink_flush(s, err, errcap);
}

sc_io_status io_sink_put(io_sink *s, const void *data, size_t len, char *err, size_t errcap) {
    const unsigned char *b = data;
    /* Large pieces skip the copy: flush what is buffered, write them as is. */
    if (len >= SC_IO_BUFFER_BYTES / 2 && len > SC_IO_BUFFER_BYTES - s->used) {
        sc_io_status st = io_sink_flush(s, err, errcap);
        return st != SC_IO_OK ? st : put_raw(s, b, len, err, errcap);
    }
    while (len > 0) {
        if (s->used == SC_IO_BUFFER_BYTES) {
            sc_io_status st = io_sink_flush(s, err, errcap);
            if (st != SC_IO_OK)
                return st;
        }
        size_t take = SC_IO_BUFFER_BYTES - s->used;
        if (take > len)
            take = len;
        memcpy(s->buf + s->used, b, take);
        s->used += take;
        b += take;
        len -= take;
    }
    return SC_IO_OK;
}

sc_io_status io_sink_rewrite(io_sink *s, uint64_t at, const void *data, size_t len, char *err,
                             size_t errcap) {
    if (!s->seekable)
        return io_fail(err, errcap, SC_IO_ERR_INTERNAL, "%s: cannot rewrite a stream", s->name);
    const unsigned char *b = data;
    size_t done = 0;
    while (done < len) {
        ssize_t r = pwrite(s->fd, b + done, len - done, s->base + (off_t)(at + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r == 0 ? EIO : errno;
            return io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: byte %llu: cannot write: %s", s->name,
                           (unsigned long long)(at + done), strerror(e));
        }
        done += (size_t)r;
    }
    return SC_IO_OK;
}

void io_sink_discard(io_sink *s) {
    if (s->fd >= 0 && s->fd != STDOUT_FILENO)
        close(s->fd);
    if (s->temp_path)
        unlink(s->temp_path);
    sink_free(s);
}

sc_io_status io_sink_commit(io_sink *s, char *err, size_t errcap) {
    sc_io_status st = io_sink_flush(s, err, errcap);
    if (st != SC_IO_OK) {
        io_sink_discard(s);
        return st;
    }
    if (s->direct) {
        if (s->fd != STDOUT_FILENO && close(s->fd) != 0) {
            int e = errno;
            s->fd = -1;
            st = write_error(s, e, err, errcap);
        }
        s->fd = -1;
        sink_free(s);
        return st;
    }
    if (s->keep_mode) { /* the replaced file's mode, and its owner where we may */
        if (fchmod(s->fd, s->mode) != 0) {
            int e = errno;
            st = io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot keep the file's mode: %s",
                         s->name, strerror(e));
            io_sink_discard(s);
            return st;
        }
        if (geteuid() == 0)
            (void)fchown(s->fd, s->uid, s->gid);
    }
    int fd = s->fd;
    s->fd = -1;
    if (close(fd) != 0) {
        st = write_error(s, errno, err, errcap);
        io_sink_discard(s);
        return st;
    }
    if (rename(s->temp_path, s->final_path) != 0) {
        int e = errno;
        st = io_fail(err, errcap, SC_IO_ERR_WRITE, "%s: cannot write: rename from %s failed: %s",
                     s->name, s->temp_path, strerror(e));
        io_sink_discard(s);
        return st;
    }
    free(s->temp_path);
    s->temp_path = NULL; /* renamed: nothing to unlink (sink_free unregisters) */
    sink_free(s);
    return SC_IO_OK;
}

/* ---- a file of any bytes ---------------------------------------------------------- */

struct sc_file_writer {
    io_sink s;
};

sc_io_status sc_file_writer_open(const char *path, sc_file_writer **out, char *err, size_t errcap) {
    *out = NULL;
    sc_file_writer *w = malloc(sizeof *w);
    if (w == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: out of memory", path);
    sc_io_status st = io_sink_open(&w->s, path, err, errcap);
    if (st != SC_IO_OK) {
        free(w);
        return st;
    }
    *out = w;
    return SC_IO_OK;
}

sc_io_status sc_file_writer_put(sc_file_writer *w, const void *data, size_t len, char *err,
                                size_t errcap) {
    return io_sink_put(&w->s, data, len, err, errcap);
}

sc_io_status sc_file_writer_commit(sc_file_writer *w, char *err, size_t errcap) {
    sc_io_status st = io_sink_commit(&w->s, err, errcap);
    free(w);
    return st;
}

void sc_file_writer_discard(sc_file_writer *w) {
    if (w == NULL)
        return;
    io_sink_discard(&w->s);
    free(w);
}
