/*
 * options.h: every option of the tool's commands in one table (options.c):
 * its long name, its short alias, whether it takes a value, and the
 * commands that take it. The commands' parsers (cli.c, simulate.c) find
 * their options here and switch on the entry's id, so an option one
 * command does not take is unknown to it whatever the others take, and a
 * test (cli.options) checks that each command's --help lists exactly its
 * entries.
 */
#ifndef SC_CLI_OPTIONS_H
#define SC_CLI_OPTIONS_H

enum {
    CLI_PAIRS = 1u << 0,
    CLI_NEIGHBORS = 1u << 1,
    CLI_GEN = 1u << 2,
    CLI_SIMULATE = 1u << 3,
    CLI_INFO = 1u << 4
};

typedef enum cli_opt {
    /* input and output */
    OPT_OUTPUT,
    OPT_AGAINST,
    OPT_FORMAT,
    OPT_INPUT_FORMAT,
    OPT_BOX,
    OPT_RADIUS,
    OPT_DATASET,
    OPT_FRAME,
    OPT_IDS,
    OPT_2D,
    /* what is written and reported */
    OPT_COUNT_ONLY,
    OPT_SORTED,
    OPT_REPEAT,
    OPT_JSON,
    OPT_QUIET,
    OPT_HELP,
    /* the search */
    OPT_ALGORITHM,
    OPT_THREADS,
    OPT_PIN,
    OPT_KERNEL,
    OPT_MAX_DEPTH,
    OPT_LEAF_SIZE,
    OPT_SPLIT,
    OPT_CUTOFF,
    OPT_MAX_TESTS,
    OPT_WARM,
    OPT_SEGMENT_WIDTH,
    /* neighbour lists */
    OPT_FULL,
    OPT_SKIN,
    OPT_VALUES,
    /* generators */
    OPT_SEED,
    OPT_CELL_ORDER,
    /* the simulation */
    OPT_DIMS,
    OPT_N,
    OPT_DT,
    OPT_SPEED,
    OPT_RADII,
    OPT_LATTICE,
    OPT_VELOCITIES,
    OPT_STEPS,
    OPT_REORDER,
    OPT_CSV,
    OPT_FRAMES,
    OPT_COLOUR,
    OPT_EVERY,
    OPT_ANIMATE,
    OPT_WIDTH
} cli_opt;

typedef struct cli_option {
    cli_opt id;
    const char *name;  /* "--output" */
    const char *alias; /* "-o", another spelling ("--color"), or NULL */
    int value;         /* 1: takes a value (--name V, or --name=V) */
    unsigned commands; /* CLI_* */
} cli_option;

/* The table, ended by an entry whose name is NULL. */
extern const cli_option cli_options[];

/* The entry that `command` (one CLI_*) takes under the name arg starts
 * with: "--name" or its alias whole, or "--name=VALUE" for an option with
 * a value (*inline_value then points past the '='; else NULL). NULL when
 * the command takes no option of that name. */
const cli_option *cli_option_find(unsigned command, const char *arg, const char **inline_value);

#endif /* SC_CLI_OPTIONS_H */
