package main

import (
	"log/slog"

	"github.com/assignd/assignd/server"
)

// newSelector builds the Selector that chooses the assignor of every
// Assign call. Without a policy this is the built-in default, which maps
// the four standard protocol names to the standard assignors. The policy
// layer (server/policy, flag --policy) plugs in here; the returned close
// function stops whatever the selector runs in the background (e.g. a file
// watcher).
func newSelector(_ config, _ *slog.Logger) (server.Selector, func(), error) {
	return server.DefaultSelector(), func() {}, nil
}
