# check-csv.awk: checks a CSV written by sc_study (used by the study.smoke test).
#   awk -f ../plots/csv.awk -f check-csv.awk FILE...
# Every row must have the header's field count (RFC 4180 fields); every row's
# status must be "ok"; every papi_* field must be a number or "unavailable",
# and "unavailable" whenever counters_note says why counters were not read
# (a counter that was not read is never written as 0). Exit status 1 on the
# first kind of problem found, with a message naming file and line.
function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; bad = 1 }
FNR == 1 {
    nh = parse($0, hdr); split("", ix)
    for (i = 1; i <= nh; i++) ix[hdr[i]] = i
    if (!("status" in ix)) fail("no status column")
    rows[FILENAME] = 0
    next
}
{
    n = parse($0, f)
    rows[FILENAME]++
    if (n != nh) fail("row has " n " fields, the header " nh)
    if (("status" in ix) && f[ix["status"]] != "ok") fail("status " f[ix["status"]] ": " f[ix["note"]])
    why = ("counters_note" in ix) ? f[ix["counters_note"]] : ""
    for (i = 1; i <= nh; i++) {
        if (hdr[i] !~ /^papi_/) continue
        v = f[i]
        if (v != "unavailable" && v !~ /^[0-9.eE+]+$/) fail(hdr[i] " is '" v "'")
        if (why != "" && v != "unavailable") fail(hdr[i] " is '" v "' although counters were not read (" why ")")
    }
}
END {
    for (k in rows) if (rows[k] == 0) { print k ": no data rows"; bad = 1 }
    exit bad
}
