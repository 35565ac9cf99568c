// Package benchconn is the client connection of HotKV's benchmark commands
// (internal/holbench, membench, searchbench, tierbench): one request and its reply
// at a time, raw RESP, and any failure ends the run through the command's
// own fail function.
package benchconn

import (
	"bufio"
	"net"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Conn is a connection to a server: C to write to, R to read replies from.
type Conn struct {
	C    net.Conn
	R    *bufio.Reader
	fail func(error)
}

// Dial connects to addr; fail, which must not return, is called on any
// error of the connection's.
func Dial(addr string, fail func(error)) *Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		fail(err)
	}
	return &Conn{C: c, R: bufio.NewReaderSize(c, 64<<10), fail: fail}
}

// FreePort returns a TCP port free on 127.0.0.1 now, for a server to
// listen on; fail is called if there is none.
func FreePort(fail func(error)) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Do sends a command and returns its raw reply.
func (c *Conn) Do(args ...string) string {
	if _, err := c.C.Write(difftest.Encode(args...)); err != nil {
		c.fail(err)
	}
	rep, err := difftest.ReadReply(c.R)
	if err != nil {
		c.fail(err)
	}
	return rep
}
