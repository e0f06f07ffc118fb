#!/bin/sh
# cli_tests.sh: tests of the spherecollide binary (POSIX sh).
#
#   cli_tests.sh CASE SPHERECOLLIDE CLI_CHECK WORKDIR [DATADIR]
#
# Cases: usage help bad_input unwritable write_failure outputs threads sorted
# json formats gen seedlike spheres_dat special_outputs signals details options. Every check asserts on values (exit
# codes, messages, file contents), never on time.
#
# SPDX-License-Identifier: MIT
set -u

case_name=$1
SC=$2
CHECK=$3
WORK=$4/$1
DATA=${5:-}

failures=0
checks=0
rm -rf "$WORK"
mkdir -p "$WORK" || exit 2

fail() {
    echo "FAIL [$case_name]: $*" >&2
    failures=$((failures + 1))
}

ok() { # ok CONDITION-DESCRIPTION (after a test that passed)
    checks=$((checks + 1))
}

# expect_exit CODE STDERR-SUBSTRING... -- ARGS: runs the binary, checks the
# exit code and that stderr is exactly one line "spherecollide: ..." that
# contains every substring.
expect_exit() {
    want=$1
    shift
    subs=""
    while [ "$1" != "--" ]; do
        subs="$subs
$1"
        shift
    done
    shift
    "$SC" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
    got=$?
    checks=$((checks + 1))
    if [ "$got" -ne "$want" ]; then
        fail "spherecollide $*: exit $got, want $want; stderr: $(cat "$WORK/err.txt")"
        return
    fi
    lines=$(wc -l <"$WORK/err.txt")
    if [ "$lines" -ne 1 ]; then
        fail "spherecollide $*: $lines lines on stderr, want 1: $(cat "$WORK/err.txt")"
        return
    fi
    case $(cat "$WORK/err.txt") in
    "spherecollide: "*) ;;
    *) fail "spherecollide $*: stderr does not start with 'spherecollide: ': $(cat "$WORK/err.txt")" ;;
    esac
    echo "$subs" | while IFS= read -r s; do
        [ -z "$s" ] && continue
        if ! grep -F -q -- "$s" "$WORK/err.txt"; then
            echo "FAIL [$case_name]: spherecollide $*: stderr lacks \"$s\": $(cat "$WORK/err.txt")" >&2
            echo x >>"$WORK/substring_failures"
        fi
    done
}

# no_leftovers DIR NAME: neither NAME nor a temporary .NAME.tmp.* exists in DIR
no_leftovers() {
    checks=$((checks + 1))
    [ -e "$1/$2" ] && fail "$1/$2 exists after a failure"
    for t in "$1"/."$2".tmp.*; do
        [ -e "$t" ] && fail "temporary file $t left behind"
    done
}

run_ok() { # run_ok OUTFILE ARGS...: runs the binary, expects exit 0
    out=$1
    shift
    "$SC" "$@" >"$out" 2>"$WORK/err.txt"
    rc=$?
    checks=$((checks + 1))
    if [ "$rc" -ne 0 ]; then
        fail "spherecollide $*: exit $rc: $(cat "$WORK/err.txt")"
        return 1
    fi
    return 0
}

json_get() { # json_get FILE KEY
    "$CHECK" json-get "$1" "$2"
}

# expect_oracle JSON INPUT [FORMAT [DIMS]]: pairs and checksum in JSON equal the oracle's
expect_oracle() {
    j=$1
    shift
    want=$("$CHECK" oracle "$@") || {
        fail "oracle failed on $*"
        return
    }
    got="$(json_get "$j" pairs) $(json_get "$j" checksum)"
    checks=$((checks + 1))
    [ "$got" = "$want" ] || fail "$*: spherecollide says \"$got\", the oracle \"$want\""
}

# ---------------------------------------------------------------------------
case_usage() {
    expect_exit 2 "missing command" -- 
    expect_exit 2 "unknown command" "frobnicate" -- frobnicate
    expect_exit 2 "missing INPUT" -- pairs
    expect_exit 2 "unknown option" "--bogus" -- pairs x.txt --bogus
    expect_exit 2 "more than one INPUT" -- pairs a.txt b.txt
    expect_exit 2 "--threads" -- pairs x.txt --threads abc
    expect_exit 2 "--threads" -- pairs x.txt --threads -1
    expect_exit 2 "--threads" "needs a value" -- pairs x.txt --threads
    expect_exit 2 "--pin" "diagonal" -- pairs x.txt --pin diagonal
    expect_exit 2 "--kernel" -- pairs x.txt --kernel sse9
    expect_exit 2 "--algorithm" "quadtree" -- pairs x.txt --algorithm quadtree
    expect_exit 2 "--max-depth" "from 1 to 64" -- pairs x.txt --algorithm octree --max-depth 0
    expect_exit 2 "--leaf-size" "octree or kdsplit" -- pairs x.txt --leaf-size 3
    expect_exit 2 "--leaf-size" "1 to 4" -- pairs x.txt --algorithm bvh --leaf-size 5
    expect_exit 2 "--split" "median or mean" -- pairs x.txt --algorithm kdsplit --split middle
    expect_exit 2 "--segment-width" -- pairs x.txt --algorithm partition1d --segment-width 3
    expect_exit 2 "--cutoff" "segtree" -- pairs x.txt --algorithm sap --cutoff 8
    expect_exit 2 "--format" "xyz" -- pairs x.txt --format xyzw
    expect_exit 2 "no -o" -- pairs x.txt --format csv
    expect_exit 2 "two input formats" -- pairs x.txt --format f32 --format f64
    expect_exit 2 "contradict" -- pairs x.txt -o y.npy --count-only
    expect_exit 2 "--repeat" "from 1 to 1000" -- pairs x.txt --repeat 0
    expect_exit 2 "--repeat" "from 1 to 1000" -- pairs x.txt --repeat 2x
    expect_exit 2 "--repeat" "-o" -- pairs x.txt --repeat 2 -o y.npy
    expect_exit 2 "out.dat" "npy|csv|bin" -- pairs x.txt -o "$WORK/out.dat"
    expect_exit 2 "in.bin" "--format f32" -- pairs "$WORK/in.bin"
    expect_exit 2 "unknown distribution" "uniform" -- gen nosuch 10 -o "$WORK/g.npy"
    expect_exit 2 "N must be" -- gen uniform -5 -o "$WORK/g.npy"
    expect_exit 2 "N must be" -- gen uniform 1.5 -o "$WORK/g.npy"
    expect_exit 2 "more than" -- gen uniform 1e12 -o "$WORK/g.npy"
    expect_exit 2 "missing -o" -- gen uniform 10
    expect_exit 2 "--seed" -- gen uniform 10 --seed x -o "$WORK/g.npy"
    expect_exit 2 "--format f32" -- gen uniform 10 -o "$WORK/g.bin"
    expect_exit 2 "unknown option" -- info --bogus
    expect_exit 2 "--threads" -- info --threads many
    no_leftovers "$WORK" g.npy
}

case_help() {
    for c in pairs gen info; do
        run_ok "$WORK/help.txt" "$c" --help || continue
        checks=$((checks + 1))
        grep -q "^Usage: spherecollide $c" "$WORK/help.txt" || fail "$c --help lacks its usage line"
        grep -q "^Exit codes:" "$WORK/help.txt" || fail "$c --help lacks the exit codes"
        for code in 0 1 2 3 4 5 6 7; do
            grep -q "^  $code  " "$WORK/help.txt" || fail "$c --help lacks exit code $code"
        done
        [ -s "$WORK/err.txt" ] && fail "$c --help wrote to stderr"
    done
    run_ok "$WORK/help.txt" --help && grep -q "^Commands:" "$WORK/help.txt" ||
        fail "--help lacks the command list"
    run_ok "$WORK/help.txt" help gen && grep -q "uniform" "$WORK/help.txt" ||
        fail "gen --help does not list the distributions"
    run_ok "$WORK/version.txt" --version && {
        checks=$((checks + 1))
        grep -Eq '^spherecollide [0-9]+\.[0-9]+\.[0-9]+$' "$WORK/version.txt" ||
            fail "--version prints: $(cat "$WORK/version.txt")"
    }
    run_ok "$WORK/info.txt" info --threads 1 --pin none --kernel scalar && {
        checks=$((checks + 1))
        [ -s "$WORK/info.txt" ] || fail "info printed nothing"
    }
}

case_bad_input() {
    "$CHECK" mkbad "$WORK" >"$WORK/cases.txt" || {
        fail "mkbad failed"
        return
    }
    tab=$(printf '\t')
    while IFS="$tab" read -r name code place extra; do
        # shellcheck disable=SC2086 # extra holds separate words on purpose
        expect_exit "$code" "$WORK/$name" "$place" -- pairs "$WORK/$name" $extra
        # shellcheck disable=SC2086
        expect_exit "$code" "$WORK/$name" "$place" -- pairs "$WORK/$name" $extra -o "$WORK/out_$name.npy" --json
        no_leftovers "$WORK" "out_$name.npy"
        [ -s "$WORK/out.txt" ] && fail "$name: something on stdout after a failure"
        # an existing file under the output name is left as it was
        echo precious >"$WORK/keep.csv"
        # shellcheck disable=SC2086
        "$SC" pairs "$WORK/$name" $extra -o "$WORK/keep.csv" >/dev/null 2>&1
        checks=$((checks + 1))
        [ "$(cat "$WORK/keep.csv")" = precious ] || fail "$name: an existing output was changed"
    done <"$WORK/cases.txt"
}

case_unwritable() {
    printf '0 0 0 1\n1 0 0 1\n' >"$WORK/two.txt"
    expect_exit 6 "$WORK/no/such/dir/out.npy" -- pairs "$WORK/two.txt" -o "$WORK/no/such/dir/out.npy"
    echo x >"$WORK/plain"
    expect_exit 6 "$WORK/plain/out.csv" -- pairs "$WORK/two.txt" -o "$WORK/plain/out.csv"
    mkdir -p "$WORK/adir.npy"
    expect_exit 6 "$WORK/adir.npy" "directory" -- pairs "$WORK/two.txt" -o "$WORK/adir.npy"
    expect_exit 6 "$WORK/no/dir/g.npy" -- gen uniform 10 -o "$WORK/no/dir/g.npy"
    expect_exit 6 "$WORK/adir.npy" -- gen uniform 10 -o "$WORK/adir.npy"
    # a missing input with a fine output: exit 3, no output
    expect_exit 3 "$WORK/none.txt" -- pairs "$WORK/none.txt" -o "$WORK/fine.npy"
    no_leftovers "$WORK" fine.npy
    # the output is checked before the input is read
    expect_exit 6 "$WORK/no/dir/x.npy" -- pairs "$WORK/none.txt" -o "$WORK/no/dir/x.npy"
}

# size_limited LABEL FILE IGNORE ARGS...: runs the binary under a 32 KiB file
# size limit (with SIGXFSZ ignored by the caller when IGNORE is 1), writing
# FILE: exit 6, one line naming FILE and the byte where the write failed,
# nothing left behind.
size_limited() {
    label=$1 file=$2 ignore=$3
    shift 3
    (
        [ "$ignore" = 1 ] && trap '' XFSZ
        ulimit -f 64 # 512-byte blocks: 32 KiB, far below the output
        exec "$SC" "$@"
    ) >"$WORK/out.txt" 2>"$WORK/err.txt"
    rc=$?
    checks=$((checks + 1))
    [ "$rc" -eq 6 ] || fail "$label: exit $rc, want 6: $(cat "$WORK/err.txt")"
    [ "$(wc -l <"$WORK/err.txt")" -eq 1 ] || fail "$label: stderr not one line"
    grep -q "^spherecollide: $file: byte 32768: cannot write: File too large" "$WORK/err.txt" ||
        fail "$label: $(cat "$WORK/err.txt")"
    no_leftovers "$(dirname "$file")" "$(basename "$file")"
}

