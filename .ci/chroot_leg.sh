#!/usr/bin/env bash
# One more Python for CI: a Debian root made with debootstrap (trixie: Python 3.13; sid: Python 3.14), the project
# installed there with '.[dev]' only (no framework) and the fast suite run in it, so CI proves the suite passes on
# that Python and where no framework is installed.
#
#   .ci/chroot_leg.sh make SUITE   debootstrap the root (kept in $CHROOT_BASE/SUITE and reused on this machine)
#   .ci/chroot_leg.sh test SUITE   copy this checkout in, pip install '.[dev]', python -m pytest -m "not slow" -q
#
# Needs root and debootstrap (CI installs it with apt). Elsewhere it says so and exits 0: the leg is skipped.
# Measured on Debian 12 with 2 cores: make trixie ~2 min (download), test ~2 min (pip 30 s, suite ~90 s).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?make or test}; suite=${2:?a Debian suite: trixie or sid}
base=${CHROOT_BASE:-/var/tmp/gpudoctor-ci}
root="$base/$suite"
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" != 0 ]; then
  echo "SKIPPED the $suite leg: making and entering a chroot needs root (run .ci/run as root)"; exit 0
fi
if ! command -v debootstrap >/dev/null; then
  echo "SKIPPED the $suite leg: debootstrap is not installed (apt-get install debootstrap)"; exit 0
fi

case "$action" in
make)
  if [ -x "$root/usr/bin/python3" ] && [ -f "$root/.gpudoctor-ci-complete" ]; then
    echo "$suite root already made at $root"; exit 0
  fi
  rm -rf "$root"; mkdir -p "$base"
  debootstrap --variant=minbase --include=python3,python3-venv "$suite" "$root" "$mirror" >"$base/$suite.log" 2>&1 \
    || { echo "debootstrap $suite failed; the end of $base/$suite.log:"; tail -20 "$base/$suite.log"; exit 1; }
  touch "$root/.gpudoctor-ci-complete"
  ;;
test)
  [ -f "$root/.gpudoctor-ci-complete" ] || { echo "no $suite root at $root: run '$0 make $suite' first"; exit 1; }
  # What pip needs to reach the package index from inside: name resolution, and this machine's CA bundle (a
  # TLS-inspecting proxy's CA is in the host's bundle, not in the new root's), and pip's own configuration.
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || true
  [ -f /etc/pip.conf ] && cp -L /etc/pip.conf "$root/etc/pip.conf"
  [ -d /etc/xdg/pip ] && mkdir -p "$root/etc/xdg" && cp -rL /etc/xdg/pip "$root/etc/xdg/"
  mounted=()
  cleanup() { for ((i=${#mounted[@]}-1; i>=0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done; }
  trap cleanup EXIT
  for m in proc dev dev/pts; do
    mountpoint -q "$root/$m" && continue
    case $m in
      proc) mount -t proc proc "$root/proc" ;;
      dev) mount --bind /dev "$root/dev" ;;
      dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;  # the colour test opens a pseudo-terminal
    esac
    mounted+=("$root/$m")
  done
  rm -rf "$root/src" "$root/venv"; mkdir -p "$root/src"
  tar --exclude=./.git --exclude=./.venv --exclude='*.egg-info' --exclude=./build --exclude=./.hypothesis \
      --exclude=__pycache__ -cf - . | tar -xf - -C "$root/src"
  passthrough=()
  while IFS= read -r line; do passthrough+=("$line"); done < <(env | grep -E '^(PIP_[A-Z_]+|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' || true)
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 NO_COLOR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "${passthrough[@]}" /bin/sh -ec '
    cd /src
    echo "$(python3 --version) in Debian $(cat /etc/debian_version)"
    python3 -m venv /venv
    /venv/bin/pip install -q ".[dev]"
    /venv/bin/python -m pytest -n auto -m "not slow" -q -p no:cacheprovider'
  ;;
*) echo "usage: $0 make|test SUITE" >&2; exit 2 ;;
esac
