# Shared helpers for the bench/*.sh scripts; source it from the repo root.
# Scratch data goes to bench/out/ (gitignored). ND may point at a prebuilt binary.
set -euo pipefail
OUT=${OUT:-bench/out}
ND=${ND:-/tmp/nd}
mkdir -p "$OUT"
if [ ! -x "$ND" ]; then
	echo "building $ND" >&2
	# Copied with cp: a binary as the linker wrote it maps more of its pages into the
	# process (its page cache in larger pieces), tens of MB more peak RSS.
	go build -o "$ND.link" ./cmd/neardup
	cp "$ND.link" "$ND"
	rm "$ND.link"
fi

# corpus N [GEN FLAGS...]: generate (once) a corpus of N documents, seed 1, with any
# further `neardup gen` flags (e.g. --mean-words 6000 for long documents); prints its path.
corpus() {
	local n=$1 f="$OUT/corpus-$1.jsonl"
	shift
	if [ $# -gt 0 ]; then
		f="$OUT/corpus-$n-$(echo "$*" | md5sum | cut -c1-8).jsonl"
	fi
	[ -s "$f" ] || "$ND" gen --n "$n" --seed 1 "$@" --output "$f" >&2
	echo "$f"
}

# timed LOG CMD...: runs CMD under /usr/bin/time; sets WALL (s) and RSS (KB).
# stdout+stderr of CMD go to LOG so the giant-cluster warning etc. can be read.
timed() {
	local log=$1
	shift
	/usr/bin/time -f '%e %M' -o "$OUT/.time" "$@" >"$log" 2>&1
	read -r WALL RSS <"$OUT/.time"
}

# timedcpu LOG CMD...: like timed, also sets CPU (user+sys seconds).
timedcpu() {
	local log=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$OUT/.time" "$@" >"$log" 2>&1
	read -r WALL RSS U S <"$OUT/.time"
	CPU=$(awk -v u="$U" -v s="$S" 'BEGIN{print u+s}')
}

# fresh DIR: removes the previous round's outputs before a timed run. Replacing them
# (--overwrite) would time the unlinking of the last round's kept.jsonl too: 1.2-1.7 s at 1M
# on one core (2026-12-05), which is the file system's work, not the job's.
fresh() { rm -rf "$1"; }

# median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
# max of its arguments.
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }

# env_header: the machine and load the numbers were taken under.
env_header() {
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)"
	echo "- machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -m | awk '/Mem:/{printf "%.1f", $2/1024}') GiB RAM; $(go version | cut -d' ' -f3)"
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine: numbers are noisy)"
}