# A write that fails in the middle of the stream (file size limit, SIGXFSZ
# ignored by the caller): exit 6, one line naming the output, nothing left.
case_write_failure() {
    run_ok "$WORK/gen.txt" gen dense 2000 --seed 5 -o "$WORK/dense.npy" || return
    for fmt in npy csv bin; do
        size_limited "write failure ($fmt)" "$WORK/big.$fmt" 1 \
            pairs "$WORK/dense.npy" -o "$WORK/big.$fmt" --threads 2
    done
}

# Output files agree with the reported count and checksum, and with the oracle.
case_outputs() {
    run_ok "$WORK/g.txt" gen uniform 20000 --seed 3 -o "$WORK/u.npy" || return
    run_ok "$WORK/count.json" pairs "$WORK/u.npy" --json || return
    expect_oracle "$WORK/count.json" "$WORK/u.npy"
    n=$(json_get "$WORK/count.json" n)
    want="$(json_get "$WORK/count.json" pairs) $(json_get "$WORK/count.json" checksum)"
    checks=$((checks + 1))
    [ "$n" = 20000 ] || fail "n = $n"
    for fmt in npy csv bin; do
        run_ok "$WORK/w.json" pairs "$WORK/u.npy" -o "$WORK/p.$fmt" --json || continue
        got=$("$CHECK" pairs "$WORK/p.$fmt" "$fmt" "$n") || {
            fail "$fmt output is malformed"
            continue
        }
        checks=$((checks + 1))
        [ "${got% *}" = "$want" ] || fail "$fmt file holds \"$got\", the count says \"$want\""
        wj="$(json_get "$WORK/w.json" pairs) $(json_get "$WORK/w.json" checksum)"
        [ "$wj" = "$want" ] || fail "$fmt: streaming reports \"$wj\", counting \"$want\""
        [ "$(json_get "$WORK/w.json" output)" = "$WORK/p.$fmt" ] || fail "$fmt: output not in JSON"
        for t in "$WORK"/.p."$fmt".tmp.*; do
            [ -e "$t" ] && fail "temporary file $t left behind after success"
        done
    done
    # --format names the output format for another extension
    run_ok "$WORK/w.json" pairs "$WORK/u.npy" -o "$WORK/pairs.out" --format csv --json &&
        "$CHECK" pairs "$WORK/pairs.out" csv "$n" >/dev/null || fail "--format csv on pairs.out"
    # the brute-force peer and the scalar kernel give the same pair set
    run_ok "$WORK/b.json" pairs "$WORK/u.npy" --algorithm brute --json &&
        expect_oracle "$WORK/b.json" "$WORK/u.npy"
    run_ok "$WORK/s.json" pairs "$WORK/u.npy" --kernel scalar --json &&
        expect_oracle "$WORK/s.json" "$WORK/u.npy"
    # the human-readable report has the same figures
    run_ok "$WORK/human.txt" pairs "$WORK/u.npy" || return
    checks=$((checks + 1))
    grep -q "^pairs  *$(json_get "$WORK/count.json" pairs)\$" "$WORK/human.txt" || fail "human report: pairs"
    grep -q "^checksum  *$(json_get "$WORK/count.json" checksum)\$" "$WORK/human.txt" || fail "human report: checksum"
    grep -Eq '^checksum +0x[0-9a-f]{16}$' "$WORK/human.txt" || fail "checksum format"
    grep -q "^n  *20000\$" "$WORK/human.txt" || fail "human report: n"
    grep -q "^  read " "$WORK/human.txt" || fail "human report: read seconds"
}

# The written file is byte-identical for 1, 2 and 3 threads.
case_threads() {
    run_ok "$WORK/g.txt" gen clustered 15000 --seed 7 -o "$WORK/c.npy" || return
    for fmt in bin npy csv; do
        for t in 1 2 3; do
            run_ok "$WORK/t$t.json" pairs "$WORK/c.npy" -o "$WORK/t$t.$fmt" --threads "$t" --json || continue
            checks=$((checks + 1))
            [ "$(json_get "$WORK/t$t.json" threads)" = "$t" ] || fail "--threads $t: JSON says $(json_get "$WORK/t$t.json" threads)"
        done
        for t in 2 3; do
            checks=$((checks + 1))
            cmp -s "$WORK/t1.$fmt" "$WORK/t$t.$fmt" || fail "$fmt: --threads $t differs from --threads 1"
        done
    done
    for t in 1 2 3; do
        run_ok "$WORK/s$t.json" pairs "$WORK/c.npy" -o "$WORK/s$t.bin" --sorted --threads "$t" --json
    done
    checks=$((checks + 1))
    cmp -s "$WORK/s1.bin" "$WORK/s2.bin" && cmp -s "$WORK/s1.bin" "$WORK/s3.bin" ||
        fail "--sorted output differs between thread counts"
    expect_oracle "$WORK/t1.json" "$WORK/c.npy"
}

# --sorted gives (i, j) lexicographic order and the same set.
case_sorted() {
    run_ok "$WORK/g.txt" gen wide 12000 --seed 11 -o "$WORK/w.f64" || return
    run_ok "$WORK/c.json" pairs "$WORK/w.f64" --json || return
    want="$(json_get "$WORK/c.json" pairs) $(json_get "$WORK/c.json" checksum)"
    expect_oracle "$WORK/c.json" "$WORK/w.f64"
    for fmt in npy csv bin; do
        run_ok "$WORK/s.json" pairs "$WORK/w.f64" -o "$WORK/s.$fmt" --sorted --json || continue
        got=$("$CHECK" pairs "$WORK/s.$fmt" "$fmt" 12000) || {
            fail "sorted $fmt output is malformed"
            continue
        }
        checks=$((checks + 1))
        [ "$got" = "$want sorted" ] || fail "--sorted $fmt: \"$got\", want \"$want sorted\""
        [ "$(json_get "$WORK/s.json" sorted)" = true ] || fail "JSON does not say sorted"
    done
}

# Every algorithm, every output mode: the same pair set as the oracle.
case_algorithms() {
    run_ok "$WORK/g.txt" gen clustered 4000 --seed 5 -o "$WORK/a.f64" || return
    run_ok "$WORK/c.json" pairs "$WORK/a.f64" --json || return
    want="$(json_get "$WORK/c.json" pairs) $(json_get "$WORK/c.json" checksum)"
    expect_oracle "$WORK/c.json" "$WORK/a.f64"
    for algo in grid brute partition1d sap hashgrid octree kdsplit bvh segtree; do
        run_ok "$WORK/n.json" pairs "$WORK/a.f64" --algorithm "$algo" --json || continue
        checks=$((checks + 1))
        got="$(json_get "$WORK/n.json" pairs) $(json_get "$WORK/n.json" checksum)"
        [ "$got" = "$want" ] || fail "--algorithm $algo count: \"$got\", want \"$want\""
        [ "$(json_get "$WORK/n.json" algorithm)" = "$algo" ] || fail "JSON does not say $algo"
        for fmt in npy csv bin; do
            for order in "" --sorted; do
                # shellcheck disable=SC2086
                run_ok "$WORK/s.json" pairs "$WORK/a.f64" --algorithm "$algo" -o "$WORK/s.$fmt" \
                    $order --json || continue
                got=$("$CHECK" pairs "$WORK/s.$fmt" "$fmt" 4000) || {
                    fail "$algo $fmt $order output is malformed"
                    continue
                }
                checks=$((checks + 1))
                case "$got" in
                "$want sorted") ;;
                "$want"*) [ -z "$order" ] || fail "$algo --sorted $fmt: \"$got\"" ;;
                *) fail "$algo $fmt $order: \"$got\", want \"$want\"" ;;
                esac
            done
        done
    done
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm octree --max-depth 3 --leaf-size 7 --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "octree --max-depth 3 --leaf-size 7"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm segtree --cutoff 2 --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "segtree --cutoff 2"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm kdsplit --split mean --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "kdsplit --split mean"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm partition1d --segment-width max --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "partition1d --segment-width max"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm sap --warm --repeat 3 --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "sap --warm --repeat 3"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm bvh --warm --repeat 3 --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "bvh --warm --repeat 3"
    run_ok "$WORK/o.json" pairs "$WORK/a.f64" --algorithm hashgrid --max-tests inf --json &&
        [ "$(json_get "$WORK/o.json" pairs) $(json_get "$WORK/o.json" checksum)" = "$want" ] ||
        fail "hashgrid --max-tests inf"
    # the hash grid refuses what its cells predict to be too costly: exit 8,
    # one line, no output file (expect_exit sets $want: checks of the pairs
    # come before)
    expect_exit 8 "a.f64" "hashgrid refused" "--max-tests" "--algorithm grid" -- \
        pairs "$WORK/a.f64" --algorithm hashgrid --max-tests 10 -o "$WORK/refused.npy"
    checks=$((checks + 1))
    [ ! -e "$WORK/refused.npy" ] || fail "a refused hashgrid run left its output file"
    no_leftovers "$WORK" refused.npy
    expect_exit 2 "--max-tests" -- pairs "$WORK/a.f64" --algorithm hashgrid --max-tests 0
    expect_exit 2 "--max-tests is an option of --algorithm hashgrid" -- pairs "$WORK/a.f64" --max-tests 5
    expect_exit 2 "--warm is an option of --algorithm sap and bvh" -- pairs "$WORK/a.f64" --warm
}

case_neighbors() {
    run_ok "$WORK/g.txt" gen heavytail 2500 --seed 5 -o "$WORK/h.npy" || return
    for spec in "0 0 none" "1 0 overlap" "0 0.25 distance" "1 0.5 none"; do
        set -- $spec
        opts=""
        [ "$1" = 1 ] && opts="--full"
        [ "$3" != none ] && opts="$opts --values $3"
        for algo in grid sap bvh; do
            run_ok "$WORK/n.json" neighbors "$WORK/h.npy" --skin "$2" $opts --algorithm $algo \
                --threads 2 -o "$WORK/n.csv" --json || continue
            got=$("$CHECK" nbrlist "$WORK/h.npy" "$WORK/n.csv" "$1" "$2" "$3") || {
                fail "neighbors $spec $algo: the list differs from the oracle's"
                continue
            }
            checks=$((checks + 1))
            [ "$(json_get "$WORK/n.json" entries)" = "$got" ] ||
                fail "neighbors $spec $algo: JSON says $(json_get "$WORK/n.json" entries) entries, the file $got"
        done
    done
    # .npy: the (i, j) entries, the same as the csv's
    run_ok "$WORK/n.json" neighbors "$WORK/h.npy" --full -o "$WORK/n.npy" --json || return
    run_ok "$WORK/n2.json" neighbors "$WORK/h.npy" --full -o "$WORK/n2.csv" --json || return
    [ "$(json_get "$WORK/n.json" entries)" = "$(json_get "$WORK/n2.json" entries)" ] ||
        fail "neighbors: .npy and .csv hold different entry counts"
    checks=$((checks + 1))
    # usage errors: exit 2, one line, no file
    expect_exit 2 "--skin must be" -- neighbors "$WORK/h.npy" --skin -1
    expect_exit 2 "v.npy" "written as csv" -- neighbors "$WORK/h.npy" --values overlap -o "$WORK/v.npy"
    [ -e "$WORK/v.npy" ] && fail "neighbors: a refused run left $WORK/v.npy"
    expect_exit 2 "--values must be" -- neighbors "$WORK/h.npy" --values bogus
    # bad values: exit 5 naming the file and the place
    printf '0 0 0 1\n1 0 0 -1\n' > "$WORK/neg.txt"
    expect_exit 5 "neg.txt" "negative" -- neighbors "$WORK/neg.txt" --skin 3 -o "$WORK/neg.csv"
    [ -e "$WORK/neg.csv" ] && fail "neighbors: a failed run left $WORK/neg.csv"
    checks=$((checks + 1))
}

