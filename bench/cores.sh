#!/usr/bin/env bash
# Scaling with cores: the same corpus of N documents deduplicated with GOMAXPROCS 1, 2,
# ... up to CORES (default nproc), interleaved round by round (RUNS rounds), medians
# of wall and CPU seconds, and the speedup and parallel efficiency against one core.
# Outputs must not depend on the core count: every run's kept, removed and clusters are
# compared with the one-core run's.
# Usage (repo root): N=1000000 RUNS=3 bench/cores.sh [extra dedup flags]. Prints markdown.
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-3}
N=${N:-100000}
CORES=${CORES:-$(nproc)}
c=$(corpus "$N")
for p in $(seq "$CORES"); do rm -f "$OUT/cores-$p"; done
for i in $(seq "$RUNS"); do
	for p in $(seq "$CORES"); do
		fresh "$OUT/cores-out-$p"
		GOMAXPROCS=$p /usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "$ND" dedup --quiet --input "$c" --output "$OUT/cores-out-$p" "$@" >/dev/null 2>&1
		awk '{printf "%s %.2f %s\n", $1, $2+$3, $4}' "$OUT/.time" >>"$OUT/cores-$p"
	done
done
env_header
echo "- command: \`N=$N RUNS=$RUNS CORES=$CORES bench/cores.sh $*\`; corpus $c ($(du -mL "$c" | cut -f1) MB)"
echo
echo "| GOMAXPROCS | wall s, median (runs) | CPU s, median | CPU/wall | speedup | efficiency | peak RSS MiB (max) | outputs |"
echo "|---:|---|---:|---:|---:|---:|---:|---|"
w1=$(median $(cut -d' ' -f1 "$OUT/cores-1"))
for p in $(seq "$CORES"); do
	w=$(median $(cut -d' ' -f1 "$OUT/cores-$p")) cpu=$(median $(cut -d' ' -f2 "$OUT/cores-$p"))
	same=identical
	for f in kept.jsonl removed.jsonl clusters.jsonl; do
		cmp -s "$OUT/cores-out-1/$f" "$OUT/cores-out-$p/$f" || same="$f DIFFERS"
	done
	awk -v p="$p" -v w="$w" -v c="$cpu" -v w1="$w1" -v runs="$(cut -d' ' -f1 "$OUT/cores-$p" | xargs)" \
		-v rss="$(($(maxof $(cut -d' ' -f3 "$OUT/cores-$p")) / 1024))" -v same="$same" \
		'BEGIN{printf "| %d | %s (%s) | %s | %.2f | %.2f× | %.0f%% | %d | %s |\n", p, w, runs, c, c/w, w1/w, 100*w1/w/p, rss, same}'
done
