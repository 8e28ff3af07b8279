#!/usr/bin/env python3
"""The folder graph of src/, derived from #include lines; fails on a cycle.

Each folder under src/ is a module. A file in folder A that includes
"B/x.h" makes A depend on B. The graph must be acyclic, so each folder
can be built as a library on top of the ones it depends on.

With --declared NAME=DEP,DEP ... (what each folder's meson.build
declares), it also fails when a folder includes from one it does not
declare, or is not declared at all: the build links only the declared
libraries, in an order that cannot hold a cycle.

Usage: tests/modgraph.py [SRC_DIR] [--declared NAME=DEPS ...]
       (prints the graph; exit 1 on a cycle or an undeclared dependency)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def folder_graph(src):
    graph = {}
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        deps = graph.setdefault(folder, {})
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith(('.c', '.h')):
                    continue
                f = os.path.join(root, name)
                with open(f, encoding='utf-8', errors='replace') as fh:
                    for dep in INCLUDE.findall(fh.read()):
                        if dep != folder and os.path.isdir(
                                os.path.join(src, dep)):
                            deps.setdefault(dep, os.path.relpath(f, src))
    return graph


def cycles(graph):
    """Every strongly connected component of more than one folder."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
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
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def undeclared(graph, declared):
    """Messages for every include edge the declarations do not allow."""
    out = []
    for folder, deps in graph.items():
        if folder not in declared:
            out.append(f'{folder}: not declared in any meson.build')
            continue
        for dep, first in sorted(deps.items()):
            if dep not in declared[folder]:
                out.append(f'{folder} -> {dep} (first: {first}) is not '
                           f'among its declared dependencies; add it to '
                           f'src/{folder}/meson.build if {dep} does not '
                           f'depend on {folder}')
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    declared = None
    if '--declared' in args:
        i = args.index('--declared')
        declared = {}
        for item in args[i + 1:]:
            name, _, deps = item.partition('=')
            declared[name] = set(d for d in deps.split(',') if d)
        args = args[:i]
    src = args[0] if args else os.path.join(here, '..', 'src')
    graph = folder_graph(src)
    for folder, deps in graph.items():
        print(f'{folder} -> {" ".join(sorted(deps)) or "(none)"}',
              flush=True)
    found = cycles(graph)
    for comp in found:
        members = set(comp)
        print(f'cycle: {" <-> ".join(comp)}', file=sys.stderr)
        for a in comp:
            for b, first in sorted(graph[a].items()):
                if b in members:
                    print(f'  {a} -> {b} (first: {first})', file=sys.stderr)
    bad = undeclared(graph, declared) if declared is not None else []
    for msg in bad:
        print(msg, file=sys.stderr)
    return 1 if found or bad else 0


if __name__ == '__main__':
    sys.exit(main())