case_against() {
    run_ok "$WORK/g.txt" gen wide 4000 --seed 7 -o "$WORK/b.npy" || return
    run_ok "$WORK/g.txt" gen wide 300 --seed 8 -o "$WORK/a.txt" --format text || return
    for pair in "a.txt b.npy" "b.npy a.txt"; do
        set -- $pair
        for algo in grid brute sap octree; do
            run_ok "$WORK/x.json" pairs "$WORK/$1" --against "$WORK/$2" --algorithm $algo \
                --threads 2 --sorted -o "$WORK/x.csv" --json || continue
            got=$("$CHECK" between "$WORK/$1" "$WORK/$2" "$WORK/x.csv") || {
                fail "pairs $1 --against $2, $algo: the pairs differ from the oracle's"
                continue
            }
            checks=$((checks + 1))
            [ "$(json_get "$WORK/x.json" pairs) $(json_get "$WORK/x.json" checksum)" = "$got" ] ||
                fail "pairs $1 --against $2, $algo: JSON says $(json_get "$WORK/x.json" pairs), the file $got"
            [ "$(json_get "$WORK/x.json" against)" = "$WORK/$2" ] ||
                fail "pairs --against: JSON names $(json_get "$WORK/x.json" against)"
        done
    done
    # the count alone agrees with the file's
    run_ok "$WORK/c.json" pairs "$WORK/b.npy" --against "$WORK/a.txt" --json || return
    [ "$(json_get "$WORK/c.json" pairs)" = "$(json_get "$WORK/x.json" pairs)" ] ||
        fail "pairs --against: the count differs from the written pairs"
    # JSON's searched: the small set and the large one's candidates, fewer than both
    searched=$(json_get "$WORK/c.json" searched)
    [ -n "$searched" ] && [ "$searched" -ge 300 ] && [ "$searched" -lt 4300 ] ||
        fail "pairs --against: JSON searched \"$searched\", not between 300 and 4,300"
    checks=$((checks + 1))
    # standard input as text against a .npy: B's name decides its format
    "$SC" pairs "$WORK/a.txt" --against "$WORK/b.npy" --json > "$WORK/f.json" 2>"$WORK/err.txt" ||
        fail "pairs a.txt --against b.npy: $(cat "$WORK/err.txt")"
    "$SC" pairs - --input-format text --against "$WORK/b.npy" --json < "$WORK/a.txt" \
        > "$WORK/s.json" 2>"$WORK/err.txt" || fail "pairs - --against b.npy: $(cat "$WORK/err.txt")"
    [ "$(json_get "$WORK/s.json" pairs)" = "$(json_get "$WORK/f.json" pairs)" ] ||
        fail "pairs - --against: $(json_get "$WORK/s.json" pairs) pairs, from the file $(json_get "$WORK/f.json" pairs)"
    checks=$((checks + 1))
    # a bad value in the second set names that file and the place; no file
    printf '0 0 0 1\n1 0 0 -1\n' > "$WORK/neg.txt"
    expect_exit 5 "neg.txt" "line 2" -- pairs "$WORK/b.npy" --against "$WORK/neg.txt" -o "$WORK/neg.csv"
    [ -e "$WORK/neg.csv" ] && fail "pairs --against: a failed run left $WORK/neg.csv"
    # 3-D against 2-D, and two standard inputs: usage errors
    printf 'x y r\n0 0 1\n' > "$WORK/c2.txt"
    expect_exit 2 "3-D" "2-D" -- pairs "$WORK/b.npy" --against "$WORK/c2.txt"
    expect_exit 2 "standard input" -- pairs - --against -
    checks=$((checks + 1))
}

case_box() {
    run_ok "$WORK/g.txt" gen uniform 3000 --seed 9 -o "$WORK/u.npy" || return
    run_ok "$WORK/g.txt" gen seed002 2000 --seed 9 -o "$WORK/c4.txt" --format text || return
    awk '{ print $1, $2, $4 }' "$WORK/c4.txt" > "$WORK/c.txt" # circles: x y r
    # the uniform cube for 3000 is about 47 wide: boxes that cut through it
    # (spheres wrap) and leave an axis open; 2-D circles
    for spec in "u.npy -20:20" "u.npy -25:15,-30:30,-" "u.npy 30" "c.txt 0:500,0:300 --2d" \
        "c.txt 100:600,- --2d"; do
        set -- $spec
        for algo in grid brute sap bvh; do
            run_ok "$WORK/x.json" pairs "$WORK/$1" --box "$2" ${3:-} --algorithm $algo --threads 2 \
                --sorted -o "$WORK/x.csv" --json || continue
            dims=3
            [ "${3:-}" = --2d ] && dims=2
            got=$("$CHECK" periodic "$WORK/$1" "$2" "$WORK/x.csv" $dims) || {
                fail "pairs $1 --box $2, $algo: the pairs differ from the oracle's"
                continue
            }
            checks=$((checks + 1))
            [ "$(json_get "$WORK/x.json" pairs) $(json_get "$WORK/x.json" checksum)" = "$got" ] ||
                fail "pairs $1 --box $2, $algo: JSON says $(json_get "$WORK/x.json" pairs), the file $got"
        done
        # the count alone agrees with the file's
        run_ok "$WORK/c.json" pairs "$WORK/$1" --box "$2" ${3:-} --json || continue
        [ "$(json_get "$WORK/c.json" pairs)" = "$(json_get "$WORK/x.json" pairs)" ] ||
            fail "pairs --box $2: the count differs from the written pairs"
        checks=$((checks + 1))
    done
    # the half neighbour list in a box is the sorted pair list; a full list
    # with --values has both directions
    run_ok "$WORK/x.json" pairs "$WORK/u.npy" --box -20:20,-20:20,- --sorted -o "$WORK/p.csv" || return
    run_ok "$WORK/n.txt" neighbors "$WORK/u.npy" --box -20:20,-20:20,- -o "$WORK/n.csv" || return
    cmp -s "$WORK/p.csv" "$WORK/n.csv" || fail "neighbors --box: the half list differs from pairs --sorted"
    run_ok "$WORK/n.txt" neighbors "$WORK/u.npy" --box -20:20,-20:20,- --full --values distance \
        -o "$WORK/f.csv" || return
    [ "$(wc -l < "$WORK/f.csv")" -eq $((2 * $(wc -l < "$WORK/p.csv"))) ] ||
        fail "neighbors --box --full: $(wc -l < "$WORK/f.csv") entries, pairs $(wc -l < "$WORK/p.csv")"
    expect_exit 2 "2 entries" -- neighbors "$WORK/u.npy" --box 0:1,0:1
    checks=$((checks + 2))
    # a box changes the answer: more pairs than without (faces crossed)
    run_ok "$WORK/o.json" pairs "$WORK/u.npy" --json || return
    run_ok "$WORK/p.json" pairs "$WORK/u.npy" --box -22:22 --json || return
    [ "$(json_get "$WORK/p.json" pairs)" -gt "$(json_get "$WORK/o.json" pairs)" ] ||
        fail "pairs --box: $(json_get "$WORK/p.json" pairs) pairs, open $(json_get "$WORK/o.json" pairs)"
    checks=$((checks + 1))
    # usage errors: exit 2, one line, no file
    expect_exit 2 "--box entry 1" -- pairs "$WORK/u.npy" --box 5:1 -o "$WORK/bad.csv"
    [ -e "$WORK/bad.csv" ] && fail "pairs --box 5:1 left $WORK/bad.csv"
    expect_exit 2 "--box entry 2" -- pairs "$WORK/u.npy" --box 0:1,abc,-
    expect_exit 2 "2 entries" "3-D" -- pairs "$WORK/u.npy" --box 0:1,0:1
    expect_exit 2 "within" -- pairs "$WORK/u.npy" --box 0:1e150
    # a radius beyond the periodic limit: exit 5 naming the sphere
    printf '0 0 0 1\n1 0 0 6e149\n' > "$WORK/big.txt"
    expect_exit 5 "big.txt" "sphere 1" "periodic" -- pairs "$WORK/big.txt" --box 10 -o "$WORK/big.csv"
    [ -e "$WORK/big.csv" ] && fail "pairs --box: a failed run left $WORK/big.csv"
    checks=$((checks + 1))
    # two sets in one box: a small set against the cube (filtered by its
    # cells) and two comparable ones, against the double loop over both
    run_ok "$WORK/g.txt" gen uniform 150 --seed 4 -o "$WORK/s.npy" || return
    run_ok "$WORK/g.txt" gen uniform 2500 --seed 5 -o "$WORK/v.npy" || return
    for spec in "s.npy u.npy -9:9" "u.npy v.npy -25:15,-30:30,-" "u.npy s.npy 0:17"; do
        set -- $spec
        for algo in grid sap; do
            run_ok "$WORK/x.json" pairs "$WORK/$1" --against "$WORK/$2" --box "$3" --algorithm $algo \
                --threads 2 --sorted -o "$WORK/x.csv" --json || continue
            got=$("$CHECK" periodic "$WORK/$1" "$3" "$WORK/x.csv" 0 "$WORK/$2") || {
                fail "pairs $1 --against $2 --box $3, $algo: the pairs differ from the oracle's"
                continue
            }
            checks=$((checks + 1))
            [ "$(json_get "$WORK/x.json" pairs) $(json_get "$WORK/x.json" checksum)" = "$got" ] ||
                fail "pairs $1 --against $2 --box $3, $algo: JSON says $(json_get "$WORK/x.json" pairs), the file $got"
        done
    done
    # the radius limit in the second set names that file
    expect_exit 5 "big.txt" "sphere 1" "periodic" -- pairs "$WORK/u.npy" --against "$WORK/big.txt" \
        --box 10 -o "$WORK/big.csv"
    [ -e "$WORK/big.csv" ] && fail "pairs --against --box: a failed run left $WORK/big.csv"
    expect_exit 5 "big.txt" "sphere 1" "periodic" -- pairs "$WORK/big.txt" --against "$WORK/u.npy" \
        --box 10
    checks=$((checks + 1))
}

