#!/usr/bin/env bash
# Builds the assignd container image offline and proves it serves: a
# static binary built here goes into the Containerfile's prebuilt path
# (FROM scratch, so nothing is pulled), podman runs the image, and the
# check reads /readyz, sends one Assign through assignctl, checks the user
# (65532) and `assignd --version`, then stops the container with SIGTERM
# and expects a clean exit.
#
# Needs podman and runc (Debian's packages; scripts/test.sh installs them)
# and root, or a user podman can run rootless containers for. Everything
# podman keeps (images, containers, its configuration) lives in a temporary
# directory removed at the end, so the machine's own podman setup is
# neither used nor changed.
#
# Environment:
#   ASSIGND_CONTAINER_PORT  first of two free TCP ports on 127.0.0.1 for the
#                           container (default: picked at random)
set -uo pipefail

cd "$(dirname "$0")/.."

for tool in podman runc go; do
	command -v "$tool" >/dev/null || {
		echo "container-test: $tool not found" >&2
		exit 1
	}
done

work=$(mktemp -d)
name="assignd-container-test-$$"
image="localhost/assignd-container-test:$$"
cleanup() {
	if [ -n "${podman_ready:-}" ]; then
		pm rm -f -t 0 "$name" >/dev/null 2>&1
		pm rmi -f "$image" >/dev/null 2>&1
	fi
	# vfs layers can hold read-only directories (for a user who is not root).
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# podman's configuration for this run: runc (crun is not installed), no
# default ulimits (raising them fails inside an unprivileged container),
# cgroupfs (no systemd here), events and logs in files (no journald).
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = []
log_driver = "k8s-file"

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
CONF
export CONTAINERS_CONF="$work/containers.conf"
# An empty registries.conf: the build and run never reach a registry.
: >"$work/registries.conf"
export CONTAINERS_REGISTRIES_CONF="$work/registries.conf"
# vfs works on any file system, including an overlay this script may itself
# run on; the image is one layer of a few MiB, so its copies cost nothing.
pm() {
	podman --root "$work/storage" --runroot "$work/run" --storage-driver vfs \
		--tmpdir "$work/tmp" --runtime runc --cgroup-manager cgroupfs --events-backend file "$@"
}
mkdir -p "$work/tmp"
podman_ready=1

fail() {
	echo "container-test: $*" >&2
	echo "--- container log" >&2
	pm logs "$name" >&2 2>&1 | tail -n 40 >&2
	exit 1
}

# The static binary, stamped like a release, and assignctl for the host.
version="container-test"
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
ctx="$work/context"
mkdir -p "$ctx" "$work/bin"
# No -trimpath (the Containerfile has it): this way the build reuses most
# of what the Go build cache holds from the other steps.
CGO_ENABLED=0 go build -buildvcs=false \
	-ldflags "-s -w -X github.com/assignd/assignd/internal/buildinfo.version=$version -X github.com/assignd/assignd/internal/buildinfo.revision=$revision" \
	-o "$ctx/assignd" ./cmd/assignd || exit 1
go build -o "$work/bin/assignctl" ./cmd/assignctl || exit 1
ca=""
for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
	[ -f "$f" ] && ca=$f && break
done
[ -n "$ca" ] || {
	echo "container-test: no CA bundle on this machine (Debian: apt-get install ca-certificates)" >&2
	exit 1
}
cp "$ca" "$ctx/ca-certificates.crt"
echo 'nonroot:x:65532:65532:nonroot:/:/sbin/nologin' >"$ctx/passwd"

start=$SECONDS
pm build -q --build-arg FROM_STAGE=prebuilt --build-arg VERSION="$version" --build-arg REVISION="$revision" \
	-f Containerfile -t "$image" "$ctx" >/dev/null || exit 1
echo "image built in $((SECONDS - start))s"

# Labels and user, from the image's configuration.
labels=$(pm image inspect --format '{{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.revision"}} {{.Config.User}}' "$image") || exit 1
[ "$labels" = "$version $revision 65532:65532" ] || {
	echo "container-test: image labels and user: got \"$labels\", want \"$version $revision 65532:65532\"" >&2
	exit 1
}

# --version from the image itself.
out=$(pm run --rm --network host "$image" --version) || exit 1
case "$out" in
"assignd $version (revision $revision,"*) echo "$out" ;;
*) echo "container-test: --version printed \"$out\"" >&2 && exit 1 ;;
esac

# Two free ports on the host (the container shares its network).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)); }
grpc_port=${ASSIGND_CONTAINER_PORT:-$(free_port)}
http_port=$((grpc_port + 1))
[ -n "${ASSIGND_CONTAINER_PORT:-}" ] || http_port=$(free_port)

pm run -d --name "$name" --network host \
	-e ASSIGND_LISTEN="127.0.0.1:$grpc_port" -e ASSIGND_METRICS_LISTEN="127.0.0.1:$http_port" \
	-e ASSIGND_LOG_FORMAT=json "$image" >/dev/null || exit 1

ready=""
for _ in $(seq 1 100); do
	if [ "$(pm inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" != true ]; then
		fail "the container stopped before it was ready"
	fi
	if curl -fsS "http://127.0.0.1:$http_port/readyz" >/dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.1
done
[ -n "$ready" ] || fail "/readyz did not answer 200 within 10 s"
echo "/readyz: 200"

uid=$(pm top "$name" user 2>/dev/null | tail -n 1 | tr -d ' ')
pid_uid=$(pm inspect --format '{{.State.Pid}}' "$name" | xargs -I{} awk '/^Uid:/ {print $2}' /proc/{}/status 2>/dev/null)
[ "${pid_uid:-$uid}" = 65532 ] || fail "assignd runs as uid ${pid_uid:-$uid}, want 65532"
echo "user: 65532"

"$work/bin/assignctl" assign -f examples/range-racks.json --addr "127.0.0.1:$grpc_port" --timeout 10s || fail "Assign through assignctl failed"

pm stop -t 20 "$name" >/dev/null || fail "podman stop failed"
code=$(pm inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "assignd exited with $code after SIGTERM, want 0"
pm logs "$name" 2>&1 | grep -q '"msg":"stopped"' || fail "no \"stopped\" line in the log after SIGTERM"
echo "stopped cleanly (exit 0) after $((SECONDS - start))s in all"
