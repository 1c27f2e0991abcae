#!/usr/bin/env bash
# Where a run's wall time goes, stage by stage: runs `neardup dedup` once with its runner
# log at debug level (NEARDUP_RUNNER_LOG), in which Prism logs when each bundle of each
# stage starts and commits its output, and which transforms each stage fuses; prints
# every stage that took at least MIN seconds (default 0.02), in start order, as markdown.
# The gaps between one stage's end and the next one's start are Prism moving the data.
# Usage (repo root): N=100000 bench/stages.sh [dedup flags...]
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${N:-100000}
MIN=${MIN:-0.02}
c=$(corpus "$N")
log="$OUT/stages-$N.log"
NEARDUP_RUNNER_LOG="$log" "$ND" dedup --quiet --input "$c" --output "$OUT/stages-out" --overwrite "$@" >/dev/null
env_header
echo "- command: \`N=$N bench/stages.sh $*\`; seconds from the first bundle's start"
echo
echo "| from s | to s | s | stage: transforms |"
echo "|---:|---:|---:|---|"
# The transforms of each stage, from Prism's preProcessGraph line.
names=$(grep 'msg="preProcessGraph: all stages and transforms"' "$log" |
	grep -o 'stage-[0-9]*\.transforms=\("[^"]*"\|\[[^]]*\]\)' | sed 's/\.transforms=/ /; s/"//g')
awk -v min="$MIN" -v names="$names" '
	BEGIN { n = split(names, l, "\n"); for (i = 1; i <= n; i++) { sp = index(l[i], " "); tr[substr(l[i], 1, sp - 1)] = substr(l[i], sp + 1) } }
	function secs(s,   t) { # time=2026-12-05T03:08:09.255Z
		t = substr(s, index(s, "T") + 1); sub(/Z.*/, "", t); split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3]
	}
	/msg="Execute: (starting bundle|committing data)"/ {
		t = secs($1); if (t0 == "") t0 = t
		match($0, /bundle\.ID=[^ ]*/); id = substr($0, RSTART + 10, RLENGTH - 10)
		match($0, /bundle\.stage=[^ ]*/); st = substr($0, RSTART + 13, RLENGTH - 13)
		if ($0 ~ /starting bundle/) { start[id] = t - t0; stage[id] = st; order[++k] = id }
		else end[id] = t - t0
	}
	END {
		for (i = 1; i <= k; i++) {
			id = order[i]
			if (id in end && end[id] - start[id] >= min)
				printf "| %.3f | %.3f | %.3f | %s: %s |\n", start[id], end[id], end[id] - start[id], stage[id], substr(tr[stage[id]], 1, 120)
		}
	}' "$log"
