#!/usr/bin/env python3
"""Circles between files: the call graph of the C objects, the #include graph of the C
sources, the import graph of the Python packages. A circle is a strongly connected
component of two or more files; each is printed with the edges that make it.

    python3 tests/cli/no_cycles.py ROOT BUILD

ROOT: the tree (ext/**/*.[ch], ingest/*.[ch], python/<package>/*.py); BUILD: the build
folder (BUILD/core/ext/**/*.o, BUILD/ingest/*.o, as the Makefile makes them).
Exit 0: no circle; 1: circles (listed); 77: nothing to check the calls with (no
objects, or no nm).

Requirements (tests cite them as NC-n):
  NC-1  Calls: for each object whose source still exists, nm's defined symbols (T, D, B,
        R, C, V, W) and undefined ones (U, and weak w, v); file A calls file B when A
        uses a symbol that B defines (a function, or data such as a registration table).
  NC-2  Includes: each `#include "x.h"` line of a .c or .h file, resolved as the
        compiler does with -Iingest -Iext: beside the file, then ingest/, then ext/;
        generated headers (version.h, schema_sql.h) are not files of the tree.
  NC-3  Imports: `from . import m`, `from .m import x`, `import pkg.m`, `from pkg.m
        import x` inside python/<pkg>/, at any depth of the module (imports inside
        functions count: they still tie the two files).
  NC-4  Each circle: "<kind> circle: a, b, c", one line "a -> b: why" per edge inside
        it (the symbols, or the include or import line), and one cycle through it.
"""

import ast
import collections
import os
import re
import shutil
import subprocess
import sys


def scc(graph):
    """Tarjan's strongly connected components of GRAPH {node: set(nodes)}, iteratively."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def one_cycle(graph, comp):
    """A shortest cycle through the first file of COMP, inside COMP (BFS)."""
    start, inside = comp[0], set(comp)
    prev, queue = {start: None}, collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def report(kind, graph, why):
    """Prints each circle of GRAPH (NC-4); returns how many there are."""
    n = 0
    for comp in scc(graph):
        if len(comp) < 2:
            continue
        n += 1
        print("%s circle between %d files: %s" % (kind, len(comp), ", ".join(comp)))
        for a in comp:
            for b in sorted(graph.get(a, ())):
                if b in comp:
                    print("    %s -> %s: %s" % (a, b, why(a, b)))
        print("    for example: %s" % " -> ".join(one_cycle(graph, comp)))
    return n


def call_graph(root, build):
    """NC-1. None when there is nothing to read (no objects)."""
    objs = []
    for top, src_top in ((os.path.join(build, "core", "ext"), "ext"), (os.path.join(build, "ingest"), "ingest")):
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(".o"):
                    o = os.path.join(d, f)
                    src = os.path.join(src_top, os.path.relpath(o, top))[:-2] + ".c"
                    if os.path.exists(os.path.join(root, src)):  # a stale object is not a file of the tree
                        objs.append((o, src))
    if not objs:
        return None
    defs, uses = {}, collections.defaultdict(set)
    for o, src in sorted(objs):
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRCVW":
                defs.setdefault(p[2], src)
            elif len(p) == 2 and p[0] in "Uwv":  # undefined, or weak undefined
                uses[src].add(p[1])
    graph, syms = collections.defaultdict(set), collections.defaultdict(list)
    for a, us in uses.items():
        for s in sorted(us):
            b = defs.get(s)
            if b and b != a:
                graph[a].add(b)
                syms[(a, b)].append(s)
    return graph, lambda a, b: ", ".join(syms[(a, b)][:8]) + (" ..." if len(syms[(a, b)]) > 8 else "")


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def include_graph(root):
    """NC-2."""
    files = []
    for top in ("ext", "ingest"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(d, f), root) for f in names if f.endswith((".c", ".h"))]
    graph, lines = collections.defaultdict(set), {}
    for f in sorted(files):
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for lno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                for base in (os.path.dirname(f), "ingest", "ext"):
                    target = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.isfile(os.path.join(root, target)):
                        if target != f:
                            graph[f].add(target)
                            lines.setdefault((f, target), "line %d: %s" % (lno, line.strip()))
                        break
    return graph, lambda a, b: lines[(a, b)]


def import_graph(root):
    """NC-3, over every package python/<pkg>/."""
    graph, lines = collections.defaultdict(set), {}
    pyroot = os.path.join(root, "python")
    pkgs = sorted(p for p in os.listdir(pyroot) if os.path.isfile(os.path.join(pyroot, p, "__init__.py"))) \
        if os.path.isdir(pyroot) else []
    for pkg in pkgs:
        d = os.path.join(pyroot, pkg)
        mods = {f[:-3] for f in os.listdir(d) if f.endswith(".py")}
        for m in sorted(mods):
            path = "python/%s/%s.py" % (pkg, m)
            with open(os.path.join(root, path), encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            for node in ast.walk(tree):
                targets = []
                if isinstance(node, ast.ImportFrom):
                    mod = node.module or ""
                    if node.level == 1:  # from . import x, from .m import x
                        sub = mod
                    elif node.level == 0 and (mod == pkg or mod.startswith(pkg + ".")):
                        sub = mod[len(pkg) + 1:]  # from pkg import x, from pkg.m import x
                    else:
                        continue
                    if sub:
                        targets.append(sub.split(".")[0])
                    else:  # a module of the package, else a name of its __init__
                        targets += [a.name if a.name in mods else "__init__" for a in node.names]
                elif isinstance(node, ast.Import):  # import pkg.m
                    targets += [a.name.split(".")[1] for a in node.names if a.name.startswith(pkg + ".")]
                for t in targets:
                    if t in mods and t != m:
                        tp = "python/%s/%s.py" % (pkg, t)
                        graph[path].add(tp)
                        lines.setdefault((path, tp), "line %d" % node.lineno)
    return graph, lambda a, b: lines[(a, b)]


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root, build = sys.argv[1], sys.argv[2]
    if not shutil.which("nm"):
        print("skip: nm is not installed")
        return 77
    calls = call_graph(root, build)
    if calls is None:
        print("skip: no objects under %s/core/ext or %s/ingest (run make first)" % (build, build))
        return 77
    n = report("call", *calls)
    n += report("include", *include_graph(root))
    n += report("import", *import_graph(root))
    print("%d circle%s" % (n, "" if n == 1 else "s"))
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
