/*
 * fcl_pairs: all intersecting sphere pairs with FCL's dynamic AABB tree
 * manager (fcl::DynamicAABBTreeCollisionManager, FCL 0.7, Debian libfcl-dev),
 * as an FCL user finds them: one fcl::Sphered collision object per sphere,
 * registered in bulk, setup() builds the tree, collide() reports every pair of
 * objects whose AABBs overlap (each once), and the callback applies
 * spherecollide's exact double predicate
 *   dx = xi-xj, dy = yi-yj, dz = zi-zj, d2 = (dx*dx + dy*dy) + dz*dz,
 *   s = ri + rj, d2 <= s*s                     (built with -ffp-contract=off)
 * counting the pairs and summing sc_pair_mix(i, j), i < j, mod 2^64. The
 * callback does not call fcl::collide(): FCL's own sphere-sphere test is
 * not the predicate spherecollide states, and the broad phase is what is
 * compared here.
 *
 *   fcl_pairs FILE.npy [--repeat R]
 *
 * FCL computes a sphere's AABB as position +- radius rounded to nearest, which
 * can miss a pair the predicate accepts (runner_util.h, README "Rounding the
 * boxes outward"). So each object's geometry radius is r widened by
 * (|x|max + r) 2^-49 + 2^-535, more than that rounding: its AABB contains
 * the outward-rounded box of the sphere. The exact test uses the input's r.
 * Each repeat creates the objects and the manager, builds and searches; the
 * file read is not timed. Single-threaded (FCL's managers are).
 * Prints the line of runner_util.h. Exit: 0 ok, 1 failure, 2 usage.
 *
 * SPDX-License-Identifier: MIT
 */
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision_object.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "npy_rows.h"
#include "runner_util.h"
#include "spherecollide.h"

namespace {

struct Tally {
    const double *rows = nullptr;
    std::uint64_t pairs = 0;
    std::uint64_t checksum = 0;
    std::uint64_t proposed = 0; // object pairs FCL reported
};

bool on_pair(fcl::CollisionObjectd *o1, fcl::CollisionObjectd *o2, void *data)
{
    Tally &t = *static_cast<Tally *>(data);
    const auto a = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o1->getUserData()));
    const auto b = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o2->getUserData()));
    const std::uint32_t i = a < b ? a : b, j = a < b ? b : a;
    const double *p = t.rows + 4 * static_cast<std::size_t>(i);
    const double *q = t.rows + 4 * static_cast<std::size_t>(j);
    const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    const double d2 = (dx * dx + dy * dy) + dz * dz;
    const double s = p[3] + q[3];
    t.proposed++;
    if (d2 <= s * s) {
        t.pairs++;
        t.checksum += sc_pair_mix(i, j);
    }
    return false; // go on
}

[[noreturn]] void usage(const char *msg)
{
    if (msg)
        std::fprintf(stderr, "fcl_pairs: %s\n", msg);
    std::fprintf(stderr, "usage: fcl_pairs FILE.npy [--repeat R]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    const char *path = nullptr;
    int repeats = 3;
    for (int a = 1; a < argc; a++) {
        std::string opt = argv[a];
        if (opt == "--repeat" && a + 1 < argc)
            repeats = std::atoi(argv[++a]);
        else if (opt == "-h" || opt == "--help")
            usage(nullptr);
        else if (!path && opt[0] != '-')
            path = argv[a];
        else
            usage(("unknown argument " + opt).c_str());
    }
    if (!path)
        usage("no input file");
    if (repeats < 1 || repeats > 1000)
        usage("bad --repeat");

    double *rows = nullptr;
    std::size_t n = 0;
    char err[512];
    if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) {
        std::fprintf(stderr, "fcl_pairs: %s\n", err);
        return 1;
    }
    double amax = 0; // the largest |coordinate|
    for (std::size_t k = 0; k < n; k++)
        for (int d = 0; d < 3; d++)
            amax = std::fmax(amax, std::fabs(rows[4 * k + d]));

    std::vector<double> times(static_cast<std::size_t>(repeats));
    Tally total;
    for (int r = 0; r < repeats; r++) {
        Tally t;
        t.rows = rows;
        const double t0 = runner_now();
        {
            std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
            std::vector<fcl::CollisionObjectd *> ptrs;
            objects.reserve(n);
            ptrs.reserve(n);
            for (std::size_t k = 0; k < n; k++) {
                const double *p = rows + 4 * k;
                const double rad = p[3] + (amax + p[3]) * 0x1p-49 + 0x1p-535;
                auto geom = std::make_shared<fcl::Sphered>(rad);
                fcl::Transform3d tf = fcl::Transform3d::Identity();
                tf.translation() = fcl::Vector3d(p[0], p[1], p[2]);
                objects.emplace_back(new fcl::CollisionObjectd(geom, tf));
                objects.back()->setUserData(reinterpret_cast<void *>(static_cast<std::uintptr_t>(k)));
                ptrs.push_back(objects.back().get());
            }
            fcl::DynamicAABBTreeCollisionManagerd manager;
            manager.registerObjects(ptrs);
            manager.setup();
            manager.collide(&t, on_pair);
        }
        times[static_cast<std::size_t>(r)] = runner_now() - t0;
        if (r > 0 && (t.pairs != total.pairs || t.checksum != total.checksum)) {
            std::fprintf(stderr, "fcl_pairs: repeat %d disagrees with repeat 0\n", r);
            std::free(rows);
            return 1;
        }
        total = t;
    }
    std::fprintf(stderr, "fcl_pairs: n=%zu, %llu object pairs proposed, %llu intersect\n", n,
                 static_cast<unsigned long long>(total.proposed),
                 static_cast<unsigned long long>(total.pairs));
    runner_print_result(total.pairs, total.checksum, times.data(), repeats, 1);
    std::free(rows);
    return 0;
}
