/*
 * check.h: the assertion macro and the group runner of the C test
 * programs. CHECK counts every check and every failure (printed with file
 * and line) and never aborts, so one run reports all failures.
 *
 * Each test program lists its groups in one table and hands it to
 * sc_test_main: `prog GROUP [ARGS...]` runs that group, `prog all` every
 * one, `prog --list` prints the names (CMake's group check compares them
 * with the groups it registers, tests/groups.cmake). An unknown name, a
 * missing name or a group that checked nothing fails, so a typo in a
 * .cmake file cannot drop tests.
 */
#ifndef SC_TEST_CHECK_H
#define SC_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

typedef struct sc_test_group {
    const char *name;
    void (*run)(void);
} sc_test_group;

/* The arguments after the group's name (a work folder, a data folder),
 * for the groups that take them. */
static int sc_test_argc;
static char **sc_test_argv;

static int sc_test_main(int argc, char **argv, const char *program, const sc_test_group *groups,
                        size_t count) {
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t g = 0; g < count; g++)
            printf("%s\n", groups[g].name);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s GROUP|all|--list [ARGS...]\n", program);
        return 2;
    }
    sc_test_argc = argc - 2;
    sc_test_argv = argv + 2;
    const char *name = argv[1];
    const int all = strcmp(name, "all") == 0;
    int ran = 0;
    for (size_t g = 0; g < count; g++)
        if (all || strcmp(name, groups[g].name) == 0) {
            const int before = checks;
            groups[g].run();
            ran++;
            if (checks == before) {
                fprintf(stderr, "%s %s: group %s checked nothing\n", program, name, groups[g].name);
                failures++;
            }
        }
    if (!ran) {
        fprintf(stderr, "%s: unknown group '%s' (%s --list names them)\n", program, name, program);
        return 2;
    }
    printf("%s %s: %d checks, %d failures\n", program, name, checks, failures);
    return failures ? 1 : 0;
}

#endif
