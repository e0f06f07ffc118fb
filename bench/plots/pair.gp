# pair.gp: two bar panels side by side for a locality experiment: measured
# time on the left, simulated cache misses (cachegrind) on the right.
# Variables: left, lncol, ltitle, lylabel; right, rncol, rtitle, rylabel;
# title, out, fmt, note, xrot.
width = 1280
load "common.gp"
if (!exists("xrot")) xrot = 30
set multiplot layout 1, 2 title title . (note eq "" ? "" : "\n{/*0.8 " . note . "}")
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set key inside top left autotitle columnhead
set xtics rotate by -xrot
set yrange [0:*]
set offsets 0, 0, graph 0.45, 0 # headroom for the key above the bars
set title ltitle noenhanced
set ylabel lylabel noenhanced
plot for [i = 2:lncol + 1] left using i:xtic(1) title columnhead(i) noenhanced
set title rtitle noenhanced
set ylabel rylabel noenhanced
if (right eq "") {
    unset key
    set label 1 "no cachegrind results" at graph 0.5, 0.5 center
    plot NaN notitle
} else {
    plot for [i = 2:rncol + 1] right using i:xtic(1) title columnhead(i) noenhanced
}
unset multiplot
