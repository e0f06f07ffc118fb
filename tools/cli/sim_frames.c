/*
 * sim_frames.c: pictures of the ball simulation with cairo (Debian's
 * libcairo2-dev), which draws and writes the PNG. 2-D: circles coloured by
 * speed or radius; 3-D: an orthographic view along z, far balls first, shaded darker
 * with depth. Balls in a colliding pair get a white rim and the pair's
 * centres a faint white line. The animation is an animated GIF written with
 * giflib (libgif-dev): each picture is mapped to a fixed 6 x 6 x 6 colour
 * cube, which keeps the code to a few clear lines at the price of some
 * banding, and the GIF loops.
 */
#include "sim_frames.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

struct sc_frames {
    char dir[4096];      /* "" when no PNG files are wanted */
    char gif_path[4096]; /* its name, for messages */
    GifFileType *gif;
    int (*gif_put)(void *user, const void *data, size_t len);
    void *gif_user;
    uint8_t *row; /* one GIF row of palette indices */
    int width, height;
    double scale, box[3];
    sc_frames_colour colour;
    int dims;
    uint32_t *order; /* 3-D: far to near */
    uint8_t *hit;    /* ball in a colliding pair */
    size_t n;
};

static int frames_close(sc_frames *f, char *err, size_t cap);

/* giflib's output function: the caller's gif_put. */
static int gif_output(GifFileType *g, const GifByteType *buf, int len) {
    const sc_frames *f = g->UserData;
    return len >= 0 && f->gif_put(f->gif_user, buf, (size_t)len) == 0 ? len : 0;
}

