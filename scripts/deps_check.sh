#!/usr/bin/env bash
# Checks the direction of the module's imports, so that the architecture
# the folders show stays true:
#
#   - the API (proto/...) does not depend on the engine (assign/...): a
#     program that only calls the service compiles none of it;
#   - the base client does not depend on the engine either (the shims do,
#     for their local fallback);
#   - the engine (assign/...) is pure: no gRPC, no protobuf, no API, no
#     server, no client;
#   - internal/ (helpers shared by the server and the clients) stands below
#     both, and the test benches (testbed/) above them: no package but a
#     command imports a bench;
#   - assignctl and the public client packages do not depend on the service
#     (package server, with its telemetry and middleware); nor does the
#     policy layer (server/policy implements the seam in server/selection).
#
# Prints every violation with the import path that causes it; exits 1 if
# there is one.
set -uo pipefail

cd "$(dirname "$0")/.."

mod=$(go list -m)
rc=0

# forbid PATTERN REGEX WHY: no package matching PATTERN may depend on a
# package matching REGEX (an extended regular expression on import paths).
# A violation is shown as the shortest chain of imports that causes it.
forbid() {
	local pattern=$1 regex=$2 why=$3 pkg chain
	for pkg in $(go list "$pattern"); do
		chain=$(go list -deps -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' "$pkg" | awk -v from="$pkg" -v re="$regex" '
			{ edges[$1] = substr($0, length($1) + 2) }
			END {
				queue[0] = from; seen[from] = 1; head = 0; tail = 1
				while (head < tail) {
					p = queue[head++]
					if (p ~ re) {
						path = p
						for (q = p; q in parent; q = parent[q]) path = parent[q] " -> " path
						print path
						exit
					}
					n = split(edges[p], next_, " ")
					for (i = 1; i <= n; i++) if (!(next_[i] in seen)) { seen[next_[i]] = 1; parent[next_[i]] = p; queue[tail++] = next_[i] }
				}
			}')
		if [ -n "$chain" ]; then
			echo "$why: $chain"
			rc=1
		fi
	done
}

engine="^${mod}/assign(/|$)"
service="^${mod}/server$"

forbid "./proto/..." "$engine" "the API must not import the engine"
forbid "./client" "$engine" "the base client must not import the engine"
forbid "./assign/..." "^(google\.golang\.org/(grpc|protobuf)|${mod}/(proto|server|client|internal))(/|$)" "the engine is pure"
forbid "./cmd/assignctl" "$service" "the CLI must not compile the service"
forbid "./server/policy" "$service" "the policy layer implements server/selection, not server"

# No client package depends on the server side: test benches that run an
# assignd in-process live under testbed/, above both.
for pkg in $(go list ./client/...); do
	forbid "$pkg" "^${mod}/server(/|$)" "client packages must not import the server"
done

# internal/ holds helpers shared by the server and the clients: it stands
# below both, so none of it imports them (or a test bench).
forbid "./internal/..." "^${mod}/(server|client|testbed|cmd)(/|$)" "internal helpers stand below the server and the clients"

# The test benches are for tests and tools: no server, client or engine
# package compiles them.
for dir in assign client server internal proto; do
	forbid "./${dir}/..." "^${mod}/testbed(/|$)" "only tests and cmd/ may use the test benches"
done

if [ $rc -eq 0 ]; then
	echo "import directions ok"
fi
exit $rc
