#!/usr/bin/env bash
# Family: COPIES near-copies of one 200-word text (vocabulary of 5,000 words, two random
# positions replaced in each copy): every LSH band holds one bucket of nearly all of them,
# the shape of a template farm or a mirror site. Runs dedup at the defaults and with
# --memory $MEMORY, and reports wall, CPU-seconds and peak RSS.
# Usage (repo root): bench/family.sh    COPIES=200000 MEMORY=1GB by default.
cd "$(dirname "$0")/.."
. bench/lib.sh
COPIES=${COPIES:-200000}
MEMORY=${MEMORY:-1GB}
c="$OUT/family-$COPIES.jsonl"
if [ ! -s "$c" ]; then
	python3 - "$c" "$COPIES" <<'PY'
import json, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
vocab = ["w%d" % i for i in range(5000)]
base = [rng.choice(vocab) for _ in range(200)]
with open(out, "w") as o:
    for i in range(n):
        t = list(base)
        for _ in range(2):
            t[rng.randrange(200)] = rng.choice(vocab)
        o.write(json.dumps({"id": "f%07d" % i, "text": " ".join(t)}) + "\n")
PY
fi
out="$OUT/family"
env_header
echo
echo "| docs | flags | wall s | CPU s | peak RSS MiB | clusters | large_buckets | large_bucket_comparisons |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for flags in "" "--memory $MEMORY"; do
	fresh "$out"
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "$ND" dedup --quiet --input "$c" --output "$out" $flags >"$out.log" 2>&1
	read -r wall user sys rss <"$OUT/.time"
	jq -r --arg n "$COPIES" --arg f "${flags:-(defaults)}" --arg w "$wall" --arg cpu "$(echo "$user + $sys" | bc)" --arg rss "$rss" '
		"| \($n) | \($f) | \($w) | \($cpu) | \(($rss|tonumber)/1024|round) | \(.counts.clusters) | \(.counts.large_buckets) | \(.counts.large_bucket_comparisons) |"' \
		"$out/stats.json"
done
