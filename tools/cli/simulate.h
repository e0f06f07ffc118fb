/*
 * simulate.h: the `simulate` command of the command-line tool.
 */
#ifndef SC_SIMULATE_H
#define SC_SIMULATE_H

#include <stdio.h>

extern const char sc_simulate_usage[];
/* Writes a usage text, its @ALGORITHMS@ replaced by the library's
 * algorithms ("grid (default), brute, ..."): the registry's names, so a new
 * peer is listed without an edit here (cli.c). */
void sc_cli_put_usage(FILE *f, const char *text);
/* argv[0] is "simulate"; returns the process exit code */
int sc_cmd_simulate(int argc, char **argv);

#endif /* SC_SIMULATE_H */
