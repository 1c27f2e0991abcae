#!/usr/bin/env bash
# Cost of candidate generation, before/after: runs two neardup binaries (BEFORE, AFTER)
# interleaved, RUNS times each, on the 100k generated corpus, the skew corpus of
# bench/skew.sh (200,000 exact copies of one page among 100,000 documents) and a
# near-copy variant (each copy gets one unique word appended, so the copies are distinct
# sets that share one huge bucket per band). Prints one markdown row per run: LSH
# candidates (bucket_edges), comparisons (candidate_pairs), verified pairs, large buckets
# and their comparisons, unresolved pairs, removed, wall and CPU seconds, peak RSS.
# Usage (repo root): BEFORE=/tmp/nd-old AFTER=/tmp/nd bench/candidates.sh
# LARGE=1 adds the 1M generated corpus.
cd "$(dirname "$0")/.."
. bench/lib.sh
BEFORE=${BEFORE:?path of the baseline neardup binary}
AFTER=${AFTER:-$ND}
RUNS=${RUNS:-1}
c100=$(corpus 100000)
skew="$OUT/skew-100000-200000.jsonl"
[ -s "$skew" ] || COPIES=200000 DISTINCT=100000 bench/skew.sh >/dev/null
near="$OUT/skew-near-100000-200000.jsonl"
[ -s "$near" ] || python3 - "$skew" "$near" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        d = json.loads(line)
        if d["id"].startswith("boiler-"):
            d["text"] += " uniq" + d["id"][7:]
            line = json.dumps(d) + "\n"
        o.write(line)
PY
env_header
echo
echo "| corpus | binary | bucket_edges | candidate_pairs | verified_pairs | large_buckets | large_bucket_comparisons | unresolved | removed | wall s | CPU s | peak RSS MiB |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for run in $(seq "$RUNS"); do
	names="100k skew skew-near"
	[ -z "$LARGE" ] || names="$names 1m"
	for name in $names; do
		case $name in 100k) c=$c100 ;; 1m) c=$(corpus 1000000) ;; skew) c=$skew ;; skew-near) c=$near ;; esac
		for bin in BEFORE AFTER; do
			out="$OUT/cand-$name-$bin"
			fresh "$out"
			/usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "${!bin}" dedup --quiet --input "$c" --output "$out" --overwrite >"$out.log" 2>&1
			read -r wall user sys rss <"$OUT/.time"
			jq -r --arg c "$name" --arg b "$bin" --arg w "$wall" --arg cpu "$(echo "$user + $sys" | bc)" --arg rss "$rss" '
				"| \($c) | \($b) | \(.counts.bucket_edges) | \(.counts.candidate_pairs) | \(.counts.verified_pairs) | \(.counts.large_buckets // .counts.star_buckets // "–") | \(.counts.large_bucket_comparisons // "–") | \(.counts.unresolved_bucket_pairs // "–") | \(.counts.removed) | \($w) | \($cpu) | \(($rss|tonumber)/1024|round) |"' "$out/stats.json"
		done
	done
done
