package loopback

import (
	"net"
	"sync"
	"time"
)

// Pipe copies one direction of a connection, from src to dst, and
// returns when src ends or dst fails.
type Pipe func(src, dst net.Conn)

// Proxy is the TCP proxy the test benches put in front of a server to
// watch or slow what passes (kafkabroker's request tap, the fault tests'
// slow link). It accepts on a loopback port and joins each connection to a fresh
// one to the upstream through two Pipes, one a direction.
type Proxy struct {
	lis                 net.Listener
	upstream            string
	toUpstream, toReply Pipe

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartProxy listens on a loopback port. For each connection it dials
// upstream (a connection it cannot join is closed: the upstream is down,
// so is the link) and runs toUpstream(client, upstream) and
// toReply(upstream, client); when either returns, both connections close.
func StartProxy(upstream string, toUpstream, toReply Pipe) (*Proxy, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{lis: lis, upstream: upstream, toUpstream: toUpstream, toReply: toReply, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients dial.
func (p *Proxy) Addr() string { return p.lis.Addr().String() }

// Close stops accepting, closes every connection and waits for the pipes
// to return.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.lis.Close()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.lis.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", p.upstream, 2*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(c, up) {
			return
		}
		p.wg.Add(2)
		go p.run(p.toUpstream, c, up)
		go p.run(p.toReply, up, c)
	}
}

func (p *Proxy) run(pipe Pipe, src, dst net.Conn) {
	defer p.wg.Done()
	pipe(src, dst)
	src.Close()
	dst.Close()
	p.untrack(src, dst)
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}
