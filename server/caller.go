package server

import (
	"context"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// callerFromContext returns the identity the client proved with its TLS
// certificate (mTLS), or the zero Caller. Only verified chains count: with
// plain TLS a client certificate that was not verified identifies nobody.
func callerFromContext(ctx context.Context) Caller {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return Caller{}
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return Caller{}
	}
	leaf := info.State.VerifiedChains[0][0]
	return Caller{Subject: leaf.Subject.String(), CommonName: leaf.Subject.CommonName}
}
