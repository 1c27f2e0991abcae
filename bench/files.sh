#!/usr/bin/env bash
# One file or four: the same generated corpus as one JSONL file and split into 4 line-
# aligned files (split -n l/4), `neardup dedup` with defaults on each, interleaved, RUNS
# rounds at 100k and one at 1M (SKIP_1M=1 skips it). Reports median wall, CPU seconds and
# CPU/wall (2 cores: 2.0 is both busy) and peak RSS, and checks that the removed ids agree.
# Usage (repo root): bench/files.sh    RUNS=3 by default. Prints markdown.
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${RUNS:-3}

# split4 N: the N-document corpus in 4 files; prints the directory.
split4() {
	local c d
	c=$(corpus "$1")
	d="$OUT/split4-$1"
	if [ ! -s "$d/part-03.jsonl" ]; then
		mkdir -p "$d"
		split -n l/4 -d --additional-suffix=.jsonl "$c" "$d/part-"
	fi
	echo "$d"
}

# one NAME RUNS INPUT...: RUNS dedup runs; prints a markdown row of medians.
declare -A W C R
measure() {
	local key=$1 out="$OUT/files-$1"
	shift
	fresh "$out"
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/.time" "$ND" dedup --quiet --output "$out" --overwrite "$@" >"$out.log" 2>&1
	read -r wall user sys rss <"$OUT/.time"
	W[$key]="${W[$key]:-} $wall"
	C[$key]="${C[$key]:-} $(echo "$user + $sys" | bc)"
	R[$key]="${R[$key]:-} $rss"
}

env_header
echo
echo "| docs | input | runs | wall s (median) | CPU s (median) | CPU/wall | peak RSS MiB (max) | removed |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
sizes=(100000)
[ "${SKIP_1M:-0}" = 1 ] || sizes+=(1000000)
for n in "${sizes[@]}"; do
	one=$(corpus "$n")
	four=$(split4 "$n")
	runs=$RUNS
	[ "$n" -lt 1000000 ] || runs=1
	for _ in $(seq "$runs"); do
		measure "$n-1" --input "$one"
		measure "$n-4" --input "$four/part-*.jsonl"
	done
	a=$(jq -r '.id' "$OUT/files-$n-1/removed.jsonl" | sort | sha256sum)
	b=$(jq -r '.id' "$OUT/files-$n-4/removed.jsonl" | sort | sha256sum)
	[ "$a" = "$b" ] || echo "WARNING: removed ids differ between 1 and 4 files at $n" >&2
	for k in 1 4; do
		# shellcheck disable=SC2086
		w=$(median ${W[$n-$k]}) c=$(median ${C[$n-$k]}) r=$(maxof ${R[$n-$k]})
		files=$([ "$k" = 1 ] && echo "1 file" || echo "4 files")
		echo "| $n | $files | $runs | $w | $c | $(echo "scale=2; $c / $w" | bc) | $((r / 1024)) | $(jq -r '.counts.removed' "$OUT/files-$n-$k/stats.json") |"
	done
done
