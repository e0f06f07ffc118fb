/*
 * module_load.h: finds and loads one of the tool's modules (a shared
 * object whose libraries only some runs need: the pictures' cairo, HDF5)
 * the first time a run needs it, and returns what its entry function
 * returns. It looks beside the running program, in ../reldir from it (an
 * installed tree moved as a whole), in dir (where it was installed) and,
 * when build_dir is not NULL, there (the build tree, for the programs
 * built elsewhere in it).
 */
#ifndef SC_MODULE_LOAD_H
#define SC_MODULE_LOAD_H

#include <stddef.h>

typedef struct sc_module_place {
    const char *file;      /* the module's file name */
    const char *entry;     /* its entry function's name */
    const char *what;      /* for messages: "the pictures module" */
    const char *reldir;    /* NULL: none */
    const char *dir;       /* NULL: none */
    const char *build_dir; /* NULL: none */
} sc_module_place;

/* The entry's result (the module stays loaded for the process), or NULL
 * with the reason in err: where it looked, or why the file found did not
 * load. */
const void *sc_module_load(const sc_module_place *m, char *err, size_t cap);

#endif /* SC_MODULE_LOAD_H */
