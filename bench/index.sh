#!/usr/bin/env bash
# Incremental dedup against an index, in both index formats, against deduplicating the new
# batch alone and everything from scratch.
# A generated corpus of OLD+NEW documents (seed 1) is split into its first OLD lines and the
# NEW rest. OLD is deduplicated once and its kept output indexed (the documented workflow)
# in format 1 (`neardup index --index-format 1`, Parquet shards) and format 2 (`neardup index`).
# Then, RUNS times each: `dedup NEW --against` each index, `dedup NEW` alone, and `dedup
# OLD+NEW` from scratch. Prints wall, CPU seconds (user+sys), peak RSS, the index sizes, and
# whether the two --against runs wrote identical kept, removed and clusters files.
# Usage (repo root): OLD=1000000 NEW=100000 bench/index.sh    (defaults: 100000 and 10000)
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-1}
OLD=${OLD:-100000}
NEW=${NEW:-10000}
SCRATCH=${SCRATCH:-1} # 0 skips the from-scratch dedup of OLD+NEW

all=$(corpus $((OLD + NEW)))
old="$OUT/index-old-$OLD.jsonl" new="$OUT/index-new-$NEW.jsonl"
[ -s "$old" ] || head -n "$OLD" "$all" >"$old"
[ -s "$new" ] || tail -n +"$((OLD + 1))" "$all" >"$new"
idx="$OUT/index-idx" # both formats are built here in turn: removed.jsonl names the index

env_header
echo
echo "| step | wall s, median (runs) | CPU s (user+sys), median | peak RSS MiB (max) |"
echo "|---|---|---:|---:|"
row() { # name walls cpus rsss
	awk -v name="$1" -v ws="$2" -v mw="$(median $2)" -v mc="$(median $3)" -v r="$(maxof $4)" \
		'BEGIN{printf "| %s | %.1f (%s) | %.1f | %.0f |\n", name, mw, ws, mc, r/1024}'
}
fresh "$OUT/index-oldkept"
timedcpu "$OUT/index-oldkept.log" "$ND" dedup --quiet --input "$old" --output "$OUT/index-oldkept"
row "dedup $OLD (the index's source)" "$WALL" "$CPU" "$RSS"
kept="$OUT/index-oldkept/kept.jsonl"

for format in 1 2; do
	rm -rf "$idx"
	if [ $format = 1 ]; then
		timedcpu "$OUT/index-build.log" "$ND" index --quiet --index-format 1 --input "$kept" --output "$idx"
	else
		timedcpu "$OUT/index-build.log" "$ND" index --input "$kept" --output "$idx"
	fi
	row "index its $(wc -l <"$kept") kept, format $format" "$WALL" "$CPU" "$RSS"
	info[$format]=$("$ND" index --info "$idx" | sed 's/^/    /')
	w="" c="" r=""
	for i in $(seq "$RUNS"); do
		fresh "$OUT/index-against-$format"
		timedcpu "$OUT/index-against-$format.log" "$ND" dedup --quiet --input "$new" --against "$idx" \
			--output "$OUT/index-against-$format"
		w+="$WALL " c+="$CPU " r+="$RSS "
	done
	row "dedup $NEW new --against format $format" "$w" "$c" "$r"
	cw[$format]=$(median $c)
done
w="" c="" r=""
for i in $(seq "$RUNS"); do
	fresh "$OUT/index-alone"
	timedcpu "$OUT/index-alone.log" "$ND" dedup --quiet --input "$new" --output "$OUT/index-alone"
	w+="$WALL " c+="$CPU " r+="$RSS "
done
row "dedup $NEW new alone" "$w" "$c" "$r"
alone=$(median $c)
if [ "$SCRATCH" = 1 ]; then
	w="" c="" r=""
	for i in $(seq "$RUNS"); do
		fresh "$OUT/index-scratch"
		timedcpu "$OUT/index-scratch.log" "$ND" dedup --quiet --input "$old" --input "$new" --output "$OUT/index-scratch"
		w+="$WALL " c+="$CPU " r+="$RSS "
	done
	row "dedup $((OLD + NEW)) from scratch" "$w" "$c" "$r"
fi
echo
awk -v a1="${cw[1]}" -v a2="${cw[2]}" -v n="$alone" \
	'BEGIN{printf "CPU of --against / CPU of the new batch alone: format 1 %.2f×, format 2 %.2f×\n", a1/n, a2/n}'
for f in kept.jsonl removed.jsonl clusters.jsonl; do
	if cmp -s "$OUT/index-against-1/$f" "$OUT/index-against-2/$f"; then s=identical; else s=DIFFERENT; fi
	echo "--against format 1 and format 2: $f $s ($(wc -l <"$OUT/index-against-2/$f") lines)"
done
for format in 1 2; do
	echo
	echo "${info[$format]}"
done
