#!/usr/bin/env bash
# Builds versitygw (an Apache-2.0 S3-compatible gateway) from the Go module proxy once, caching the
# binary in $(go env GOPATH)/bin, then starts it in the background on 127.0.0.1:7070 over a fresh
# posix directory. It exports nothing; the caller sets:
#   FOLIO_TEST_S3_ENDPOINT=http://127.0.0.1:7070 FOLIO_TEST_S3_ACCESS_KEY=folio-test
#   FOLIO_TEST_S3_SECRET=folio-test-secret FOLIO_TEST_S3_BUCKET=folio-test
# Idempotent: a gateway already answering on the port is left running.
set -euo pipefail

VERSITYGW_VERSION="${VERSITYGW_VERSION:-v1.8.0}"
ADDR="${VERSITYGW_ADDR:-127.0.0.1:7070}"
ACCESS="${VERSITYGW_ACCESS:-folio-test}"
SECRET="${VERSITYGW_SECRET:-folio-test-secret}"
BIN="$(go env GOPATH)/bin/versitygw"

if [ ! -x "$BIN" ]; then
	echo "install-versitygw: building versitygw@$VERSITYGW_VERSION (several minutes when cold)" >&2
	(cd /tmp && GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION")
fi

# A TCP connect is enough to know the gateway is up (bash /dev/tcp: no curl needed).
answers() { (exec 3<>"/dev/tcp/${ADDR%:*}/${ADDR##*:}") 2>/dev/null; }

if answers; then
	echo "install-versitygw: something already answers on $ADDR; leaving it" >&2
	exit 0
fi

DATA="$(mktemp -d /tmp/versitygw-data.XXXXXX)"
LOG="$DATA.log"
# The gateway stores buckets as directories under $DATA; nohup keeps it alive after this script.
nohup "$BIN" --access "$ACCESS" --secret "$SECRET" --port "$ADDR" posix "$DATA" >"$LOG" 2>&1 &
echo $! >/tmp/versitygw.pid

for _ in $(seq 1 50); do
	if answers; then
		echo "install-versitygw: versitygw listening on $ADDR (pid $(cat /tmp/versitygw.pid), data $DATA, log $LOG)" >&2
		exit 0
	fi
	sleep 0.2
done
echo "install-versitygw: versitygw did not start; log follows" >&2
cat "$LOG" >&2
exit 1
