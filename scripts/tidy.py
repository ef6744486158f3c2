#!/usr/bin/env python3
"""clang-tidy over src/, each file checked once per input.

clang-tidy's verdict on a file depends only on what the compiler reads (the file and every header it includes, after
the preprocessor, with the build's flags), on the checks (.clang-tidy) and on clang-tidy itself. Each file found clean
is recorded under a hash of all of that; a file whose inputs hash to a recorded value is not checked again, anywhere:
its inputs are the same bytes. The preprocessor takes about a twentieth of clang-tidy's time (clang-tidy walks the
whole precompiled header's AST for every file: 4 s for a 60-line file).

Two records: scripts/tidy-clean.txt, committed, which a check only reads (the tests run while lint does, and a source
tree written under them is a build that names a dirty commit), and BUILD_DIR/tidy-clean.txt, where a check records
what it found clean. A maintainer carries the build's record into the committed one in a commit of its own (--commit),
so its hashes stay out of feature commits.

  scripts/tidy.py BUILD_DIR FILE...   check; exits 1 on findings (printed), records the files found clean in BUILD_DIR
  scripts/tidy.py --commit BUILD_DIR  writes scripts/tidy-clean.txt: the committed record and the build's, for the
                                      files that exist
"""

import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMITTED_RECORD = ROOT / "scripts" / "tidy-clean.txt"
RECORD_NAME = "tidy-clean.txt"
# The build's GCC-only warning flags (the sanitizer build turns one off) mean nothing to clang: not a finding.
EXTRA_ARGS = ["-extra-arg=-Wno-unknown-warning-option"]


def compile_commands(build):
    """Each source's compile command. A unity build (CMAKE_UNITY_BUILD, as scripts/test.sh builds) lists only the
    files that include its sources; each source gets that file's command with itself in its place: the same flags,
    so the same command and hash as a build without unity files, and clang-tidy sees each file on its own."""
    commands = {}
    with open(build / "compile_commands.json", encoding="utf-8") as f:
        for entry in json.load(f):
            unity = Path(entry["file"])
            if unity.parent.name != "Unity":
                commands[str(unity.resolve())] = entry
                continue
            for line in unity.read_text(encoding="utf-8").splitlines():
                if line.startswith('#include "'):
                    source = line[len('#include "'):-1]
                    command = entry["command"].replace(str(unity), source)
                    commands[str(Path(source).resolve())] = dict(entry, file=source, command=command)
    return commands


def preprocessor_command(entry):
    """The file's compile command, printing what the compiler reads instead of compiling: the precompiled header is
    read as the headers it was made from (their text, not the binary, which holds the build's paths)."""
    words = shlex.split(entry["command"])
    out = []
    skip = 0
    for i, word in enumerate(words):
        if skip:
            skip -= 1
            continue
        if word == "-Xclang" and i + 1 < len(words) and words[i + 1] == "-include-pch":
            skip = 3  # -Xclang -include-pch -Xclang FILE
            continue
        if word == "-Xclang" and i + 1 < len(words) and words[i + 1] == "-include":
            out += ["-include", words[i + 3]]
            skip = 3
            continue
        if word == "-o":
            skip = 1
            continue
        if word == "-c":
            continue
        out.append(word)
    return out + ["-E"]


def input_hash(entry, build, tool):
    """The hash of everything clang-tidy's verdict on the file depends on, the same in any checkout and build folder.
    The flags count beside the text: the compiler's own warnings are findings too."""
    command = preprocessor_command(entry)
    result = subprocess.run(command, cwd=entry["directory"], capture_output=True, check=False)
    if result.returncode != 0:
        return None  # clang-tidy will say why

    def placed(text):
        return text.replace(str(build).encode(), b"@BUILD@").replace(str(ROOT).encode(), b"@ROOT@")

    digest = hashlib.sha256()
    for part in (tool, (ROOT / ".clang-tidy").read_bytes(), " ".join(EXTRA_ARGS + command).encode(), result.stdout):
        part = placed(part)
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def tidy(path, database):
    result = subprocess.run(["clang-tidy", "-quiet", "-p", str(database), *EXTRA_ARGS, path], capture_output=True,
                            text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def read_record(path):
    """One line a file: the hash of its inputs when it was found clean, and its path from the root. Files since
    removed are left out."""
    recorded = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            digest, _, name = line.partition(" ")
            if (ROOT / name).exists():
                recorded[name] = digest
    return recorded


def write_record(path, recorded):
    path.write_text("".join(f"{digest} {name}\n" for name, digest in sorted(recorded.items())), encoding="utf-8")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--commit":
        recorded = read_record(COMMITTED_RECORD) | read_record(Path(sys.argv[2]).resolve() / RECORD_NAME)
        write_record(COMMITTED_RECORD, recorded)
        print(f"tidy: {len(recorded)} files recorded clean in {COMMITTED_RECORD.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if len(sys.argv) < 3:
        sys.exit("usage: scripts/tidy.py BUILD_DIR FILE... | scripts/tidy.py --commit BUILD_DIR")
    build = Path(sys.argv[1]).resolve()
    files = [str(Path(f).resolve()) for f in sys.argv[2:]]
    commands = compile_commands(build)
    missing = [f for f in files if f not in commands]
    if missing:
        sys.exit("tidy: not in compile_commands.json (configure the build again): " + " ".join(missing))
    tool = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
    build_record = build / RECORD_NAME
    recorded = read_record(build_record)
    committed = read_record(COMMITTED_RECORD)
    relative = {f: str(Path(f).relative_to(ROOT)) for f in files}
    jobs = os.cpu_count() or 2

    with ThreadPoolExecutor(jobs) as pool:
        hashes = dict(zip(files, pool.map(lambda f: input_hash(commands[f], build, tool), files)))
    to_check = [f for f in files
                if hashes[f] is None or hashes[f] not in (recorded.get(relative[f]), committed.get(relative[f]))]
    print(f"tidy: {len(files) - len(to_check)} of {len(files)} files recorded clean with these inputs; "
          f"checking {len(to_check)}", file=sys.stderr)

    failed = False
    with tempfile.TemporaryDirectory() as database, ThreadPoolExecutor(jobs) as pool:
        # The commands as read above, one a file (clang-tidy would guess a unity build's from a neighbour's).
        (Path(database) / "compile_commands.json").write_text(json.dumps(list(commands.values())), encoding="utf-8")
        for path, (status, output) in zip(to_check, pool.map(lambda f: tidy(f, database), to_check)):
            findings = [line for line in output.splitlines() if "warning:" in line or "error:" in line]
            if status != 0 or findings:
                failed = True
                recorded.pop(relative[path], None)
                print("\n".join(findings) or output, file=sys.stderr)
            elif hashes[path] is not None and input_hash(commands[path], build, tool) == hashes[path]:
                # (asked again: a file or header edited while clang-tidy ran was checked at other inputs)
                recorded[relative[path]] = hashes[path]

    write_record(build_record, recorded)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
