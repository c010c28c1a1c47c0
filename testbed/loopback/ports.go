// Package loopback is the loopback networking the test benches share: a
// TCP proxy that can watch or slow a link, and free ports.
package loopback

import "net"

// FreePorts returns n distinct loopback ports that were free a moment
// ago (all held at once while choosing, so they differ).
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
