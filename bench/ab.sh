#!/usr/bin/env bash
# Before and after one change: runs two neardup binaries (BEFORE, AFTER) interleaved,
# RUNS rounds, on the generated corpus of N documents (one JSONL file), and prints the
# medians of wall and CPU seconds, the largest peak RSS, the median of each round's
# after/before ratio with the number of rounds the change won, and whether the outputs
# (kept, removed, clusters, similarities) are byte-identical. Extra arguments go to both
# runs; GEN holds `neardup gen` flags for another kind of corpus than the default.
# Usage (repo root): BEFORE=/tmp/nd-before AFTER=/tmp/nd N=100000 RUNS=5 bench/ab.sh
#                    BEFORE=... N=1000000 RUNS=1 bench/ab.sh --partitions 1024
#                    BEFORE=... N=20000 GEN="--mean-words 6000 --min-words 1000 --max-words 12000" bench/ab.sh
cd "$(dirname "$0")/.."
. bench/lib.sh
BEFORE=${BEFORE:?path of the neardup binary before the change}
AFTER=${AFTER:-$ND}
RUNS=${RUNS:-5}
N=${N:-100000}
# shellcheck disable=SC2086 # GEN is a list of flags
c=$(corpus "$N" ${GEN:-})
rm -f "$OUT/ab-before" "$OUT/ab-after"
# Each side runs a copy written by cp: a binary as the linker wrote it maps more of its
# pages into the process (its page cache in larger pieces), tens of MB more peak RSS
# than a copy of itself.
cp "$BEFORE" "$OUT/ab-bin-before"
cp "$AFTER" "$OUT/ab-bin-after"
# Odd rounds run before first, even rounds after first: a load that rises or falls over
# the session then does not favour one side.
for i in $(seq "$RUNS"); do
	order="before after"
	[ $((i % 2)) = 0 ] && order="after before"
	for side in $order; do
		bin=$OUT/ab-bin-$side
		fresh "$OUT/ab-out-$side"
		/usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "$bin" dedup --quiet --input "$c" --output "$OUT/ab-out-$side" --overwrite "$@" >/dev/null 2>&1
		awk '{printf "%s %.2f %s\n", $1, $2+$3, $4}' "$OUT/.time" >>"$OUT/ab-$side"
	done
done
env_header
echo "- command: \`BEFORE=$BEFORE AFTER=$AFTER N=$N RUNS=$RUNS${GEN:+ GEN=\"$GEN\"} bench/ab.sh $*\`; corpus $c ($(du -mL "$c" | cut -f1) MB)"
echo
echo "| side | wall s, median (runs) | CPU s, median | peak RSS MiB (max) |"
echo "|---|---|---:|---:|"
declare -A W C
for side in before after; do
	W[$side]=$(median $(cut -d' ' -f1 "$OUT/ab-$side")) C[$side]=$(median $(cut -d' ' -f2 "$OUT/ab-$side"))
	echo "| $side | ${W[$side]} ($(cut -d' ' -f1 "$OUT/ab-$side" | xargs)) | ${C[$side]} | $(( $(maxof $(cut -d' ' -f3 "$OUT/ab-$side")) / 1024 )) |"
done
awk -v wb="${W[before]}" -v wa="${W[after]}" -v cb="${C[before]}" -v ca="${C[after]}" \
	'BEGIN{printf "\n- after / before: wall %.2f×, CPU %.2f×\n", wa/wb, ca/cb}'
# Each round runs before and after back to back, so a round's own ratio is the least
# exposed to the machine's load drifting over the run: their median, and how many rounds
# the change won.
paste -d' ' "$OUT/ab-before" "$OUT/ab-after" | awk '
	{ w[NR] = $4 / $1; c[NR] = $5 / $2; lw += ($4 < $1); lc += ($5 < $2) }
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { printf "- per round: median ratio wall %.2f×, CPU %.2f×; after lower in %d of %d rounds (wall), %d of %d (CPU)\n", med(w, NR), med(c, NR), lw, NR, lc, NR }'
for f in kept.jsonl removed.jsonl clusters.jsonl similarities.json; do
	if cmp -s "$OUT/ab-out-before/$f" "$OUT/ab-out-after/$f"; then echo "- $f: byte-identical"; else echo "- $f: DIFFERS"; fi
done
