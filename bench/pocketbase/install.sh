#!/usr/bin/env bash
# Builds PocketBase (the in-run anchor of bench/run) from the Go module proxy once, caching the
# binary under $(go env GOCACHE)/../folio-bench, the way .ci/install-versitygw.sh caches versitygw.
# PocketBase is pure Go (modernc SQLite), so no C toolchain is needed. Prints the binary's path.
set -euo pipefail

PB_VERSION="${POCKETBASE_VERSION:-v0.39.11}"
CACHE="${FOLIO_BENCH_CACHE:-$(dirname "$(go env GOCACHE)")/folio-bench}"
BIN="$CACHE/pocketbase-$PB_VERSION"

if [ ! -x "$BIN" ]; then
	echo "pocketbase: building github.com/pocketbase/pocketbase@$PB_VERSION (minutes when cold)" >&2
	mod="$(mktemp -d /tmp/pocketbase-build.XXXXXX)"
	trap 'rm -rf "$mod"' EXIT
	mkdir -p "$CACHE"
	cat >"$mod/main.go" <<'GO'
// A throwaway build of PocketBase's own example main (serve, superuser, migrate commands).
package main

import (
	"log"

	"github.com/pocketbase/pocketbase"
)

func main() {
	if err := pocketbase.New().Start(); err != nil {
		log.Fatal(err)
	}
}
GO
	(cd "$mod" && go mod init pbbench >/dev/null 2>&1 &&
		GOFLAGS=-mod=mod go get "github.com/pocketbase/pocketbase@$PB_VERSION" >&2 &&
		GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$BIN.tmp" . &&
		mv "$BIN.tmp" "$BIN")
fi
echo "$BIN"
