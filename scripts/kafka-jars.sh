#!/usr/bin/env bash
# Fetches the Apache Kafka broker that the real-broker tests run, as pinned
# in tools/kafka/pom.xml, into .cache/kafka/lib (git-ignored): the broker's
# jars and their dependencies, from Maven Central through Maven's local
# repository. Skipped when the jars are there and the pom has not changed
# since they were fetched (a copy of the pom beside them says which).
#
# testbed/kafkabroker starts the broker from that directory
# (ASSIGND_KAFKA_LIB names another one).
#
# ASSIGND_KAFKA_VERSION=V fetches broker V instead of the pinned one, into
# .cache/kafka/lib-V (or ASSIGND_KAFKA_LIB); V=newest is the pom's
# kafka.newest.version. The broker plugin's real-broker tests run on the
# oldest and the newest broker it supports (docs/kip848-plugin.md).
set -euo pipefail

cd "$(dirname "$0")/.."
pom=tools/kafka/pom.xml
version=${ASSIGND_KAFKA_VERSION:-}
if [ "$version" = newest ]; then
	version=$(sed -n 's:.*<kafka.newest.version>\(.*\)</kafka.newest.version>.*:\1:p' "$pom")
fi
lib=${ASSIGND_KAFKA_LIB:-.cache/kafka/lib${version:+-$version}}
# What the jars were fetched from: the pom, and the version when not its own.
stamp() {
	cat "$pom"
	[ -z "$version" ] || echo "kafka.version=$version"
}

if [ -f "$lib/.pom" ] && cmp -s <(stamp) "$lib/.pom" && ls "$lib"/kafka_2.13-*.jar >/dev/null 2>&1; then
	echo "kafka jars up to date in $lib"
	exit 0
fi
rm -rf "$lib"
mkdir -p "$lib"
mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$(cd "$lib" && pwd)" \
	${version:+-Dkafka.version=$version}
stamp >"$lib/.pom"
echo "kafka jars in $lib: $(ls "$lib" | wc -l) files, $(du -sh "$lib" | cut -f1)"
