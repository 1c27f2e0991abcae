#!/usr/bin/env bash
# Fetches the pinned classpath of a Beam job server (and, for Spark, Spark itself) into a
# cache outside the work tree, checks every file against its committed sha256, and prints
# the cache directory:
#
#   .ci/engines.sh fetch flink   ->  DIR with DIR/classpath (for java -cp)
#   .ci/engines.sh fetch spark   ->  DIR with DIR/classpath and DIR/spark (SPARK_HOME)
#   .ci/engines.sh lock flink|spark   rewrites .ci/engines/ENGINE-job-server.sha256 after
#                                     a change to ENGINE-job-server.pom.xml
#
# The cache is ${NEARDUP_ENGINES_CACHE:-${XDG_CACHE_HOME:-~/.cache}/neardup/engines}, one
# directory per engine named by the hash of its pins, so a second fetch downloads nothing
# and a changed pin fetches anew. Needs java, mvn, pip, sha256sum and tar.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
pins="$here/engines"
cache="${NEARDUP_ENGINES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/neardup/engines}"
# The plugin version is pinned too: the Maven mirror these machines reach is partial.
copy_deps="org.apache.maven.plugins:maven-dependency-plugin:2.8:copy-dependencies"

die() {
	echo ".ci/engines.sh: $*" >&2
	exit 1
}

# resolve POM DIR: copies POM's dependencies into DIR in the repository layout
# (group/artifact/version/file), which names each jar's coordinates.
resolve() {
	mvn -q -B -Dstyle.color=never -f "$1" "$copy_deps" -Dmdep.useRepositoryLayout=true -DoutputDirectory="$2" >&2 ||
		die "mvn could not resolve $1"
	find "$2" -type f ! -name '*.jar' -delete # maven-metadata-local.xml: timestamps
}

# verify LOCK DIR: DIR holds exactly the files LOCK lists, with LOCK's sha256.
verify() {
	(cd "$2" && sha256sum --quiet --strict -c "$1" >&2) || die "$2 does not match $1"
	local want got
	want=$(awk '{print $2}' "$1" | sort)
	got=$(cd "$2" && find . -type f | sed 's|^\./||' | sort)
	[ "$want" = "$got" ] || die "$2 holds files $1 does not list: $(comm -13 <(echo "$want") <(echo "$got") | head -5)"
}

engine=${2:-}
case "$engine" in
flink | spark) ;;
*) die "usage: $0 fetch|lock flink|spark" ;;
esac
pom="$pins/$engine-job-server.pom.xml"
lock="$pins/$engine-job-server.sha256"
req="$pins/spark.requirements.txt"

case "${1:-}" in
lock)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	resolve "$pom" "$tmp"
	(cd "$tmp" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) >"$lock"
	echo "wrote $lock: $(wc -l <"$lock") jars" >&2
	exit 0
	;;
fetch) ;;
*) die "usage: $0 fetch|lock flink|spark" ;;
esac

key=$(cat "$pom" "$lock" $([ "$engine" = spark ] && echo "$req") | sha256sum | cut -c1-12)
dir="$cache/$engine-$key"
if [ -f "$dir/classpath" ]; then
	verify "$lock" "$dir/repo"
	echo "$dir"
	exit 0
fi

mkdir -p "$cache"
staging=$(mktemp -d "$cache/.fetch-$engine-XXXXXX")
trap 'rm -rf "$staging"' EXIT
echo ".ci/engines.sh: fetching the $engine job server's classpath into $dir" >&2
resolve "$pom" "$staging/repo"
verify "$lock" "$staging/repo"
awk -v r="$dir/repo/" '{printf "%s%s%s", (NR > 1 ? ":" : ""), r, $2} END {print ""}' "$lock" >"$staging/classpath"

if [ "$engine" = spark ]; then
	# pip checks the sdist's hash (--require-hashes); only its bundled Spark is kept.
	pip download -q --no-deps --require-hashes -r "$req" -d "$staging/pip" >&2 ||
		die "pip could not download $req"
	tar -xzf "$staging"/pip/pyspark-*.tar.gz -C "$staging/pip"
	mv "$staging"/pip/pyspark-*/deps "$staging/spark"
	rm -rf "$staging/pip"
	[ -d "$staging/spark/jars" ] || die "the pyspark sdist holds no deps/jars"
fi

if ! mv -T "$staging" "$dir" 2>/dev/null; then
	# Another fetch finished first; use its copy.
	[ -f "$dir/classpath" ] || die "could not move $staging to $dir"
fi
trap - EXIT
rm -rf "$staging"
echo "$dir"
