/*
 * sim_example.c: the ball simulation (libspherecollide_sim) as a user links
 * it: 2,000 balls, ten steps, the collisions counted.
 */
#include <spherecollide_sim.h>

#include <stdio.h>

int main(void) {
    sc_sim_params p = sc_sim_params_default();
    p.n = 2000;
    sc_sim *sim = NULL;
    if (sc_sim_create(&p, NULL, &sim) != SC_OK) {
        fprintf(stderr, "sim_example: %s\n", sc_sim_problem());
        return 1;
    }
    unsigned long long collisions = 0;
    for (int step = 0; step < 10; step++) {
        sc_sim_frame f;
        if (sc_sim_step(sim, &f) != SC_OK) {
            fprintf(stderr, "sim_example: step %d: %s\n", step, sc_sim_problem());
            sc_sim_destroy(sim);
            return 1;
        }
        collisions += f.collisions;
    }
    printf("sim_example: %zu balls, 10 steps, %llu collisions\n", p.n, collisions);
    sc_sim_destroy(sim);
    return 0;
}
