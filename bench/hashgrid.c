/*
 * hashgrid.c: the "plain single-threaded hash grid written the usual way"
 * that issue 2 measures spherecollide against. Deliberately ordinary, not a
 * strawman: one uniform cell size (2 r_max, so every intersecting pair lies
 * in neighbouring cells), an unordered_map-like chained hash map (power-of-two
 * bucket array, load factor <= 1, one malloc'd entry per non-empty cell, the
 * classic Teschner et al. spatial hash), each cell holding a linked list of
 * sphere indices from one node pool, and a 27-cell query per sphere in double
 * precision that keeps j > i. Memory O(n); time O(n * occupancy of 27 cells),
 * which degrades to O(n^2) when one big sphere forces huge cells.
 */
#include "hashgrid.h"

#include <math.h>
#include <stdlib.h>

#include "spherecollide.h"

typedef struct hg_node {
    uint32_t sphere;
    struct hg_node *next;
} hg_node;

typedef struct hg_cell {
    int64_t ix, iy, iz;
    uint64_t count;
    hg_node *head;
    struct hg_cell *next; /* bucket chain */
} hg_cell;

typedef struct hg_map {
    hg_cell **buckets;
    size_t mask;
    uint64_t cells;
} hg_map;

static size_t hg_hash(int64_t ix, int64_t iy, int64_t iz)
{
    uint64_t h = ((uint64_t)ix * 73856093u) ^ ((uint64_t)iy * 19349663u) ^ ((uint64_t)iz * 83492791u);
    return (size_t)h;
}

static hg_cell *hg_find(const hg_map *map, int64_t ix, int64_t iy, int64_t iz)
{
    for (hg_cell *c = map->buckets[hg_hash(ix, iy, iz) & map->mask]; c; c = c->next)
        if (c->ix == ix && c->iy == iy && c->iz == iz)
            return c;
    return NULL;
}

static hg_cell *hg_insert(hg_map *map, int64_t ix, int64_t iy, int64_t iz)
{
    hg_cell *c = hg_find(map, ix, iy, iz);
    if (c)
        return c;
    c = malloc(sizeof *c);
    if (!c)
        return NULL;
    size_t b = hg_hash(ix, iy, iz) & map->mask;
    c->ix = ix;
    c->iy = iy;
    c->iz = iz;
    c->count = 0;
    c->head = NULL;
    c->next = map->buckets[b];
    map->buckets[b] = c;
    map->cells++;
    return c;
}

static void hg_free(hg_map *map)
{
    if (!map->buckets)
        return;
    for (size_t b = 0; b <= map->mask; b++) {
        hg_cell *c = map->buckets[b];
        while (c) {
            hg_cell *next = c->next;
            free(c);
            c = next;
        }
    }
    free(map->buckets);
}

static int hg_cell_index(double v, double inv_cell, int64_t *out)
{
    double q = floor(v * inv_cell);
    if (!(fabs(q) < 0x1p62))
        return -1;
    *out = (int64_t)q;
    return 0;
}

int hashgrid_count(const double *rows, size_t n, double max_tests, hashgrid_result *out)
{
    hashgrid_result res = {0, 0, 0, 0, 0.0, 0.0};
    *out = res;
    if (n < 2)
        return 0;
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++)
        if (rows[4 * i + 3] > rmax)
            rmax = rows[4 * i + 3];
    double cell = 2.0 * rmax > 0.0 ? 2.0 * rmax : 1.0;
    double inv = 1.0 / cell;
    res.cell_size = cell;

    hg_map map = {NULL, 0, 0};
    size_t nb = 16;
    while (nb < n)
        nb *= 2;
    map.buckets = calloc(nb, sizeof *map.buckets);
    map.mask = nb - 1;
    hg_node *pool = malloc(n * sizeof *pool);
    int64_t(*key)[3] = malloc(n * sizeof *key);
    int status = 0;
    if (!map.buckets || !pool || !key) {
        status = -1;
        goto done;
    }
    /* Build: each sphere goes to the head of its cell's list. */
    for (size_t i = 0; i < n; i++) {
        const double *p = rows + 4 * i;
        if (hg_cell_index(p[0], inv, &key[i][0]) || hg_cell_index(p[1], inv, &key[i][1])
            || hg_cell_index(p[2], inv, &key[i][2])) {
            status = -1;
            goto done;
        }
        hg_cell *c = hg_insert(&map, key[i][0], key[i][1], key[i][2]);
        if (!c) {
            status = -1;
            goto done;
        }
        pool[i].sphere = (uint32_t)i;
        pool[i].next = c->head;
        c->head = &pool[i];
        c->count++;
    }
    res.cells = map.cells;

    /* Predicted work, per cell: its count times the counts of its 27 cells. */
    double est = 0.0;
    for (size_t b = 0; b <= map.mask; b++)
        for (hg_cell *c = map.buckets[b]; c; c = c->next) {
            uint64_t around = 0;
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        hg_cell *o = hg_find(&map, c->ix + dx, c->iy + dy, c->iz + dz);
                        if (o)
                            around += o->count;
                    }
            est += (double)c->count * (double)around;
        }
    est = (est - (double)n) / 2.0; /* exact: the 27-cell relation is symmetric */
    res.estimated_tests = est;
    if (max_tests > 0.0 && est > max_tests) {
        status = 1;
        goto done;
    }

    /* Query: 27 neighbour cells per sphere, j > i, exact double predicate. */
    for (size_t i = 0; i < n; i++) {
        const double *p = rows + 4 * i;
        double xi = p[0], yi = p[1], zi = p[2], ri = p[3];
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    hg_cell *c = hg_find(&map, key[i][0] + dx, key[i][1] + dy, key[i][2] + dz);
                    if (!c)
                        continue;
                    for (hg_node *e = c->head; e; e = e->next) {
                        uint32_t j = e->sphere;
                        if (j <= i)
                            continue;
                        const double *q = rows + 4 * (size_t)j;
                        double ddx = xi - q[0], ddy = yi - q[1], ddz = zi - q[2];
                        double d2 = (ddx * ddx + ddy * ddy) + ddz * ddz;
                        double s = ri + q[3];
                        res.tests++;
                        if (d2 <= s * s) {
                            res.pairs++;
                            res.checksum += sc_pair_mix((uint32_t)i, j);
                        }
                    }
                }
    }
done:
    hg_free(&map);
    free(pool);
    free(key);
    *out = res;
    return status;
}
