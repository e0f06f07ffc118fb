# lines.gp: one line per column of a pivot table (first line: key <series...>,
# then x <y...>), e.g. speedup vs threads per pinning policy, relative time
# vs cell factor per generator.
# Variables: dat, out, fmt, title, xlabel, ylabel, ncol (series count),
# logx, logy (0/1), ideal (1: draw y = x), marks (optional file of "x y"
# points drawn as large open circles, e.g. each curve's optimum), markslabel.
load "common.gp"
if (!exists("logx")) logx = 0
if (!exists("logy")) logy = 0
if (!exists("ideal")) ideal = 0
if (!exists("marks")) marks = ""
if (!exists("markslabel")) markslabel = "optimum"
if (!exists("xtype")) xtype = ""
if (logx) { set logscale x }
if (logy) { set logscale y }
set title title . (note eq "" ? "" : "\n{/*0.8 " . note . "}")
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set key autotitle columnhead
if (marks eq "") {
    plot for [i = 2:ncol + 1] dat using 1:i with linespoints lw 2 pt 7 ps 0.8 title columnhead(i) noenhanced, \
         (ideal ? x : NaN) with lines dt 2 lc rgb "#888888" title (ideal ? "ideal" : "")
} else {
    plot for [i = 2:ncol + 1] dat using 1:i with linespoints lw 2 pt 7 ps 0.8 title columnhead(i) noenhanced, \
         (ideal ? x : NaN) with lines dt 2 lc rgb "#888888" title (ideal ? "ideal" : ""), \
         marks using 1:2 with points pt 6 ps 3 lw 2 lc rgb "black" title markslabel
}
