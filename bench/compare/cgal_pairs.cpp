/*
 * cgal_pairs: all intersecting sphere pairs with CGAL's
 * box_self_intersection_d, as a CGAL user would find them: one axis-aligned
 * box per sphere, CGAL's streaming segment tree reports every pair of
 * intersecting boxes (each once), and the callback applies spherecollide's
 * exact double predicate
 *   dx = xi-xj, dy = yi-yj, dz = zi-zj, d2 = (dx*dx + dy*dy) + dz*dz,
 *   s = ri + rj, d2 <= s*s                     (built with -ffp-contract=off)
 * counting the pairs and summing sc_pair_mix(i, j), i < j, mod 2^64.
 *
 *   cgal_pairs FILE.npy [--mode seq|par] [--repeat R] [--threads T]
 *
 * --mode seq   CGAL::Sequential_tag (the default)
 * --mode par   CGAL::Parallel_tag: CGAL splits both ranges 4 ways and runs the
 *              16 sub-problems as TBB tasks (needs TBB at build time; without
 *              it this mode prints "skipped: ..." and exits 3). T caps TBB's
 *              threads (default: all).
 * Boxes are [x - r, x + r] etc., rounded outward (runner_util.h explains by
 * how much and why); --rounding nearest takes x - r and x + r as rounded to
 * nearest instead, to show what that loses (make_touching.py). Each repeat builds the boxes and runs the search; the
 * file read is not timed. Prints the line of runner_util.h.
 * Exit: 0 ok, 1 failure, 2 usage, 3 mode unavailable in this build.
 *
 * SPDX-License-Identifier: MIT
 */
#include <CGAL/box_intersection_d.h>
#include <CGAL/tags.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef CGAL_LINKED_WITH_TBB
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#endif

#include "npy_rows.h"
#include "runner_util.h"
#include "spherecollide.h"

namespace {

using Box = CGAL::Box_intersection_d::Box_with_info_d<double, 3, std::uint32_t,
                                                      CGAL::Box_intersection_d::ID_EXPLICIT>;

struct Tally {
    std::uint64_t pairs = 0;
    std::uint64_t checksum = 0;
    std::uint64_t proposed = 0; // box pairs CGAL reported
};

// The exact predicate of spherecollide.h on the caller's rows.
inline void test_pair(const double *rows, std::uint32_t a, std::uint32_t b, Tally &t)
{
    std::uint32_t i = a < b ? a : b, j = a < b ? b : a;
    const double *p = rows + 4 * static_cast<std::size_t>(i);
    const double *q = rows + 4 * static_cast<std::size_t>(j);
    double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    double d2 = (dx * dx + dy * dy) + dz * dz;
    double s = p[3] + q[3];
    t.proposed++;
    if (d2 <= s * s) {
        t.pairs++;
        t.checksum += sc_pair_mix(i, j);
    }
}

void make_boxes(const double *rows, std::size_t n, bool outward, std::vector<Box> &boxes)
{
    boxes.clear();
    boxes.reserve(n);
    for (std::size_t k = 0; k < n; k++) {
        const double *p = rows + 4 * k;
        double lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            if (outward) {
                lo[d] = runner_box_lo(p[d], p[3]);
                hi[d] = runner_box_hi(p[d], p[3]);
            } else {
                lo[d] = p[d] - p[3];
                hi[d] = p[d] + p[3];
            }
        }
        boxes.emplace_back(lo, hi, static_cast<std::uint32_t>(k));
    }
}

[[noreturn]] void usage(const char *msg)
{
    if (msg)
        std::fprintf(stderr, "cgal_pairs: %s\n", msg);
    std::fprintf(stderr, "usage: cgal_pairs FILE.npy [--mode seq|par] [--repeat R] [--threads T]\n"
                         "                  [--rounding outward|nearest]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    const char *path = nullptr;
    std::string mode = "seq", rounding = "outward";
    int repeats = 3, threads = 0;
    for (int a = 1; a < argc; a++) {
        std::string opt = argv[a];
        if ((opt == "--mode" || opt == "--repeat" || opt == "--threads" || opt == "--rounding")
            && a + 1 >= argc)
            usage("missing value");
        if (opt == "--mode")
            mode = argv[++a];
        else if (opt == "--rounding")
            rounding = argv[++a];
        else if (opt == "--repeat")
            repeats = std::atoi(argv[++a]);
        else if (opt == "--threads")
            threads = std::atoi(argv[++a]);
        else if (opt == "-h" || opt == "--help")
            usage(nullptr);
        else if (!path && opt[0] != '-')
            path = argv[a];
        else
            usage(("unknown argument " + opt).c_str());
    }
    if (!path)
        usage("no input file");
    if (repeats < 1 || repeats > 1000 || threads < 0 || (mode != "seq" && mode != "par")
        || (rounding != "outward" && rounding != "nearest"))
        usage("bad --mode, --repeat, --threads or --rounding");

#ifndef CGAL_LINKED_WITH_TBB
    if (mode == "par") {
        std::printf("skipped: libtbb-dev not installed (CGAL's Parallel_tag needs TBB; "
                    "install it and rebuild)\n");
        return 3;
    }
#endif

    double *rows = nullptr;
    std::size_t n = 0;
    char err[512];
    if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) {
        std::fprintf(stderr, "cgal_pairs: %s\n", err);
        return 1;
    }

    int used_threads = 1;
#ifdef CGAL_LINKED_WITH_TBB
    std::unique_ptr<tbb::global_control> cap;
    if (mode == "par") {
        if (threads > 0)
            cap = std::make_unique<tbb::global_control>(
                tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        used_threads = static_cast<int>(
            tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
    }
#endif

    std::vector<double> times(static_cast<std::size_t>(repeats));
    Tally total;
    std::vector<Box> boxes;
    for (int r = 0; r < repeats; r++) {
        Tally t;
        double t0 = runner_now();
        make_boxes(rows, n, rounding == "outward", boxes);
        if (mode == "seq") {
            auto cb = [rows, &t](const Box &a, const Box &b) { test_pair(rows, a.info(), b.info(), t); };
            CGAL::box_self_intersection_d<CGAL::Sequential_tag>(boxes.begin(), boxes.end(), cb);
        } else {
#ifdef CGAL_LINKED_WITH_TBB
            // CGAL copies the callback into each task and calls it concurrently:
            // one tally per TBB thread, summed afterwards.
            tbb::enumerable_thread_specific<Tally> local;
            auto cb = [rows, &local](const Box &a, const Box &b) {
                test_pair(rows, a.info(), b.info(), local.local());
            };
            CGAL::box_self_intersection_d<CGAL::Parallel_tag>(boxes.begin(), boxes.end(), cb);
            for (const Tally &l : local) {
                t.pairs += l.pairs;
                t.checksum += l.checksum;
                t.proposed += l.proposed;
            }
#endif
        }
        times[static_cast<std::size_t>(r)] = runner_now() - t0;
        if (r > 0 && (t.pairs != total.pairs || t.checksum != total.checksum)) {
            std::fprintf(stderr, "cgal_pairs: repeat %d disagrees with repeat 0\n", r);
            std::free(rows);
            return 1;
        }
        total = t;
    }
    std::fprintf(stderr, "cgal_pairs: %s, n=%zu, %llu box pairs proposed, %llu intersect\n",
                 mode.c_str(), n, static_cast<unsigned long long>(total.proposed),
                 static_cast<unsigned long long>(total.pairs));
    runner_print_result(total.pairs, total.checksum, times.data(), repeats, used_threads);
    std::free(rows);
    return 0;
}
