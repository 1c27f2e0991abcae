#!/usr/bin/env bash
# Embedded vs Flink vs Spark on one generated corpus: wall, CPU-seconds and peak RSS of
# every process (launcher, job server, Spark master/workers/executors, SDK workers), and
# bytes shuffled per document from the engine's own accounting (Flink: the job archive's
# per-vertex write-bytes; Spark: the event log's shuffle bytes written).
#
#   bench/engines.sh N [embedded] [flink] [spark]     (default: all three)
#
# FLAGS (word-split) is added to the engines' dedup runs, e.g.
# FLAGS=--environment_cache_millis=0 for Beam's default of a new SDK worker per Spark task.
# JVM replaces the engine JVMs' flags of docs/engines.md (JVM= for the JVM's defaults).
# STAGE=classpath lets Spark jobs ship the job server's classpath to the executors, as
# without --files_to_stage.
# JOBS=n runs the job n times on each engine's one set of servers (a long-lived job
# server's later jobs: its JIT has compiled the hot code), reported as ENGINE, ENGINE-job2...
#
# The engines are started as e2e/flink_test.go and e2e/spark_test.go start them (see
# docs/engines.md), at parallelism 2 / two one-core Spark workers. Run from the repo root.
# Every file the engines write (Spark's local and work directories, the JVMs' temp files,
# the SDK workers' temporary files) stays under OUT/engines-N or is removed.
set -euo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
source bench/lib.sh
N=${1:?usage: bench/engines.sh N [embedded] [flink] [spark]}
shift
ENGINES=${*:-embedded flink spark}
corpus=$(realpath "$(corpus "$N")")
header=$(env_header) # before the runs: the load they start under
W=$(realpath "$OUT")/engines-$N
rm -rf "$W"
mkdir -p "$W"
# The launcher, the SDK workers' boot program and the staged worker binary: stripped, as
# the e2e tests build it.
ND=$W/neardup
go build -ldflags='-s -w' -o "$ND" ./cmd/neardup
JVM=${JVM--XX:TieredStopAtLevel=1 -XX:+UseParallelGC}
# What Spark jobs ship to the executors (docs/engines.md): an empty jar made beside the
# job server, or with STAGE=classpath the job server's classpath, as without the flag.
STAGED=(--files_to_stage="$W/spark-js/nothing.jar")
SHIPPED="an empty jar (--files_to_stage)"
if [ "${STAGE:-}" = classpath ]; then
	STAGED=()
	SHIPPED="the job server's classpath (STAGE=classpath)"
fi
OPENS="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED"
PIDS=()
LABELS=()

# role PID: the part a process plays, from its command line ("" if none of ours: every
# process this script starts names a path under $W).
role() {
	local c
	c=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 0
	case "$c" in
	*"$W/"*) ;;
	*) return 0 ;;
	esac
	case "$c" in
	*FlinkJobServerDriver* | *SparkJobServerDriver*) echo jobserver ;;
	*deploy.master.Master*) echo spark-master ;;
	*deploy.worker.Worker*) echo spark-worker ;;
	*CoarseGrainedExecutorBackend*) echo spark-executor ;;
	*"$ND --"*) echo sdk-worker ;; # neardup booting a worker, and the worker
	*"$ND dedup"*) echo launcher ;;
	esac
}

# sample FILE: every second until FILE.stop exists, one line per process of ours:
# role pid cpu-ticks peak-rss-kB (VmHWM) round.
sample() {
	local round=0
	while [ ! -e "$1.stop" ]; do
		round=$((round + 1))
		for p in $(grep -alsF -- "$W/" /proc/[0-9]*/cmdline); do
			p=${p#/proc/}
			p=${p%/cmdline}
			r=$(role "$p")
			[ -n "$r" ] || continue
			read -r -a st 2>/dev/null <"/proc/$p/stat" || continue
			hwm=$(awk '/VmHWM/{print $2}' "/proc/$p/status" 2>/dev/null) || continue
			echo "$r $p $((st[13] + st[14])) ${hwm:-0} $round"
			case $r in
			jobserver | spark-executor) jthreads "$r" "$p" "$round" >>"$1.threads" ;;
			esac
		done >>"$1"
		sleep 1
	done
}

