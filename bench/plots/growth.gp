# growth.gp: log-log median time vs n for one generator, spherecollide at
# 1 and all threads, with the anchors (the tools users pick instead, from
# bench/compare and sc_bench's hash grid) as points where they were measured.
# Variables: dat (pivot: n <series...>), ncol, anchors (pivot: n <tools...>,
# may be ""), nanc, dist, out, fmt, note.
load "common.gp"
set logscale xy
set linetype 9 lc rgb "#8c564b" lw 2 pt 7 # a ninth colour: every peer in one figure
set format x "10^{%L}"
set format y "10^{%L}"
set title "Growth: " . dist . ", median seconds per query vs n" . (note eq "" ? "" : "\n{/*0.8 " . note . "}")
set xlabel "spheres n"
set ylabel "seconds (median)"
set key autotitle columnhead
if (anchors eq "" || nanc < 1) {
    plot for [i = 2:ncol + 1] dat using 1:i with linespoints lw 2 pt 7 title columnhead(i) noenhanced
} else {
    plot for [i = 2:ncol + 1] dat using 1:i with linespoints lw 2 pt 7 title columnhead(i) noenhanced, \
         for [j = 2:nanc + 1] anchors using 1:j with points pt (j + 3) ps 1.6 lw 2 title columnhead(j) noenhanced
}
