#!/usr/bin/env bash
# --measure containment against the exact containment join, and its cost beside the
# default Jaccard mode, on generated corpora with planted partial copies
# (`neardup gen --partial-rate 0.7 --dup-fraction 0.3`). Per containment bucket: the exact
# pairs (neardup baseline --measure containment), the share decided by the run (its smaller
# document removed, or its container removed: the rule of docs/method.md), and the lower
# bound the S-curve predicts (neardup params --measure containment: the least over the
# size-class groups at their worst size ratio). Precision: the share of removed documents
# whose pair with the document kept for them is an exact pair. Then wall, CPU and peak RSS
# of both modes, medians of RUNS runs.
# Usage (repo root): N=100000 RUNS=3 bench/containment.sh    Prints markdown. CORPUS=FILE
# scores that corpus instead (e.g. CORPUS=$(bench/excerpts.sh): Go sources and excerpts;
# CORPUS=$(bench/gocode.sh): every .go file of the module cache).
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${N:-100000}
RUNS=${RUNS:-3}
T=${T:-0.8}
c=${CORPUS:-$(corpus "$N" --dup-fraction 0.3 --partial-rate 0.7)}
N=$(wc -l <"$c")
exact="$OUT/exact-containment-$(basename "$c" .jsonl)-$T.jsonl"
[ -s "$exact" ] || "$ND" baseline --input "$c" --measure containment --threshold "$T" --output "$exact" >&2
"$ND" params --measure containment --threshold "$T" --json >"$OUT/params-containment.json"

env_header
declare -A walls cpus rsss
for measure in jaccard containment; do
	for i in $(seq "$RUNS"); do
		out="$OUT/containment-$measure"
		fresh "$out"
		timedcpu "$out.log" "$ND" dedup --quiet --input "$c" --output "$out" --threshold "$T" --measure "$measure"
		walls[$measure]+="$WALL "
		cpus[$measure]+="$CPU "
		rsss[$measure]+="$RSS "
	done
done
out="$OUT/containment-containment"
echo
echo "Quality at threshold $T, $N documents of $(basename "$c") (\`neardup dedup --measure containment\` vs \`neardup baseline --measure containment\`):"
echo
echo "| containment | exact pairs | decided | recall | predicted ≥ |"
echo "|---|---:|---:|---:|---:|"
jq -rn --slurpfile params "$OUT/params-containment.json" --rawfile removed "$out/removed.jsonl" --rawfile exact "$exact" '
	def f3: . * 1000 | round / 1000 | tostring;
	($removed | split("\n") | map(select(length > 0) | fromjson | {key: .id, value: .cluster}) | from_entries) as $gone
	| ($exact | split("\n") | map(select(length > 0) | fromjson)) as $pairs
	| ($params[0].groups) as $g
	| def predicted($c): [$g[] | .detection | to_entries[] | select((.key|tonumber) <= $c + 1e-9) ] | group_by(.key) | last | map(.value) | min;
	$pairs | group_by((.similarity * 20 | floor) / 20) | .[]
	| (.[0].similarity * 20 | floor / 20 * 100 | round / 100) as $lo
	| (map(select($gone[.a] != null or $gone[.b] != null)) | length) as $d
	| "| \(if $lo == 1 then "1" else "[\($lo), \($lo + 0.05 | . * 100 | round / 100))" end) | \(length) | \($d) | \($d / length | f3) | \(predicted($lo) | f3) |"'
jq -rn --rawfile removed "$out/removed.jsonl" --rawfile exact "$exact" '
	($removed | split("\n") | map(select(length > 0) | fromjson | {key: .id, value: 1}) | from_entries) as $gone
	| [$exact | split("\n")[] | select(length > 0) | fromjson | $gone[.a] != null or $gone[.b] != null] as $d
	| "\nRecall: \($d | map(select(.)) | length) of \($d | length) exact pairs decided (\($d | map(select(.)) | length / ($d | length) * 100000 | floor / 100000))."'
jq -rn --rawfile removed "$out/removed.jsonl" --rawfile exact "$exact" '
	($exact | split("\n") | map(select(length > 0) | fromjson | {key: "\(.a) \(.b)", value: 1}) | from_entries) as $ok
	| [$removed | split("\n")[] | select(length > 0) | fromjson | [.id, .cluster] | sort | "\(.[0]) \(.[1])" | $ok[.] != null] as $r
	| "\nPrecision: \($r | map(select(.)) | length) of \($r | length) removals are exact pairs."'
echo
echo "| measure | median wall s | median CPU s | peak RSS MiB | band keys per doc | candidate pairs | unresolved | removed |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for measure in jaccard containment; do
	st="$OUT/containment-$measure/stats.json"
	keys=$(jq -r 'if .parameters.measure == "containment" then [.parameters.containment_groups | group_by(.r)[] | max_by(.b).b] | add else .parameters.b end' "$st")
	echo "| $measure | $(median ${walls[$measure]}) | $(median ${cpus[$measure]}) | $(( $(maxof ${rsss[$measure]}) / 1024 )) | $keys | $(jq .counts.candidate_pairs "$st") | $(jq .counts.unresolved_bucket_pairs "$st") | $(jq .counts.removed "$st") |"
done
echo
echo "Command: \`N=$N RUNS=$RUNS bench/containment.sh\`"
