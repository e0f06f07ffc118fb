# table.awk: turns the study's CSV files into the whitespace-separated tables
# gnuplot reads. POSIX awk (Debian's mawk is enough); RFC 4180 fields, so a
# quoted field may hold commas and doubled quotes.
#
#   awk -f csv.awk -f table.awk -v mode=select -v cols="n,total_s" -v where="dist=uniform;status=ok" FILE...
#       one line per matching row with the named columns, in file order
#   awk -f csv.awk -f table.awk -v mode=pivot -v row=dist -v col=order -v val=total_s -v where=... FILE...
#       a table: first line "key <col values...>", then one line per row
#       value with val in each column ("NaN" where missing); rows and
#       columns in first-seen order
#
# where: ';'-separated tests, each name=value, name!=value, or name~regex;
# all must hold. Missing numbers are written as NaN. Values are written as
# they are in the CSV except that spaces become '_' (gnuplot splits on them).
# Several files may be given; each starts with its own header.
# Needs parse() from csv.awk: awk -f csv.awk -f table.awk ...

function value(name,    k) {
    if (!(name in colix)) return ""
    k = colix[name]
    return fld[k]
}

function cell(v) {
    if (v == "") return "NaN"
    gsub(/ /, "_", v)
    return v
}

function matches(    i, t, name, want, op, p, v) {
    for (i = 1; i <= nwhere; i++) {
        t = wh[i]
        if ((p = index(t, "!=")) > 0) { op = "!="; name = substr(t, 1, p - 1); want = substr(t, p + 2) }
        else if ((p = index(t, "~")) > 0) { op = "~"; name = substr(t, 1, p - 1); want = substr(t, p + 1) }
        else if ((p = index(t, "=")) > 0) { op = "="; name = substr(t, 1, p - 1); want = substr(t, p + 1) }
        else continue
        v = value(name)
        if (op == "=" && v != want) return 0
        if (op == "!=" && v == want) return 0
        if (op == "~" && v !~ want) return 0
    }
    return 1
}

BEGIN {
    nwhere = where == "" ? 0 : split(where, wh, ";")
    ncols = cols == "" ? 0 : split(cols, cl, ",")
    nrows = 0; ncolv = 0
}

FNR == 1 {
    nh = parse($0, hdr)
    split("", colix)
    for (i = 1; i <= nh; i++) colix[hdr[i]] = i
    next
}

{
    nf = parse($0, fld)
    if (!matches()) next
    if (mode == "select") {
        s = ""
        for (i = 1; i <= ncols; i++) s = s (i > 1 ? " " : "") cell(value(cl[i]))
        print s
    } else if (mode == "pivot") {
        r = cell(value(row)); c = cell(value(col))
        if (!(r in rseen)) { rseen[r] = 1; rlist[++nrows] = r }
        if (!(c in cseen)) { cseen[c] = 1; clist[++ncolv] = c }
        v = value(val)
        tab[r, c] = v == "" ? "NaN" : v
    }
}

END {
    if (mode != "pivot") exit
    s = "key"
    for (j = 1; j <= ncolv; j++) s = s " " clist[j]
    print s
    for (i = 1; i <= nrows; i++) {
        s = rlist[i]
        for (j = 1; j <= ncolv; j++) s = s " " ((rlist[i], clist[j]) in tab ? tab[rlist[i], clist[j]] : "NaN")
        print s
    }
}