case_lammps() {
    # a triclinic box: unscaled positions are read (the box is not needed),
    # and the dump gives no periodic box
    printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS xy xz yz pp pp pp\n0 10 1\n0 10 0\n0 10 0\nITEM: ATOMS id type x y z radius\n1 1 0 0 0 1\n2 1 1.5 0 0 1\n3 1 5 5 5 1\n' >"$WORK/tri.dump"
    run_ok "$WORK/tri.json" pairs "$WORK/tri.dump" --json || return
    checks=$((checks + 1))
    [ "$(json_get "$WORK/tri.json" pairs)" = 1 ] || fail "triclinic dump: $(cat "$WORK/tri.json")"
    expect_exit 2 "tri.dump" "no orthogonal box" "triclinic" -- pairs "$WORK/tri.dump" --box file
    sed 's/id type x y z radius/id type xs ys zs radius/' "$WORK/tri.dump" >"$WORK/tris.dump"
    expect_exit 4 "tris.dump" "line 9" "triclinic" "xu yu zu" -- pairs "$WORK/tris.dump"
    run_ok "$WORK/g.txt" gen uniform 3000 --seed 9 -o "$WORK/u.npy" || return
    run_ok "$WORK/g.txt" gen uniform 3000 --seed 9 -o "$WORK/u.txt" --format text || return
    # the same spheres as a LAMMPS dump (dump custom, columns shuffled), in
    # a periodic box of -20..20 on x and y, open on z
    {
        printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3000\nITEM: BOX BOUNDS pp pp fm\n'
        printf -- '-20 20\n-20 20\n-30 30\nITEM: ATOMS id radius x type y z\n'
        awk '{ print NR, $4, $1, 1, $2, $3 }' "$WORK/u.txt"
    } > "$WORK/u.dump"
    run_ok "$WORK/a.json" pairs "$WORK/u.dump" --box file --sorted -o "$WORK/a.csv" --json || return
    run_ok "$WORK/b.json" pairs "$WORK/u.npy" --box -20:20,-20:20,- --sorted -o "$WORK/b.csv" --json || return
    cmp -s "$WORK/a.csv" "$WORK/b.csv" || fail "pairs u.dump --box file: not the pairs of --box -20:20,-20:20,-"
    [ "$(json_get "$WORK/a.json" input_format)" = lammps ] || fail "u.dump: read as $(json_get "$WORK/a.json" input_format)"
    # without --box, the dump is read as it is: the open count
    run_ok "$WORK/c.json" pairs "$WORK/u.dump" --json || return
    run_ok "$WORK/d.json" pairs "$WORK/u.npy" --json || return
    [ "$(json_get "$WORK/c.json" checksum)" = "$(json_get "$WORK/d.json" checksum)" ] ||
        fail "pairs u.dump: another answer than u.npy's"
    # no radius column: --radius, one for all or by type
    awk 'NR <= 9 { sub(/ radius/, ""); print; next } { print $1, $3, $4, $5, $6 }' "$WORK/u.dump" > "$WORK/r.dump"
    run_ok "$WORK/e.json" neighbors "$WORK/r.dump" --radius 1=1.25 --box file --json || return
    awk '{ print $1, $2, $3, 1.25 }' "$WORK/u.txt" > "$WORK/r.txt"
    run_ok "$WORK/f.json" neighbors "$WORK/r.txt" --box -20:20,-20:20,- --json || return
    [ "$(json_get "$WORK/e.json" pairs)" = "$(json_get "$WORK/f.json" pairs)" ] ||
        fail "neighbors r.dump --radius 1=1.25: $(json_get "$WORK/e.json" pairs) pairs, $(json_get "$WORK/f.json" pairs) from the text"
    checks=$((checks + 4))
    expect_exit 4 "r.dump" "no radius" -- pairs "$WORK/r.dump"
    expect_exit 4 "r.dump" "line 10" "type" -- pairs "$WORK/r.dump" --radius 2=1
    expect_exit 2 "u.txt" "no orthogonal box" -- pairs "$WORK/u.txt" --box file
    # the same spheres as extended XYZ with a cell from the origin, x and y
    # periodic; and as plain XYZ with radii by element
    {
        printf '3000\nLattice="40 0 0 0 40 0 0 0 40" Properties=species:S:1:pos:R:3:radius:R:1 pbc="T T F"\n'
        awk '{ print "Ar", $1, $2, $3, $4 }' "$WORK/u.txt"
    } > "$WORK/u.extxyz"
    run_ok "$WORK/x.json" pairs "$WORK/u.extxyz" --box file --sorted -o "$WORK/x.csv" || return
    run_ok "$WORK/y.json" pairs "$WORK/u.npy" --box 0:40,0:40,- --sorted -o "$WORK/y.csv" || return
    cmp -s "$WORK/x.csv" "$WORK/y.csv" || fail "pairs u.extxyz --box file: not the pairs of --box 0:40,0:40,-"
    { echo 3000; echo plain; awk '{ print "C", $1, $2, $3 }' "$WORK/u.txt"; } > "$WORK/p.xyz"
    run_ok "$WORK/p.json" pairs "$WORK/p.xyz" --radius C=1.25 --json || return
    run_ok "$WORK/q.json" pairs "$WORK/r.txt" --json || return
    [ "$(json_get "$WORK/p.json" checksum)" = "$(json_get "$WORK/q.json" checksum)" ] ||
        fail "pairs p.xyz --radius C=1.25: another answer than the text file's"
    expect_exit 4 "p.xyz" "line 3" "element" -- pairs "$WORK/p.xyz" --radius O=1
    checks=$((checks + 2))
    # trajectories: a dump of three snapshots (a small one, u.dump's, the
    # small one again) and an XYZ of two; --frame picks one
    {
        head -n 9 "$WORK/u.dump" | sed 's/^3000$/2/'
        printf '1 0.5 0 1 0 0
2 0.5 0.5 1 0 0
'
        cat "$WORK/u.dump"
        head -n 9 "$WORK/u.dump" | sed 's/^3000$/2/'
        printf '1 0.5 0 1 0 0
2 0.5 0.5 1 0 0
'
    } > "$WORK/t.dump"
    for fr in 1 -2; do
        run_ok "$WORK/t.json" pairs "$WORK/t.dump" --frame $fr --box file --sorted -o "$WORK/t.csv" --json || return
        cmp -s "$WORK/t.csv" "$WORK/a.csv" || fail "pairs t.dump --frame $fr: not u.dump's pairs"
    done
    run_ok "$WORK/t.json" pairs "$WORK/t.dump" --frame last --json || return
    [ "$(json_get "$WORK/t.json" n) $(json_get "$WORK/t.json" pairs)" = "2 1" ] ||
        fail "pairs t.dump --frame last: $(json_get "$WORK/t.json" n) spheres, $(json_get "$WORK/t.json" pairs) pairs"
    { echo 1; echo first; echo "C 0 0 0"; cat "$WORK/p.xyz"; } > "$WORK/t.xyz"
    run_ok "$WORK/t.json" neighbors "$WORK/t.xyz" --frame last --radius C=1.25 --json || return
    [ "$(json_get "$WORK/t.json" pairs)" = "$(json_get "$WORK/q.json" pairs)" ] ||
        fail "neighbors t.xyz --frame last: $(json_get "$WORK/t.json" pairs) pairs, the text file $(json_get "$WORK/q.json" pairs)"
    checks=$((checks + 4))
    expect_exit 2 "t.dump" "3 snapshots" -- pairs "$WORK/t.dump" --frame 3 -o "$WORK/t3.csv"
    [ -e "$WORK/t3.csv" ] && fail "pairs --frame 3 left $WORK/t3.csv"
    expect_exit 2 "--frame" -- pairs "$WORK/t.dump" --frame first
    expect_exit 2 "u.npy" "LAMMPS dumps and XYZ" -- pairs "$WORK/u.npy" --frame 1
    # HDF5: the same spheres as /particles/spheres (or a clear refusal in a
    # build without libhdf5-dev)
    "$CHECK" mkh5 "$WORK/u.h5" "$WORK/u.npy"
    case $? in
    0)
        run_ok "$WORK/h.json" pairs "$WORK/u.h5" --dataset /particles/spheres --json || return
        [ "$(json_get "$WORK/h.json" checksum)" = "$(json_get "$WORK/d.json" checksum)" ] ||
            fail "pairs u.h5: another answer than u.npy's"
        [ "$(json_get "$WORK/h.json" input_format)" = hdf5 ] || fail "u.h5: read as $(json_get "$WORK/h.json" input_format)"
        checks=$((checks + 1))
        expect_exit 4 "u.h5" "/nope" "not found" -- pairs "$WORK/u.h5" --dataset /nope
        expect_exit 2 "u.h5" "dataset named" -- pairs "$WORK/u.h5"
        ;;
    77)
        printf 'x\n' > "$WORK/u.h5"
        expect_exit 2 "u.h5" "libhdf5-dev" -- pairs "$WORK/u.h5" --dataset /particles/spheres
        ;;
    *) fail "cli_check mkh5 failed" ;;
    esac
    sed '12s/^\([0-9]*\) [^ ]*/\1 -1/' "$WORK/u.dump" > "$WORK/neg.dump"
    expect_exit 5 "neg.dump" "line 12" "radius" -- pairs "$WORK/neg.dump" -o "$WORK/neg.csv"
    [ -e "$WORK/neg.csv" ] && fail "pairs neg.dump: a failed run left neg.csv"
    checks=$((checks + 1))
}

case_json() {
    run_ok "$WORK/g.txt" gen powerlaw 5000 --seed 2 -o "$WORK/p.txt" || return
    for extra in "" "-o $WORK/p.npy" "--sorted -o $WORK/q.csv" "--algorithm brute"; do
        # shellcheck disable=SC2086
        run_ok "$WORK/j.json" pairs "$WORK/p.txt" --json $extra || continue
        checks=$((checks + 1))
        "$CHECK" json "$WORK/j.json" n pairs checksum threads kernel pin levels cells \
            candidate_tests seconds seconds.read seconds.total seconds.bounds seconds.keys \
            seconds.sort seconds.gather seconds.cells seconds.search seconds.merge ||
            fail "--json $extra: invalid or incomplete: $(cat "$WORK/j.json")"
        json_get "$WORK/j.json" checksum | grep -Eq '^0x[0-9a-f]{16}$' || fail "checksum format in JSON"
        case $(json_get "$WORK/j.json" kernel) in
        scalar | avx2) ;;
        *) fail "kernel in JSON: $(json_get "$WORK/j.json" kernel)" ;;
        esac
        [ -s "$WORK/err.txt" ] && fail "--json wrote to stderr: $(cat "$WORK/err.txt")"
    done
    expect_oracle "$WORK/j.json" "$WORK/p.txt"
    # --repeat R: the same answer; seconds.total is the median run's, and the
    # first (cold) run's total is there too
    if run_ok "$WORK/r.json" pairs "$WORK/p.txt" --json --repeat 3; then
        checks=$((checks + 1))
        "$CHECK" json "$WORK/r.json" n pairs checksum repeat seconds.total seconds.first seconds.search ||
            fail "--json --repeat 3: invalid or incomplete: $(cat "$WORK/r.json")"
        [ "$(json_get "$WORK/r.json" repeat)" = 3 ] || fail "--repeat 3: JSON says repeat $(json_get "$WORK/r.json" repeat)"
        [ "$(json_get "$WORK/r.json" pairs) $(json_get "$WORK/r.json" checksum)" = \
          "$(json_get "$WORK/j.json" pairs) $(json_get "$WORK/j.json" checksum)" ] ||
            fail "--repeat 3 changes the answer"
    fi
    # --repeat 2: seconds.mean is the second run's total, and the median
    # (the slower of the two) is it or the first
    if run_ok "$WORK/r.json" pairs "$WORK/p.txt" --json --repeat 2; then
        checks=$((checks + 1))
        m=$(json_get "$WORK/r.json" seconds.mean)
        t=$(json_get "$WORK/r.json" seconds.total)
        f=$(json_get "$WORK/r.json" seconds.first)
        [ -n "$m" ] && { [ "$m" = "$t" ] || [ "$t" = "$f" ]; } ||
            fail "--repeat 2: mean $m is neither the median $t nor beside the first $f"
    fi
    # the checker itself refuses broken JSON
    printf '{"n":1,"pairs":}\n' >"$WORK/bad.json"
    checks=$((checks + 1))
    "$CHECK" json "$WORK/bad.json" n 2>/dev/null && fail "the JSON checker accepted broken JSON"
    printf '{"n":1}\n{"n":2}\n' >"$WORK/two.json"
    "$CHECK" json "$WORK/two.json" n 2>/dev/null && fail "the JSON checker accepted two lines"
}

