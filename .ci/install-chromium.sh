#!/bin/sh
# Installs Debian's Chromium for the browser tests of internal/webui (TestBrowser drives it
# headless through the DevTools protocol with github.com/chromedp/chromedp). Without it those
# tests skip. Idempotent: does nothing when chromium is already on PATH.
set -eu
if command -v chromium >/dev/null 2>&1; then
	chromium --version 2>/dev/null || true
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q chromium
chromium --version 2>/dev/null || true
