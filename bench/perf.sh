#!/usr/bin/env bash
# The performance figures side by side, interleaved round by round so that every system
# sees the same machine load: `neardup dedup` (with the AVX2 MinHash kernel where the
# CPU has AVX2), `neardup dedup` held to the plain-Go kernel (NEARDUP_MINHASH_KERNEL=go;
# GO_KERNEL=0 skips it), the exact all-pairs join `neardup baseline`, and the
# single-core signing benchmark (BenchmarkSign, affine32, xxhash, 200 shingles x 128
# permutations) with each kernel. Everything is reported in
# CPU-seconds beside wall time (the machine is shared), medians of RUNS rounds.
# Then one 1M-document dedup run for memory per document (SKIP_1M=1 skips it).
# Usage (repo root): bench/perf.sh      N=100000 RUNS=3 by default. Prints markdown.
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-3}
N=${N:-100000}
GO_KERNEL=${GO_KERNEL:-1}
SIGN_OPS=${SIGN_OPS:-200000}
SIGN_BENCH='^BenchmarkSign$/^scheme=affine32$/^kernel=(go|avx2)$/^hash=xxhash$/^shingles=200$/^perms=128$'
MH=${MH:-/tmp/minhash.test}
[ -x "$MH" ] || go test -c -o "$MH" ./minhash
c=$(corpus "$N")

# run NAME CMD...: runs CMD under /usr/bin/time and appends "wall cpu rssKB" to $OUT/perf-NAME.
run() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "$@" >"$OUT/perf-$name.log" 2>&1
	awk '{printf "%s %.2f %s\n", $1, $2+$3, $4}' "$OUT/.time" >>"$OUT/perf-$name"
}
# col NAME K: the K-th column of every run of NAME.
col() { awk -v k="$2" '{print $k}' "$OUT/perf-$1"; }

systems=(dedup baseline sign)
[ "$GO_KERNEL" = 1 ] && systems=(dedup dedup-go baseline sign sign-go)
# REPORT_ONLY=1 prints the table of the last run's measurements again.
[ "${REPORT_ONLY:-0}" = 1 ] && RUNS=0
[ "$RUNS" -gt 0 ] && for s in "${systems[@]}"; do rm -f "$OUT/perf-$s"; done
for i in $(seq "$RUNS"); do
	fresh "$OUT/perf-out"
	run dedup "$ND" dedup --quiet --input "$c" --output "$OUT/perf-out" --overwrite
	if [ "$GO_KERNEL" = 1 ]; then
		fresh "$OUT/perf-out-go"
		NEARDUP_MINHASH_KERNEL=go run dedup-go "$ND" dedup --quiet --input "$c" --output "$OUT/perf-out-go" --overwrite
	fi
	run baseline "$ND" baseline --input "$c" --output "$OUT/perf-base.jsonl"
	run sign "$MH" -test.run '^$' -test.bench "$SIGN_BENCH" -test.benchtime "${SIGN_OPS}x"
	if [ "$GO_KERNEL" = 1 ]; then
		NEARDUP_MINHASH_KERNEL=go run sign-go "$MH" -test.run '^$' -test.bench "$SIGN_BENCH" -test.benchtime "${SIGN_OPS}x"
	fi
done
if [ "$GO_KERNEL" = 1 ]; then
	for f in kept.jsonl removed.jsonl clusters.jsonl; do
		cmp -s "$OUT/perf-out/$f" "$OUT/perf-out-go/$f" || echo "WARNING: $f differs between the AVX2 and plain-Go kernels" >&2
	done
fi

env_header
echo "- command: \`RUNS=$RUNS N=$N bench/perf.sh\`; corpus \`neardup gen --n $N --seed 1\` ($(du -mL "$c" | cut -f1) MB, one JSONL file)"
echo
echo "| system | wall s, median (runs) | CPU s, median | CPU / wall | docs per CPU-second | peak RSS MiB (max) |"
echo "|---|---|---:|---:|---:|---:|"
declare -A W C R
for s in "${systems[@]}"; do
	W[$s]=$(median $(col "$s" 1)) C[$s]=$(median $(col "$s" 2)) R[$s]=$(maxof $(col "$s" 3))
	docs=$N
	case $s in sign*) docs=$SIGN_OPS ;; esac
	awk -v s="$s" -v w="${W[$s]}" -v ws="$(col "$s" 1 | xargs)" -v c="${C[$s]}" -v r="${R[$s]}" -v d="$docs" \
		'BEGIN{printf "| %s | %.2f (%s) | %.2f | %.2f | %.0f | %.0f |\n", s, w, ws, c, (w>0 ? c/w : 0), (c>0 ? d/c : 0), r/1024}'
done
echo
awk -v dw="${W[dedup]}" -v bw="${W[baseline]}" -v dc="${C[dedup]}" -v sc="${C[sign]}" -v n="$N" -v so="$SIGN_OPS" \
	'BEGIN{printf "- dedup wall / baseline wall: **%.2f×** (goal ≤ 0.5×)\n", dw/bw
	       printf "- dedup docs per CPU-second / signing docs per CPU-second: **%.1f%%** (goal ≥ 30%%)\n", 100*(n/dc)/(so/sc)
	       printf "- dedup CPU / wall: **%.2f** (goal ≥ 1.7 on 2 cores)\n", dc/dw}'
if [ "$GO_KERNEL" = 1 ]; then
	awk -v dw="${W[dedup-go]}" -v bw="${W[baseline]}" -v dc="${C[dedup-go]}" -v sc="${C[sign-go]}" -v n="$N" -v so="$SIGN_OPS" \
		'BEGIN{printf "- plain-Go kernel: dedup wall / baseline wall %.2f×; docs per CPU-second / plain-Go signing docs per CPU-second %.1f%%\n", dw/bw, 100*(n/dc)/(so/sc)}'
fi
if [ "${SKIP_1M:-0}" != 1 ] && [ "${REPORT_ONLY:-0}" != 1 ]; then
	n=1000000
	c1=$(corpus "$n")
	rm -f "$OUT/perf-dedup-1m"
	fresh "$OUT/perf-out-1m"
	run dedup-1m "$ND" dedup --quiet --input "$c1" --output "$OUT/perf-out-1m" --overwrite --partitions 1024
	read -r w1 c1s r1 <"$OUT/perf-dedup-1m"
	awk -v w="$w1" -v c="$c1s" -v r="$r1" -v r0="${R[dedup]}" -v n0="$N" \
		'BEGIN{printf "- 1M documents (--partitions 1024, one run): wall %.1f s, CPU %.1f s (CPU/wall %.2f), peak RSS %.0f MiB = %.2f KB per document (%.2f× the per-document RSS at %d)\n",
		w, c, c/w, r/1024, r/1000000, (r/1000000)/(r0/n0), n0}'
	tr -d '\n ' <"$OUT/perf-out-1m/stats.json" | grep -o '"timings":{[^}]*}' | sed 's/^/- 1M stats.json /; s/$/\n/' || true
fi
