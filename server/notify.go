package server

import (
	"strconv"

	"github.com/hotkv/hotkv/config"
)

// Keyspace notifications (notify-keyspace-events), as Redis's
// notifyKeyspaceEvent: a command that changes a key publishes the event's
// name on __keyspace@<db>__:<key> (class K) and the key on
// __keyevent@<db>__:<event> (class E), for the classes configured. Each
// handler emits its events where Redis does, in Redis's order.

// Event classes (config.Notify*).
const (
	evGeneric = config.NotifyGeneric
	evString  = config.NotifyString
	evList    = config.NotifyList
	evSet     = config.NotifySet
	evHash    = config.NotifyHash
	evZset    = config.NotifyZset
	evExpired = config.NotifyExpired
	evEvicted = config.NotifyEvicted
	evStream  = config.NotifyStream
	evNew     = config.NotifyNew
	evKeyMiss = config.NotifyKeyMiss
)

// notify emits event of class for key in c's database.
func (c *Client) notify(class int64, event string, key []byte) {
	c.srv.notifyDB(int(c.dbIndex.Load()), class, event, key)
}

// notifyDB emits event of class for key in database db.
func (s *Server) notifyDB(db int, class int64, event string, key []byte) {
	mask := s.notifyEvents.Int()
	if mask&class == 0 {
		return
	}
	dbs := strconv.Itoa(db)
	if mask&config.NotifyKeyspace != 0 {
		ch := append([]byte("__keyspace@"+dbs+"__:"), key...)
		s.publish(nil, subChannel, ch, []byte(event))
	}
	if mask&config.NotifyKeyevent != 0 {
		s.publish(nil, subChannel, []byte("__keyevent@"+dbs+"__:"+event), key)
	}
}
