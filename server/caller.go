package server

import (
	"context"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"

	"github.com/assignd/assignd/server/selection"
)

// callerFromContext returns the identity the client proved with its TLS
// certificate (mTLS), or the zero selection.Caller. Only verified chains count: with
// plain TLS a client certificate that was not verified identifies nobody.
func callerFromContext(ctx context.Context) selection.Caller {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return selection.Caller{}
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return selection.Caller{}
	}
	leaf := info.State.VerifiedChains[0][0]
	return selection.Caller{Subject: leaf.Subject.String(), CommonName: leaf.Subject.CommonName}
}
