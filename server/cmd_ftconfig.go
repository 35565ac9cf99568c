package server

import (
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/search"
)

// FT.CONFIG GET option|* / FT.CONFIG SET option value / FT.CONFIG HELP
// option|*
//
// RediSearch 2.10's options, in its order, with its descriptions. HotKV
// honours MINPREFIX, MAXEXPANSIONS (MAXPREFIXEXPANSIONS: the same value),
// DEFAULT_DIALECT (1 or 2) and MAXSEARCHRESULTS (search.Config); the
// others report RediSearch's default values and SET refuses them as
// RediSearch refuses its immutable ones ("Not modifiable at runtime")
// rather than accept a value it would ignore: TIMEOUT among them (a
// search stops reading documents after RediSearch's default 500 ms, or
// FT.SEARCH's own TIMEOUT, and returns what it read, as RediSearch's
// ON_TIMEOUT RETURN).
//
// The settings belong to the server, not to the data, as CONFIG SET's:
// SET propagates nothing and snapshots do not keep them, as in
// RediSearch.

// ftOption is one FT.CONFIG option.
type ftOption struct {
	name, desc string
	value      string // RediSearch's default, for the options HotKV does not honour
	null       bool   // the value is a null (no default)
	get        func(*search.Config) string
	set        func(*search.Config, []byte) string // an error text, or ""
}

var ftOptions = []ftOption{
	{name: "EXTLOAD", desc: "Load extension scoring/expansion module", null: true},
	{name: "NOGC", desc: "Disable garbage collection (for this process)", value: "false"},
	{name: "MINPREFIX", desc: "Set the minimum prefix for expansions (`*`)", value: "2"},
	{name: "MINSTEMLEN", desc: "Set the minimum word length to stem (default 4)", value: "4"},
	{name: "FORKGC_SLEEP_BEFORE_EXIT", desc: "set the amount of seconds for the fork GC to sleep before exists, should always be set to 0 (other then on tests).", value: "0"},
	{name: "MAXDOCTABLESIZE", desc: "Maximum runtime document table size (for this process)", value: "1000000"},
	{name: "MAXSEARCHRESULTS", desc: "Maximum number of results from ft.search command", value: "1000000"},
	{name: "MAXAGGREGATERESULTS", desc: "Maximum number of results from ft.aggregate command", value: "unlimited"},
	{name: "MAXEXPANSIONS", desc: "Maximum prefix expansions to be used in a query", value: "200"},
	{name: "MAXPREFIXEXPANSIONS", desc: "Maximum prefix expansions to be used in a query", value: "200"},
	{name: "TIMEOUT", desc: "Query (search) timeout", value: "500"},
	{name: "FRISOINI", desc: "Path to Chinese dictionary configuration file (for Chinese tokenization)", null: true},
	{name: "ON_TIMEOUT", desc: "Action to perform when search timeout is exceeded (choose RETURN or FAIL)", value: "return"},
	{name: "GCSCANSIZE", desc: "Scan this many documents at a time during every GC iteration", value: "100"},
	{name: "MIN_PHONETIC_TERM_LEN", desc: "Minumum length of term to be considered for phonetic matching", value: "3"},
	{name: "GC_POLICY", desc: "gc policy to use (DEFAULT/LEGACY)", value: "fork"},
	{name: "FORK_GC_RUN_INTERVAL", desc: "interval (in seconds) in which to run the fork gc (relevant only when fork gc is used)", value: "30"},
	{name: "FORK_GC_CLEAN_THRESHOLD", desc: "the fork gc will only start to clean when the number of not cleaned document will exceed this threshold", value: "100"},
	{name: "FORK_GC_RETRY_INTERVAL", desc: "interval (in seconds) in which to retry running the forkgc after failure.", value: "5"},
	{name: "FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", desc: "clean empty nodes from numeric tree", value: "true"},
	{name: "_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", desc: "clean empty nodes from numeric tree", value: "true"},
	{name: "UNION_ITERATOR_HEAP", desc: "minimum number of iterators in a union from which the interator willswitch to heap based implementation.", value: "20"},
	{name: "CURSOR_MAX_IDLE", desc: "max idle time allowed to be set for cursor, setting it hight might cause high memory consumption.", value: "300000"},
	{name: "NO_MEM_POOLS", desc: "Set RediSearch to run without memory pools", value: "false"},
	{name: "PARTIAL_INDEXED_DOCS", desc: "Enable commands filter which optimize indexing on partial hash updates", value: "false"},
	{name: "UPGRADE_INDEX", desc: "Relevant only when loading an v1.x rdb, specify argument for upgrading the index.", value: "Upgrade config for upgrading"},
	{name: "_NUMERIC_COMPRESS", desc: "Enable legacy compression of double to float.", value: "false"},
	{name: "_FREE_RESOURCE_ON_THREAD", desc: "Determine whether some index resources are free on a second thread.", value: "true"},
	{name: "_PRINT_PROFILE_CLOCK", desc: "Disable print of time for ft.profile. For testing only.", value: "true"},
	{name: "RAW_DOCID_ENCODING", desc: "Disable compression for DocID inverted index. Boost CPU performance.", value: "false"},
	{name: "_NUMERIC_RANGES_PARENTS", desc: "Keep numeric ranges in numeric tree parent nodes of leafs for `x` generations.", value: "0"},
	{name: "DEFAULT_DIALECT", desc: "Set RediSearch default dialect version throught the lifetime of the server.", value: "1"},
	{name: "VSS_MAX_RESIZE", desc: "Set RediSearch vector indexes max resize (in bytes).", value: "0"},
	{name: "MULTI_TEXT_SLOP", desc: "Set RediSearch delta used to increase positional offsets between array slots for multi text values.Can control the level of separation between phrases in different array slots (related to the SLOP parameter of ft.search command)", value: "100"},
	{name: "BG_INDEX_SLEEP_GAP", desc: "The number of iterations to run while performing background indexing before we call usleep(1) (sleep for 1 micro-second) and make sure that we allow redis process other commands.", value: "100"},
	{name: "_PRIORITIZE_INTERSECT_UNION_CHILDREN", desc: "Intersection iterator orders the children iterators by their relative estimated number of results in ascending order, so that if we see first iterators with a lower count of results we will skip a larger number of results, which translates into faster iteration. If this flag is set, we use this optimization in a way where union iterators are being factorize by the number of their own children, so that we sort by the number of children times the overall estimated number of results instead.", value: "false"},
}

