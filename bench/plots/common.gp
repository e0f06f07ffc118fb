# common.gp: terminal, output and look shared by every study figure.
# Variables (gnuplot -e): fmt = "png" | "svg", pngterm = "pngcairo" | "png",
# out = output path without extension, note = subtitle (machine, run kind).
if (!exists("fmt")) fmt = "png"
if (!exists("pngterm")) pngterm = "pngcairo"
if (!exists("note")) note = ""
if (!exists("width")) width = 960
if (!exists("height")) height = 600
if (fmt eq "svg") {
    set terminal svg size width, height dynamic enhanced font "Helvetica,13" background rgb "white"
    set output out . ".svg"
} else {
    if (pngterm eq "pngcairo") {
        set terminal pngcairo size width, height enhanced font "Helvetica,11"
    } else {
        set terminal png size width, height font "Helvetica,10"
    }
    set output out . ".png"
}
set datafile missing "NaN"
set grid ytics lc rgb "#dddddd"
set key outside right top noautotitle
set border 3
set tics nomirror
