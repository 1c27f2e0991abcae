#!/usr/bin/env bash
# Real source code as a JSONL corpus: every .go file under ROOT (default the Go module
# cache, ~/go/pkg/mod; ROOT=$(go env GOROOT)/src for the standard library), id = the path
# under ROOT, text = the file's content, in path order; files that are not UTF-8 are
# left out. Licence headers and package clauses make thousands of such files share their
# first shingles: the hard case of --measure containment. Prints the corpus's path.
# Usage (repo root): CORPUS=$(bench/gocode.sh) RUNS=1 bench/containment.sh
cd "$(dirname "$0")/.."
. bench/lib.sh
ROOT=${ROOT:-$(go env GOMODCACHE)}
f="$OUT/corpus-gocode-$(echo "$ROOT" | md5sum | cut -c1-8).jsonl"
[ -s "$f" ] || python3 - "$ROOT" "$f" <<'PY'
import json, os, sys
root, out = sys.argv[1], sys.argv[2]
paths = []
for d, _, files in os.walk(root):
    paths += [os.path.join(d, f) for f in files if f.endswith(".go")]
paths.sort()
with open(out + ".tmp", "w") as o:
    for p in paths:
        try:
            text = open(p, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        o.write(json.dumps({"id": os.path.relpath(p, root), "text": text}) + "\n")
os.rename(out + ".tmp", out)
PY
echo "$f"
