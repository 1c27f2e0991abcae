#!/usr/bin/env bash
# Quality of `neardup dedup` against the exact all-pairs join and the planted clusters:
# for 10k and 100k generated docs, threshold 0.7/0.8/0.9 × --num-perm 128/256 (--lsh recall),
# plus --lsh datasketch at 0.8/128, each scored by `neardup eval` with the exact pairs computed
# once per corpus×threshold by `neardup baseline`. Writes bench/out/recall-N-T-P[-ds].svg.
# Usage (repo root): bench/quality.sh    Prints markdown rows. PART=gosrc runs only the
# last part (Go sources of the module cache).
cd "$(dirname "$0")/.."
. bench/lib.sh
NGRAM=${NGRAM:-5}

# row N T P LSH: one dedup run + eval; prints one markdown row.
row() {
	local n=$1 t=$2 p=$3 lsh=$4 c tag out
	c=$(corpus "$n")
	tag="$n-$t-$p"
	[ "$lsh" = recall ] || tag="$tag-$lsh"
	out="$OUT/q-$tag"
	local cmd=("$ND" dedup --quiet --input "$c" --output "$out" --overwrite --threshold "$t" --num-perm "$p" --lsh "$lsh" --ngram "$NGRAM")
	fresh "$out"
	timed "$out.log" "${cmd[@]}"
	"$ND" eval --truth "${c%.jsonl}.truth.jsonl" --result "$out" --exact "$OUT/exact-$n-$t.jsonl" \
		--input "$c" --noise-seeds 1 --bucket-min "$t" --json --svg "$OUT/recall-$tag.svg" >"$out.eval.json"
	jq -r --arg n "$n" --arg p "$p" --arg lsh "$lsh" --arg t "$t" --arg w "$WALL" --arg rss "$RSS" \
		--arg cmd "${cmd[*]/#$ND/neardup}" '
		def f4: . * 10000 | round / 10000 | tostring;
		(.recall_by_similarity | map(select(.lo >= ($t|tonumber) + 0.05 - 1e-9))) as $hi
		| ($hi | map(.found) | add) as $hf | ($hi | map(.pairs) | add) as $hp
		| "| \($n) | \($t) | \($p) | \($lsh) | \(.parameters.bands)×\(.parameters.rows) | \(.exact.pairs) | \(.exact.pair_recall|f4) | \(.vs_exact.precision|f4) | \(.vs_exact.recall|f4) | \(if $hp > 0 then ($hf/$hp|f4) + " (\($hf)/\($hp))" else "–" end) | \(.recall_by_similarity | map(.banded_lost // 0) | add) | \(.vs_truth.ari|f4) | \(.vs_exact.ari|f4) | \(($n|tonumber)/($w|tonumber)|round) | \(($rss|tonumber)/1024|round) | `\($cmd)` |"' \
		"$out.eval.json"
}

env_header
if [ "${PART:-all}" != gosrc ]; then
echo
echo "| docs | threshold | num-perm | --lsh | b×r | exact pairs | exact-pair recall | precision vs exact comps | pair recall vs exact comps | recall at J ≥ t+0.05 | shared a bucket, not co-clustered | ARI vs planted | ARI vs exact comps | docs/s | peak RSS MiB | command |"
echo "|---:|---:|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|"
for n in 10000 100000; do
	c=$(corpus "$n")
	for t in 0.7 0.8 0.9; do
		[ -s "$OUT/exact-$n-$t.jsonl" ] ||
			"$ND" baseline --input "$c" --threshold "$t" --ngram "$NGRAM" --output "$OUT/exact-$n-$t.jsonl" 2>/dev/null
		for p in 128 256; do
			row "$n" "$t" "$p" recall
		done
	done
	row "$n" 0.8 128 datasketch
done
cp "$OUT/recall-100000-0.8-128.svg" bench/recall-vs-scurve.svg
fi


# Real text nobody tuned for: up to 12,000 Go source files of the module cache, sorted by
# path (ids are the paths), each row a dedup run scored against the exact join.
gocorpus() {
	local f="$OUT/corpus-gosrc.jsonl"
	[ -s "$f" ] || python3 - "$(go env GOMODCACHE)" "$f" <<'PY'
import json, os, sys
root, out = sys.argv[1], sys.argv[2]
paths = []
for d, _, files in os.walk(root):
    paths += [os.path.join(d, f) for f in files if f.endswith(".go")]
paths.sort()
with open(out, "w") as o:
    for p in paths[:12000]:
        try:
            text = open(p, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        o.write(json.dumps({"id": os.path.relpath(p, root), "text": text}) + "\n")
PY
	echo "$f"
}
g=$(gocorpus)
n=$(wc -l <"$g")
echo
echo "| corpus | threshold | exact pairs | exact-pair recall | precision | by similarity | unresolved bucket pairs | large buckets |"
echo "|---|---:|---:|---:|---:|---|---:|---:|"
for t in 0.7 0.8 0.9; do
	[ -s "$OUT/exact-gosrc-$t.jsonl" ] ||
		"$ND" baseline --input "$g" --threshold "$t" --ngram "$NGRAM" --output "$OUT/exact-gosrc-$t.jsonl" 2>/dev/null
	out="$OUT/q-gosrc-$t"
	cmd=("$ND" dedup --quiet --input "$g" --output "$out" --overwrite --threshold "$t" --ngram "$NGRAM")
	fresh "$out"
	timed "$out.log" "${cmd[@]}"
	# --noise-seeds: the S-curve's spread over 100 permutation seeds on this corpus (copies
	# and families of versions make pairs fail together), and the pairs that shared an
	# LSH bucket under the run's seed but were not co-clustered (0 unless a large bucket ran out of
	# its --bucket-comparisons budget: then they are among the unresolved bucket pairs).
	"$ND" eval --result "$out" --exact "$OUT/exact-gosrc-$t.jsonl" --input "$g" --noise-seeds 100 \
		--docs "$n" --bucket-min "$t" --json --svg "$OUT/recall-gosrc-$t.svg" >"$out.eval.json"
	jq -r --arg t "$t" --slurpfile st "$out/stats.json" 'def f3: . * 1000 | round / 1000;
		"| Go sources (\(.documents // "")) | \($t) | \(.exact.pairs) | \(.exact.pair_recall|f3) | \(.vs_exact.precision) | " +
		(.recall_by_similarity | map("[\(.lo),\(.hi)) found \(.found)/\(.pairs) = \(.recall|f3); shared a bucket \(.banded) = \(.banded/.pairs|f3) vs S-curve \(.predicted|f3), seeds 5–95% \(.noise.p5|f3)–\(.noise.p95|f3) (sd \(.noise.sd|f3), \(.noise.below) of \(.noise.seeds) seeds lower); lost \(.banded_lost)") | join("<br>")) +
		" | \($st[0].counts.unresolved_bucket_pairs) | \($st[0].counts.large_buckets // $st[0].counts.star_buckets) |"' "$out.eval.json"
done
