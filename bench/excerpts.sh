#!/usr/bin/env bash
# Real text with planted partial copies, for bench/containment.sh: the first FILES Go
# source files of GOROOT/src by path (ids are the paths), plus EXCERPTS excerpts, each a
# run of 30-90% of the lines of a random file, verbatim, between lines of another random
# file amounting to up to as many lines again (ids excerpt-N). Seeded: the same corpus on
# every run of the same Go tree. Prints the corpus's path.
# Usage (repo root): CORPUS=$(bench/excerpts.sh) RUNS=1 bench/containment.sh
cd "$(dirname "$0")/.."
. bench/lib.sh
FILES=${FILES:-6000}
EXCERPTS=${EXCERPTS:-600}
f="$OUT/corpus-goexcerpts-$FILES-$EXCERPTS.jsonl"
[ -s "$f" ] || python3 - "$(go env GOROOT)/src" "$f" "$FILES" "$EXCERPTS" <<'PY'
import json, os, random, sys
root, out, nfiles, nexc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
paths = []
for d, _, files in os.walk(root):
    paths += [os.path.join(d, f) for f in files if f.endswith(".go")]
paths.sort()
docs = []
for p in paths:
    if len(docs) == nfiles:
        break
    try:
        text = open(p, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    docs.append((os.path.relpath(p, root), text))
rng = random.Random(1)
with open(out, "w") as o:
    for id, text in docs:
        o.write(json.dumps({"id": id, "text": text}) + "\n")
    for i in range(nexc):
        src = rng.choice(docs)[1].split("\n")
        wrap = rng.choice(docs)[1].split("\n")
        n = max(1, int(len(src) * rng.uniform(0.3, 0.9)))
        start = rng.randrange(len(src) - n + 1)
        w = min(len(wrap), int(n * rng.random()))
        ws = rng.randrange(len(wrap) - w + 1)
        before = rng.randrange(w + 1)
        lines = wrap[ws:ws + before] + src[start:start + n] + wrap[ws + before:ws + w]
        o.write(json.dumps({"id": "excerpt-%04d" % i, "text": "\n".join(lines)}) + "\n")
PY
echo "$f"
