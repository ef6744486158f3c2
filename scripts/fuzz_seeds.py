#!/usr/bin/env python3
"""Picks a fuzz target's seeds: at most LIMIT inputs, one by one, each the input that adds the most edges to those
picked before (a greedy set cover), from libFuzzer's merge control file (-merge=1 -merge_control_file=FILE: the
inputs, then for each one a line "COV <index> <edge>..."). Prints the picked inputs' paths, and on stderr the edges
they reach of all the inputs reach.

  scripts/fuzz_seeds.py CONTROL_FILE LIMIT
"""

import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/fuzz_seeds.py CONTROL_FILE LIMIT")
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    limit = int(sys.argv[2])
    count = int(lines[0])
    inputs = lines[2:2 + count]  # lines[1] is how many of them the first pass took
    edges = {}
    for line in lines[2 + count:]:
        if line.startswith("COV "):
            index, *covered = line.split()[1:]
            edges[int(index)] = set(map(int, covered))
    reached = set().union(*edges.values()) if edges else set()
    picked, covered = [], set()
    while edges and len(picked) < limit:
        # Ties go to the earlier input: libFuzzer lists the smaller first.
        best = max(edges, key=lambda i: (len(edges[i] - covered), -i))
        if not edges[best] - covered:
            break
        picked.append(best)
        covered |= edges.pop(best)
    for index in picked:
        print(inputs[index])
    print(f"{len(picked)} of {count} inputs reach {len(covered)} of their {len(reached)} edges", file=sys.stderr)


if __name__ == "__main__":
    main()
