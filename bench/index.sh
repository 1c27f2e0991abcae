#!/usr/bin/env bash
# Incremental dedup against an index vs deduplicating everything from scratch.
# A generated corpus of OLD+NEW documents (seed 1) is split into its first OLD lines and the
# NEW rest; then, RUNS times each: `neardup index` of OLD, `dedup NEW --against` that index,
# and `dedup OLD+NEW` from scratch. Prints wall, CPU seconds (user+sys), peak RSS and the
# index size per document, as markdown.
# Usage (repo root): OLD=1000000 NEW=100000 bench/index.sh    (defaults: 100000 and 10000)
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-1}
OLD=${OLD:-100000}
NEW=${NEW:-10000}

all=$(corpus $((OLD + NEW)))
old="$OUT/index-old-$OLD.jsonl" new="$OUT/index-new-$NEW.jsonl"
head -n "$OLD" "$all" >"$old"
tail -n +"$((OLD + 1))" "$all" >"$new"

env_header
echo
echo "| step | wall s, median (runs) | CPU s (user+sys), median | peak RSS MiB (max) |"
echo "|---|---|---:|---:|"
row() { # name walls cpus rsss
	awk -v name="$1" -v ws="$2" -v mw="$(median $2)" -v mc="$(median $3)" -v r="$(maxof $4)" \
		'BEGIN{printf "| %s | %.1f (%s) | %.1f | %.0f |\n", name, mw, ws, mc, r/1024}'
}
iw="" ic="" ir="" aw="" ac="" ar="" sw="" sc="" sr=""
for i in $(seq "$RUNS"); do
	rm -rf "$OUT/index-idx"
	timedcpu "$OUT/index-build.log" "$ND" index --quiet --input "$old" --output "$OUT/index-idx"
	iw+="$WALL " ic+="$CPU " ir+="$RSS "
	fresh "$OUT/index-against"
	timedcpu "$OUT/index-against.log" "$ND" dedup --quiet --input "$new" --against "$OUT/index-idx" \
		--output "$OUT/index-against" --overwrite
	aw+="$WALL " ac+="$CPU " ar+="$RSS "
	fresh "$OUT/index-scratch"
	timedcpu "$OUT/index-scratch.log" "$ND" dedup --quiet --input "$old" --input "$new" \
		--output "$OUT/index-scratch" --overwrite
	sw+="$WALL " sc+="$CPU " sr+="$RSS "
done
row "index $OLD documents" "$iw" "$ic" "$ir"
row "dedup $NEW new against the index" "$aw" "$ac" "$ar"
row "dedup $((OLD + NEW)) from scratch" "$sw" "$sc" "$sr"
awk -v a="$(median $aw)" -v s="$(median $sw)" -v ac="$(median $ac)" -v sc="$(median $sc)" \
	'BEGIN{printf "\nagainst / from scratch: wall %.2f×, CPU %.2f×\n", a/s, ac/sc}'
echo
"$ND" index --info "$OUT/index-idx" | sed 's/^/    /'
echo
echo "removed from the new batch: $(wc -l <"$OUT/index-against/removed.jsonl") against the index; $(grep -c "index-new" "$OUT/index-scratch/removed.jsonl" || true) from scratch"
