/*
 * sim_frames_load.c: finds and loads the pictures module
 * (spherecollide-frames.so, sim_frames.c) the first time a run asks for
 * pictures, so that no other run of the tool loads cairo and its libraries.
 */
#include "sim_frames.h"

#include "module_load.h"

#include <stdio.h>
#include <string.h>

const sc_frames_api *sc_frames_load(char *err, size_t cap) {
    const sc_module_place m = {SC_FRAMES_MODULE,
                               SC_FRAMES_ENTRY,
                               "the pictures module",
#ifdef SC_FRAMES_RELDIR
                               SC_FRAMES_RELDIR,
#else
                               NULL,
#endif
#ifdef SC_FRAMES_DIR
                               SC_FRAMES_DIR,
#else
                               NULL,
#endif
                               NULL};
    const sc_frames_api *api = sc_module_load(&m, err, cap);
#ifndef SC_FRAMES_BUILT
    if (!api && strncmp(err, "cannot find", 11) == 0)
        snprintf(err, cap,
                 "this build has no pictures (install libcairo2-dev and libgif-dev, and rebuild)");
#endif
    return api;
}
