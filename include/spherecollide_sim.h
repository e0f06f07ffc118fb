/*
 * spherecollide_sim.h: elastic balls in a box, frame after frame, on any
 * pair-search algorithm of the library. Built only on the public
 * pair-search API (spherecollide.h).
 *
 * Sections: parameters; a system; one step and its statistics.
 *
 * The model, in 2-D and 3-D: n balls in the box [0, L) per
 * axis, mass r^2 (2-D) or r^3 (3-D). One step of dt:
 *   1. move: x += v dt, then each centre is clamped into [r, L - r] (no ball
 *      ends a step outside the box);
 *   2. find the colliding pairs (the library's exact predicate) with the
 *      chosen algorithm, in (i, j) lexicographic order;
 *   3. for each pair count a collision, and if the pair is approaching
 *      (relative velocity along the normal < 0) apply the elastic impulse
 *      along the normal and count a reaction (pairs at the same centre, or
 *      of two massless balls, count only as collisions). A ball in several
 *      pairs sees the earlier pairs' impulses; the order is: first the pairs
 *      inside one block of SC_SIM_RESPONSE_BLOCK balls (i and j in the same
 *      block), in pair order, then the pairs across blocks, in pair order.
 *      Blocks share no ball, so the first part runs in parallel; with
 *      renumbering (reorder) most pairs are inside a block;
 *   4. a ball touching a wall (x - r <= 0 or x + r >= L) while moving
 *      outward has that velocity component reflected.
 * The pair order is a function of the positions only, so a run gives the
 * same trajectories, bit for bit, for every thread count and algorithm.
 */
#ifndef SPHERECOLLIDE_SIM_H
#define SPHERECOLLIDE_SIM_H

#include "spherecollide.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Balls per block of the response order (step 3 above) and of the
 *  per-ball loops. */
#define SC_SIM_RESPONSE_BLOCK 4096

/* ======================================================================== */
/* Parameters                                                               */
/* ======================================================================== */

typedef enum sc_sim_radii {
    SC_SIM_RADII_SEQUENCE = 0, /**< r_i = 2.5 + 77.5 * 0.92^i: a few large balls
                                    among many of radius about 2.5 */
    SC_SIM_RADII_CONSTANT = 1, /**< every radius r0 */
    SC_SIM_RADII_UNIFORM = 2,  /**< uniform in [r0, r1] */
    SC_SIM_RADII_GIVEN = 3     /**< radius[i] from the caller (copied at
                                    creation; finite, >= 0) */
} sc_sim_radii;
/** 0.1.0's name of SC_SIM_RADII_SEQUENCE, kept for callers written then. */
#define SC_SIM_RADII_SEED002 SC_SIM_RADII_SEQUENCE

typedef enum sc_sim_placement {
    SC_SIM_PLACE_UNIFORM = 0, /**< centres uniform in [r, L - r] per axis */
    SC_SIM_PLACE_LATTICE = 1  /**< ball k at the k-th point of a square (cubic)
                                   lattice of pitch `spacing`, x fastest,
                                   first point at spacing / 2 */
} sc_sim_placement;

typedef enum sc_sim_velocities {
    SC_SIM_VEL_DIRECTION = 0, /**< |v| = speed in a uniform random direction */
    SC_SIM_VEL_COMPONENTS = 1 /**< each component uniform in [-speed, speed] */
} sc_sim_velocities;

typedef struct sc_sim_params {
    size_t size;                  /**< sizeof(sc_sim_params); set by sc_sim_params_default */
    int dims;                     /**< 2 (circles) or 3 (spheres); default 2 */
    size_t n;                     /**< balls, 1 .. 2^31; default 8000 */
    double box[3];                /**< extent L per axis (> 0, finite); box[2] unused in
                              2-D; default 1400 x 600 x 600 */
    double dt;                    /**< step, > 0; default 1/60 */
    double speed;                 /**< initial speed of every ball, >= 0, in a uniform
                              random direction; default 50 */
    sc_sim_radii radii;           /**< default SC_SIM_RADII_SEQUENCE */
    double r0, r1;                /**< radii for CONSTANT (r0) and UNIFORM ([r0, r1]) */
    uint64_t seed;                /**< positions, directions and radii repeat exactly
                              for a seed; default 1 */
    sc_sim_placement placement;   /**< default SC_SIM_PLACE_UNIFORM */
    double spacing;               /**< lattice pitch for SC_SIM_PLACE_LATTICE (> 0); the
                              lattice must hold n points inside the box */
    sc_sim_velocities velocities; /**< default SC_SIM_VEL_DIRECTION */
    int reorder;                  /**< 0 (default): balls keep their places in the
                              arrays; K > 0: before every K-th step (and the
                              first) the balls are renumbered in the grid's
                              cell order of their positions (sc_cell_order,
                              default grid options, on a context of the
                              system's own), so a ball's neighbours sit near
                              it in memory (the response and the search read
                              them in cache, and a grid search repairs its
                              sort instead of redoing it); sc_sim_balls.id
                              follows each ball */
    const double *radius;         /**< n radii for SC_SIM_RADII_GIVEN (read only by
                               sc_sim_create); NULL otherwise */
} sc_sim_params;

