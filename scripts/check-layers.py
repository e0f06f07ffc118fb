#!/usr/bin/env python3
"""check-layers.py OBJECT_DIR [--edges]

The library's files must call each other without a loop: a file never
calls a file that calls it back, directly or through others. Reads every
object file under OBJECT_DIR (the spherecollide_objects target's folder)
with nm, draws an edge from the file that uses a symbol to the file that
defines it (calls, and addresses of functions and tables taken), and fails
with the files and symbols of each loop. The library's headers (src/,
kernels/, include/ beside this script) must include each other without a
loop too. And the folders are layers (ORDER): a file never calls a file
in a folder after its own, so the core (src/core) knows no query
(src/queries, the front ends above it) and the kernels call nothing in src/.
--edges prints both graphs.
"""
import collections
import os
import re
import subprocess
import sys


def read_objects(root):
    defs, uses = {}, collections.defaultdict(set)
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            path = os.path.join(folder, f)
            name = os.path.relpath(path, root)
            name = name[: -len(".o")]
            out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                part = line.split()
                if len(part) == 3 and part[1] in "TDBRVWG":
                    defs[part[2]] = name
                elif len(part) == 2 and part[0] == "U":
                    uses[name].add(part[1])
            uses.setdefault(name, set())
    graph = {f: collections.defaultdict(set) for f in uses}
    for f, symbols in uses.items():
        for s in symbols:
            t = defs.get(s)
            if t is not None and t != f:
                graph[f][t].add(s)
    return graph


def read_headers(top):
    """Edges header -> header from #include "..." lines, resolved in the
    including header's folder, then the library's include folders (as
    CMakeLists.txt's SC_PRIVATE_INCLUDES and include/)."""
    dirs = [os.path.join(top, d) for d in
            ("src", "src/core", "src/platform", "src/stages", "src/queries", "kernels", "include")]
    headers = []
    for d in (os.path.join(top, "src"), os.path.join(top, "kernels"), os.path.join(top, "include")):
        for folder, _, files in os.walk(d):
            headers += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".h")]
    graph = {os.path.relpath(h, top): collections.defaultdict(set) for h in headers}
    for h in headers:
        with open(h, encoding="utf-8") as f:
            for line in f:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                for d in [os.path.dirname(h)] + dirs:
                    t = os.path.normpath(os.path.join(d, m.group(1)))
                    if os.path.exists(t):
                        graph[os.path.relpath(h, top)][os.path.relpath(t, top)].add("#include")
                        break
    return graph


# The folders in layer order (docs/design.md, "Where things are"): a file
# calls files of its own folder and of the folders before it only.
ORDER = ["kernels/", "src/platform/", "src/stages/", "src/algo/", "src/core/", "src/queries/"]


def layer(f):
    for k, d in enumerate(ORDER):
        if f.startswith(d):
            return k
    return len(ORDER)


def crossings(graph):
    bad = []
    for f in sorted(graph):
        for t in sorted(graph[f]):
            if layer(t) > layer(f):
                bad.append((f, t, graph[f][t]))
    return bad


def loops(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv):
    if len(argv) < 2 or not os.path.isdir(argv[1]):
        print("usage: check-layers.py OBJECT_DIR [--edges]", file=sys.stderr)
        return 2
    graph = read_objects(argv[1])
    if not graph:
        print(f"check-layers: no object files under {argv[1]}", file=sys.stderr)
        return 2
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    headers = read_headers(top)
    bad = 0
    for what, g in (("call", graph), ("include", headers)):
        if "--edges" in argv[2:]:
            for f in sorted(g):
                for t in sorted(g[f]):
                    print(f"{f} -> {t}: {' '.join(sorted(g[f][t]))}")
        found = loops(g)
        for comp in found:
            print(f"check-layers: these files {what} each other in a loop:", file=sys.stderr)
            members = set(comp)
            for f in comp:
                for t in sorted(g[f]):
                    if t in members:
                        print(f"  {f} -> {t}: {' '.join(sorted(g[f][t]))}", file=sys.stderr)
        bad += len(found)
        nedges = sum(len(t) for t in g.values())
        print(f"check-layers: {len(g)} files, {nedges} {what} edges, {len(found)} loops")
    for f, t, symbols in crossings(graph):
        print(f"check-layers: {f} calls {t} above it: {' '.join(sorted(symbols))}", file=sys.stderr)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