func init() {
	positive := func(set func(*search.Config, int64)) func(*search.Config, []byte) string {
		return func(cfg *search.Config, b []byte) string {
			v, err := strconv.ParseInt(string(b), 10, 64)
			switch {
			case err != nil:
				return errFTConfigConvert
			case v <= 0:
				return errFTConfigBounds
			}
			set(cfg, v)
			return ""
		}
	}
	for i := range ftOptions {
		o := &ftOptions[i]
		switch o.name {
		case "MINPREFIX":
			o.get = func(c *search.Config) string { return strconv.FormatInt(c.MinPrefix(), 10) }
			o.set = positive((*search.Config).SetMinPrefix)
		case "MAXEXPANSIONS", "MAXPREFIXEXPANSIONS":
			o.get = func(c *search.Config) string { return strconv.FormatInt(c.MaxExpansions(), 10) }
			o.set = positive((*search.Config).SetMaxExpansions)
		case "DEFAULT_DIALECT":
			o.get = func(c *search.Config) string { return strconv.FormatInt(c.DefaultDialect(), 10) }
			o.set = func(c *search.Config, b []byte) string {
				v, err := strconv.ParseInt(string(b), 10, 64)
				switch {
				case err != nil:
					return errFTConfigConvert
				case v <= 0:
					return errFTConfigBounds
				case v > 4:
					return errFTConfigDialectMax
				case v > 3:
					return errFTConfigDialect
				}
				c.SetDefaultDialect(v)
				return ""
			}
		case "MAXSEARCHRESULTS":
			o.get = func(c *search.Config) string {
				if v := c.MaxSearchResults(); v != search.Unlimited {
					return strconv.FormatUint(v, 10)
				}
				return "unlimited"
			}
			o.set = func(c *search.Config, b []byte) string {
				v, err := strconv.ParseInt(string(b), 10, 64)
				if err != nil {
					return errFTConfigConvert
				}
				c.SetMaxSearchResults(uint64(v)) // -1: unlimited
				return ""
			}
		}
	}
}

// ftOptionsMatching returns the options name designates: all for "*",
// else the one of that name (any case), if any.
func ftOptionsMatching(name []byte) []*ftOption {
	var out []*ftOption
	for i := range ftOptions {
		if string(name) == "*" || strings.EqualFold(ftOptions[i].name, string(name)) {
			out = append(out, &ftOptions[i])
		}
	}
	return out
}

// ftOptionValue writes an option's value: a bulk string, or a null.
func (c *Client) ftOptionValue(o *ftOption) {
	switch {
	case o.get != nil:
		c.w.BulkString(o.get(c.srv.search.config))
	case o.null:
		c.w.Null()
	default:
		c.w.BulkString(o.value)
	}
}

func cmdFTConfig(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.CONFIG", 3, -1) {
		return
	}
	w := &c.w
	switch {
	case equalFold(args[1], "GET"):
		opts := ftOptionsMatching(args[2])
		if w.Proto == 3 {
			w.Map(len(opts))
		} else {
			w.Array(len(opts))
		}
		for _, o := range opts {
			if w.Proto != 3 {
				w.Array(2)
			}
			w.Simple(o.name)
			c.ftOptionValue(o)
		}
	case equalFold(args[1], "HELP"):
		opts := ftOptionsMatching(args[2])
		if w.Proto == 3 {
			w.Map(len(opts))
		} else {
			w.Array(len(opts))
		}
		for _, o := range opts {
			if w.Proto == 3 {
				w.Simple(o.name)
				w.Map(2)
			} else {
				w.Array(5)
				w.Simple(o.name)
			}
			w.Simple("Description")
			w.Simple(o.desc)
			w.Simple("Value")
			c.ftOptionValue(o)
		}
	case equalFold(args[1], "SET"):
		opts := ftOptionsMatching(args[2])
		if string(args[2]) == "*" || len(opts) == 0 {
			c.errorReply(errFTConfigInvalid)
			return
		}
		o := opts[0]
		if o.set == nil {
			c.errorReply(errFTConfigImmutable)
			return
		}
		if len(args) < 4 {
			c.errorReply(errFTConfigMissing)
			return
		}
		s := c.srv
		s.search.confMu.Lock()
		msg := o.set(s.search.config, args[3])
		s.search.confMu.Unlock()
		switch {
		case msg != "":
			c.errorReply(msg)
		case len(args) > 4:
			w.Simple("EXCESSARGS")
		default:
			w.OK()
		}
	default:
		w.Simple("No such configuration action")
	}
}
