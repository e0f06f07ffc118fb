#!/usr/bin/env python3
"""check-long-functions.py [LINES]

No C function outside tests/ runs to LINES lines (default 150) or more
unless the comment just above it says why it is one function ("One
function, though long: ..."). Lists the ten longest functions; exits 1
naming each long one without that comment.
"""
import os
import re
import subprocess
import sys


def functions(path):
    """(length, name, first line) of each top-level function of a C file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    found, start, name = [], None, None
    for i, line in enumerate(lines):
        if start is None and re.match(r"^[A-Za-z_][^;=]*\(", line) and not line.startswith(
            ("typedef", "struct", "enum", "static const", "const ")
        ):
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                m = re.search(r"(\w+)\s*\(", line)
                if m:
                    start, name = i, m.group(1)
        elif start is not None and line.startswith("}"):
            found.append((i - start + 1, name, start, lines))
            start = None
    return found


def main(argv):
    limit = int(argv[1]) if len(argv) > 1 else 150
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = subprocess.run(["git", "ls-files", "*.c"], cwd=top, check=True,
                           capture_output=True, text=True).stdout.split()
    rows, bad = [], []
    for f in files:
        if f.startswith("tests/"):
            continue
        for length, name, start, lines in functions(os.path.join(top, f)):
            rows.append((length, f, name))
            if length >= limit:
                above = "\n".join(lines[max(0, start - 12):start])
                if "though long" not in above:
                    bad.append(f"{f}:{start + 1}: {name} is {length} lines")
    rows.sort(reverse=True)
    print(f"check-long-functions: {sum(1 for r in rows if r[0] >= limit)} functions of "
          f"{limit} lines or more; the ten longest:")
    for length, f, name in rows[:10]:
        print(f"  {length:4d}  {f}: {name}")
    for b in bad:
        print(f"check-long-functions: {b}, with no comment saying why it is one function",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
