package grouplab

import (
	"context"
	"errors"
	"net"
	"sync"
)

// errNetworkCut is what a killed member's dials fail with.
var errNetworkCut = errors.New("grouplab: the member was killed; its network is cut")

// netCutter dials for one member and can cut every connection it made and
// refuse new ones, so that a killed member's client can reach nothing,
// not even to leave the group: the broker only learns of the death at the
// member's session timeout, as with a crashed process.
type netCutter struct {
	mu    sync.Mutex
	cut   bool
	conns map[*cutConn]struct{}
}

func newNetCutter() *netCutter { return &netCutter{conns: map[*cutConn]struct{}{}} }

func (n *netCutter) dial(ctx context.Context, network, host string) (net.Conn, error) {
	if n.isCut() {
		return nil, errNetworkCut
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	cc := &cutConn{Conn: c, n: n}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cut {
		c.Close()
		return nil, errNetworkCut
	}
	n.conns[cc] = struct{}{}
	return cc, nil
}

func (n *netCutter) isCut() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cut
}

// cutAll closes every connection and refuses new ones.
func (n *netCutter) cutAll() {
	n.mu.Lock()
	n.cut = true
	conns := n.conns
	n.conns = map[*cutConn]struct{}{}
	n.mu.Unlock()
	for c := range conns {
		c.Conn.Close()
	}
}

type cutConn struct {
	net.Conn
	n *netCutter
}

func (c *cutConn) Close() error {
	c.n.mu.Lock()
	delete(c.n.conns, c)
	c.n.mu.Unlock()
	return c.Conn.Close()
}
