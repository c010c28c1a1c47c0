package faults

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// delayLine is a TCP proxy in front of one replica that holds every
// chunk of bytes, in both directions, for the current delay before
// passing it on, in order: a slow link between the leaders and that
// replica. tc netem would need a network namespace, privileges and the
// kernel's netem qdisc, which CI machines may lack (this one does).
type delayLine struct {
	lis      net.Listener
	upstream string
	delay    atomic.Int64 // time.Duration, each way

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func startDelayLine(upstream string) (*delayLine, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &delayLine{lis: lis, upstream: upstream, conns: map[net.Conn]struct{}{}}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

func (d *delayLine) addr() string { return d.lis.Addr().String() }

// setDelay sets the delay each way for bytes read from now on.
func (d *delayLine) setDelay(v time.Duration) { d.delay.Store(int64(v)) }

func (d *delayLine) accept() {
	defer d.wg.Done()
	for {
		c, err := d.lis.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", d.upstream, 2*time.Second)
		if err != nil {
			c.Close() // the replica is down: so is the link
			continue
		}
		if !d.track(c, up) {
			return
		}
		d.wg.Add(2)
		go d.pipe(c, up)
		go d.pipe(up, c)
	}
}

type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst through the delay; when either side ends, both
// connections close.
func (d *delayLine) pipe(src, dst net.Conn) {
	defer d.wg.Done()
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
	dst.Close()
	for range q { // let the reader end
	}
	d.untrack(src, dst)
}

func (d *delayLine) track(cs ...net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		d.conns[c] = struct{}{}
	}
	return true
}

func (d *delayLine) untrack(cs ...net.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range cs {
		delete(d.conns, c)
	}
}

func (d *delayLine) close() {
	d.mu.Lock()
	d.closed = true
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.lis.Close()
	d.wg.Wait()
}

// freePorts returns n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