static sc_frames *frames_open(const char *dir, const char *gif,
                              int (*gif_put)(void *user, const void *data, size_t len),
                              void *gif_user, int width, const double box[3], int dims,
                              const sc_frames_colour *colour, size_t n, char *err, size_t cap) {
    sc_frames *f = calloc(1, sizeof *f);
    const char *name = dir ? dir : gif;
    if (!f || (dir && strlen(dir) >= sizeof f->dir - 32) ||
        (gif && strlen(gif) >= sizeof f->gif_path)) {
        snprintf(err, cap, "%s: %s", name, f ? "name too long" : "out of memory");
        free(f);
        return NULL;
    }
    if (dir)
        strcpy(f->dir, dir);
    f->width = width;
    f->scale = width / box[0];
    f->height = (int)ceil(box[1] * f->scale);
    if (f->height < 1 || f->height > 16384) {
        snprintf(err, cap, "%s: a %d x %d picture is out of range", dir, width, f->height);
        free(f);
        return NULL;
    }
    memcpy(f->box, box, sizeof f->box);
    f->dims = dims;
    f->colour = *colour;
    f->n = n;
    f->order = malloc(n * sizeof *f->order);
    f->hit = malloc(n);
    f->row = malloc((size_t)f->width);
    if (!f->order || !f->hit || !f->row) {
        snprintf(err, cap, "out of memory for pictures of %zu balls", n);
        frames_close(f, NULL, 0);
        return NULL;
    }
    if (gif_put) {
        snprintf(f->gif_path, sizeof f->gif_path, "%s", gif ? gif : "the animation");
        f->gif_put = gif_put;
        f->gif_user = gif_user;
        int e = E_GIF_ERR_OPEN_FAILED;
        f->gif = EGifOpen(f, gif_output, &e);
        if (f->gif)
            EGifSetGifVersion(f->gif, true); /* 89a: the animation's extensions */
        ColorMapObject *cube = GifMakeMapObject(256, NULL);
        if (!f->gif || !cube) {
            snprintf(err, cap, "%s: cannot write: %s", f->gif_path, GifErrorString(e));
            GifFreeMapObject(cube);
            frames_close(f, NULL, 0);
            return NULL;
        }
        for (int k = 0; k < 256; k++) { /* the 6 x 6 x 6 cube, then black */
            const int in = k < 216;
            cube->Colors[k] = (GifColorType){(GifByteType)(in ? k / 36 * 51 : 0),
                                             (GifByteType)(in ? k / 6 % 6 * 51 : 0),
                                             (GifByteType)(in ? k % 6 * 51 : 0)};
        }
        /* a looping animation: the NETSCAPE2.0 application extension */
        static const GifByteType loop[3] = {1, 0, 0};
        const int ok = EGifPutScreenDesc(f->gif, f->width, f->height, 8, 0, cube) == GIF_OK &&
                       EGifPutExtensionLeader(f->gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
                       EGifPutExtensionBlock(f->gif, 11, "NETSCAPE2.0") == GIF_OK &&
                       EGifPutExtensionBlock(f->gif, 3, loop) == GIF_OK &&
                       EGifPutExtensionTrailer(f->gif) == GIF_OK;
        GifFreeMapObject(cube);
        if (!ok) {
            snprintf(err, cap, "%s: cannot write: %s", gif, GifErrorString(f->gif->Error));
            frames_close(f, NULL, 0);
            return NULL;
        }
    }
    return f;
}

static int frames_close(sc_frames *f, char *err, size_t cap) {
    int rc = 0;
    if (!f)
        return 0;
    if (f->gif) {
        int e = 0;
        if (EGifCloseFile(f->gif, &e) != GIF_OK) {
            if (err)
                snprintf(err, cap, "%s: cannot write: %s", f->gif_path, GifErrorString(e));
            rc = -1;
        }
    }
    free(f->order);
    free(f->hit);
    free(f->row);
    free(f);
    return rc;
}

/* Appends the picture to the animation, 4 centiseconds per picture. */
static int append_gif(sc_frames *f, cairo_surface_t *surf, char *err, size_t cap) {
    GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 4, NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    int ok = EGifPutExtension(f->gif, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_OK &&
             EGifPutImageDesc(f->gif, 0, 0, f->width, f->height, false, NULL) == GIF_OK;
    cairo_surface_flush(surf);
    const unsigned char *px = cairo_image_surface_get_data(surf);
    const int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; ok && y < f->height; y++) {
        const uint32_t *line = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
        for (int x = 0; x < f->width; x++) { /* RGB24: 0x00RRGGBB */
            const uint32_t c = line[x];
            const unsigned r = (c >> 16 & 255) * 5 + 127, g = (c >> 8 & 255) * 5 + 127,
                           b = (c & 255) * 5 + 127;
            f->row[x] = (uint8_t)(r / 255 * 36 + g / 255 * 6 + b / 255);
        }
        ok = EGifPutLine(f->gif, f->row, f->width) == GIF_OK;
    }
    if (!ok)
        snprintf(err, cap, "%s: cannot write: %s", f->gif_path, GifErrorString(f->gif->Error));
    return ok ? 0 : -1;
}

/* blue -> cyan -> yellow -> red (slow to fast, small to large), t in [0, 1] */
static void speed_colour(double t, double rgb[3]) {
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    static const double stops[4][3] = {
        {0.16, 0.28, 0.75}, {0.15, 0.75, 0.80}, {0.95, 0.85, 0.20}, {0.90, 0.20, 0.15}};
    const double x = t * 3.0;
    const int k = x >= 3.0 ? 2 : (int)x;
    const double u = x - k;
    for (int c = 0; c < 3; c++)
        rgb[c] = stops[k][c] + (stops[k + 1][c] - stops[k][c]) * u;
}

/* Where ball i sits on the colour scale, 0 .. 1 */
static double colour_t(const sc_frames_colour *c, const sc_sim_balls *b, size_t i) {
    if (c->by == SC_FRAMES_BY_RADIUS) {
        if (!(c->hi > c->lo))
            return 0.5; /* one radius */
        if (c->lo > 0.0 && b->r[i] > 0.0)
            return log(b->r[i] / c->lo) / log(c->hi / c->lo);
        return (b->r[i] - c->lo) / (c->hi - c->lo);
    }
    const double v2 =
        b->vx[i] * b->vx[i] + b->vy[i] * b->vy[i] + (b->vz ? b->vz[i] * b->vz[i] : 0.0);
    return c->hi > 0.0 ? sqrt(v2) / c->hi : 0.0;
}

static const double *depth_key;
static int by_depth(const void *a, const void *b) {
    const double x = depth_key[*(const uint32_t *)a], y = depth_key[*(const uint32_t *)b];
    return x < y   ? -1
           : x > y ? 1
                   : (*(const uint32_t *)a > *(const uint32_t *)b) -
                         (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int frames_write(sc_frames *f, const sc_sim_balls *b, const uint32_t *pairs, size_t npairs,
                        uint64_t step, char *err, size_t cap) {
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f->width, f->height);
    cairo_t *cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 0.06, 0.06, 0.08);
    cairo_paint(cr);
    /* y up, as in the simulation */
    cairo_translate(cr, 0.0, f->height);
    cairo_scale(cr, f->scale, -f->scale);
    memset(f->hit, 0, b->n);
    for (size_t k = 0; k < npairs; k++)
        f->hit[pairs[2 * k]] = f->hit[pairs[2 * k + 1]] = 1;
    for (size_t i = 0; i < b->n; i++)
        f->order[i] = (uint32_t)i;
    if (b->dims == 3) {
        depth_key = b->z;
        qsort(f->order, b->n, sizeof *f->order, by_depth);
    }
    const double rim = 1.0 / f->scale;
    for (size_t k = 0; k < b->n; k++) {
        const uint32_t i = f->order[k];
        double rgb[3];
        speed_colour(colour_t(&f->colour, b, i), rgb);
        const double shade = b->dims == 3 ? 0.35 + 0.65 * (b->z[i] / f->box[2]) : 1.0;
        cairo_new_path(cr);
        cairo_arc(cr, b->x[i], b->y[i], b->r[i] > 0.5 * rim ? b->r[i] : 0.5 * rim, 0.0,
                  6.283185307179586);
        cairo_set_source_rgb(cr, rgb[0] * shade, rgb[1] * shade, rgb[2] * shade);
        if (f->hit[i]) {
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
            cairo_set_line_width(cr, rim);
            cairo_stroke(cr);
        } else {
            cairo_fill(cr);
        }
    }
    cairo_set_source_rgba(cr, 1.0, 1.0, 1.0, 0.4);
    cairo_set_line_width(cr, 0.75 * rim);
    for (size_t k = 0; k < npairs; k++) {
        const uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
        cairo_move_to(cr, b->x[i], b->y[i]);
        cairo_line_to(cr, b->x[j], b->y[j]);
    }
    cairo_stroke(cr);
    cairo_destroy(cr);
    int rc = 0;
    if (f->dir[0]) {
        char path[4200];
        snprintf(path, sizeof path, "%s/frame-%06llu.png", f->dir, (unsigned long long)step);
        const cairo_status_t st = cairo_surface_write_to_png(surf, path);
        if (st != CAIRO_STATUS_SUCCESS) {
            snprintf(err, cap, "%s: cannot write: %s", path, cairo_status_to_string(st));
            rc = -1;
        }
    }
    if (rc == 0 && f->gif)
        rc = append_gif(f, surf, err, cap);
    cairo_surface_destroy(surf);
    return rc;
}

__attribute__((visibility("default"))) const sc_frames_api *sc_frames_module(void) {
    static const sc_frames_api api = {frames_open, frames_write, frames_close};
    return &api;
}
