# csv.awk: parse(line, out), one RFC 4180 CSV line into out[1..n] (a quoted
# field may hold commas and doubled quotes; CR dropped); returns n. Loaded
# before the programs that use it: awk -f csv.awk -f table.awk ...
function parse(line, out,    n, i, c, f, q) {
    n = 0; f = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { f = f "\""; i++ }
                else q = 0
            } else f = f c
        } else if (c == "\"") q = 1
        else if (c == ",") { out[++n] = f; f = "" }
        else if (c != "\r") f = f c
    }
    out[++n] = f
    return n
}
