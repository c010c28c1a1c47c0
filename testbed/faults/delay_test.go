package faults

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/assignd/assignd/testbed/loopback"
)

// delayLine is a TCP proxy in front of one replica that holds every
// chunk of bytes, in both directions, for the current delay before
// passing it on, in order: a slow link between the leaders and that
// replica. tc netem would need a network namespace, privileges and the
// kernel's netem qdisc, which CI machines may lack (this one does).
type delayLine struct {
	proxy *loopback.Proxy
	delay atomic.Int64 // time.Duration, each way
}

func startDelayLine(upstream string) (*delayLine, error) {
	d := &delayLine{}
	p, err := loopback.StartProxy(upstream, d.pipe, d.pipe)
	if err != nil {
		return nil, err
	}
	d.proxy = p
	return d, nil
}

func (d *delayLine) addr() string { return d.proxy.Addr() }

func (d *delayLine) close() { d.proxy.Close() }

// setDelay sets the delay each way for bytes read from now on.
func (d *delayLine) setDelay(v time.Duration) { d.delay.Store(int64(v)) }

type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst through the delay.
func (d *delayLine) pipe(src, dst net.Conn) {
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{buf[:n], time.Now().Add(time.Duration(d.delay.Load()))}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	src.Close()
	for range q { // let the reader end
	}
}
