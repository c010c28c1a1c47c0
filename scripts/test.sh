#!/usr/bin/env bash
# The whole assignd test suite, runnable on a fresh machine: it installs
# what it needs, then runs go vet, the Go tests (with the race detector on
# the packages with concurrency), the Java assignors' tests (client/java,
# Maven, on a real assignd and a real Kafka broker), the Python assignors' tests
# (client/python, pytest in a venv of pinned packages), the lint checks (gofmt,
# staticcheck, the import directions of scripts/deps_check.sh, the relative
# links of README.md and docs/), and the API
# checks: buf lint, buf format, the generated-code drift check and buf
# breaking against every earlier committed version of the API, and the
# deployment checks: the container image built and served with podman, the
# Kubernetes manifests validated. CI runs exactly this (.ci/run).
#
# Every step runs even if an earlier one failed; the script ends with a
# summary and exits non-zero if any step failed.
#
# Environment:
#   GO_TEST_FLAGS   extra flags for every go test run; default: none, or
#                   -count=1 under CI (CI=true), so that CI never reports
#                   results cached from an earlier run on the same machine
#   SKIP_INSTALL=1  skip the install steps (a developer machine that has them)
set -uo pipefail

cd "$(dirname "$0")/.."

if [ -z "${GO_TEST_FLAGS+set}" ] && [ "${CI:-}" = true ]; then
	GO_TEST_FLAGS=-count=1
fi

failed=()
step() {
	local name=$1
	shift
	echo
	echo "==> ${name}"
	local start=$SECONDS
	if "$@"; then
		echo "--- ${name}: ok ($((SECONDS - start))s)"
	else
		echo "--- ${name}: FAILED ($((SECONDS - start))s)"
		failed+=("${name}")
	fi
}

# ---------------------------------------------------------------------------
# Installs. Later additions go in the marked places.
# ---------------------------------------------------------------------------

