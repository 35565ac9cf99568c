package search

import (
	"math"
	"sync/atomic"
)

// Config is the part of RediSearch's FT.CONFIG the engine honours:
// server-wide values read at each query. The server owns one and gives it
// to its indexes (Index.Config); an index without one uses the defaults.
type Config struct {
	minPrefix      atomic.Int64  // MINPREFIX: a shorter prefix expands to no term
	maxExpansions  atomic.Int64  // MAXEXPANSIONS (MAXPREFIXEXPANSIONS): terms a prefix matches
	defaultDialect atomic.Int64  // DEFAULT_DIALECT: the dialect without DIALECT
	maxResults     atomic.Uint64 // MAXSEARCHRESULTS: FT.SEARCH's largest page (MaxUint64: unlimited)
}

// NewConfig returns RediSearch 2.10's defaults.
func NewConfig() *Config {
	c := &Config{}
	c.minPrefix.Store(2)
	c.maxExpansions.Store(200)
	c.defaultDialect.Store(1)
	c.maxResults.Store(1000000)
	return c
}

var defaultConfig = NewConfig()

func (c *Config) orDefault() *Config {
	if c == nil {
		return defaultConfig
	}
	return c
}

// MinPrefix, MaxExpansions, DefaultDialect and MaxSearchResults return the
// values; SetMinPrefix... set them, the caller having checked them as
// FT.CONFIG SET does (MinPrefix and MaxExpansions at least 1, the dialect
// 1 or 2).
func (c *Config) MinPrefix() int64             { return c.orDefault().minPrefix.Load() }
func (c *Config) MaxExpansions() int64         { return c.orDefault().maxExpansions.Load() }
func (c *Config) DefaultDialect() int64        { return c.orDefault().defaultDialect.Load() }
func (c *Config) MaxSearchResults() uint64     { return c.orDefault().maxResults.Load() }
func (c *Config) SetMinPrefix(v int64)         { c.minPrefix.Store(v) }
func (c *Config) SetMaxExpansions(v int64)     { c.maxExpansions.Store(v) }
func (c *Config) SetDefaultDialect(v int64)    { c.defaultDialect.Store(v) }
func (c *Config) SetMaxSearchResults(v uint64) { c.maxResults.Store(v) }

// Unlimited is MAXSEARCHRESULTS's "unlimited" (RediSearch's -1, as an
// unsigned number).
const Unlimited = math.MaxUint64