# Input formats: f32 stays f32, raw .bin with --format, 2-D text, tiny inputs.
case_formats() {
    # gzip data, found by its magic bytes, read as the format its name gives
    # before ".gz" (or text); every member; a truncated or corrupt stream
    # names its byte
    run_ok "$WORK/gz.txt" gen uniform 3000 --seed 9 -o "$WORK/gz.npy" --quiet || return
    run_ok "$WORK/gz.txt" gen uniform 3000 --seed 9 -o "$WORK/gz.dat" --quiet || return
    run_ok "$WORK/plain.json" pairs "$WORK/gz.npy" --json || return
    want=$(json_get "$WORK/plain.json" checksum)
    gzip -c "$WORK/gz.npy" >"$WORK/gz.npy.gz"
    gzip -c "$WORK/gz.dat" >"$WORK/gz.dat.gz"
    gzip -c "$WORK/gz.dat" >"$WORK/gz-named-oddly"
    for f in gz.npy.gz gz.dat.gz gz-named-oddly; do
        run_ok "$WORK/z.json" pairs "$WORK/$f" --json || return
        checks=$((checks + 1))
        [ "$(json_get "$WORK/z.json" checksum)" = "$want" ] || fail "$f: checksum $(json_get "$WORK/z.json" checksum), want $want"
    done
    checks=$((checks + 1))
    [ "$(json_get "$WORK/z.json" input_format)" = text ] || fail "gzip text: format $(json_get "$WORK/z.json" input_format)"
    { gzip -c "$WORK/gz.dat"; gzip -c "$WORK/gz.dat"; } >"$WORK/two.dat.gz"
    run_ok "$WORK/z2.json" pairs "$WORK/two.dat.gz" --json || return
    checks=$((checks + 1))
    [ "$(json_get "$WORK/z2.json" n)" = 6000 ] || fail "two gzip members: n $(json_get "$WORK/z2.json" n), want 6000"
    head -c 2000 "$WORK/gz.dat.gz" >"$WORK/cut.dat.gz"
    expect_exit 4 "cut.dat.gz" "byte 2000" "truncated gzip" -- pairs "$WORK/cut.dat.gz"
    printf '\037\213XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' >"$WORK/bad.gz"
    expect_exit 4 "bad.gz" "corrupt gzip" -- pairs "$WORK/bad.gz"
    run_ok "$WORK/g.txt" gen shell 8000 --seed 4 -o "$WORK/s.f32" || return
    run_ok "$WORK/a.json" pairs "$WORK/s.f32" --json && {
        checks=$((checks + 1))
        [ "$(json_get "$WORK/a.json" dtype)" = float32 ] || fail "f32 input widened"
        expect_oracle "$WORK/a.json" "$WORK/s.f32"
    }
    cp "$WORK/s.f32" "$WORK/s.bin"
    run_ok "$WORK/b.json" pairs "$WORK/s.bin" --format f32 --json &&
        expect_oracle "$WORK/b.json" "$WORK/s.bin" f32
    # f32 input and a csv output through one more --format
    run_ok "$WORK/b2.json" pairs "$WORK/s.bin" --format f32 -o "$WORK/s.pairs" --format csv --json &&
        "$CHECK" pairs "$WORK/s.pairs" csv 8000 >/dev/null || fail "two --format options"
    run_ok "$WORK/g.txt" gen shell 8000 --seed 4 -o "$WORK/s.txt"
    run_ok "$WORK/t.json" pairs "$WORK/s.txt" --json && expect_oracle "$WORK/t.json" "$WORK/s.txt"
    # 2-D circles: three numbers per row
    awk 'BEGIN { s = 1; for (k = 0; k < 3000; k++) { s = (s * 69069 + 1) % 4294967296; x = s / 4294967296 * 100;
                 s = (s * 69069 + 1) % 4294967296; y = s / 4294967296 * 100; printf "%.6f,%.6f,0.75\r\n", x, y } }' \
        >"$WORK/c2.csv"
    run_ok "$WORK/c.json" pairs "$WORK/c2.csv" --2d --json && {
        checks=$((checks + 1))
        [ "$(json_get "$WORK/c.json" dims)" = 2 ] || fail "--2d not applied"
        expect_oracle "$WORK/c.json" "$WORK/c2.csv" auto 2
        [ "$(json_get "$WORK/c.json" pairs)" -gt 0 ] || fail "the 2-D case has no pairs"
    }
    # n = 0 and n = 1: zero pairs, valid outputs
    printf '# nothing\n' >"$WORK/zero.txt"
    printf '1 2 3 4\n' >"$WORK/one.txt"
    for f in zero one; do
        run_ok "$WORK/z.json" pairs "$WORK/$f.txt" -o "$WORK/$f.npy" --json || continue
        checks=$((checks + 1))
        [ "$(json_get "$WORK/z.json" pairs)" = 0 ] || fail "$f: pairs $(json_get "$WORK/z.json" pairs)"
        [ "$("$CHECK" pairs "$WORK/$f.npy" npy 1)" = "0 0x0000000000000000 sorted" ] || fail "$f.npy"
    done
}

case_gen() {
    for fmt in npy txt f64 f32 csv; do
        run_ok "$WORK/g.txt" gen uniform 2000 --seed 9 -o "$WORK/a.$fmt" || continue
        run_ok "$WORK/g.txt" gen uniform 2000 --seed 9 -o "$WORK/b.$fmt" || continue
        checks=$((checks + 1))
        cmp -s "$WORK/a.$fmt" "$WORK/b.$fmt" || fail "gen is not deterministic ($fmt)"
        grep -q "wrote 2000 uniform spheres" "$WORK/g.txt" || fail "gen report: $(cat "$WORK/g.txt")"
        run_ok "$WORK/r.json" pairs "$WORK/a.$fmt" --json || continue
        [ "$(json_get "$WORK/r.json" n)" = 2000 ] || fail "gen $fmt: read back n = $(json_get "$WORK/r.json" n)"
    done
    # the text forms hold the same values as the npy
    run_ok "$WORK/a1.json" pairs "$WORK/a.npy" --json
    run_ok "$WORK/a2.json" pairs "$WORK/a.txt" --json
    checks=$((checks + 1))
    [ "$(json_get "$WORK/a1.json" checksum)" = "$(json_get "$WORK/a2.json" checksum)" ] ||
        fail "npy and text from gen disagree"
    run_ok "$WORK/g.txt" gen uniform 1e3 --seed 9 -o "$WORK/c.npy" &&
        grep -q "wrote 1000 " "$WORK/g.txt" || fail "N = 1e3"
    # --cell-order: the same spheres (the same pair count), another order,
    # deterministic; pairs on it gives the oracle's pairs of that file
    run_ok "$WORK/g.txt" gen clustered 6000 --seed 9 -o "$WORK/o1.npy" --cell-order &&
        run_ok "$WORK/g2.txt" gen clustered 6000 --seed 9 -o "$WORK/o2.npy" --cell-order &&
        run_ok "$WORK/g3.txt" gen clustered 6000 --seed 9 -o "$WORK/o0.npy" &&
        run_ok "$WORK/o1.json" pairs "$WORK/o1.npy" --json &&
        run_ok "$WORK/o0.json" pairs "$WORK/o0.npy" --json && {
        checks=$((checks + 1))
        cmp -s "$WORK/o1.npy" "$WORK/o2.npy" || fail "gen --cell-order is not deterministic"
        cmp -s "$WORK/o1.npy" "$WORK/o0.npy" && fail "gen --cell-order wrote the generated order"
        grep -q "wrote 6000 clustered spheres (seed 9, in cell order)" "$WORK/g.txt" ||
            fail "gen --cell-order report: $(cat "$WORK/g.txt")"
        [ "$(json_get "$WORK/o1.json" pairs)" = "$(json_get "$WORK/o0.json" pairs)" ] ||
            fail "gen --cell-order: $(json_get "$WORK/o1.json" pairs) pairs, $(json_get "$WORK/o0.json" pairs) generated"
        expect_oracle "$WORK/o1.json" "$WORK/o1.npy"
    }
    run_ok "$WORK/g.txt" gen dense 0 -o "$WORK/empty.npy" &&
        run_ok "$WORK/e.json" pairs "$WORK/empty.npy" --json &&
        [ "$(json_get "$WORK/e.json" n)" = 0 ] || fail "gen N = 0"
    for t in "$WORK"/.*.tmp.*; do
        [ -e "$t" ] && fail "temporary file $t left behind"
    done
}

# A generated file in the seed's layout (one number per line, CRLF).
case_seedlike() {
    "$CHECK" mkseed "$WORK/seedlike.dat" 20000 1 || {
        fail "mkseed failed"
        return
    }
    checks=$((checks + 1))
    od -An -c "$WORK/seedlike.dat" | head -n 1 | grep -q '\\r  *\\n' || fail "not CRLF"
    run_ok "$WORK/j.json" pairs "$WORK/seedlike.dat" --json || return
    [ "$(json_get "$WORK/j.json" n)" = 20000 ] || fail "seed-like: n"
    expect_oracle "$WORK/j.json" "$WORK/seedlike.dat"
    [ "$(json_get "$WORK/j.json" pairs)" -gt 0 ] || fail "seed-like file has no pairs"
}

# One option table (tools/cli/options.c) for every command: each command's
# --help lists exactly the options the table gives it (long names; an
# alias, where the help shows one, must be the table's too), and the
# command refuses an option another command takes.
case_options() {
    for cmd in pairs neighbors gen simulate info; do
        "$CHECK" options "$cmd" | sort -u > "$WORK/names.txt" || { fail "cli_check options $cmd"; continue; }
        "$CHECK" options "$cmd" aliases | cat - "$WORK/names.txt" | sort -u > "$WORK/table.txt"
        "$SC" "$cmd" --help 2>&1 |
            awk '/^  +-/ { sub(/^ +/, ""); split($0, part, /   */); print part[1] }' |
            grep -oE -- '(^|[ ,|])-(-[a-z0-9][a-z0-9-]*|[a-zA-Z])' | tr -d ' ,|' | sort -u > "$WORK/help.txt"
        missing=$(comm -23 "$WORK/names.txt" "$WORK/help.txt" | tr '\n' ' ')
        extra=$(comm -13 "$WORK/table.txt" "$WORK/help.txt" | tr '\n' ' ')
        checks=$((checks + 1))
        [ -z "$missing" ] || fail "$cmd --help does not list the table's $missing"
        [ -z "$extra" ] || fail "$cmd --help lists $extra, which the table does not give $cmd"
    done
    # an option of another command is unknown (exit 2, named)
    expect_exit 2 "unknown option \"--skin\"" -- pairs "$WORK/none.npy" --skin 1
    expect_exit 2 "unknown option \"--against\"" -- neighbors "$WORK/none.npy" --against x
    expect_exit 2 "unknown option \"--threads\"" -- gen uniform 10 --threads 2 -o "$WORK/g.npy"
    # --name=VALUE takes the value, as --name VALUE does
    "$SC" gen uniform 50 --seed=3 -o "$WORK/a.npy" --quiet &&
        "$SC" gen uniform 50 --seed 3 -o "$WORK/b.npy" --quiet &&
        cmp -s "$WORK/a.npy" "$WORK/b.npy" || fail "gen --seed=3 is not gen --seed 3"
    checks=$((checks + 1))
}

