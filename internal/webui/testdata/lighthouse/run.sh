#!/usr/bin/env bash
# Lighthouse scores (accessibility, best practices) of the booking page and the signed-in
# dashboard's Overview, Posts, Analytics and Settings pages, against a running, seeded folio:
#
#   npm ci --prefix internal/webui/testdata/lighthouse
#   folio seed --demo && folio serve            # in another terminal
#   internal/webui/testdata/lighthouse/run.sh http://127.0.0.1:8080 owner@example.com 'the password' [report-dir]
#
# It signs in through POST /api/auth/login and passes the session cookie to Lighthouse with
# --extra-headers. Chromium comes from CHROME_PATH (default /usr/bin/chromium). It prints one
# line per page, "page accessibility best-practices", then the audits that lost points; each
# page's full JSON report is kept in the report directory (default: a temporary one).
# TestLighthouse (internal/webui) runs it against a folio of its own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
base="${1:?usage: run.sh BASE_URL EMAIL PASSWORD [REPORT_DIR]}"
email="${2:?email}"
password="${3:?password}"
out="${4:-$(mktemp -d)}"
lighthouse="$here/node_modules/.bin/lighthouse"
[ -x "$lighthouse" ] || { echo "Lighthouse is not installed: npm ci --prefix $here" >&2; exit 2; }
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
mkdir -p "$out"

body=$(node -e 'process.stdout.write(JSON.stringify({email: process.argv[1], password: process.argv[2]}))' "$email" "$password")
cookie=$(curl -sS -o /dev/null -D - -H 'Content-Type: application/json' -H "Origin: $base" --data "$body" "$base/api/auth/login" |
	tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p' | grep -i 'session-token' | head -1)
[ -n "$cookie" ] || { echo "sign-in at $base failed: no session cookie" >&2; exit 1; }
headers=$(node -e 'process.stdout.write(JSON.stringify({Cookie: process.argv[1]}))' "$cookie")

status=0
for page in "book=/book" "overview=/admin/#/overview" "posts=/admin/#/posts" "analytics=/admin/#/analytics" "settings=/admin/#/settings/site"; do
	name="${page%%=*}"
	path="${page#*=}"
	report="$out/$name.json"
	if ! "$lighthouse" "$base$path" --quiet --output=json --output-path="$report" \
		--only-categories=accessibility,best-practices --extra-headers="$headers" \
		--chrome-flags="--headless=new --no-sandbox --disable-dev-shm-usage" --max-wait-for-load=60000 >/dev/null 2>"$out/$name.log"; then
		echo "$name: Lighthouse failed (see $out/$name.log)" >&2
		status=1
		continue
	fi
	node -e '
		const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const c = r.categories;
		console.log(`${process.argv[2]} ${c.accessibility.score} ${c["best-practices"].score}`);
		for (const cat of [c.accessibility, c["best-practices"]]) for (const ref of cat.auditRefs) {
			const a = r.audits[ref.id];
			if (ref.weight > 0 && a.score !== null && a.score < 1) console.log(`  - ${ref.id}: ${a.title}`);
		}' "$report" "$name"
done
exit $status
