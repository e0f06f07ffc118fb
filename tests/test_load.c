/*
 * test_load.c: the team a query takes on a shared machine (issue 52).
 *   busy        with a competing process kept runnable (a forked busy loop),
 *               a default context's queries of every type run on fewer
 *               threads than the machine has cores, and a context with an
 *               explicit thread count keeps it; the answers are the same
 *   one_thread  in a fresh process, queries of every type on a context of
 *               one thread start no OpenMP thread (each of their parallel
 *               regions takes the context's team, not the host's default)
 * Each group runs as its own process (ctest: engine.load.GROUP).
 */
#define _GNU_SOURCE
#include "sc_gen.h"
#include "spherecollide.h"
#include "spherecollide_sim.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int cores_allowed(void) {
    cpu_set_t m;
    if (sched_getaffinity(0, sizeof m, &m) != 0)
        return 1;
    return CPU_COUNT(&m);
}

static int threads_of_process(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* n uniform spheres as rows x, y, z, r (caller frees). */
static double *spheres(size_t n, uint64_t seed) {
    double *rows = malloc(4 * sizeof(double) * n);
    if (!rows || sc_gen_generate("uniform", n, seed, rows) != 0) {
        free(rows);
        return NULL;
    }
    return rows;
}

typedef struct answers {
    sc_summary pairs, between, periodic;
    uint64_t list_entries;
    int threads[4]; /* stats.threads of each */
    sc_status st[4];
} answers;

/* One query of each type, each the first on a context of its own (a
 * context under load may try its full team from its second query on,
 * when its queries are long: load.c). */
static void query_all(const sc_options *o, const sc_spheres *a, const sc_spheres *b, answers *r) {
    memset(r, 0, sizeof *r);
    sc_context *c[4] = {NULL, NULL, NULL, NULL};
    sc_options p = *o;
    for (int k = 0; k < 3; k++) {
        p.box.periodic[k] = 1;
        p.box.lo[k] = 0.0;
        p.box.hi[k] = 150.0;
    }
    for (int k = 0; k < 4; k++)
        if (sc_context_create(k == 3 ? &p : o, &c[k]) != SC_OK)
            goto done;
    r->st[0] = sc_count_pairs(c[0], a, &r->pairs);
    r->st[1] = sc_count_between(c[1], a, b, &r->between);
    uint64_t *off = malloc(sizeof(uint64_t) * (a->count + 1));
    const sc_nbr_spec spec = {0, 0.1, SC_NBR_NONE};
    r->st[2] = off ? sc_neighbors_count(c[2], a, &spec, off) : SC_ERR_OUT_OF_MEMORY;
    r->list_entries = off ? off[a->count] : 0;
    free(off);
    r->st[3] = sc_count_pairs(c[3], a, &r->periodic);
    for (int k = 0; k < 4; k++) {
        sc_stats s = {.size = sizeof s};
        r->threads[k] = sc_context_stats(c[k], &s) == SC_OK ? s.threads : -1;
    }
done:
    for (int k = 0; k < 4; k++)
        sc_context_destroy(c[k]);
}

static const char *names[4] = {"pairs", "two-set", "neighbour list", "periodic"};

/* A few steps of the simulation on a context of the given threads. */
static sc_status sim_steps(int threads, size_t n, uint64_t *collisions) {
    sc_sim_params sp = sc_sim_params_default();
    sp.dims = 3;
    sp.n = n;
    sp.box[0] = sp.box[1] = sp.box[2] = 150.0;
    sp.radii = SC_SIM_RADII_UNIFORM;
    sp.r0 = 1.0;
    sp.r1 = 1.5;
    sc_options o = sc_options_default();
    o.threads = threads;
    sc_sim *s = NULL;
    sc_status st = sc_sim_create(&sp, &o, &s);
    *collisions = 0;
    for (int k = 0; k < 3 && st == SC_OK; k++) {
        sc_sim_frame f;
        st = sc_sim_step(s, &f);
        *collisions += f.collisions;
    }
    sc_sim_destroy(s);
    return st;
}

/* The two sets every group queries: A, n uniform spheres, and B, a tenth
 * as many (their rows freed by sets_free). */
typedef struct sets {
    double *ra, *rb;
    sc_spheres a, b;
} sets;

static bool sets_make(size_t n, sets *s) {
    s->ra = spheres(n, 3);
    s->rb = spheres(n / 10, 4);
    CHECK(s->ra && s->rb, "no memory");
    if (!s->ra || !s->rb)
        return false;
    s->a = sc_spheres_rows_f64(n, 3, s->ra);
    s->b = sc_spheres_rows_f64(n / 10, 3, s->rb);
    return true;
}

static void sets_free(sets *s) {
    free(s->ra);
    free(s->rb);
}

static void group_one_thread(void) {
    const int before = threads_of_process();
    CHECK(before == 1, "the test starts with one thread, not %d", before);
    const size_t n = 100000;
    sets ab;
    if (!sets_make(n, &ab)) {
        sets_free(&ab);
        return;
    }
    const sc_spheres a = ab.a, b = ab.b;
    sc_options o = sc_options_default();
    o.threads = 1;
    answers r;
    query_all(&o, &a, &b, &r);
    for (int k = 0; k < 4; k++) {
        CHECK(r.st[k] == SC_OK, "%s: %s", names[k], sc_status_string(r.st[k]));
        CHECK(r.threads[k] == 1, "%s: stats.threads %d, not 1", names[k], r.threads[k]);
    }
    uint64_t coll = 0;
    CHECK(sim_steps(1, n, &coll) == SC_OK, "the simulation's steps");
    const int after = threads_of_process();
    CHECK(after == 1, "queries on one thread started %d thread(s)", after - 1);
    sets_free(&ab);
}

static void group_busy(void) {
    const int cores = cores_allowed();
    const size_t n = 100000;
    sets ab;
    if (!sets_make(n, &ab)) {
        sets_free(&ab);
        return;
    }
    const sc_spheres a = ab.a, b = ab.b;
    sc_options fixed = sc_options_default();
    fixed.threads = 2;
    answers quiet; /* the reference answers, two threads */
    query_all(&fixed, &a, &b, &quiet);

    /* a competitor that stays runnable; it ends itself after a minute
     * should this process die before it is stopped */
    fflush(NULL);
    const pid_t child = fork();
    if (child == 0) {
        alarm(60);
        for (volatile uint64_t k = 0;; k++)
            ;
    }
    CHECK(child > 0, "fork");
    if (child <= 0) {
        sets_free(&ab);
        return;
    }
    const struct timespec settle = {0, 100 * 1000 * 1000};
    nanosleep(&settle, NULL);

    answers dflt, fix;
    query_all(&fixed, &a, &b, &fix);
    const sc_options d = sc_options_default();
    query_all(&d, &a, &b, &dflt);
    uint64_t coll_busy = 0;
    const sc_status sim_st = sim_steps(0, n, &coll_busy);

    kill(child, SIGKILL);
    waitpid(child, NULL, 0);

    const int most = cores > 1 ? cores - 1 : 1;
    for (int k = 0; k < 4; k++) {
        CHECK(dflt.st[k] == SC_OK && fix.st[k] == SC_OK && quiet.st[k] == SC_OK, "%s: status",
              names[k]);
        CHECK(dflt.threads[k] >= 1 && dflt.threads[k] <= most,
              "%s: a default query with one core busy ran on %d thread(s) of %d cores", names[k],
              dflt.threads[k], cores);
        CHECK(fix.threads[k] == 2, "%s: threads = 2 ran on %d", names[k], fix.threads[k]);
    }
    const sc_summary *qs[3] = {&quiet.pairs, &quiet.between, &quiet.periodic};
    const sc_summary *ds[3] = {&dflt.pairs, &dflt.between, &dflt.periodic};
    for (int k = 0; k < 3; k++)
        CHECK(qs[k]->pairs == ds[k]->pairs && qs[k]->checksum == ds[k]->checksum,
              "answer %d differs under load", k);
    CHECK(quiet.list_entries == dflt.list_entries && quiet.list_entries > 0,
          "neighbour list entries %llu vs %llu", (unsigned long long)quiet.list_entries,
          (unsigned long long)dflt.list_entries);
    uint64_t coll_quiet = 0;
    CHECK(sim_st == SC_OK && sim_steps(2, n, &coll_quiet) == SC_OK && coll_quiet == coll_busy &&
              coll_busy > 0,
          "the simulation's collisions %llu (busy) vs %llu", (unsigned long long)coll_busy,
          (unsigned long long)coll_quiet);
    sets_free(&ab);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"busy", group_busy},
        {"one_thread", group_one_thread},
    };
    return sc_test_main(argc, argv, "test_load", groups, sizeof groups / sizeof groups[0]);
}