/** The defaults above: 8,000 balls of SC_SIM_RADII_SEQUENCE in a 1400 x 600
 *  box (the demo the simulation was first written for). Thread-safe. */
SC_API sc_sim_params sc_sim_params_default(void);

/* ======================================================================== */
/* A system                                                                 */
/* ======================================================================== */

typedef struct sc_sim sc_sim;

/** The balls, structure of arrays, indexed 0 .. n-1. z and vz are NULL in
 *  2-D. Between steps the caller may change positions (inside the box),
 *  velocities and radii (>= 0, a ball must fit: 2 r <= L); masses follow the
 *  radii. */
typedef struct sc_sim_balls {
    size_t n;
    int dims;
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *r;
    uint32_t *id; /**< the ball's number at creation (k until a reorder) */
} sc_sim_balls;

/** Creates a system: radii by params->radii, centres by params->placement
 *  (uniform: overlaps allowed, as in the seeds), velocities by
 *  params->velocities. search: the pair search's options (NULL for
 *  defaults: the grid); its `sorted` is forced on. SC_ERR_INVALID_ARGUMENT
 *  for a bad parameter: dims, n, a box extent, dt, speed, radii, a ball
 *  wider than the box, or more ball volume than fits (more than 0.9069 of
 *  the area in 2-D, the densest circle packing; 0.7405 of the volume in
 *  3-D). sc_sim_problem() says which. */
SC_API sc_status sc_sim_create(const sc_sim_params *params, const sc_options *search, sc_sim **out);
/** A one-line description of why the last sc_sim_create on this thread
 *  failed ("" after a success). */
SC_API const char *sc_sim_problem(void);
/** Frees a system; accepts NULL. */
SC_API void sc_sim_destroy(sc_sim *sim);
/** The balls (pointers into the system, valid until it is destroyed). */
SC_API sc_sim_balls sc_sim_get_balls(sc_sim *sim);

/* ======================================================================== */
/* One step                                                                 */
/* ======================================================================== */

/** Statistics of one step. */
typedef struct sc_sim_frame {
    uint64_t step;                          /**< steps done so far, this one included */
    double time;                            /**< simulated time after the step */
    double ms_move, ms_search, ms_response; /**< wall milliseconds per part
                                                 (a reorder counts as move) */
    uint64_t candidate_tests;               /**< the search's candidate tests */
    uint64_t collisions;                    /**< colliding pairs */
    uint64_t reactions;                     /**< approaching pairs that got an impulse */
    double kinetic_energy;                  /**< sum of m v^2 / 2 after the step */
    double momentum[3];                     /**< sum of m v after the step */
} sc_sim_frame;

/** The colliding pairs of the last step, (i, j) with i < j in
 *  lexicographic order: pairs[2k], pairs[2k + 1]; *count of them (0 before
 *  the first step). Valid until the next step. */
SC_API const uint32_t *sc_sim_last_pairs(const sc_sim *sim, size_t *count);

/** The statistics of the last step's pair search (sc_context_stats of the
 *  system's search context: stage seconds, candidate tests, passes). */
SC_API sc_status sc_sim_search_stats(const sc_sim *sim, sc_stats *out);

/** Advances the system by one step. The first step allocates the pair
 *  buffer; later ones allocate only when a frame has more colliding pairs
 *  than any before it. A search error is returned as is and leaves the
 *  balls moved but not collided. */
SC_API sc_status sc_sim_step(sc_sim *sim, sc_sim_frame *frame);

#ifdef __cplusplus
}
#endif

#endif /* SPHERECOLLIDE_SIM_H */
