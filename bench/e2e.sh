#!/usr/bin/env bash
# End-to-end `neardup dedup --quiet` wall time, docs/s and peak RSS on generated corpora of
# 10k and 100k documents (RUNS runs each, median) and 1M documents (one run, --partitions 1024;
# skip with SKIP_1M=1), against the exact all-pairs join `neardup baseline` (same threshold
# and ngram) measured in the same run on the 10k and 100k corpora.
# Usage (repo root): bench/e2e.sh    Prints markdown rows.
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-3}
THRESHOLD=${THRESHOLD:-0.8}
NGRAM=${NGRAM:-5}

env_header
echo
echo "| docs | dedup wall s, median (runs) | docs/s | peak RSS MiB (max) | baseline wall s, median (runs) | baseline peak RSS MiB | dedup / baseline wall |"
echo "|---:|---|---:|---:|---|---:|---:|"
for n in 10000 100000; do
	c=$(corpus "$n")
	dw=() dr=() bw=() br=()
	for i in $(seq "$RUNS"); do
		fresh "$OUT/e2e-$n"
		timed "$OUT/e2e-$n.log" "$ND" dedup --quiet --input "$c" --output "$OUT/e2e-$n" --overwrite \
			--threshold "$THRESHOLD" --ngram "$NGRAM"
		dw+=("$WALL") dr+=("$RSS")
		timed "$OUT/e2e-base-$n.log" "$ND" baseline --input "$c" --threshold "$THRESHOLD" --ngram "$NGRAM" \
			--output "$OUT/e2e-base-$n.jsonl"
		bw+=("$WALL") br+=("$RSS")
	done
	mdw=$(median "${dw[@]}") mbw=$(median "${bw[@]}")
	awk -v n="$n" -v mdw="$mdw" -v dws="${dw[*]}" -v dr="$(maxof "${dr[@]}")" -v mbw="$mbw" -v bws="${bw[*]}" \
		-v br="$(maxof "${br[@]}")" 'BEGIN{printf "| %d | %.2f (%s) | %.0f | %.0f | %.2f (%s) | %.0f | %.2f× |\n",
		n, mdw, dws, n/mdw, dr/1024, mbw, bws, br/1024, mdw/mbw}'
done
if [ "${SKIP_1M:-0}" != 1 ]; then
	n=1000000
	c=$(corpus "$n")
	fresh "$OUT/e2e-$n"
	timed "$OUT/e2e-$n.log" "$ND" dedup --quiet --input "$c" --output "$OUT/e2e-$n" --overwrite \
		--threshold "$THRESHOLD" --ngram "$NGRAM" --partitions 1024
	awk -v n="$n" -v w="$WALL" -v r="$RSS" 'BEGIN{printf "| %d (--partitions 1024) | %.1f (1 run) | %.0f | %.0f | – | – | – |\n",
		n, w, n/w, r/1024}'
fi
