#!/usr/bin/env bash
# Fetches the Apache Kafka broker that the real-broker tests run, as pinned
# in tools/kafka/pom.xml, into .cache/kafka/lib (git-ignored): the broker's
# jars and their dependencies, from Maven Central through Maven's local
# repository. Skipped when the jars are there and the pom has not changed
# since they were fetched (a copy of the pom beside them says which).
#
# testbed/kafkabroker starts the broker from that directory
# (ASSIGND_KAFKA_LIB names another one).
set -euo pipefail

cd "$(dirname "$0")/.."
pom=tools/kafka/pom.xml
lib=${ASSIGND_KAFKA_LIB:-.cache/kafka/lib}

if [ -f "$lib/.pom" ] && cmp -s "$pom" "$lib/.pom" && ls "$lib"/kafka_2.13-*.jar >/dev/null 2>&1; then
	echo "kafka jars up to date in $lib"
	exit 0
fi
rm -rf "$lib"
mkdir -p "$lib"
mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$(cd "$lib" && pwd)"
cp "$pom" "$lib/.pom"
echo "kafka jars in $lib: $(ls "$lib" | wc -l) files, $(du -sh "$lib" | cut -f1)"
