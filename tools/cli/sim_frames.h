/*
 * sim_frames.h: PNG pictures of the ball simulation for
 * `spherecollide simulate --frames DIR` (cairo; a build without it says so).
 */
#ifndef SC_SIM_FRAMES_H
#define SC_SIM_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "spherecollide_sim.h"

typedef struct sc_frames sc_frames;

/* What the colours show: each ball's speed or radius, on [lo, hi] (radius:
 * a log scale where lo > 0) from blue through cyan and yellow to red. */
typedef enum { SC_FRAMES_BY_SPEED = 0, SC_FRAMES_BY_RADIUS = 1 } sc_frames_by;
typedef struct sc_frames_colour {
    sc_frames_by by;
    double lo, hi;
} sc_frames_colour;

/* The pictures live in a module of their own (spherecollide-frames.so,
 * linked with cairo and giflib), loaded only when a run asks for pictures:
 * those libraries and theirs (X11, fontconfig, freetype, ...) cost every
 * other process of the tool milliseconds to load. The module exports one
 * function, SC_FRAMES_ENTRY, that returns this table. */
typedef struct sc_frames_api {
    /* Pictures width pixels wide of the box (its aspect kept), written to
     * DIR (which must exist; NULL: none) as frame-NNNNNN.png and appended
     * to an animated GIF (gif_put NULL: none) whose bytes go to
     * gif_put(gif_user, ...) (0, or -1 on a failed write) and whose name in
     * messages is gif: the caller owns the file, so it decides whether a
     * finished animation replaces what was there. Coloured as `colour`
     * says. NULL with a one-line reason in err on failure. */
    sc_frames *(*open)(const char *dir, const char *gif,
                       int (*gif_put)(void *user, const void *data, size_t len), void *gif_user,
                       int width, const double box[3], int dims, const sc_frames_colour *colour,
                       size_t n, char *err, size_t cap);
    /* Draws the balls and the colliding pairs of a step; 0, or -1 and err. */
    int (*write)(sc_frames *f, const sc_sim_balls *b, const uint32_t *pairs, size_t npairs,
                 uint64_t step, char *err, size_t cap);
    /* Finishes the animation (its trailer): 0, or -1 and err. Accepts
     * NULL. */
    int (*close)(sc_frames *f, char *err, size_t cap);
} sc_frames_api;

#define SC_FRAMES_ENTRY "sc_frames_module"
#define SC_FRAMES_MODULE "spherecollide-frames.so"

/* The module's table (in the module). */
const sc_frames_api *sc_frames_module(void);

/* Loads the module (sim_frames_load.c): from the directory of the running
 * executable (a build tree), else from ../LIBDIR/spherecollide beside it
 * (an installed tree, wherever it was installed), else from the configured
 * install prefix's libdir/spherecollide. NULL with a one-line reason in err
 * when this build has no pictures or the module cannot be loaded. */
const sc_frames_api *sc_frames_load(char *err, size_t cap);

#endif /* SC_SIM_FRAMES_H */
