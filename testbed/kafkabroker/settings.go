package kafkabroker

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// quorum is how a node finds the KRaft controllers: a single broker
// bootstraps from its own controller listener, the only voter
// (--standalone); a cluster's nodes list the static voters.
type quorum struct {
	bootstrap  string // controller.quorum.bootstrap.servers
	voters     string // controller.quorum.voters: id@host:port,...
	standalone bool
}

// writeSettings writes server.properties: one combined broker and
// controller (node id), a PLAINTEXT listener advertised as advertised,
// and the controller listener on controller.
func writeSettings(path string, settings map[string]string, id int32, listen, advertised, controller string, q quorum, data string) error {
	s := maps.Clone(settings)
	maps.Copy(s, map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(int(id)),
		"listeners":                      "PLAINTEXT://" + listen + ",CONTROLLER://" + controller,
		"advertised.listeners":           "PLAINTEXT://" + advertised,
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     "PLAINTEXT",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                       data,
	})
	if q.voters != "" {
		s["controller.quorum.voters"] = q.voters
	} else {
		s["controller.quorum.bootstrap.servers"] = q.bootstrap
	}
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(s)) {
		fmt.Fprintf(&sb, "%s=%s\n", k, s[k])
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}

// log4jSettings: INFO to the JVM's stdout (the broker's log file), less
// the per-request and state-change chatter.
const log4jSettings = `rootLogger.level=INFO
rootLogger.appenderRef.stdout.ref=STDOUT
appender.stdout.type=Console
appender.stdout.name=STDOUT
appender.stdout.layout.type=PatternLayout
appender.stdout.layout.pattern=[%d] %p %m (%c)%n
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.request.name=kafka.request.logger
logger.request.level=WARN
logger.state.name=state.change.logger
logger.state.level=WARN
logger.config.name=org.apache.kafka.common.config.AbstractConfig
logger.config.level=WARN
`
