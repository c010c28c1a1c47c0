#!/usr/bin/env bash
# Builds release archives of assignd and assignctl for linux and darwin,
# amd64 and arm64, stamped with the version and revision, and their
# SHA-256 checksums:
#
#   scripts/release.sh v0.4.0            # into dist/
#   DIST=/tmp/out scripts/release.sh v0.4.0
#
# Each archive, assignd_VERSION_OS_ARCH.tar.gz, holds both binaries
# (static: CGO off), README.md and docs/deploy.md; dist/SHA256SUMS lists
# every archive (check with: cd dist && sha256sum -c SHA256SUMS).
set -euo pipefail

cd "$(dirname "$0")/.."

version=${1:?usage: scripts/release.sh VERSION (e.g. v0.4.0)}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dist=${DIST:-dist}
pkg=github.com/assignd/assignd/internal/buildinfo
ldflags="-s -w -X $pkg.version=$version -X $pkg.revision=$revision"

rm -rf "$dist"
mkdir -p "$dist"
for os in linux darwin; do
	for arch in amd64 arm64; do
		name="assignd_${version}_${os}_${arch}"
		dir="$dist/$name"
		mkdir -p "$dir"
		for cmd in assignd assignctl; do
			CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$dir/$cmd" "./cmd/$cmd"
		done
		cp README.md "$dir/"
		mkdir -p "$dir/docs" && cp docs/deploy.md "$dir/docs/"
		# Reproducible archives: fixed owner, order and times.
		tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' -C "$dist" -czf "$dist/$name.tar.gz" "$name"
		rm -rf "$dir"
		echo "built $dist/$name.tar.gz"
	done
done
(cd "$dist" && sha256sum -- *.tar.gz >SHA256SUMS)
cat "$dist/SHA256SUMS"
