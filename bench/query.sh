#!/usr/bin/env bash
# Near-duplicate queries against an index: build time and size, `neardup query` over NEW
# documents in one process, and `neardup serve` under a real HTTP load generator (hey,
# installed from the Go module proxy into a cache outside the work tree).
# A generated corpus of OLD+NEW documents (seed 1) is split into its first OLD lines,
# indexed (`neardup index`: format 2, one segment), and the NEW rest, queried.
# Usage (repo root): OLD=1000000 NEW=100000 bench/query.sh   (defaults 100000 and 10000)
# IDX=DIR QUERIES=FILE use an index already built and a JSONL file of documents to query
# instead (a large corpus built elsewhere, e.g. under /work/tmp, and deleted after).
# REQUESTS (default 20000) single-document POSTs at CONCURRENCY (default 8).
cd "$(dirname "$0")/.."
. bench/lib.sh
OLD=${OLD:-100000}
NEW=${NEW:-10000}
REQUESTS=${REQUESTS:-20000}
CONCURRENCY=${CONCURRENCY:-8}
PORT=${PORT:-18931}
TOOLS=${TOOLS:-$HOME/.cache/neardup-bench/bin}
HEY_VERSION=v0.1.4

[ -x "$TOOLS/hey" ] || GOBIN="$TOOLS" go install "github.com/rakyll/hey@$HEY_VERSION"

if [ -n "${IDX:-}" ] && [ -n "${QUERIES:-}" ]; then
	idx=$IDX new=$QUERIES
	NEW=$(wc -l <"$new")
else
	all=$(corpus $((OLD + NEW)))
	old="$OUT/query-old-$OLD.jsonl" new="$OUT/query-new-$NEW.jsonl" idx="$OUT/query-idx-$OLD"
	[ -s "$old" ] || head -n "$OLD" "$all" >"$old"
	[ -s "$new" ] || tail -n +"$((OLD + 1))" "$all" >"$new"
fi

env_header
echo
echo "| step | wall s | CPU s | peak RSS MiB |"
echo "|---|---:|---:|---:|"
if [ ! -s "$idx/manifest.json" ]; then
	rm -rf "$idx"
	timedcpu "$OUT/query-index.log" "$ND" index --input "$old" --output "$idx"
	echo "| index $OLD documents | $WALL | $CPU | $((RSS / 1024)) |"
fi
timedcpu "$OUT/query-batch.jsonl" "$ND" query --index "$idx" --input "$new"
echo "| query $NEW documents, one process | $WALL | $CPU | $((RSS / 1024)) |"
echo
echo "queries answered: $(grep -c '"near"' "$OUT/query-batch.jsonl"), with a near-duplicate: $(grep -vc '"near":\[\]' "$OUT/query-batch.jsonl")"
echo
"$ND" index --info "$idx" | sed 's/^/    /'

# One near-duplicate query document (the first NEW document that has one) as the body.
body="$OUT/query-body.jsonl"
line=$(awk '!/"near":\[\]/{print NR; exit}' "$OUT/query-batch.jsonl")
sed -n "${line:-1}p" "$new" >"$body"

"$ND" serve --index "$idx" --listen "127.0.0.1:$PORT" 2>"$OUT/query-serve.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
cpu0=$(awk '{print $14+$15}' /proc/$srv/stat)
"$TOOLS/hey" -n "$REQUESTS" -c "$CONCURRENCY" -m POST -T application/x-ndjson -D "$body" \
	"http://127.0.0.1:$PORT/query" >"$OUT/query-hey.txt"
cpu1=$(awk '{print $14+$15}' /proc/$srv/stat)
hwm=$(awk '/VmHWM/{print $2}' /proc/$srv/status)
echo
echo "serve under hey ($REQUESTS single-document POSTs, $CONCURRENCY concurrent):"
grep -E 'Requests/sec|Total:' "$OUT/query-hey.txt" | sed 's/^ */    /'
grep -E '(50|90|99)% in' "$OUT/query-hey.txt" | sed 's/^ */    latency /'
grep -E '^\s*\[[0-9]+\]' "$OUT/query-hey.txt" | sed 's/^ */    status /'
awk -v c0="$cpu0" -v c1="$cpu1" -v tck="$(getconf CLK_TCK)" -v r="$REQUESTS" \
	'BEGIN{printf "    server CPU: %.1f s for %d requests (%.0f µs each)\n", (c1-c0)/tck, r, (c1-c0)/tck/r*1e6}'
echo "    server peak RSS: $((hwm / 1024)) MiB"
