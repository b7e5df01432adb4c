package fakecloud

import (
	"net"
	"testing"
)

// Silent accepts TCP connections and never answers (a vCenter or an API
// that hangs): the TLS handshake, or the request, waits for ever unless
// the client bounds it. It returns host:port.
func Silent(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}