case_spheres_dat() {
    f=$DATA/spheres.dat
    if [ ! -r "$f" ]; then
        fail "$f: the seed's data file is missing (-DSC_TEST_DATA_DIR=FOLDER names its folder)"
        return
    fi
    run_ok "$WORK/j.json" pairs "$f" --json || return
    checks=$((checks + 1))
    [ "$(json_get "$WORK/j.json" n)" = 100000 ] || fail "spheres.dat: n = $(json_get "$WORK/j.json" n)"
    [ "$(json_get "$WORK/j.json" pairs)" = 33 ] || fail "spheres.dat: $(json_get "$WORK/j.json" pairs) pairs, the seed says 33"
    expect_oracle "$WORK/j.json" "$f"
    run_ok "$WORK/k.json" pairs "$f" -o "$WORK/p.csv" --sorted --json &&
        [ "$("$CHECK" pairs "$WORK/p.csv" csv 100000 | cut -d' ' -f1,3)" = "33 sorted" ] ||
        fail "spheres.dat: sorted csv output"
}


# Outputs that are not plain files (issue 13, defect 2): a symlink stays a
# link and its target gets the pairs; FIFOs and devices are written, never
# replaced; "-" is standard output (the report then goes to stderr) and
# "pairs -" reads standard input; a replaced file keeps its mode.
case_special_outputs() {
    printf '0 0 0 1\n1 0 0 1\n5 0 0 1\n5.5 0 0 0\n' >"$WORK/four.txt"
    mkdir -p "$WORK/real"
    ln -s real/target.csv "$WORK/link.csv"
    run_ok "$WORK/o.txt" pairs "$WORK/four.txt" -o "$WORK/link.csv" --quiet || return
    checks=$((checks + 1))
    [ -L "$WORK/link.csv" ] || fail "the symlink was replaced by a regular file"
    [ "$("$CHECK" pairs "$WORK/real/target.csv" csv 4 | cut -d' ' -f1)" = 2 ] ||
        fail "the link's target does not hold the 2 pairs"
    for t in "$WORK"/.link.csv.tmp.* "$WORK"/real/.target.csv.tmp.*; do
        [ -e "$t" ] && fail "temporary file $t left behind"
    done
    # a link to /dev/null: the device stays a device
    ln -s /dev/null "$WORK/null.csv"
    run_ok "$WORK/o.txt" pairs "$WORK/four.txt" -o "$WORK/null.csv" --quiet
    checks=$((checks + 1))
    [ -L "$WORK/null.csv" ] && [ -c /dev/null ] || fail "/dev/null or the link to it was replaced"
    # a FIFO is streamed into, and stays a FIFO
    if mkfifo "$WORK/fifo.csv" 2>/dev/null; then
        cat "$WORK/fifo.csv" >"$WORK/from_fifo.csv" &
        reader=$!
        run_ok "$WORK/o.txt" pairs "$WORK/four.txt" -o "$WORK/fifo.csv" --quiet
        wait $reader
        checks=$((checks + 1))
        [ -p "$WORK/fifo.csv" ] || fail "the FIFO was replaced"
        [ "$("$CHECK" pairs "$WORK/from_fifo.csv" csv 4 | cut -d' ' -f1)" = 2 ] ||
            fail "the FIFO's reader did not get the 2 pairs"
    fi
    # "-": standard output; the report moves to stderr
    "$SC" pairs "$WORK/four.txt" -o - >"$WORK/stdout.csv" 2>"$WORK/err.txt"
    checks=$((checks + 1))
    [ "$("$CHECK" pairs "$WORK/stdout.csv" csv 4 | cut -d' ' -f1)" = 2 ] || fail "-o - did not write csv pairs to stdout"
    grep -q "^pairs  *2\$" "$WORK/err.txt" || fail "-o -: the report is not on stderr"
    [ -e "$WORK/-" ] && fail "-o - created a file named -"
    # .npy to a stream: counted first, so the header holds the shape
    "$SC" pairs "$WORK/four.txt" -o - --format npy --quiet >"$WORK/stdout.npy" 2>"$WORK/err.txt"
    checks=$((checks + 1))
    [ "$("$CHECK" pairs "$WORK/stdout.npy" npy 4 | cut -d' ' -f1)" = 2 ] || fail "-o - --format npy: $(cat "$WORK/err.txt")"
    # "pairs -": standard input, text or (with --input-format) npy
    "$SC" pairs - --json <"$WORK/four.txt" >"$WORK/stdin.json" 2>"$WORK/err.txt"
    checks=$((checks + 1))
    [ "$(json_get "$WORK/stdin.json" pairs)" = 2 ] || fail "pairs - (text on stdin): $(cat "$WORK/err.txt")"
    run_ok "$WORK/g.txt" gen uniform 3000 --seed 2 -o "$WORK/u.npy" &&
        run_ok "$WORK/a.json" pairs "$WORK/u.npy" --json || return
    cat "$WORK/u.npy" | "$SC" pairs - --input-format npy --json >"$WORK/b.json" 2>"$WORK/err.txt"
    checks=$((checks + 1))
    [ "$(json_get "$WORK/a.json" checksum)" = "$(json_get "$WORK/b.json" checksum)" ] ||
        fail "pairs - --input-format npy from a pipe: $(cat "$WORK/err.txt")"
    printf '1 2 3\n' | "$SC" pairs - >/dev/null 2>"$WORK/err.txt"
    checks=$((checks + 1))
    grep -q "^spherecollide: standard input: line 1: .*--2d" "$WORK/err.txt" || fail "stdin errors name standard input: $(cat "$WORK/err.txt")"
    # a replaced regular file keeps its mode (as root a read-only one too)
    printf 'old\n' >"$WORK/keep.csv"
    chmod 640 "$WORK/keep.csv"
    run_ok "$WORK/o.txt" pairs "$WORK/four.txt" -o "$WORK/keep.csv" --quiet
    checks=$((checks + 1))
    [ "$(stat -c %a "$WORK/keep.csv")" = 640 ] || fail "mode 640 became $(stat -c %a "$WORK/keep.csv")"
    printf 'old\n' >"$WORK/ro.csv"
    chmod 444 "$WORK/ro.csv"
    if [ "$(id -u)" = 0 ]; then
        run_ok "$WORK/o.txt" pairs "$WORK/four.txt" -o "$WORK/ro.csv" --quiet
        checks=$((checks + 1))
        [ "$(stat -c %a "$WORK/ro.csv")" = 444 ] || fail "as root, mode 444 became $(stat -c %a "$WORK/ro.csv")"
    else
        expect_exit 6 "$WORK/ro.csv" "ermission" -- pairs "$WORK/four.txt" -o "$WORK/ro.csv"
    fi
    # a directory as -o is "is a directory" (exit 6), whatever its name
    mkdir -p "$WORK/outdir"
    expect_exit 6 "$WORK/outdir" "is a directory" -- pairs "$WORK/four.txt" -o "$WORK/outdir"
    expect_exit 6 "$WORK/outdir" "is a directory" -- gen uniform 10 -o "$WORK/outdir"
}

# Signals and file-size limits (defect 5): nothing is left behind, and a
# size limit is an ordinary write error naming the byte.
case_signals() {
    run_ok "$WORK/gen.txt" gen dense 2000 --seed 5 -o "$WORK/dense.npy" || return
    # gen's binary writers once wrote past their buffer after a failed write
    # (the ASan build of this test catches that); every writer must stop
    size_limited "pairs over a size limit" "$WORK/big.csv" 0 \
        pairs "$WORK/dense.npy" -o "$WORK/big.csv" --threads 2
    for ext in csv npy f32 f64; do
        size_limited "gen ($ext) over a size limit" "$WORK/big.$ext" 0 \
            gen uniform 100000 -o "$WORK/big.$ext"
    done
    # SIGTERM while the temporary file is being written
    for cmd in pairs gen; do
        if [ $cmd = pairs ]; then
            "$SC" pairs "$WORK/dense.npy" -o "$WORK/sig.csv" --threads 2 >/dev/null 2>&1 &
        else
            "$SC" gen uniform 2000000 -o "$WORK/sig.csv" >/dev/null 2>&1 &
        fi
        pid=$!
        k=0
        while [ $k -lt 2000 ]; do # until the temporary exists (at most 20 s)
            set -- "$WORK"/.sig.csv.tmp.*
            [ -e "$1" ] && break
            sleep 0.01
            k=$((k + 1))
        done
        kill -TERM $pid 2>/dev/null
        wait $pid
        rc=$?
        checks=$((checks + 1))
        [ "$rc" -eq 143 ] || [ "$rc" -eq 0 ] || fail "$cmd killed by SIGTERM: exit $rc"
        [ "$rc" -eq 0 ] || no_leftovers "$WORK" sig.csv
        rm -f "$WORK/sig.csv"
    done
}

