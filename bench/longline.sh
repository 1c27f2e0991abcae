#!/usr/bin/env bash
# One 1 GiB line: a JSONL input of 1,000 small records, one record whose text is 1 GiB,
# and one more small record; `neardup dedup` at the defaults and at --memory 512MB.
# Reports wall, CPU seconds and peak RSS of each, with the counts read and rejected
# from stats.json (1,001 and 1 expected). Memory is measured here, not in
# tests. Usage (repo root): bench/longline.sh   (OUT=/tmp/x to put the 1 GiB input
# elsewhere; it is deleted at the end unless KEEP=1). Prints markdown.
cd "$(dirname "$0")/.."
. bench/lib.sh

in="$OUT/longline.jsonl"
if [ ! -s "$in" ]; then
	{
		for i in $(seq 1 1000); do printf '{"id":"s%04d","text":"small record number %d of the long line bench"}\n' "$i" "$i"; done
		printf '{"id":"long","text":"'
		head -c $((1 << 30)) /dev/zero | tr '\0' 'x'
		printf '"}\n'
		printf '{"id":"s1001","text":"the record after the long line"}\n'
	} >"$in"
fi
[ "${KEEP:-0}" = 1 ] || trap 'rm -f "$in"; rm -rf "$OUT"/longline-out-*' EXIT

echo "## One 1 GiB line among 1,001 small records"
echo
env_header
echo "- input: $(stat -c %s "$in") bytes; neardup dedup --quiet --input $in ..."
echo
echo "| flags | wall s | CPU s | peak RSS MiB | documents read | records rejected |"
echo "|---|---:|---:|---:|---:|---:|"
n=0
for flags in "" "--memory 512MB"; do
	n=$((n + 1))
	out="$OUT/longline-out-$n"
	fresh "$out"
	# shellcheck disable=SC2086 # flags is a word list
	timedcpu "$out.log" "$ND" dedup --quiet --input "$in" --output "$out" $flags
	read_=$(sed -n 's/.*"documents_read": *\([0-9]*\).*/\1/p' "$out/stats.json" | head -1)
	rej=$(sed -n 's/.*"records_rejected": *\([0-9]*\).*/\1/p' "$out/stats.json" | head -1)
	echo "| ${flags:-defaults} | $WALL | $CPU | $((RSS / 1024)) | $read_ | $rej |"
done
