/*
 * sim_frames_load.c: finds and loads the pictures module
 * (spherecollide-frames.so, sim_frames.c) the first time a run asks for
 * pictures, so that no other run of the tool loads cairo and its libraries.
 */
#include "sim_frames.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Tries dir/SC_FRAMES_MODULE; the table, or NULL with the reason in err. */
static const sc_frames_api *try_dir(const char *dir, char *err, size_t cap) {
    char path[4352];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, SC_FRAMES_MODULE) >= sizeof path)
        return NULL;
    if (access(path, F_OK) != 0)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, cap, "cannot load the pictures module: %s", dlerror());
        return NULL;
    }
    const sc_frames_api *(*entry)(void) = NULL;
    *(void **)(&entry) = dlsym(h, SC_FRAMES_ENTRY); /* object to function pointer, as POSIX allows */
    if (!entry) {
        snprintf(err, cap, "%s: no %s in the pictures module", path, SC_FRAMES_ENTRY);
        dlclose(h);
        return NULL;
    }
    return entry(); /* the module stays loaded for the run */
}

const sc_frames_api *sc_frames_load(char *err, size_t cap) {
#ifdef SC_FRAMES_BUILT
    snprintf(err, cap, "cannot find the pictures module %s beside the tool, in ../%s or in %s",
             SC_FRAMES_MODULE, SC_FRAMES_RELDIR, SC_FRAMES_DIR);
#else
    snprintf(err, cap, "this build has no pictures (install libcairo2-dev and libgif-dev, and rebuild)");
#endif
    char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            const sc_frames_api *api = try_dir(exe, err, cap); /* a build tree */
            if (api)
                return api;
#ifdef SC_FRAMES_RELDIR
            char rel[4200]; /* an installed tree moved as a whole: bin/../libdir */
            if ((size_t)snprintf(rel, sizeof rel, "%s/../%s", exe, SC_FRAMES_RELDIR) < sizeof rel &&
                (api = try_dir(rel, err, cap)) != NULL)
                return api;
#endif
        }
    }
#ifdef SC_FRAMES_DIR
    return try_dir(SC_FRAMES_DIR, err, cap);
#else
    return NULL;
#endif
}
