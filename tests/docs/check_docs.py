#!/usr/bin/env python3
"""check_docs.py ROOT: the documentation's examples against the tool as it is.

Run by ctest (docs.examples) with SC_CLI naming the built command. It checks:

- every ```console block of README.md and docs/**/*.md: each `$ COMMAND`
  (and each `== COMMAND` line that scripts/build-and-run.sh prints) runs,
  with build/tools/spherecollide mapped to SC_CLI and build/ to a scratch
  folder, exits 0, and prints what the block shows, line for line by label
  (a report's first word, a line's words before its first ':', a JSON
  line's keys; numbers, which vary, are not compared); `bash ...` commands
  are not run (their printed commands are);
- every ```json block in docs/ whose first key is "command": its keys are
  the ones that command prints with --json on a small input, and the
  neighbors line of docs/cli.md likewise;
- no markdown link leaves the repository, and every relative link's file
  exists.

Prints `N passed, N failed` and exits non-zero on a failure.
"""
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

root = pathlib.Path(sys.argv[1]).resolve()
cli = os.environ["SC_CLI"]
work = pathlib.Path(tempfile.mkdtemp(prefix="sc-docs-"))
docs = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)


def mapped(cmd):
    cmd = cmd.replace("build/tools/spherecollide", "\0CLI\0").replace("build/", f"{work}/")
    return cmd.replace("\0CLI\0", shlex.quote(cli))


def run(cmd):
    return subprocess.run(mapped(cmd), shell=True, capture_output=True, text=True, cwd=root,
                          env=dict(os.environ, LC_ALL="C"))


def json_keys(obj, prefix=""):
    keys = set()
    for k, v in obj.items():
        keys.add(prefix + k)
        if isinstance(v, dict):
            keys |= json_keys(v, prefix + k + ".")
    return keys


def label(line):
    """What a line of output must keep: its label, not its values."""
    s = line.strip()
    if s.startswith("{"):
        try:
            return ("json", frozenset(json_keys(json.loads(s))))
        except ValueError:
            return ("text", s)
    if not s or re.match(r"[-+0-9.]", s):
        return ("value",)
    m = re.match(r"([A-Za-z][\w ]*?):\s", s)  # "cpu features: ...", info's lines
    return ("label", m.group(1) if m else s.split()[0])


def compare(shown, got, what):
    want = [label(l) for l in shown if l.strip()]
    have = [label(l) for l in got.splitlines() if l.strip()]
    if want == have:
        check(True, what)
        return
    # name the first difference
    for k, (a, b) in enumerate(zip(want, have)):
        if a != b:
            extra = ""
            if a[0] == b[0] == "json":
                extra = f": keys shown but not printed {sorted(a[1] - b[1])}, printed but not shown {sorted(b[1] - a[1])}"
            check(False, f"{what}: line {k + 1} shows {a[:2] if a[0] != 'json' else 'a JSON line'}, the tool prints {b[:2] if b[0] != 'json' else 'a JSON line'}{extra}")
            return
    check(False, f"{what}: {len(want)} lines shown, {len(have)} printed")


def console_blocks(path):
    text = path.read_text()
    for m in re.finditer(r"```console\n(.*?)```", text, re.S):
        line0 = text[: m.start()].count("\n") + 2
        yield line0, m.group(1).splitlines()


for doc in docs:
    rel = doc.relative_to(root)
    for line0, lines in console_blocks(doc):
        k = 0
        while k < len(lines):
            line = lines[k]
            cmd = None
            if line.startswith("$ "):
                cmd = line[2:]
            elif line.startswith("== build/"):
                cmd = line[3:]
            if cmd is None:
                k += 1
                continue
            out = []
            j = k + 1
            while j < len(lines) and not lines[j].startswith(("$ ", "== ")):
                out.append(lines[j])
                j += 1
            where = f"{rel}:{line0 + k}: {cmd}"
            if cmd.startswith("bash "):
                k += 1  # its printed commands (== lines) are run instead
                continue
            r = run(cmd)
            check(r.returncode == 0, f"{where}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            if r.returncode == 0:
                compare(out, r.stdout, where)
            k = j

# ---- JSON examples in docs/ -----------------------------------------------------
small = work / "two.txt"
small.write_text("0 0 0 1\n1.5 0 0 1\n9 9 9 1\n")
printed = {
    "pairs": json_keys(json.loads(run(f"build/tools/spherecollide pairs {small} --json").stdout)),
    "neighbors": json_keys(json.loads(run(f"build/tools/spherecollide neighbors {small} --json").stdout)),
}
for doc in docs:
    rel = doc.relative_to(root)
    text = doc.read_text()
    for m in re.finditer(r"```json\n(.*?)```", text, re.S):
        body = m.group(1)
        try:
            obj = json.loads(body)
        except ValueError as e:
            check(False, f"{rel}: a json block does not parse: {e}")
            continue
        cmd = obj.get("command")
        if cmd in printed:
            shown = json_keys(obj)
            check(shown == printed[cmd], f"{rel}: the {cmd} --json example: keys shown but not printed {sorted(shown - printed[cmd])}, printed but not shown {sorted(printed[cmd] - shown)}")
    for m in re.finditer(r'`(\{"n":[^`]*)`', text):
        keys = set(re.findall(r'"([a-z_]+)":', m.group(1)))
        nested = {"seconds." + k for k in re.findall(r'"([a-z_]+)":', m.group(1).split('"seconds":', 1)[1])} if '"seconds":' in m.group(1) else set()
        top = set(re.findall(r'"([a-z_]+)":', m.group(1).split('"seconds":', 1)[0])) | ({"seconds"} if nested else set())
        check(top | nested == printed["neighbors"], f"{rel}: the neighbors --json line: shown {sorted(top | nested)}, printed {sorted(printed['neighbors'])}")

# ---- links ---------------------------------------------------------------------
for doc in docs:
    rel = doc.relative_to(root)
    text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
            check(False, f"{rel}: a link leaves the repository: {target}")
            continue
        path = target.split("#", 1)[0]
        if not path:
            continue
        dest = (doc.parent / path).resolve()
        inside = str(dest).startswith(str(root))
        check(inside and dest.exists(), f"{rel}: link {target} {'leaves the repository' if not inside else 'names no file'}")

print(f"docs: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
