#!/bin/sh
# The image's install steps: market-images .deb files installed with apt, which fetches their
# dependencies (a dependency the package forgot to declare fails here, not at run time), apt's lists
# dropped, and the cache folder made for the service's user (uid 10001). The Containerfile runs it,
# and so does scripts/check-install on a minimal Debian made by debootstrap, so the image's install is
# the one that is tested.
# Usage: install.sh PATH.deb...
set -eu
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
rm -rf /var/lib/apt/lists/*
mkdir -p /var/cache/market-images
chown 10001:10001 /var/cache/market-images
market-images --version
