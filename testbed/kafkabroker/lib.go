package kafkabroker

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// LibEnv names the directory of the broker's jars when set; by default it
// is .cache/kafka/lib in the repository that holds the working directory.
const LibEnv = "ASSIGND_KAFKA_LIB"

// LibDir returns the directory holding the broker's jars: $ASSIGND_KAFKA_LIB
// or .cache/kafka/lib of the enclosing repository (found by walking up from
// the working directory to tools/kafka/pom.xml). It fails with a message
// saying how to fetch them when they are missing.
func LibDir() (string, error) {
	dir := os.Getenv(LibEnv)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, ".cache", "kafka", "lib")
	}
	jars, _ := filepath.Glob(filepath.Join(dir, "kafka_2.13-*.jar"))
	if len(jars) == 0 {
		return "", fmt.Errorf("kafkabroker: no Kafka jars in %s: run scripts/kafka-jars.sh", dir)
	}
	return dir, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "kafka", "pom.xml")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("kafkabroker: tools/kafka/pom.xml not found above the working directory; set " + LibEnv)
		}
		dir = parent
	}
}

// Java returns the java launcher: $JAVA_HOME/bin/java, or java on PATH.
// The broker needs Java 17 or later.
func Java() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("kafkabroker: no java (set JAVA_HOME or put java on PATH; Kafka 4 needs Java 17+)")
	}
	return p, nil
}

// Available reports why a broker cannot be started here (no java, no
// jars), or nil.
func Available() error {
	if _, err := Java(); err != nil {
		return err
	}
	_, err := LibDir()
	return err
}