# jthreads ROLE PID ROUND: "ROLE PID TID NAME TICKS ROUND" for each of a JVM's threads;
# the thread names say what the CPU went to (C2/C1 CompilerThread: the JIT; GC Thread,
# G1 ...: the collector; the engine's own task threads).
jthreads() {
	awk -v r="$1" -v p="$2" -v round="$3" '{
		match($0, /\(.*\)/); name = substr($0, RSTART + 1, RLENGTH - 2)
		split(substr($0, RSTART + RLENGTH + 1), f, " ")
		n = split(FILENAME, path, "/"); gsub(/ /, "_", name)
		print r, p, path[n - 1], name, f[12] + f[13], round
	}' /proc/"$2"/task/*/stat 2>/dev/null || true
}

# threads SAMPLES: each JVM role's CPU-seconds during the job by kind of thread (the name
# without its number; a thread that was there before the job counts its growth), the
# largest first.
threads() {
	[ -s "$1.threads" ] || return 0
	awk -v tck="$(getconf CLK_TCK)" '
		{ t = $1 " " $2 " " $3; if (!(t in first)) first[t] = ($6 == 1 ? $5 : 0); last[t] = $5; kind[t] = $4 }
		END {
			for (t in last) { split(t, a, " "); k = kind[t]; gsub(/[#-]?[0-9]+$/, "", k); cpu[a[1] "\t" k] += (last[t] - first[t]) / tck }
			for (rk in cpu) if (cpu[rk] >= 0.5) printf "%s\t%.1f\n", rk, cpu[rk]
		}' "$1.threads" | sort -t$'\t' -k1,1 -k3,3nr |
		awk -F'\t' '$1 != r { if (r != "") print line; r = $1; line = "- " r " threads (CPU s):" } { line = line " " $2 " " $3 ";" } END { if (r != "") print line }'
}

# report ENGINE SAMPLES WALL: CPU-seconds spent during the job (all of a process's CPU if
# it started during the job, the growth if it was already running) and peak RSS by role.
report() {
	local tck
	tck=$(getconf CLK_TCK)
	awk -v e="$1" -v wall="$3" -v tck="$tck" '
		{ if (!($2 in first)) first[$2] = ($5 == 1 ? $3 : 0); last[$2] = $3; role[$2] = $1; if ($4 > hwm[$2]) hwm[$2] = $4 }
		END {
			for (p in role) { r = role[p]; n[r]++; cpu[r] += (last[p] - first[p]) / tck; if (hwm[p] > peak[r]) peak[r] = hwm[p]; sum[r] += hwm[p] }
			for (r in n) printf "| %s | %s | %.1f | %d | %.1f | %.0f | %.0f |\n", e, r, wall, n[r], cpu[r], peak[r] / 1024, sum[r] / 1024
		}' "$2" | sort
}

run_job() { # ENGINE ENDPOINT [extra flags]: JOBS timed dedup runs with sampling
	local r=$1 ep=$2 j
	shift 2
	for j in $(seq 1 "${JOBS:-1}"); do
		local e=$r
		[ "$j" = 1 ] || e="$r-job$j"
		LABELS+=("$e")
		one_job "$r" "$e" "$ep" "$@"
	done
}

one_job() { # RUNNER LABEL ENDPOINT [extra flags]
	local r=$1 e=$2 ep=$3
	shift 3
	local s="$W/$e.samples" wt="$W/$e-workers" lt="$W/$e-launcher"
	mkdir -p "$wt" "$lt"
	sample "$s" &
	local sampler=$!
	local start
	start=$(date +%s.%N)
	TMPDIR=$lt /usr/bin/time -f '%e %U %S %M' -o "$W/$e.time" "$ND" dedup --quiet --input "$corpus" --output "$W/$e-out" \
		--runner="$r" --endpoint="$ep" --parallelism=2 --worker_binary="$ND" --job_name="bench-$e" \
		--environment_type=PROCESS --environment_config="{\"command\":\"$ND\",\"env\":{\"TMPDIR\":\"$wt\"}}" "$@" \
		>"$W/$e.log" 2>&1 || { echo "$e run failed: $W/$e.log" >&2; tail -5 "$W/$e.log" >&2; }
	local wall
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	sleep 3 # workers released after the job still count
	touch "$s.stop"
	wait "$sampler"
	read -r _ u sy m <"$W/$e.time"
	echo "launcher (time -v): user+sys $(echo "$u + $sy" | bc) s, max RSS $((m / 1024)) MB" >"$W/$e.launcher"
	report "$e" "$s" "$wall" >"$W/$e.table"
	threads "$s" >>"$W/$e.launcher"
	same "$e" >"$W/$e.same"
}

# same ENGINE: whether ENGINE's outputs are byte-identical to the embedded run's; then
# removes them if the embedded run is there to compare with (they are as large as the
# corpus).
same() {
	local f d
	# An engine writes the sharded layout by default: its parts, in part order (clusters'
	# lines in id order), are the single files.
	for d in kept removed clusters; do
		[ -d "$W/$1-out/$d" ] || continue
		if [ "$d" = clusters ]; then
			cat "$W/$1-out/$d"/part-* | LC_ALL=C sort >"$W/$1-out/$d.jsonl"
		else
			cat "$W/$1-out/$d"/part-* >"$W/$1-out/$d.jsonl"
		fi
	done
	for f in kept.jsonl removed.jsonl clusters.jsonl similarities.json; do
		if cmp -s "$W/embedded-out/$f" "$W/$1-out/$f"; then
			echo "- $1 $f: identical to embedded (sha256 $(sha256sum <"$W/$1-out/$f" | cut -c1-16))"
		else
			echo "- $1 $f: NOT identical to embedded (or embedded not run)"
		fi
	done
	[ ! -d "$W/embedded-out" ] || rm -rf "$W/$1-out"
}

wait_port() { # PORT: until it accepts
	for _ in $(seq 1 120); do
		(echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
		sleep 0.5
	done
	echo "port $1 never opened" >&2
	return 1
}

stop_all() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	PIDS=()
	sleep 2
	# Whatever they started and left (executors, SDK workers): every one names $W.
	for p in $(grep -alsF -- "$W/" /proc/[0-9]*/cmdline); do
		p=${p#/proc/}
		p=${p%/cmdline}
		[ "$p" != $$ ] && kill -KILL "$p" 2>/dev/null || true
	done
	# The engines' scratch: shuffle files, staged artifacts, executors' copies of the jars.
	rm -rf "$W"/*-js/artifacts "$W"/spark-local[0-9] "$W"/spark-work[0-9]
	return 0
}
trap stop_all EXIT

for e in $ENGINES; do
	case $e in
	embedded)
		/usr/bin/time -f '%e %U %S %M' -o "$W/embedded.time" "$ND" dedup --quiet --input "$corpus" --output "$W/embedded-out" >"$W/embedded.log" 2>&1
		read -r wl u sy m <"$W/embedded.time"
		printf "| embedded | launcher (the only process) | %s | 1 | %.1f | %d | %d |\n" "$wl" "$(echo "$u + $sy" | bc)" $((m / 1024)) $((m / 1024)) >"$W/embedded.table"
		LABELS+=(embedded)
		;;
	flink)
		cp="$(cat "$(.ci/engines.sh fetch flink)/classpath")"
		mkdir -p "$W/flink-conf" "$W/flink-archive" "$W/flink-js"
		# The finished job's JSON (per-vertex read/write bytes) is archived here.
		echo "jobmanager.archive.fs.dir: file://$W/flink-archive" >"$W/flink-conf/flink-conf.yaml"
		# shellcheck disable=SC2086
		java $JVM -Xmx4g -Djava.io.tmpdir="$W/flink-js" -cp "$cp" org.apache.beam.runners.flink.FlinkJobServerDriver \
			--job-port=18399 --artifact-port=0 --expansion-port=0 --artifacts-dir="$W/flink-js/artifacts" \
			--flink-master='[local]' --flink-conf-dir="$W/flink-conf" >"$W/flink-js.log" 2>&1 &
		PIDS+=($!)
		wait_port 18399
		run_job flink localhost:18399 ${FLAGS:-}
		stop_all
		;;
	spark)
		h=$(.ci/engines.sh fetch spark)
		beam=$(cat "$h/classpath")
		sp="$h/spark/jars/*"
		export SPARK_HOME="$h/spark" SPARK_LOCAL_IP=127.0.0.1 SPARK_SCALA_VERSION=2.12
		mkdir -p "$W/spark-tmp"
		# shellcheck disable=SC2086
		java $JVM $OPENS -Xmx256m -Djava.io.tmpdir="$W/spark-tmp" -cp "$sp" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 17377 --webui-port 0 >"$W/spark-master.log" 2>&1 &
		PIDS+=($!)
		wait_port 17377
		for i in 1 2; do
			mkdir -p "$W/spark-work$i" "$W/spark-local$i"
			# SPARK_LOCAL_DIRS: the executors' shuffle and spill files (default /tmp).
			# shellcheck disable=SC2086
			SPARK_LOCAL_DIRS="$W/spark-local$i" java $JVM $OPENS -Xmx256m -Djava.io.tmpdir="$W/spark-tmp" -cp "$sp" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --webui-port 0 \
				--cores 1 --memory 6g --work-dir "$W/spark-work$i" spark://127.0.0.1:17377 >"$W/spark-worker$i.log" 2>&1 &
			PIDS+=($!)
		done
		mkdir -p "$W/spark-js" "$W/spark-events"
		echo "Manifest-Version: 1.0" | jar --create --file "$W/spark-js/nothing.jar" --manifest /dev/stdin
		# shellcheck disable=SC2086
		java $JVM $OPENS -Xmx4g -Djava.io.tmpdir="$W/spark-js" -Dspark.executor.extraClassPath="$beam" \
			-Dspark.executor.extraJavaOptions="$JVM $OPENS -Djava.io.tmpdir=$W/spark-tmp" -Dspark.executor.memory=4g \
			-Dspark.excludeOnFailure.enabled=true -Dspark.excludeOnFailure.killExcludedExecutors=true \
			-Dspark.eventLog.enabled=true -Dspark.eventLog.dir="file://$W/spark-events" \
			-cp "$beam:$sp" org.apache.beam.runners.spark.SparkJobServerDriver \
			--job-port=18398 --artifact-port=0 --expansion-port=0 --artifacts-dir="$W/spark-js/artifacts" \
			--spark-master-url=spark://127.0.0.1:17377 >"$W/spark-js.log" 2>&1 &
		PIDS+=($!)
		wait_port 18398
		sleep 5 # workers register
		# shellcheck disable=SC2086
		run_job spark localhost:18398 "${STAGED[@]}" ${FLAGS:-}
		stop_all
		;;
	esac
done

echo "## engines, $N documents ($corpus)"
echo "$header"
echo "- engine JVMs' flags: ${JVM:-none, the JVM defaults}"
echo "- Spark jobs ship to the executors: $SHIPPED"
echo
echo "| engine | process | wall s | processes | CPU s | peak RSS of one, MB | sum of peaks, MB |"
echo "|---|---|---|---|---|---|---|"
for e in "${LABELS[@]}"; do cat "$W/$e.table"; done
for e in "${LABELS[@]}"; do [ -f "$W/$e.launcher" ] && echo "- $e $(cat "$W/$e.launcher")"; done
if [ -d "$W/flink-archive" ]; then
	# Bytes every vertex wrote to the network (the shuffles and the task-to-task exchanges),
	# job by job.
	python3 -c 'import json,sys,glob
jobs=[]
for f in glob.glob(sys.argv[1]+"/*"):
    for a in json.load(open(f))["archive"]:
        j=json.loads(a["json"])
        if a["path"].count("/")==2 and "vertices" in j:
            jobs.append((j["start-time"], sum(v["metrics"]["write-bytes"] for v in j["vertices"]), len(j["vertices"])))
for i, (_, t, v) in enumerate(sorted(jobs)):
    print("- flink job %d: bytes written between tasks: %d (%.1f per document), %d vertices" % (i+1, t, t/int(sys.argv[2]), v))' "$W/flink-archive" "$N"
fi
if [ -d "$W/spark-events" ]; then
	# Shuffle bytes written, application by application (each job is one).
	python3 -c 'import json,sys,glob
apps=[]
for f in glob.glob(sys.argv[1]+"/*"):
    start, t = 0, 0
    for line in open(f):
        ev=json.loads(line)
        if ev.get("Event")=="SparkListenerApplicationStart":
            start=ev.get("Timestamp",0)
        if ev.get("Event")=="SparkListenerTaskEnd":
            t+=ev.get("Task Metrics",{}).get("Shuffle Write Metrics",{}).get("Shuffle Bytes Written",0)
    apps.append((start, t))
for i, (_, t) in enumerate(sorted(apps)):
    print("- spark job %d: shuffle bytes written: %d (%.1f per document)" % (i+1, t, t/int(sys.argv[2])))' "$W/spark-events" "$N"
fi
for e in "${LABELS[@]}"; do [ "$e" = embedded ] || cat "$W/$e.same"; done
