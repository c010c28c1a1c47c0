package client

import (
	"sync"

	"github.com/assignd/assignd/internal/buildinfo"
)

// userAgent is what the client sends as its gRPC user agent,
// "assignd-go/<module version>" (grpc-go appends its own), so that
// assignd's group history shows which client software led each
// rebalance. The version is "devel" in a build of this module itself or
// when the build carries no module information. A user agent given
// through WithDialOptions(grpc.WithUserAgent(...)) replaces it.
var userAgent = sync.OnceValue(func() string { return "assignd-go/" + buildinfo.Read().Version })
