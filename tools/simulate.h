/*
 * simulate.h: the `simulate` command of the command-line tool.
 */
#ifndef SC_SIMULATE_H
#define SC_SIMULATE_H

extern const char sc_simulate_usage[];
/* argv[0] is "simulate"; returns the process exit code */
int sc_cmd_simulate(int argc, char **argv);

#endif /* SC_SIMULATE_H */
