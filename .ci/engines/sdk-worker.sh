#!/bin/sh
# The command of a Beam PROCESS environment for neardup's SDK workers: runs the Go SDK's
# boot program ($NEARDUP_BOOT, built by `go build github.com/apache/beam/sdks/v2/go/container`)
# with the arguments the engine passes. Used by e2e/engines_test.go and bench/engines.sh;
# see docs/engines.md.
#
# Each worker gets a directory of its own under $TMPDIR: boot writes pipeline_options.json
# into its working directory and stages the worker binary into --semi_persist_dir (default
# /tmp, shared). boot runs the worker as its child and neither exits on TERM, which is what
# an engine sends when it releases a worker, so both get a process group of their own,
# killed when this script gets TERM or boot exits. The directory's contents, boot's staged
# copy of the worker binary among them, are removed then too (an engine may start a worker
# per stage); the empty directory stays, a trace that the worker ran.
#
# boot also copies the worker binary to /tmp/binNNN/worker (a fixed directory, not
# $TMPDIR), runs that copy and never removes it. A watcher learns the copy's path while
# boot writes it (an open file of boot's) or once it runs (the executable of boot's child),
# and removes its directory as soon as the worker runs (the running program keeps its
# file until it exits, so the space is freed however the worker ends), or when boot
# exits without running it.
d=$(mktemp -d) && cd "$d" || exit 1
setsid "${NEARDUP_BOOT:?NEARDUP_BOOT: the path of the Go SDK boot program}" --semi_persist_dir="$d" "$@" &
pid=$!
trap 'kill -KILL -$pid 2>/dev/null; rm -rf "${d:?}"/* "${d:?}"/.[!.]*' TERM INT
(
	copy=
	while kill -0 $pid 2>/dev/null; do
		[ -n "$copy" ] || copy=$(find /proc/$pid/fd -lname '/tmp/bin*/worker' -printf '%l\n' 2>/dev/null | head -1)
		for c in $(cat /proc/$pid/task/*/children 2>/dev/null); do
			exe=$(readlink /proc/"$c"/exe 2>/dev/null)
			case $exe in /tmp/bin*/worker) copy=$exe && break 2 ;; esac
		done
		sleep 0.1
	done
	[ -z "$copy" ] || rm -rf "${copy%/worker}"
) &
wait $pid
status=$?
kill -KILL -$pid 2>/dev/null
rm -rf "${d:?}"/* "${d:?}"/.[!.]*
exit $status
