/*
 * options.c: the tool's one table of options (options.h).
 */
#include "options.h"

#include <stddef.h>
#include <string.h>

#define IN (CLI_PAIRS | CLI_NEIGHBORS) /* the commands that read a sphere file */
#define SEARCH (CLI_PAIRS | CLI_NEIGHBORS | CLI_SIMULATE)

const cli_option cli_options[] = {
    {OPT_OUTPUT, "--output", "-o", 1, IN | CLI_GEN},
    {OPT_AGAINST, "--against", NULL, 1, CLI_PAIRS},
    {OPT_FORMAT, "--format", NULL, 1, IN | CLI_GEN},
    {OPT_INPUT_FORMAT, "--input-format", NULL, 1, IN},
    {OPT_BOX, "--box", NULL, 1, IN | CLI_SIMULATE},
    {OPT_RADIUS, "--radius", NULL, 1, IN},
    {OPT_DATASET, "--dataset", NULL, 1, IN},
    {OPT_FRAME, "--frame", NULL, 1, IN},
    {OPT_IDS, "--ids", NULL, 0, IN},
    {OPT_2D, "--2d", NULL, 0, IN},
    {OPT_COUNT_ONLY, "--count-only", NULL, 0, CLI_PAIRS},
    {OPT_SORTED, "--sorted", NULL, 0, CLI_PAIRS},
    {OPT_REPEAT, "--repeat", NULL, 1, CLI_PAIRS},
    {OPT_JSON, "--json", NULL, 0, IN},
    {OPT_QUIET, "--quiet", "-q", 0, IN | CLI_GEN | CLI_SIMULATE},
    {OPT_HELP, "--help", "-h", 0, IN | CLI_GEN | CLI_SIMULATE | CLI_INFO},
    {OPT_ALGORITHM, "--algorithm", NULL, 1, SEARCH},
    {OPT_THREADS, "--threads", NULL, 1, SEARCH | CLI_INFO},
    {OPT_PIN, "--pin", NULL, 1, IN | CLI_INFO},
    {OPT_KERNEL, "--kernel", NULL, 1, IN | CLI_INFO},
    {OPT_MAX_DEPTH, "--max-depth", NULL, 1, CLI_PAIRS},
    {OPT_LEAF_SIZE, "--leaf-size", NULL, 1, CLI_PAIRS},
    {OPT_SPLIT, "--split", NULL, 1, CLI_PAIRS},
    {OPT_CUTOFF, "--cutoff", NULL, 1, CLI_PAIRS},
    {OPT_MAX_TESTS, "--max-tests", NULL, 1, CLI_PAIRS},
    {OPT_WARM, "--warm", NULL, 0, CLI_PAIRS | CLI_SIMULATE},
    {OPT_SEGMENT_WIDTH, "--segment-width", NULL, 1, CLI_PAIRS},
    {OPT_FULL, "--full", NULL, 0, CLI_NEIGHBORS},
    {OPT_SKIN, "--skin", NULL, 1, CLI_NEIGHBORS},
    {OPT_VALUES, "--values", NULL, 1, CLI_NEIGHBORS},
    {OPT_SEED, "--seed", NULL, 1, CLI_GEN | CLI_SIMULATE},
    {OPT_CELL_ORDER, "--cell-order", NULL, 0, CLI_GEN},
    {OPT_DIMS, "--dims", NULL, 1, CLI_SIMULATE},
    {OPT_N, "--n", NULL, 1, CLI_SIMULATE},
    {OPT_DT, "--dt", NULL, 1, CLI_SIMULATE},
    {OPT_SPEED, "--speed", NULL, 1, CLI_SIMULATE},
    {OPT_RADII, "--radii", NULL, 1, CLI_SIMULATE},
    {OPT_LATTICE, "--lattice", NULL, 1, CLI_SIMULATE},
    {OPT_VELOCITIES, "--velocities", NULL, 1, CLI_SIMULATE},
    {OPT_STEPS, "--steps", NULL, 1, CLI_SIMULATE},
    {OPT_REORDER, "--reorder", NULL, 1, CLI_SIMULATE},
    {OPT_CSV, "--csv", NULL, 1, CLI_SIMULATE},
    {OPT_FRAMES, "--frames", NULL, 1, CLI_SIMULATE},
    {OPT_COLOUR, "--colour", "--color", 1, CLI_SIMULATE},
    {OPT_EVERY, "--every", NULL, 1, CLI_SIMULATE},
    {OPT_ANIMATE, "--animate", NULL, 1, CLI_SIMULATE},
    {OPT_WIDTH, "--width", NULL, 1, CLI_SIMULATE},
    {OPT_OUTPUT, NULL, NULL, 0, 0},
};

const cli_option *cli_option_find(unsigned command, const char *arg, const char **inline_value) {
    *inline_value = NULL;
    for (const cli_option *o = cli_options; o->name; o++) {
        if (!(o->commands & command))
            continue;
        if (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0))
            return o;
        const size_t l = strlen(o->name);
        if (o->value && strncmp(arg, o->name, l) == 0 && arg[l] == '=') {
            *inline_value = arg + l + 1;
            return o;
        }
    }
    return NULL;
}
