package stream

// Error is an error whose text is the Redis error reply, without the
// leading '-': the server sends it as it is.
type Error string

// Error returns the reply text.
func (e Error) Error() string { return string(e) }

// The errors of the package, with Redis 7.0's texts. The ones the package
// itself does not return are here for the command layer, so that every
// stream error text lives in one place.
const (
	ErrInvalidID            Error = "ERR Invalid stream ID specified as stream command argument"
	ErrInvalidStartInterval Error = "ERR invalid start ID for the interval"
	ErrInvalidEndInterval   Error = "ERR invalid end ID for the interval"

	ErrAddTooSmall Error = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	ErrAddZero     Error = "ERR The ID specified in XADD must be greater than 0-0"
	ErrExhausted   Error = "ERR The stream has exhausted the last possible ID, unable to add more items"
	ErrTooLarge    Error = "ERR Elements are too large to be stored"

	ErrBusyGroup   Error = "BUSYGROUP Consumer Group name already exists"
	ErrEntriesRead Error = "ERR value for ENTRIESREAD must be positive or -1"

	ErrSetIDTooSmall         Error = "ERR The ID specified in XSETID is smaller than the target stream top item"
	ErrSetIDBelowGivenMaxDel Error = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	ErrEntriesAddedTooSmall  Error = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	ErrEntriesAddedNegative  Error = "ERR entries_added must be positive"

	// ErrCorrupt is returned when loading a node or a consumer group from
	// a dump that is not what Redis would have written.
	ErrCorrupt Error = "ERR Bad data format"
)
