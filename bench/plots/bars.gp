# bars.gp: bars from a pivot table (first line: key <series...>): clustered
# (one bar per series in each group) or rowstacked (one stacked bar per row,
# e.g. the pipeline stages).
# Variables: dat, out, fmt, title, ylabel, ncol, stacked (0/1), logy (0/1),
# xrot (tick label rotation, degrees).
load "common.gp"
if (!exists("stacked")) stacked = 0
if (!exists("logy")) logy = 0
if (!exists("xrot")) xrot = 0
if (!exists("xlabel")) xlabel = ""
set title title . (note eq "" ? "" : "\n{/*0.8 " . note . "}")
set ylabel ylabel noenhanced
set xlabel xlabel noenhanced
set style data histograms
if (stacked) { set style histogram rowstacked } else { set style histogram clustered gap 1 }
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.8
set yrange [0:*]
if (logy) { set logscale y; set yrange [*:*] }
set xtics rotate by -xrot
set key autotitle columnhead
plot for [i = 2:ncol + 1] dat using i:xtic(1) title columnhead(i) noenhanced
