#!/usr/bin/env bash
# coldbuild.sh measures what a first-time user of the README waits for: `go run ./cmd/folio` with
# empty module and build caches, then the README's release build on top of what `go run` left in
# the build cache.
#
#   bench/coldbuild/coldbuild.sh [default|shared] [CHECKOUT]
#
# default: `go run` with Go's default flags (cgo on where a C compiler is installed, no -trimpath),
#          as a plain shell runs it; the release build's flags then differ from go run's.
# shared:  `go run` with the release build's flags in the environment (CGO_ENABLED=0
#          GOFLAGS=-trimpath, as the README's quick start exports them), so the release build can
#          reuse every package go run compiled.
# CHECKOUT defaults to the repository holding this script.
#
# The caches live in a fresh directory ($COLDBUILD_DIR, default mktemp -d under /tmp), removed at
# the end unless COLDBUILD_KEEP=1. Wall-clock times depend on the machine and its load, so the
# core count and load average are printed before and after, and each step also reports the CPU
# time it used (user+sys, which a busy machine stretches far less). The package counts and the
# source and binary sizes depend on neither. `go run ./cmd/folio version` stands for the first
# `go run`: it compiles and links the same binary as the server, without needing a database. The
# release build is the README's: CGO_ENABLED=0 go build -trimpath -ldflags="-s -w".
set -euo pipefail

mode=${1:-default}
repo=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
case $mode in
default) runflags= ;;
shared)
	runflags=-trimpath
	export CGO_ENABLED=0
	;;
*)
	echo "usage: $0 [default|shared] [CHECKOUT]" >&2
	exit 2
	;;
esac
dir=${COLDBUILD_DIR:-$(mktemp -d /tmp/coldbuild.XXXXXX)}
mkdir -p "$dir"
[ "${COLDBUILD_KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
export GOMODCACHE="$dir/mod" GOCACHE="$dir/cache" GOTOOLCHAIN=local
base="-modcacherw -buildvcs=false" # removable module cache; no VCS stamping (git worktrees)
cd "$repo"

load() { echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"; }

# step LOG CMD... runs CMD (a go command; given -v it names on stderr each package it compiles,
# nothing for a cache hit) with stdout discarded and stderr kept in $dir/LOG. It sets $wall and
# $cpu (seconds) and $compiled (package lines in the log).
step() {
	local log=$dir/$1 t
	shift
	TIMEFORMAT='%R %U %S'
	if ! t=$( { time "$@" 2>"$log" >/dev/null; } 2>&1); then
		cat "$log" >&2
		exit 1
	fi
	read -r wall user sys <<<"$t"
	wall=$(awk -v w="$wall" 'BEGIN { printf "%.1f", w }')
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
	compiled=$(grep -c '^[^ #]*$' "$log" || true)
}

echo "checkout    $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3), mode $mode; $(load)"

export GOFLAGS=$base
step fetch.log sh -c 'go mod download $(go list -deps -f "{{with .Module}}{{if not .Main}}{{.Path}}@{{.Version}}{{end}}{{end}}" ./cmd/folio | sort -u)'
fetch=$wall
echo "fetch       ${wall} s wall, ${cpu} s CPU: module cache $(du -sb "$GOMODCACHE" | cut -f1) bytes (zips $(du -sb "$GOMODCACHE/cache/download" | cut -f1))"

export GOFLAGS="$base $runflags"
pkgs=$(go list -deps ./cmd/folio | wc -l)
std=$(go list -deps -f '{{if .Standard}}x{{end}}' ./cmd/folio | grep -c x)
step run.log go run -v ./cmd/folio version
echo "go run      ${wall} s wall, ${cpu} s CPU: $compiled packages compiled (go list -deps ./cmd/folio: $pkgs, $std of them std)"
echo "first run   $(awk -v a="$fetch" -v b="$wall" 'BEGIN { printf "%.1f", a + b }') s wall (fetch + compile + link)"

export GOFLAGS=$base
step release.log env CGO_ENABLED=0 go build -v -trimpath -ldflags="-s -w" -o "$dir/folio" ./cmd/folio
echo "release     ${wall} s wall, ${cpu} s CPU after go run: $compiled packages compiled; CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w\": $(stat -c %s "$dir/folio") bytes"
# The same build with its symbol table and DWARF (a link only: -ldflags does not change what is compiled).
step debug.log env CGO_ENABLED=0 go build -v -trimpath -o "$dir/folio-debug" ./cmd/folio
echo "            without -ldflags=\"-s -w\": $(stat -c %s "$dir/folio-debug") bytes (${wall} s, $compiled packages compiled)"
echo "done        $(load)"
