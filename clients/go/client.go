// Package hotkv is the Go client library for HotKV, a Redis-7-compatible
// server. It is a thin layer over go-redis v9 (github.com/redis/go-redis/v9):
// a *Client embeds *redis.Client, so every go-redis command is available,
// and adds helpers for the HotKV features that need a little care:
//
//   - Transaction: WATCH / read / MULTI…EXEC with automatic retries when a
//     watched key changed (optimistic locking).
//   - Key: building keys that share a hash tag, so that commands,
//     transactions and key-locked scripts lock them together.
//   - NewScript and KeyLockedScript: Lua scripts run with EVALSHA, falling
//     back to sending the source when the server answers NOSCRIPT, and
//     scripts that opt into key-based locking.
//   - Connection errors that name the address that could not be reached.
package hotkv

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"
)

// DefaultTxMaxRetries is the number of times Transaction retries after a
// watched key changed before it gives up (so at most DefaultTxMaxRetries+1
// attempts are made in total).
const DefaultTxMaxRetries = 5

// Client is a HotKV client. It embeds *redis.Client, so all go-redis
// commands (Get, Set, TxPipeline, Eval, …) are available directly on it.
// A Client is safe for concurrent use by multiple goroutines; it holds a
// pool of connections and should be closed with Close when no longer needed.
type Client struct {
	*redis.Client

	// TxMaxRetries is how many times Transaction retries after a watched
	// key changed. NewClient and ParseURL set it to DefaultTxMaxRetries; a
	// negative value is treated as 0 (no retries). Set it before sharing
	// the Client between goroutines.
	TxMaxRetries int

	addr string
}

// NewClient returns a Client for the server described by opts (see
// redis.Options; Addr defaults to "localhost:6379"). opts may be nil.
// The client connects lazily: the first command dials the server. A failed
// dial is reported as a *ConnError that names the address.
//
// NewClient takes ownership of opts: go-redis fills in defaults on it, so do
// not reuse or modify it afterwards.
func NewClient(opts *redis.Options) *Client {
	if opts == nil {
		opts = &redis.Options{}
	}
	network := opts.Network
	if network == "" {
		network = "tcp"
	}
	addr := opts.Addr
	if addr == "" {
		if network == "unix" {
			addr = "/tmp/redis.sock"
		} else {
			addr = "localhost:6379"
		}
		opts.Addr = addr
	}
	dial := opts.Dialer
	if dial == nil {
		// redis.NewDialer reads opts when it dials, after redis.NewClient
		// has filled in the defaults (DialTimeout, …).
		dial = redis.NewDialer(opts)
	}
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, &ConnError{Network: network, Addr: addr, Err: err}
		}
		return conn, nil
	}
	return &Client{
		Client:       redis.NewClient(opts),
		TxMaxRetries: DefaultTxMaxRetries,
		addr:         addr,
	}
}

// ParseURL returns a Client for the server named by url. It accepts the
// go-redis URL forms (redis://, rediss:// for TLS, unix://) and the HotKV
// schemes hotkv:// and hotkvs://, which are aliases of redis:// and
// rediss://:
//
//	hotkv://[[user]:password@]host[:port][/db][?option=value…]
//
// Query options are the ones redis.ParseURL understands (dial_timeout,
// pool_size, protocol, …).
func ParseURL(url string) (*Client, error) {
	opts, err := ParseOptions(url)
	if err != nil {
		return nil, err
	}
	return NewClient(opts), nil
}

// ParseOptions parses url like ParseURL but returns the redis.Options, so
// that they can be adjusted before calling NewClient.
func ParseOptions(url string) (*redis.Options, error) {
	u := url
	switch {
	case hasSchemePrefix(u, "hotkv://"):
		u = "redis://" + u[len("hotkv://"):]
	case hasSchemePrefix(u, "hotkvs://"):
		u = "rediss://" + u[len("hotkvs://"):]
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		return nil, fmt.Errorf("hotkv: invalid URL %q: %w", url, err)
	}
	return opts, nil
}

func hasSchemePrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Addr returns the address the client connects to (host:port, or a socket
// path for unix connections).
func (c *Client) Addr() string { return c.addr }

// ConnError is the error returned when the client cannot open a connection
// to the server. Its message names the address; Unwrap returns the
// underlying network error, so errors.Is / errors.As work on it (for
// example errors.Is(err, syscall.ECONNREFUSED)).
type ConnError struct {
	Network string // "tcp" or "unix"
	Addr    string // the address that was dialed
	Err     error  // the underlying dial error
}

// Error implements error.
func (e *ConnError) Error() string {
	return fmt.Sprintf("hotkv: cannot connect to HotKV server at %s (%s): %v", e.Addr, e.Network, e.Err)
}

// Unwrap returns the underlying dial error.
func (e *ConnError) Unwrap() error { return e.Err }
