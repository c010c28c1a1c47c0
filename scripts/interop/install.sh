#!/usr/bin/env bash
# Installs what the interop tests (package interop) and the KafkaJS example
# (examples/node) need on a fresh Debian machine, and nothing when it is
# already there:
#   - kcat, Debian's build of librdkafka's command-line client (the
#     librdkafka members of the cooperative-sticky tests);
#   - the example's npm dependencies, exactly as package-lock.json pins
#     them (npm ci).
# Node.js and npm come with the machine. Run from anywhere; needs root for
# apt-get when kcat is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

if ! command -v kcat >/dev/null 2>&1; then
	echo "interop: installing kcat" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq kcat >/dev/null
fi
kcat -V | sed -n 's/^Version /interop: kcat /p' >&2

if ! command -v npm >/dev/null 2>&1; then
	echo "interop: npm is missing; install Node.js 18 or later" >&2
	exit 1
fi
echo "interop: node $(node --version), npm ci in examples/node" >&2
npm ci --prefix "$root/examples/node" --no-audit --no-fund --loglevel=error