# System packages (Debian). Add package names to APT_PACKAGES, e.g. kcat.
# kcat brings librdkafka (Debian's 2.0), whose consumers the interop tests
# run as members of cooperative-sticky groups.
APT_PACKAGES=(kcat)
# JDK 17 and Maven 3.8 for client/java (the Java assignors) and the broker jars.
APT_PACKAGES+=(openjdk-17-jdk-headless maven)
# podman and runc build and run the container image offline
# (scripts/container-test.sh); curl asks it for /readyz.
APT_PACKAGES+=(podman runc curl ca-certificates)
# Python 3.11 and its venv module, for client/python's virtual environment.
APT_PACKAGES+=(python3.11 python3.11-venv)
# Prometheus, for promtool: it checks and unit-tests the alert rules in
# deploy/prometheus. Only promtool runs; the package's service is not
# started in a container without an init system (policy-rc.d denies it).
APT_PACKAGES+=(prometheus)
# Chromium loads the observatory console headless (testbed/consoletest);
# under CI=true the test fails when it is missing.
APT_PACKAGES+=(chromium)
install_apt() {
	[ ${#APT_PACKAGES[@]} -eq 0 ] && return 0
	local missing=()
	for p in "${APT_PACKAGES[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# npm projects: add directories holding a package.json to NPM_DIRS; each gets
# `npm ci` (or `npm install` without a lockfile).
NPM_DIRS=(examples/node) # the KafkaJS assigner (interop tests run it)
install_npm() {
	for d in "${NPM_DIRS[@]}"; do
		if [ -f "$d/package-lock.json" ]; then
			(cd "$d" && npm ci --no-audit --no-fund) || return 1
		else
			(cd "$d" && npm install --no-audit --no-fund) || return 1
		fi
	done
}

# Go modules, and the tools pinned in tools/go.mod (buf, protoc-gen-go,
# protoc-gen-go-grpc, staticcheck), built once into Go's build cache.
install_go() {
	go mod download &&
		go mod download -modfile=tools/go.mod &&
		go tool -modfile=tools/go.mod buf --version >/dev/null &&
		go tool -modfile=tools/go.mod -n protoc-gen-go >/dev/null &&
		go tool -modfile=tools/go.mod -n protoc-gen-go-grpc >/dev/null &&
		go tool -modfile=tools/go.mod -n staticcheck >/dev/null &&
		go tool -modfile=tools/go.mod -n gotestsum >/dev/null &&
		(cd deploy/kubernetes/validate && go mod download)
}

buf() { go tool -modfile=tools/go.mod buf "$@"; }

# client/java (the parent of the Java modules): their dependencies, Maven
# plugins and the protoc and protoc-gen-grpc-java executables (all pinned in
# client/java/pom.xml), fetched from Maven Central into Maven's local
# repository by building every module once without its tests.
install_maven() {
	mvn -B -q -ntp -f client/java/pom.xml -DskipTests verify
}

# The real Apache Kafka broker (testbed/kafkabroker): its jars, pinned in
# tools/kafka/pom.xml, fetched by Maven into .cache/kafka/lib (skipped
# when up to date), and the testbroker command that runs it for suites not
# written in Go.
install_kafka() {
	scripts/kafka-jars.sh && build_testbroker
}
build_testbroker() { go build -o .cache/bin/testbroker ./testbed/cmd/testbroker; }

# client/python: a virtual environment made by python3.11 with exactly the
# packages pinned in client/python/requirements.txt, and the assignd package
# installed editable (its gRPC stubs are generated from proto/ by
# grpcio-tools at install time, see client/python/setup.py). Skipped when
# the requirements, the build files and the .proto files are unchanged since
# the last install.
PY_VENV=.cache/python/venv
py_stamp() {
	cat client/python/requirements.txt client/python/pyproject.toml client/python/setup.py proto/assignd/v1/*.proto | sha256sum | cut -d' ' -f1
}
install_python() {
	local want
	want=$(py_stamp)
	if [ -x "$PY_VENV/bin/python" ] && [ "$(cat "$PY_VENV/.assignd-stamp" 2>/dev/null)" = "$want" ] &&
		[ -f client/python/src/assignd/v1/assignment_pb2_grpc.py ]; then
		echo "up to date: $PY_VENV"
		return 0
	fi
	rm -rf "$PY_VENV"
	python3.11 -m venv "$PY_VENV" &&
		"$PY_VENV/bin/pip" install -q --disable-pip-version-check -r client/python/requirements.txt &&
		"$PY_VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps -e client/python &&
		echo "$want" >"$PY_VENV/.assignd-stamp"
}

if [ "${SKIP_INSTALL:-}" != 1 ]; then
	step "install: apt packages" install_apt
	step "install: npm packages" install_npm
	step "install: Go modules, buf and the manifests' checker" install_go
	step "install: Kafka broker jars" install_kafka
	step "install: Maven packages (client/java)" install_maven
	step "install: Python venv (client/python)" install_python
fi

# ---------------------------------------------------------------------------
# A real Kafka broker for the suites not written in Go. A step calls
# broker_up before its tests (it exports KAFKA_BOOTSTRAP=host:port) and
# broker_down after them; broker_log prints the end of the broker's log.
# The broker also stops when this script exits, however it exits.
# ---------------------------------------------------------------------------

KAFKA_RUN_DIR=.cache/kafka/run
broker_up() {
	[ -x .cache/bin/testbroker ] || build_testbroker || return 1
	KAFKA_BOOTSTRAP=$(.cache/bin/testbroker up -watch $$ "$KAFKA_RUN_DIR") || return 1
	export KAFKA_BOOTSTRAP
	echo "Kafka broker at $KAFKA_BOOTSTRAP"
}
broker_down() {
	unset KAFKA_BOOTSTRAP
	[ -f "$KAFKA_RUN_DIR/pid" ] || return 0
	.cache/bin/testbroker down "$KAFKA_RUN_DIR"
}
broker_log() { tail -n "${1:-100}" "$KAFKA_RUN_DIR/broker/broker.log"; }
trap broker_down EXIT

# ---------------------------------------------------------------------------
# Go
# ---------------------------------------------------------------------------

# Packages with concurrency run under the race detector; the rest without
# (it slows the engine's property tests several-fold for nothing).
RACE_DIRS=(server client)
race_pkgs=()
for d in "${RACE_DIRS[@]}"; do
	[ -d "$d" ] && race_pkgs+=("./$d/...")
done

# go_test_rerun PKGS ARGS... runs go test through gotestsum (pinned in
# tools/go.mod), which runs a failed test once more and passes only if it
# then passes; both outcomes stay in the output ("=== Failed"). It is for
# the steps whose end-to-end tests drive third-party clients (kafka-python,
# librdkafka, KafkaJS) and brokers on a shared 2-core machine; with more
# than three failures nothing is rerun.
go_test_rerun() {
	local pkgs=$1
	shift
	# shellcheck disable=SC2086
	go tool -modfile=tools/go.mod gotestsum --format standard-quiet --rerun-fails=1 \
		--rerun-fails-max-failures=3 --packages "$pkgs" -- ${GO_TEST_FLAGS:-} "$@"
}
go_test_rest() {
	local pkgs
	pkgs=$(go list ./... | grep -v -E "^github.com/assignd/assignd/($(IFS='|'; echo "${RACE_DIRS[*]}"))(/|$)")
	go_test_rerun "$(echo $pkgs)" -timeout 30m
}
# The race step reruns a failed test once, as go_test_rerun does, unless
# the race detector reported anything: a race fails the step even when
# the rerun passes. A race report is long and the step's tail shows only
# its end, so the step then prints each report's first lines (both
# accesses and the goroutines' origins) again, last.
go_test_race() {
	[ ${#race_pkgs[@]} -eq 0 ] && return 0
	local json rc=0
	json=$(mktemp)
	# shellcheck disable=SC2086
	go tool -modfile=tools/go.mod gotestsum --format standard-quiet --jsonfile "$json" --rerun-fails=1 \
		--rerun-fails-max-failures=3 --packages "${race_pkgs[*]}" -- ${GO_TEST_FLAGS:-} -race -timeout 30m || rc=$?
	if grep -q 'WARNING: DATA RACE' "$json"; then
		echo "--- the race reports, again:"
		python3 -c 'import json, sys
for line in open(sys.argv[1]):
    try:
        sys.stdout.write(json.loads(line).get("Output", ""))
    except ValueError:
        pass' "$json" |
			awk '/WARNING: DATA RACE/{n=0; on=1; r++} on && r<=3 && n<60 {print; n++} /^==================$/ && n>1 {on=0}'
		rc=1
	fi
	rm -f "$json"
	return "$rc"
}
# The client's large-group tests (a 1,000,000-partition group through the
# shim, the bounded fallback) skip under the race detector, which makes them
# take minutes and adds nothing to them; they run here without it.
go_test_large() {
	# shellcheck disable=SC2086
	go test ${GO_TEST_FLAGS:-} -timeout 10m -run '^(TestLarge|TestFallbackIsBounded)' ./client/...
}

# The interop tests (KafkaJS and librdkafka members) skip when node, the
# example's npm packages or kcat are missing; when this script installed
# them, a missing one is a failure.
if [ "${SKIP_INSTALL:-}" != 1 ]; then
	export ASSIGND_INTEROP=require
fi
# The interop tests run kafka-python consumers with this interpreter (the
# venv install_python made); unset, they look for .cache/python/venv.
ASSIGND_PYTHON=$(pwd)/$PY_VENV/bin/python
export ASSIGND_PYTHON
# The console's screenshots from headless Chromium (testbed/consoletest)
# are kept here as test output (git-ignored).
ASSIGND_SCREENSHOTS=${ASSIGND_SCREENSHOTS:-$(pwd)/.cache/screenshots}
export ASSIGND_SCREENSHOTS

# gofmt on every tracked Go file (or, outside git, every Go file not under
# node_modules): lists the files that need `gofmt -w`.
gofmt_check() {
	local files unformatted
	if git rev-parse --git-dir >/dev/null 2>&1; then
		files=$(git ls-files '*.go')
	else
		files=$(find . -name '*.go' -not -path '*/node_modules/*')
	fi
	# shellcheck disable=SC2086
	unformatted=$(gofmt -l $files)
	if [ -n "$unformatted" ]; then
		echo "not gofmt-ed (run: gofmt -w FILE):"
		echo "$unformatted"
		return 1
	fi
}

step "gofmt" gofmt_check
step "go vet" go vet ./...
step "staticcheck" go tool -modfile=tools/go.mod staticcheck ./...
step "import directions" ./scripts/deps_check.sh
step "Markdown links" ./scripts/links_check.sh
step "node test (examples/node)" npm test --prefix examples/node
step "go test" go_test_rest
step "go test -race (${race_pkgs[*]})" go_test_race
step "go test, large groups (client, no race)" go_test_large

# The core end-to-end scenarios again, on a real Apache Kafka 4.x broker
# instead of kfake (ASSIGND_BROKER=kafka; docs/brokers.md): steady, rolling
# restart, scale out and in with a crash, a static member's crash, eager
# sticky (sarama), librdkafka members (kcat), kafka-python leaders and members
# and confluent-kafka members (client/python's venv), and the broker helper's
# own tests. Each test binary starts one broker (~10 s) and shares it between
# its tests; the packages run one at a time, so one broker runs at a time.
KAFKA_E2E_PKGS=(./testbed/kafkabroker ./testbed/cmd/testbroker ./client/kgoassign ./client/saramaassign ./interop)
KAFKA_E2E_RUN='^(TestBrokerServesAndStops|TestUpDown|TestE2ESteadyGroup|TestE2ERollingRestart|TestE2EScaleOutInAndKill|TestE2EStaticMemberCrash|TestE2ESticky|TestLibrdkafka.*|TestKafkaPython.*|TestConfluentKafka.*)$'
go_test_kafka() {
	# shellcheck disable=SC2086
	ASSIGND_BROKER=kafka go_test_rerun "${KAFKA_E2E_PKGS[*]}" -p 1 -timeout 15m -run "$KAFKA_E2E_RUN"
}
step "go test e2e on Kafka" go_test_kafka

# The fault tests (testbed/faults; docs/operations.md, "Faults on a Kafka
# cluster"): three KRaft nodes, three assignd replicas sharing the history
# topic, and consumer groups on assignd beside groups on franz-go's own
# cooperative-sticky; a slow link to one replica, a replica killed in a
# storm, the groups' coordinator killed in a rebalance. Its cluster starts
# after the step above has stopped its broker: one cluster at a time. The
# cluster helper's own test (a node lost, nothing acknowledged lost) runs
# here too. Verbose, so that the figures each fault logs are in the step's
# output; a failed test is rerun once, as go_test_rerun does.
go_test_faults() {
	# shellcheck disable=SC2086
	ASSIGND_BROKER=kafka go tool -modfile=tools/go.mod gotestsum --format standard-verbose --rerun-fails=1 \
		--rerun-fails-max-failures=1 --packages "./testbed/kafkabroker ./testbed/faults" -- ${GO_TEST_FLAGS:-} \
		-p 1 -timeout 10m -run '^(TestClusterLosesANode|TestFaults)$'
}
step "fault tests on a Kafka cluster" go_test_faults

# ---------------------------------------------------------------------------
# Deployment: the container image, built offline from a static binary and
# run with podman (/readyz, one Assign through assignctl, user 65532,
# --version, a clean stop); the Kubernetes manifests, built with kustomize
# and checked against the API types and assignd's flags, in a module of
# their own (deploy/kubernetes/validate) that keeps the Kubernetes
# libraries out of assignd's. docs/deploy.md.
# ---------------------------------------------------------------------------

step "container image (podman)" scripts/container-test.sh
# shellcheck disable=SC2086
step "kubernetes manifests" bash -c "cd deploy/kubernetes/validate && go test ${GO_TEST_FLAGS:-} ./..."
# The alert rules: promtool checks them and runs their unit tests (each
# alert fires when it should, and not on the nearby cases). The metric
# names they and the Grafana dashboard read are checked against a live
# assignd by cmd/assignd's TestOpsPackMetricsExist (go test above).
promtool_rules() {
	promtool check rules deploy/prometheus/assignd-rules.yaml &&
		promtool test rules deploy/prometheus/assignd-rules.test.yaml
}
step "alert rules (promtool)" promtool_rules

# ---------------------------------------------------------------------------
# Java (client/java/kafka-clients): the assignd assignors for kafka-clients, their JUnit
# tests against a real assignd (built here), kafka-clients' own Range and
# RoundRobin assignor tests run on them, and the end-to-end test of a mixed
# group (Java on assignd, Java built-in, franz-go through kgoassign) on the
# real broker.
# ---------------------------------------------------------------------------

java_test() {
	local bin rc=0
	bin=$(mktemp -d)
	# A broker directory left by an earlier run cannot be formatted again.
	rm -rf "$KAFKA_RUN_DIR/broker"
	go build -o "$bin/assignd" ./cmd/assignd &&
		go build -o "$bin/kgomember" ./testbed/cmd/kgomember &&
		broker_up || {
		rm -rf "$bin"
		return 1
	}
	(cd client/java && mvn -B -ntp -pl kafka-clients -am test -Dassignd.binary="$bin/assignd" \
		-Dassignd.kgomember="$bin/kgomember") || rc=1
	[ $rc -ne 0 ] && broker_log 50
	broker_down
	rm -rf "$bin"
	return $rc
}

step "java (client/java, mvn test)" java_test

# The KIP-848 broker plugin (client/java/broker-plugin, docs/kip848-plugin.md):
# its unit tests against a real assignd, then (failsafe, after packaging)
# the real-broker tests, which start their own Kafka broker through
# testbroker with the packaged jar and its lib/ on the broker's classpath:
# fresh broker starts (the first target is assignd's, within the
# deadline), the mixed fleet (kgomember) and the online migration. They run
# on the oldest broker supported (the pinned one) and again on the newest
# (tools/kafka/pom.xml's kafka.newest.version), compiled against it and
# with src/main-newest and src/test-newest added: the Streams and share
# group assignors and their tests, which the oldest broker's API lacks
# (the share plugin's unit tests, its oracle against SimpleAssignor and
# ShareGroupIT add about 1.5 minutes there).
# About 9 minutes on 2 busy cores; it prints the latency assignd adds per
# assignment, the migration's moves and the share oracle's figures.
kip848_plugin_test() {
	local bin rc=0 newest=$PWD/.cache/kafka/lib-newest
	bin=$(mktemp -d)
	go build -o "$bin/assignd" ./cmd/assignd && go build -o "$bin/testbroker" ./testbed/cmd/testbroker &&
		go build -o "$bin/kgomember" ./testbed/cmd/kgomember || {
		rm -rf "$bin"
		return 1
	}
	# The venv's python runs the librdkafka member of the mixed-client group (confluent-kafka).
	local bins=(-Dassignd.binary="$bin/assignd" -Dassignd.testbroker="$bin/testbroker" -Dassignd.kgomember="$bin/kgomember"
		-Dassignd.python="$PWD/$PY_VENV/bin/python")
	plugin_verify "oldest broker" mvn -B -ntp -pl broker-plugin -am verify "${bins[@]}" || rc=1
	if [ $rc -eq 0 ]; then
		# -Dkafka.newest.version turns on the plugin's kafka-newest profile:
		# it compiles against that broker and adds the Streams and share
		# group sources (docs/streams-share.md).
		local version
		version=$(sed -n 's:.*<kafka.newest.version>\(.*\)</kafka.newest.version>.*:\1:p' tools/kafka/pom.xml)
		ASSIGND_KAFKA_VERSION=newest ASSIGND_KAFKA_LIB="$newest" scripts/kafka-jars.sh &&
			ASSIGND_KAFKA_LIB="$newest" plugin_verify "newest broker" mvn -B -ntp -pl broker-plugin -am verify "${bins[@]}" \
				-Dkafka.newest.version="$version" || rc=1
	fi
	rm -rf "$bin"
	return $rc
}

# plugin_verify WHAT MVN... runs a Maven build in client/java, and once
# more, on a fresh broker, when it fails, as go_test_rerun does for the Go
# end-to-end steps: the plugin's real-broker tests hold every call to its
# deadline on a shared 2-core machine, where one stalled call can fail a
# run. It passes only if the second run passes; both stay in the output.
plugin_verify() {
	local what=$1
	shift
	(cd client/java && "$@") && return 0
	echo "--- the plugin's tests on the ${what} failed; running them once more"
	(cd client/java && "$@")
}

step "java: KIP-848 broker plugin (client/java/broker-plugin, mvn verify)" kip848_plugin_test

# ---------------------------------------------------------------------------
# The Java assignors as the conformance oracle (interop/java-oracle)
# ---------------------------------------------------------------------------

# Builds assignd, then runs the oracle's JUnit tests with Maven: kafka-clients'
# assignors in-process against the real binary over gRPC, on random groups
# (ORACLE_SEEDS per assignor, default 200) and on Kafka's own assignor tests,
# and the broker's KIP-848 assignors and Streams task assignor (200 chains,
# StreamsOracleTest) beside assignd's (docs/java-oracle.md). Maven fetches what the module pins; the reports land
# in interop/java-oracle/target/oracle/.
java_oracle() {
	local tmp rc
	tmp=$(mktemp -d)
	if ! go build -o "$tmp/assignd" ./cmd/assignd; then
		rm -rf "$tmp"
		return 1
	fi
	(cd interop/java-oracle && mvn -B -q test -Dassignd.binary="$tmp/assignd" -Doracle.seeds="${ORACLE_SEEDS:-200}")
	rc=$?
	rm -rf "$tmp"
	return $rc
}

step "java oracle" java_oracle

# ---------------------------------------------------------------------------
# Python (client/python): the kafka-python assignors' pytest suite against a
# real assignd built here. pytest exits 5 when it collected no test: that
# is a failure too (it never exits 0 then).
# ---------------------------------------------------------------------------

python_test() {
	local bin rc=0
	[ -x "$PY_VENV/bin/python" ] || {
		echo "no venv at $PY_VENV (run without SKIP_INSTALL=1 once)"
		return 1
	}
	bin=$(mktemp -d)
	go build -o "$bin/assignd" ./cmd/assignd || {
		rm -rf "$bin"
		return 1
	}
	(cd client/python && ASSIGND_BINARY="$bin/assignd" "../../$PY_VENV/bin/python" -m pytest -q) || rc=$?
	rm -rf "$bin"
	[ $rc -eq 5 ] && echo "pytest collected no tests"
	return $rc
}

step "python (client/python, pytest)" python_test

# ---------------------------------------------------------------------------
# The API contract (proto/)
# ---------------------------------------------------------------------------

# Regenerates into a scratch directory and compares with the committed
# files, so it also works in a tree with uncommitted changes and catches
# generated files that are missing or no longer generated.
drift_check() {
	local tmp rc=0
	tmp=$(mktemp -d)
	if ! buf generate -o "$tmp"; then
		rm -rf "$tmp"
		return 1
	fi
	(cd "$tmp" && find . -name '*.pb.go' | sort) >"$tmp/generated.list"
	find proto -name '*.pb.go' | sed 's|^|./|' | sort >"$tmp/committed.list"
	if ! diff -u "$tmp/committed.list" "$tmp/generated.list"; then
		echo "generated files differ from the committed ones (run: make generate)"
		rc=1
	fi
	while read -r f; do
		[ -f "$f" ] || continue
		if ! diff -u "$f" "$tmp/$f"; then
			echo "$f is stale (run: make generate)"
			rc=1
		fi
	done <"$tmp/generated.list"
	rm -rf "$tmp"
	return $rc
}

# Checks the working tree against every committed version of the API since
# API_SINCE (the newest 20 commits that touched it), so no field is ever
# changed, renamed, renumbered or reused relative to anything that was on
# main since then. No release has promised the API yet: API_SINCE is the
# commit that last reshaped it (the services split into replay.proto and
# rollout.proto, the history topic's records typed by kind); the first
# release's tag takes its place. Skipped when
# there is no earlier version (no git).
API_SINCE=a337c21
breaking_check() {
	if ! git rev-parse --git-dir >/dev/null 2>&1; then
		echo "not a git checkout: nothing to compare with"
		return 0
	fi
	if ! git cat-file -e "${API_SINCE}^{commit}" 2>/dev/null; then
		echo "API_SINCE ${API_SINCE} is not in this checkout's history (a shallow clone?)"
		return 1
	fi
	local commits
	# API_SINCE itself and what descends from it: a branch that forked
	# before it and merged later holds versions from before the reshaping.
	commits=$({
		git rev-list --ancestry-path "${API_SINCE}..HEAD" -- proto buf.yaml
		git rev-parse "${API_SINCE}^{commit}"
	} 2>/dev/null | head -n 20)
	if [ -z "$commits" ]; then
		echo "no committed version of the API yet: nothing to compare with"
		return 0
	fi
	local rc=0 c tmp
	for c in $commits; do
		git cat-file -e "$c:buf.yaml" 2>/dev/null || continue
		tmp=$(mktemp -d)
		git archive "$c" proto buf.yaml | tar -x -C "$tmp"
		echo "against $(git log -1 --format='%h %s' "$c")"
		buf breaking --against "$tmp" || rc=1
		rm -rf "$tmp"
	done
	return $rc
}

step "buf lint" buf lint
step "buf format" buf format -d --exit-code
step "generated code is up to date" drift_check
step "buf breaking" breaking_check

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED steps: ${failed[*]}"
	exit 1
fi
echo "all steps passed"
