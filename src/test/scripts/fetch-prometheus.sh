#!/usr/bin/env bash
# Prints the directory holding the `prometheus` and `promtool` binaries (Debian's prometheus
# 2.42 package), fetching the package into $1 (default target/prometheus) when they are not on
# PATH: `apt-get download` + `dpkg -x` (no system change, no service started); as root, an
# `apt-get update` first when the package lists are empty. Every network step is time-bounded.
# Exit 3 with a reason on stderr when it cannot be had here.
set -euo pipefail
dest=$(realpath -m "${1:-target/prometheus}")

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  dirname "$(command -v prometheus)"; exit 0
fi
if [ -x "$dest/usr/bin/prometheus" ] && [ -x "$dest/usr/bin/promtool" ]; then
  echo "$dest/usr/bin"; exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
  echo "prometheus is not installed and this is not a Debian/Ubuntu system (no apt-get/dpkg)" >&2; exit 3
fi

mkdir -p "$dest/deb"
cd "$dest/deb"
rm -f prometheus_*.deb
download() { timeout 180 apt-get download -q prometheus >/dev/null 2>&1; }
if ! download; then
  if [ "$(id -u)" = 0 ]; then
    timeout 240 apt-get update -q >/dev/null 2>&1 || true
    download || { echo "apt-get download prometheus failed after apt-get update" >&2; exit 3; }
  else
    echo "apt-get download prometheus failed and we are not root (cannot apt-get update)" >&2; exit 3
  fi
fi
dpkg -x prometheus_*.deb "$dest"
[ -x "$dest/usr/bin/prometheus" ] || { echo "package unpacked but $dest/usr/bin/prometheus missing" >&2; exit 3; }
echo "$dest/usr/bin"
