# winners.gp: who wins where: for each generator (rows) and n (columns) the
# fastest peer's name, from bench/make-algorithms-figures.sh.
# Variables: dat (columns: log10 n, row index, algorithm index, name),
# ylabels (gnuplot ytics string), nalg, out, fmt, note.
load "common.gp"
set title (exists("title") ? title : "Fastest peer by generator and n (median warm call)") . (note eq "" ? "" : "\n{/*0.8 " . note . "}")
set xlabel "spheres n"
set xrange [2.5:6.5]
set xtics ("10^3" 3, "10^4" 4, "10^5" 5, "10^6" 6)
eval("set ytics (" . ylabels . ")")
set yrange [-0.7:ny - 0.3]
set grid noytics
unset key
set palette maxcolors 9
set palette defined (0 "#1b9e77", 1 "#d95f02", 2 "#7570b3", 3 "#e7298a", 4 "#66a61e", 5 "#e6ab02", 6 "#a6761d", 7 "#666666", 8 "#1f78b4")
set cbrange [-0.5:8.5]
unset colorbox
plot dat using 1:2:3 with points pt 5 ps 11 lc palette, \
     dat using 1:2:4 with labels font ",9" tc rgb "white" noenhanced
