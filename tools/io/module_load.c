/*
 * module_load.c: the tool's modules, found and loaded on first use
 * (module_load.h).
 */
#include "module_load.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Tries dir/file: the entry's result, or NULL (with the reason in err when
 * the file is there but does not load). */
static const void *try_dir(const sc_module_place *m, const char *dir, char *err, size_t cap) {
    char path[4352];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, m->file) >= sizeof path ||
        access(path, F_OK) != 0)
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, cap, "cannot load %s: %s", m->what, dlerror());
        return NULL;
    }
    const void *(*entry)(void) = NULL;
    *(void **)(&entry) = dlsym(h, m->entry); /* object to function pointer, as POSIX allows */
    if (!entry) {
        snprintf(err, cap, "%s: no %s in %s", path, m->entry, m->what);
        dlclose(h);
        return NULL;
    }
    return entry();
}

const void *sc_module_load(const sc_module_place *m, char *err, size_t cap) {
    snprintf(err, cap, "cannot find %s %s beside the tool%s%s%s%s", m->what, m->file,
             m->reldir ? ", in ../" : "", m->reldir ? m->reldir : "", m->dir ? " or in " : "",
             m->dir ? m->dir : "");
    const void *api = NULL;
    char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char rel[4200];
            if ((api = try_dir(m, exe, err, cap)) != NULL ||
                (m->reldir &&
                 (size_t)snprintf(rel, sizeof rel, "%s/../%s", exe, m->reldir) < sizeof rel &&
                 (api = try_dir(m, rel, err, cap)) != NULL))
                return api;
        }
    }
    if (m->dir && (api = try_dir(m, m->dir, err, cap)) != NULL)
        return api;
    if (m->build_dir)
        api = try_dir(m, m->build_dir, err, cap);
    return api;
}
