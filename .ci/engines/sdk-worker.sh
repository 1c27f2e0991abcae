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
# killed when this script gets TERM or boot exits. The directory's contents, boot's copy
# of the worker binary among them, are removed then too (an engine may start a worker
# per stage); the empty directory stays, a trace that the worker ran.
d=$(mktemp -d) && cd "$d" || exit 1
setsid "${NEARDUP_BOOT:?NEARDUP_BOOT: the path of the Go SDK boot program}" --semi_persist_dir="$d" "$@" &
pid=$!
trap 'kill -KILL -$pid 2>/dev/null; rm -rf "${d:?}"/* "${d:?}"/.[!.]*' TERM INT
wait $pid
status=$?
kill -KILL -$pid 2>/dev/null
rm -rf "${d:?}"/* "${d:?}"/.[!.]*
exit $status
