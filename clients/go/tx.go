package hotkv

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// TxRetriesError is returned by Transaction when every attempt failed
// because a watched key changed. It wraps redis.TxFailedErr, so
// errors.Is(err, redis.TxFailedErr) reports true.
type TxRetriesError struct {
	Attempts int      // how many times fn ran (retries + 1)
	Keys     []string // the watched keys
}

// Error implements error.
func (e *TxRetriesError) Error() string {
	return fmt.Sprintf("hotkv: transaction on watched keys [%s] gave up after %d attempts: a watched key kept changing (%v)",
		strings.Join(e.Keys, " "), e.Attempts, redis.TxFailedErr)
}

// Unwrap returns redis.TxFailedErr.
func (e *TxRetriesError) Unwrap() error { return redis.TxFailedErr }

// Transaction runs fn as an optimistic transaction on keys and retries it
// when a watched key changed, up to c.TxMaxRetries times (5 by default).
//
// Each attempt WATCHes keys on a dedicated connection and calls fn with it.
// Inside fn, commands called on tx (tx.Get, tx.HGet, …) run at once and see
// the current values; commands queued in tx.TxPipelined are sent wrapped in
// MULTI/EXEC. If any watched key was changed by anyone between the WATCH
// and the EXEC, nothing is written and the whole of fn runs again, so fn
// must be safe to repeat (no side effects outside tx).
//
//	err := client.Transaction(ctx, func(tx *redis.Tx) error {
//		n, err := tx.Get(ctx, "stock:widget").Int()
//		if err != nil && err != redis.Nil {
//			return err
//		}
//		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
//			p.Set(ctx, "stock:widget", n-1, 0)
//			return nil
//		})
//		return err
//	}, "stock:widget")
//
// Any error returned by fn other than redis.TxFailedErr stops at once and is
// returned as is. When the retries are used up Transaction returns a
// *TxRetriesError, which wraps redis.TxFailedErr. It also stops, returning
// ctx.Err(), when ctx is done.
func (c *Client) Transaction(ctx context.Context, fn func(tx *redis.Tx) error, keys ...string) error {
	return c.TransactionWithRetries(ctx, c.TxMaxRetries, fn, keys...)
}

// TransactionWithRetries is Transaction with an explicit maximum number of
// retries (0 means a single attempt).
func (c *Client) TransactionWithRetries(ctx context.Context, maxRetries int, fn func(tx *redis.Tx) error, keys ...string) error {
	if maxRetries < 0 {
		maxRetries = 0
	}
	for attempt := 0; attempt <= maxRetries; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := c.Watch(ctx, fn, keys...)
		if !errors.Is(err, redis.TxFailedErr) {
			return err // nil on success
		}
	}
	return &TxRetriesError{Attempts: maxRetries + 1, Keys: append([]string(nil), keys...)}
}