# The smaller ones (defect 9).
case_details() {
    # a large input's read shows a status line on a terminal (script(1)
    # gives the tool one), erased after; none off a terminal or with --quiet
    run_ok "$WORK/g.txt" gen uniform 900000 --seed 2 -o "$WORK/big.txt" --quiet || return
    script -qec "$SC pairs $WORK/big.txt --threads 1" "$WORK/tty.txt" >/dev/null 2>&1
    checks=$((checks + 1))
    grep -q "reading $WORK/big.txt (69 MB)" "$WORK/tty.txt" || fail "no reading line on a terminal: $(cat -v "$WORK/tty.txt" | head -3)"
    script -qec "$SC pairs $WORK/big.txt --threads 1 --quiet" "$WORK/tty-quiet.txt" >/dev/null 2>&1
    checks=$((checks + 1))
    grep -q "reading" "$WORK/tty-quiet.txt" && fail "a reading line with --quiet"
    run_ok "$WORK/notty.txt" pairs "$WORK/big.txt" --threads 1 || return
    checks=$((checks + 1))
    [ -s "$WORK/err.txt" ] && fail "stderr off a terminal: $(cat "$WORK/err.txt")"
    rm -f "$WORK/big.txt"
    printf '0 0 0 1\n1 0 0 1\n' >"$WORK/two.txt"
    # numbers are decimal: 010 is ten
    run_ok "$WORK/g.txt" gen uniform 010 --seed 010 -o "$WORK/a.npy" || return
    run_ok "$WORK/g2.txt" gen uniform 10 --seed 10 -o "$WORK/b.npy" || return
    checks=$((checks + 1))
    grep -q "wrote 10 uniform spheres (seed 10)" "$WORK/g.txt" || fail "gen 010: $(cat "$WORK/g.txt")"
    cmp -s "$WORK/a.npy" "$WORK/b.npy" || fail "--seed 010 is not --seed 10"
    expect_exit 2 "N must be" -- gen uniform 0x10 -o "$WORK/c.npy"
    # --quiet: no report
    run_ok "$WORK/q.txt" pairs "$WORK/two.txt" --quiet
    checks=$((checks + 1))
    [ -s "$WORK/q.txt" ] && fail "--quiet printed: $(cat "$WORK/q.txt")"
    run_ok "$WORK/q.json" pairs "$WORK/two.txt" --quiet --json
    [ "$(json_get "$WORK/q.json" pairs)" = 1 ] || fail "--quiet --json printed no JSON"
    run_ok "$WORK/q.txt" gen uniform 10 -o "$WORK/q.npy" --quiet
    [ -s "$WORK/q.txt" ] && fail "gen --quiet printed: $(cat "$WORK/q.txt")"
    # info: "1 thread"
    run_ok "$WORK/i.txt" info --threads 1
    checks=$((checks + 1))
    grep -q "1 threads" "$WORK/i.txt" && fail "info says \"1 threads\""
    # SC_KERNEL=bogus: a warning, then the run
    SC_KERNEL=bogus "$SC" pairs "$WORK/two.txt" --json >"$WORK/k.json" 2>"$WORK/err.txt"
    rc=$?
    checks=$((checks + 1))
    [ $rc -eq 0 ] || fail "SC_KERNEL=bogus: exit $rc"
    grep -q "^spherecollide: warning: SC_KERNEL=bogus" "$WORK/err.txt" || fail "SC_KERNEL=bogus: no warning: $(cat "$WORK/err.txt")"
    # huge pages: SC_HUGE_PAGES=0|1 decide; otherwise a balloon that reports
    # free pages to the hypervisor (virtio device 5, feature bit 5) says no
    checks=$((checks + 3))
    SC_HUGE_PAGES=0 "$SC" info >"$WORK/i.txt" && grep -q "^huge pages: not advised (SC_HUGE_PAGES=0)" "$WORK/i.txt" ||
        fail "SC_HUGE_PAGES=0: $(grep huge "$WORK/i.txt")"
    SC_HUGE_PAGES=1 "$SC" info >"$WORK/i.txt" && grep -q "^huge pages: advised .*(SC_HUGE_PAGES=1)" "$WORK/i.txt" ||
        fail "SC_HUGE_PAGES=1: $(grep huge "$WORK/i.txt")"
    want="^huge pages: advised for scratch"
    for d in /sys/bus/virtio/devices/*; do
        [ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] && [ "$(cut -c6 "$d/features" 2>/dev/null)" = 1 ] &&
            want="^huge pages: not advised: a virtio balloon"
    done
    (unset SC_HUGE_PAGES; "$SC" info) >"$WORK/i.txt" && grep -q "$want" "$WORK/i.txt" ||
        fail "huge pages: want $want, got $(grep huge "$WORK/i.txt")"
    # and the same pairs either way, from a text file whose values' reservation
    # (4 bytes a byte of text) and the scratch pass 2 MiB
    run_ok "$WORK/q.txt" gen clustered 40000 -o "$WORK/hp.txt" --quiet
    for h in 0 1; do
        SC_HUGE_PAGES=$h "$SC" pairs "$WORK/hp.txt" --json >"$WORK/hp$h.json" || fail "SC_HUGE_PAGES=$h: pairs failed"
    done
    checks=$((checks + 1))
    [ "$(json_get "$WORK/hp0.json" pairs) $(json_get "$WORK/hp0.json" checksum)" = \
      "$(json_get "$WORK/hp1.json" pairs) $(json_get "$WORK/hp1.json" checksum)" ] &&
        [ "$(json_get "$WORK/hp0.json" n)" = 40000 ] || fail "SC_HUGE_PAGES=0 and 1 differ"
    # line structure: x y r lines without --2d, an index column, a header
    printf '1 2 1\n4 5 1\n7 8 1\n10 11 1\n' >"$WORK/xyr.txt"
    expect_exit 4 "$WORK/xyr.txt" "line 1" "--2d" -- pairs "$WORK/xyr.txt"
    run_ok "$WORK/c.json" pairs "$WORK/xyr.txt" --2d --json &&
        [ "$(json_get "$WORK/c.json" n)" = 4 ] || fail "--2d read"
    printf 'id,x,y,z,r\n0,0,0,0,1\n1,1,0,0,1\n' >"$WORK/idx.csv"
    run_ok "$WORK/h.json" pairs "$WORK/idx.csv" --json &&
        [ "$(json_get "$WORK/h.json" n) $(json_get "$WORK/h.json" pairs)" = "2 1" ] || fail "header csv"
    tail -n 2 "$WORK/idx.csv" >"$WORK/noheader.csv"
    expect_exit 4 "$WORK/noheader.csv" "line 1" "5 values" -- pairs "$WORK/noheader.csv"
}

case_simulate() {
    # --radii sequence is the default radii, seed002 its other name (the
    # CSV without its timing columns, 3-5)
    for r in sequence seed002; do
        "$SC" simulate --n 300 --steps 3 --radii $r --csv "$WORK/r-$r.csv" --quiet ||
            fail "simulate --radii $r"
        cut -d, -f1,2,6- "$WORK/r-$r.csv" > "$WORK/r-$r.cut"
    done
    "$SC" simulate --n 300 --steps 3 --csv "$WORK/r-default.csv" --quiet &&
        cut -d, -f1,2,6- "$WORK/r-default.csv" > "$WORK/r-default.cut"
    cmp -s "$WORK/r-sequence.cut" "$WORK/r-seed002.cut" && cmp -s "$WORK/r-sequence.cut" "$WORK/r-default.cut" ||
        fail "simulate --radii sequence, seed002 and the default differ"
    checks=$((checks + 1))
    # the same collisions, reactions and energy for any thread count and algorithm
    for run in "1 grid" "2 grid" "2 sap" "2 bvh"; do
        set -- $run
        run_ok "$WORK/sim.txt" simulate --n 600 --box 300,200 --radii uniform:1,4 --steps 4 --threads "$1" --algorithm "$2" \
            --quiet --csv "$WORK/sim-$1-$2.csv" || return
        checks=$((checks + 1))
        [ "$(wc -l <"$WORK/sim-$1-$2.csv")" -eq 5 ] || fail "simulate: $(wc -l <"$WORK/sim-$1-$2.csv") CSV lines, want 5"
        cut -d, -f7-12 "$WORK/sim-$1-$2.csv" >"$WORK/sim-$1-$2.cols"
    done
    for other in 2-grid 2-sap 2-bvh; do
        checks=$((checks + 1))
        cmp -s "$WORK/sim-1-grid.cols" "$WORK/sim-$other.cols" || fail "simulate: $other differs from 1 thread's grid"
    done
    checks=$((checks + 1))
    [ "$(cut -d, -f7 "$WORK/sim-1-grid.csv" | tail -n 4 | sort -n | tail -n 1)" -gt 0 ] ||
        fail "simulate: no collisions in 600 balls"
    run_ok "$WORK/sim3.txt" simulate --dims 3 --n 300 --box 60,60,60 --radii uniform:1,3 --steps 2 || return
    checks=$((checks + 1))
    [ "$(wc -l <"$WORK/sim3.txt")" -eq 3 ] || fail "simulate: $(wc -l <"$WORK/sim3.txt") stdout lines, want 3"
    expect_exit 2 "time step" -- simulate --dt -1
    expect_exit 2 "more than fits" -- simulate --n 1000000
    expect_exit 2 "wider than the box" -- simulate --radii const:400
    expect_exit 2 "unknown option" "--bogus" -- simulate --bogus 1
    expect_exit 2 "--dims" -- simulate --dims 4
    expect_exit 2 "--velocities" -- simulate --velocities bogus
    expect_exit 2 "lattice" -- simulate --n 10001 --box 600,600 --radii const:2 --lattice 6
    # renumbered every 2nd step: still the same for 1 and 2 threads
    for t in 1 2; do
        run_ok "$WORK/r.txt" simulate --n 600 --box 300,200 --radii uniform:1,4 --steps 4 --reorder 2 \
            --threads "$t" --quiet --csv "$WORK/r-$t.csv" || return
        cut -d, -f7-12 "$WORK/r-$t.csv" >"$WORK/r-$t.cols"
    done
    checks=$((checks + 1))
    cmp -s "$WORK/r-1.cols" "$WORK/r-2.cols" || fail "simulate --reorder 2: 2 threads differ from 1"
    # seed 003's room: lattice and per-component velocities run
    run_ok "$WORK/l.txt" simulate --n 10000 --box 600,600 --radii const:2 --lattice 6 --velocities components \
        --speed 0.2 --dt 1 --steps 2 --quiet --csv "$WORK/l.csv" || return
    checks=$((checks + 1))
    [ "$(wc -l <"$WORK/l.csv")" -eq 3 ] || fail "simulate --lattice: $(wc -l <"$WORK/l.csv") CSV lines, want 3"
    expect_exit 6 "cannot write" -- simulate --steps 1 --csv "$WORK/no/such/dir/s.csv"
    no_leftovers "$WORK/no/such/dir" s.csv
    # radii from a generator and from a file: the same radii give the same run
    run_ok "$WORK/g.txt" gen uniform 600 --seed 3 -o "$WORK/g.npy" || return
    awk 'BEGIN { for (k = 0; k < 700; k++) print k, 2 * k, 2 }' >"$WORK/r2.txt"
    for src in gen:uniform "file:$WORK/g.npy" const:2 "file:$WORK/r2.txt"; do
        tag=$(printf '%s' "$src" | tr -c 'a-z0-9' _)
        run_ok "$WORK/rs.txt" simulate --n 600 --box 100,100 --seed 3 --radii "$src" --steps 3 --quiet \
            --csv "$WORK/rs-$tag.csv" || return
        cut -d, -f7-12 "$WORK/rs-$tag.csv" >"$WORK/rs-$tag.cols"
    done
    checks=$((checks + 1))
    cmp -s "$WORK/rs-gen_uniform.cols" "$WORK/rs-file_$(printf '%s' "$WORK/g.npy" | tr -c 'a-z0-9' _).cols" ||
        fail "simulate --radii gen:uniform differs from the generator's file"
    checks=$((checks + 1))
    cmp -s "$WORK/rs-const_2.cols" "$WORK/rs-file_$(printf '%s' "$WORK/r2.txt" | tr -c 'a-z0-9' _).cols" ||
        fail "simulate --radii const:2 differs from a file of radius 2"
    checks=$((checks + 1))
    cmp -s "$WORK/rs-gen_uniform.cols" "$WORK/rs-const_2.cols" && fail "simulate: radii 1-1.5 and 2 gave the same run"
    expect_exit 2 "unknown generator" -- simulate --radii gen:bogus --steps 1
    expect_exit 2 "fewer than --n 8000" -- simulate --radii "file:$WORK/r2.txt" --steps 1
    expect_exit 3 "cannot open" -- simulate --radii "file:$WORK/no-such.txt" --steps 1
    printf '1 2 x\n' >"$WORK/rbad.txt"
    expect_exit 4 "rbad.txt" "line 1" -- simulate --radii "file:$WORK/rbad.txt" --n 1 --steps 1
    printf '1 2 -1\n' >"$WORK/rneg.txt"
    expect_exit 5 "rneg.txt" -- simulate --radii "file:$WORK/rneg.txt" --n 1 --steps 1
    expect_exit 2 "--colour" -- simulate --colour size --steps 1
    # pictures: every 2nd of 4 steps, 200 pixels wide (1400 x 600: 86 high)
    rm -rf "$WORK/fr" && mkdir -p "$WORK/fr"
    run_ok "$WORK/f.txt" simulate --steps 4 --frames "$WORK/fr" --every 2 --width 200 --quiet || return
    checks=$((checks + 1))
    [ "$(ls "$WORK/fr" | tr '\n' ' ')" = "frame-000002.png frame-000004.png " ] ||
        fail "simulate --frames wrote: $(ls "$WORK/fr" | tr '\n' ' ')"
    for png in "$WORK/fr"/*.png; do
        checks=$((checks + 1))
        head=$(od -An -tx1 -N24 "$png" | tr -d ' \n')
        # the PNG signature, the IHDR chunk, width 200 (0xc8) and height 86 (0x56)
        [ "$head" = "89504e470d0a1a0a0000000d49484452000000c800000056" ] || fail "$png: header $head"
    done
    expect_exit 6 "cannot write" -- simulate --steps 1 --frames "$WORK/no/such/dir" --quiet
    # coloured by radius: the same picture size, and not the picture coloured by speed
    rm -rf "$WORK/frr" && mkdir -p "$WORK/frr"
    run_ok "$WORK/f.txt" simulate --steps 2 --frames "$WORK/frr" --every 2 --width 200 --colour radius --quiet || return
    checks=$((checks + 1))
    head=$(od -An -tx1 -N24 "$WORK/frr/frame-000002.png" | tr -d ' \n')
    [ "$head" = "89504e470d0a1a0a0000000d49484452000000c800000056" ] || fail "--colour radius: header $head"
    checks=$((checks + 1))
    cmp -s "$WORK/fr/frame-000002.png" "$WORK/frr/frame-000002.png" && fail "--colour radius drew the speed picture"
    # animation: a GIF89a of 200 x 86 (little-endian at bytes 6-9), two frames, ending in the trailer 0x3b
    run_ok "$WORK/a.txt" simulate --steps 4 --every 2 --width 200 --animate "$WORK/a.gif" --quiet || return
    checks=$((checks + 1))
    head=$(od -An -tx1 -N10 "$WORK/a.gif" | tr -d ' \n')
    [ "$head" = "474946383961c8005600" ] || fail "a.gif: header $head"
    checks=$((checks + 1))
    [ "$(tail -c 1 "$WORK/a.gif" | od -An -tx1 | tr -d ' \n')" = 3b ] || fail "a.gif: no GIF trailer"
    checks=$((checks + 1))
    # each frame is an image descriptor (0x2c) right after its graphic control extension (21 f9 04 .. .. .. .. 00)
    frames=$(od -An -v -tx1 "$WORK/a.gif" | tr -d '\n' | grep -o '21 f9 04 .. .. .. .. 00 2c' | wc -l)
    [ "$frames" -eq 2 ] || fail "a.gif: $frames frames, want 2"
    expect_exit 6 "cannot write" -- simulate --steps 1 --animate "$WORK/no/such/dir/a.gif" --quiet
    no_leftovers "$WORK/no/such/dir" a.gif
    # every output is checked before the first step: a missing --frames
    # folder fails at once (not after --every steps) and leaves an earlier
    # CSV as it was
    echo "earlier results" >"$WORK/keep.csv"
    expect_exit 6 "no/such/dir" "existing folder" -- simulate --n 600 --steps 1000000 --every 1000 \
        --frames "$WORK/no/such/dir" --csv "$WORK/keep.csv" --quiet
    checks=$((checks + 1))
    [ "$(cat "$WORK/keep.csv")" = "earlier results" ] || fail "simulate --frames (missing) changed the CSV"
    expect_exit 6 "not a folder" -- simulate --steps 1 --frames "$WORK/keep.csv" --quiet
    # an interrupted run leaves the earlier CSV and GIF as they were, and no temporaries
    cp "$WORK/a.gif" "$WORK/keep.gif"
    "$SC" simulate --n 20000 --steps 100000000 --csv "$WORK/keep.csv" --animate "$WORK/keep.gif" \
        --width 64 --quiet >/dev/null 2>&1 &
    pid=$!
    k=0
    while [ $k -lt 2000 ]; do # until both temporaries exist (at most 20 s)
        set -- "$WORK"/.keep.csv.tmp.* "$WORK"/.keep.gif.tmp.*
        [ -e "$1" ] && [ -e "$2" ] && break
        sleep 0.01
        k=$((k + 1))
    done
    sleep 0.2 # some steps written
    kill -TERM $pid 2>/dev/null
    wait $pid
    rc=$?
    checks=$((checks + 1))
    [ "$rc" -eq 143 ] || fail "simulate killed by SIGTERM: exit $rc, want 143"
    checks=$((checks + 1))
    [ "$(cat "$WORK/keep.csv")" = "earlier results" ] || fail "SIGTERM: the earlier CSV changed"
    checks=$((checks + 1))
    cmp -s "$WORK/a.gif" "$WORK/keep.gif" || fail "SIGTERM: the earlier GIF changed"
    for t in "$WORK"/.keep.csv.tmp.* "$WORK"/.keep.gif.tmp.*; do
        checks=$((checks + 1))
        [ -e "$t" ] && fail "SIGTERM: temporary $t left behind"
    done
}

case_ids() {
    # --ids: the pairs, two sets' pairs and neighbour entries as the atoms'
    # own ids (past 2^32, in no order), the same set as the row numbers
    # mapped through the dump's id column
    run_ok "$WORK/g.txt" gen clustered 4000 --seed 5 -o "$WORK/u.npy" || return
    run_ok "$WORK/g.txt" gen clustered 4000 --seed 5 -o "$WORK/u.txt" --format text || return
    awk '{ printf "%.0f %s\n", (NR * 7919) % 4001 * 1000003 + 5000000000, $0 }' "$WORK/u.txt" > "$WORK/ids.txt"
    {
        printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n4000\nITEM: BOX BOUNDS ff ff ff\n'
        printf -- '-1 1\n-1 1\n-1 1\nITEM: ATOMS x y z radius id\n'
        awk '{ print $2, $3, $4, $5, $1 }' "$WORK/ids.txt"
    } > "$WORK/u.dump"
    # row (0-based) to id; a pair of rows to its ids (smaller first when asked)
    map='NR == FNR { id[NR - 1] = $1; next }
         { split($0, f, ","); a = id[f[1]]; b = id[f[2]];
           if (order && a > b) { t = a; a = b; b = t }
           print a "," b }'
    run_ok "$WORK/o.txt" pairs "$WORK/u.npy" -o "$WORK/rows.csv" || return
    run_ok "$WORK/o.txt" pairs "$WORK/u.dump" -o "$WORK/ids.csv" --ids || return
    awk -v order=1 "$map" "$WORK/ids.txt" "$WORK/rows.csv" | sort > "$WORK/want.csv"
    sort "$WORK/ids.csv" > "$WORK/got.csv"
    checks=$((checks + 2))
    [ "$(wc -l < "$WORK/want.csv")" -gt 100 ] || fail "ids: too few pairs to compare"
    cmp -s "$WORK/want.csv" "$WORK/got.csv" || fail "pairs --ids: not the rows' pairs mapped to ids"
    # .bin: int64 little-endian; .npy: '<i8'
    run_ok "$WORK/o.txt" pairs "$WORK/u.dump" -o "$WORK/ids.bin" --ids || return
    od -An -v -td8 -w16 "$WORK/ids.bin" | awk '{ print $1 "," $2 }' | sort > "$WORK/got.csv"
    checks=$((checks + 1))
    cmp -s "$WORK/want.csv" "$WORK/got.csv" || fail "pairs --ids -o .bin: not the ids as int64"
    run_ok "$WORK/o.txt" pairs "$WORK/u.dump" -o "$WORK/ids.npy" --ids || return
    checks=$((checks + 2))
    head -c 128 "$WORK/ids.npy" | grep -q "'descr': '<i8'" || fail "pairs --ids -o .npy: not '<i8'"
    [ $(( $(wc -c < "$WORK/ids.npy") - 128 )) -eq $(( 16 * $(wc -l < "$WORK/want.csv") )) ] ||
        fail "pairs --ids -o .npy: not 16 bytes a pair"
    # two sets: A's id, then B's (the same file against itself: every pair
    # both ways, and each sphere with itself)
    run_ok "$WORK/o.txt" pairs "$WORK/u.npy" --against "$WORK/u.npy" -o "$WORK/rows.csv" || return
    run_ok "$WORK/o.txt" pairs "$WORK/u.dump" --against "$WORK/u.dump" -o "$WORK/ids.csv" --ids || return
    awk -v order=0 "$map" "$WORK/ids.txt" "$WORK/rows.csv" | sort > "$WORK/want.csv"
    sort "$WORK/ids.csv" > "$WORK/got.csv"
    checks=$((checks + 1))
    cmp -s "$WORK/want.csv" "$WORK/got.csv" || fail "pairs --against --ids: not the rows mapped"
    # a full neighbour list with values: (row's id, neighbour's id, value)
    run_ok "$WORK/o.txt" neighbors "$WORK/u.npy" --full --values overlap -o "$WORK/rows.csv" || return
    run_ok "$WORK/o.txt" neighbors "$WORK/u.dump" --full --values overlap -o "$WORK/ids.csv" --ids || return
    awk 'NR == FNR { id[NR - 1] = $1; next } { split($0, f, ","); print id[f[1]] "," id[f[2]] "," f[3] }' \
        "$WORK/ids.txt" "$WORK/rows.csv" > "$WORK/want.csv"
    checks=$((checks + 1))
    cmp -s "$WORK/want.csv" "$WORK/ids.csv" || fail "neighbors --ids --values: not the rows mapped"
    # extended XYZ: an id property
    {
        echo 4000
        echo 'Properties=species:S:1:pos:R:3:radius:R:1:id:I:1'
        awk '{ print "Ar", $2, $3, $4, $5, $1 }' "$WORK/ids.txt"
    } > "$WORK/u.xyz"
    run_ok "$WORK/o.txt" pairs "$WORK/u.npy" -o "$WORK/rows.csv" || return
    run_ok "$WORK/o.txt" pairs "$WORK/u.xyz" -o "$WORK/ids.csv" --ids || return
    awk -v order=1 "$map" "$WORK/ids.txt" "$WORK/rows.csv" | sort > "$WORK/want.csv"
    sort "$WORK/ids.csv" > "$WORK/got.csv"
    checks=$((checks + 1))
    cmp -s "$WORK/want.csv" "$WORK/got.csv" || fail "pairs u.xyz --ids: not the rows mapped"
    # what cannot give ids: a repeated id, a token that is no whole number,
    # a file without ids, a format without ids, no -o
    awk 'NR == 12 { d = $5 } NR == 13 { $5 = d } { print }' "$WORK/u.dump" > "$WORK/dup.dump"
    expect_exit 5 "dup.dump" "line 13" "again" "line 12" -- pairs "$WORK/dup.dump" -o "$WORK/x.csv" --ids
    awk 'NR == 14 { $5 = "12.5" } { print }' "$WORK/u.dump" > "$WORK/bad.dump"
    expect_exit 4 "bad.dump" "line 14" '"12.5"' "atom 4" -- pairs "$WORK/bad.dump" -o "$WORK/x.csv" --ids
    awk 'NR == 14 { $5 = "9223372036854775808" } { print }' "$WORK/u.dump" > "$WORK/big.dump"
    expect_exit 4 "big.dump" "line 14" "int64" -- pairs "$WORK/big.dump" -o "$WORK/x.csv" --ids
    sed 's/radius id$/radius mol/' "$WORK/u.dump" > "$WORK/noid.dump"
    expect_exit 4 "noid.dump" "line 9" "no id column" -- pairs "$WORK/noid.dump" -o "$WORK/x.csv" --ids
    expect_exit 2 "u.npy" "ids are read from LAMMPS" -- pairs "$WORK/u.npy" -o "$WORK/x.csv" --ids
    expect_exit 2 "--ids" "no -o" -- pairs "$WORK/u.dump" --ids
    expect_exit 2 "--ids" "no -o" -- neighbors "$WORK/u.dump" --ids
    checks=$((checks + 1))
    [ -e "$WORK/x.csv" ] && fail "ids: a refused run wrote x.csv"
}

case "$case_name" in
usage | help | bad_input | unwritable | write_failure | outputs | threads | sorted | algorithms | json | formats | gen | seedlike | spheres_dat | special_outputs | signals | details | simulate | neighbors | against | box | lammps | ids | options)
    "case_$case_name"
    ;;
*)
    echo "cli_tests.sh: unknown case $case_name" >&2
    exit 2
    ;;
esac
[ -e "$WORK/substring_failures" ] && failures=$((failures + $(wc -l <"$WORK/substring_failures")))
echo "cli $case_name: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
