#!/bin/sh
# What the test suite needs from the system, installed when missing (README, quick
# start command 2, which .ci/run runs as written): redis-server and redis-cli (a real
# Redis and a 3-master Redis Cluster), Chromium (the browser tests), nginx and Caddy
# (the reverse-proxy examples), node (the web client's unit tests) and python3-venv
# (the virtual environment of the command itself). Debian or Ubuntu: apt-get, through
# sudo when not root. Whatever is present is left alone; with nothing missing this
# prints nothing and changes nothing.
set -eu
need=""
command -v redis-server >/dev/null 2>&1 || need="$need redis-server"
command -v redis-cli >/dev/null 2>&1 || need="$need redis-tools"
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v nginx >/dev/null 2>&1 || need="$need nginx-light"
command -v caddy >/dev/null 2>&1 || need="$need caddy"
command -v node >/dev/null 2>&1 || need="$need nodejs"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need="$need python3-venv"
[ -n "$need" ] || exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "tests/setup.sh: missing:$need; install them with your package manager" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "tests/setup.sh: missing:$need; run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
echo "tests/setup.sh: installing$need"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
