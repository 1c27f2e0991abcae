#!/usr/bin/env bash
# Skew: 200,000 copies of one boilerplate document among 100,000 distinct generated ones
# (--dup-fraction 0), interleaved 2:1. Runs dedup at the defaults and with --memory
# $MEMORY, and reports wall time, CPU-seconds, peak RSS, the largest cluster and
# cluster-size histogram from stats.json, and the giant-cluster warning. Then the family
# corpus (bench/family.sh: $FAMILY near-copies of one text, one bucket per band), the
# same two ways.
# Usage (repo root): bench/skew.sh    COPIES=200000 DISTINCT=100000 FAMILY=200000
# MEMORY=1GB by default. Prints markdown rows.
cd "$(dirname "$0")/.."
. bench/lib.sh
COPIES=${COPIES:-200000}
DISTINCT=${DISTINCT:-100000}
FAMILY=${FAMILY:-200000}
MEMORY=${MEMORY:-1GB}
c="$OUT/skew-$DISTINCT-$COPIES.jsonl"
if [ ! -s "$c" ]; then
	"$ND" gen --n "$DISTINCT" --seed 7 --dup-fraction 0 --output "$OUT/skew-distinct.jsonl" >&2
	"$ND" gen --n 1 --seed 8 --output "$OUT/skew-boiler.jsonl" >&2
	python3 - "$OUT/skew-distinct.jsonl" "$OUT/skew-boiler.jsonl" "$c" "$COPIES" <<'PY'
import json, sys
distinct, boiler, out, copies = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text = json.loads(open(boiler).readline())["text"]
with open(distinct) as d, open(out, "w") as o:
    line = d.readline()  # streamed: the distinct part may be gigabytes
    i = j = 0
    while line or j < copies:
        if line and (j >= copies or (i + j) % 3 == 0):
            o.write(line); i += 1; line = d.readline()
        else:
            o.write(json.dumps({"id": "boiler-%07d" % j, "text": text}) + "\n"); j += 1
PY
fi
n=$(wc -l <"$c")
out="$OUT/skew"
env_header
echo
echo "| docs | wall s | CPU s | docs/s | peak RSS MiB | clusters | largest_cluster | cluster_sizes | clusters ≥ 1000 (boilerplate members) | warning | command |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|"
for flags in "" "--memory $MEMORY"; do
	# shellcheck disable=SC2206
	cmd=("$ND" dedup --quiet --input "$c" --output "$out" --overwrite $flags)
	fresh "$out"
	timedcpu "$out.log" "${cmd[@]}"
	big=$(jq -c 'select(.size >= 1000) | {size, boiler: ([.members[] | select(startswith("boiler-"))] | length)}' "$out/clusters.jsonl")
	jq -r --arg n "$n" --arg w "$WALL" --arg cpu "$CPU" --arg rss "$RSS" --arg big "$big" \
		--arg warn "$(grep -i 'giant\|warn' "$out.log" | grep -v level=INFO | head -3 | tr '\n' ' ')" \
		--arg cmd "${cmd[*]/#$ND/neardup}" '
		"| \($n) | \($w) | \($cpu) | \(($n|tonumber)/($w|tonumber)|round) | \(($rss|tonumber)/1024|round) | \(.counts.clusters) | \(.largest_cluster) | `\(.cluster_sizes|tojson)` | `\($big)` | \($warn) | `\($cmd)` |"' \
		"$out/stats.json"
done
echo
echo "stats.json warnings: $(jq -c .warnings "$out/stats.json")"
echo
COPIES=$FAMILY MEMORY=$MEMORY bench/family.sh
