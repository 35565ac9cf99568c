package server

// Every error text HotKV replies with lives here, spelled as Redis 7 spells
// it (without the leading '-'). Texts that take arguments are fmt formats.
const (
	errSyntax = "ERR syntax error"

	// The apply error of CONFIG SET oom-score-adj and oom-score-adj-values
	// (config.c's updateOOMScoreAdj), after "CONFIG SET failed ... - ".
	errOOMScoreAdjFailed = "Failed to set current oom_score_adj. Check server logs."

	// CLIENT TRACKING and CLIENT CACHING (networking.c, tracking.c).
	errTrackingRedirectTwice     = "ERR A client can only redirect to a single other client"
	errTrackingRedirectNoClient  = "ERR The client ID you want redirect to does not exist"
	errTrackingPrefixNeedsBcast  = "ERR PREFIX option requires BCAST mode to be enabled"
	errTrackingSwitchBcast       = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	errTrackingOptBcast          = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	errTrackingOptinOptout       = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	errTrackingSwitchOpt         = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	errTrackingPrefixOverlap     = "ERR Prefix '%s' overlaps with an existing prefix '%s'. Prefixes for a single client must not overlap."
	errTrackingPrefixOverlapArgs = "ERR Prefix '%s' overlaps with another provided prefix '%s'. Prefixes for a single client must not overlap."
	errCachingNotTracking        = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	errCachingYes                = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	errCachingNo                 = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."

	errNotInt            = "ERR value is not an integer or out of range"
	errNotFloat          = "ERR value is not a valid float"
	errOverflow          = "ERR increment or decrement would overflow"
	errIncrFloatNaN      = "ERR increment would produce NaN or Infinity"
	errWrongType         = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errRESP2NotSupported = "ERR RESP2 is not supported by this command"
	errDebugProtocolType = "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false"
	errNoSuchKey         = "ERR no such key"
	errNoAuth            = "NOAUTH Authentication required."
	errWrongPass         = "WRONGPASS invalid username-password pair or user is disabled."
	errAuthNoPass        = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errOOM               = "OOM command not allowed when used memory > 'maxmemory'."
	errDBIndex           = "ERR DB index is out of range"
	errInvalidDBIndex    = "ERR invalid DB index"
	errSameObject        = "ERR source and destination objects are the same"
	errInvalidExpire     = "ERR invalid expire time in '%s' command"
	errStringTooLong     = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	errOffsetRange       = "ERR offset is out of range"
	errUnknownCommand    = "ERR unknown command '%.128s', with args beginning with: %s"
	errUnknownSubcommand = "ERR unknown subcommand '%.128s'. Try %s HELP."
	errArity             = "ERR wrong number of arguments for '%s' command"
	errInternal          = "ERR internal error while running '%s': %v"
	// A cold value the disk tier cannot read (a failing disk, a corrupt
	// record): the command fails, never answers with a wrong value.
	errTierLoad = "ERR disk tier: %v"
	// Start-up with a tiering-dir that cannot be used.
	errTieringDir = "Can't use the tiering directory %s: %v"
	// CONFIG SET of tiering or tiering-dir to another value (a hook's
	// veto: Redis's CONFIG SET failure wraps it).
	errTieringDirOpen    = "tiering-dir cannot change once the tier is open (tiering was on since start-up)"
	errTieringOffMemory  = "the values on disk would not fit under maxmemory"
	errProtoVersion      = "NOPROTO unsupported protocol version"
	errNXXXGTLT          = "ERR NX and XX, GT or LT options at the same time are not compatible"
	errGTLTNX            = "ERR GT, LT, and/or NX options at the same time are not compatible"
	errCountPositive     = "ERR COUNT must be > 0"
	errTimeoutNegative   = "ERR timeout is negative"
	errTimeoutNotInt     = "ERR timeout is not an integer or out of range"
	errPauseMode         = "ERR CLIENT PAUSE mode must be WRITE or ALL"
	errTimeoutNotFloat   = "ERR timeout is not a float or out of range"
	errNoScript          = "ERR This Redis command is not allowed from script"
	errInvalidClientName = "ERR Client names cannot contain spaces, newlines or special characters."
	errNoSuchClient      = "ERR No such client"
	errBitOffset         = "ERR bit offset is not an integer or out of range"
	errSubscribedContext = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
	errBitValue          = "ERR bit is not an integer or out of range"
	errBitArgument       = "ERR The bit argument must be 1 or 0."
	errBitopNot          = "ERR BITOP NOT must be called with a single source key."
	errBitfieldOverflow  = "ERR Invalid OVERFLOW type specified"
	errBitfieldType      = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errBitfieldRO        = "ERR BITFIELD_RO only supports the GET subcommand"
	errDebugUnknown      = "ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP."
	errSubcommandArgs    = "ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."

	// Scripting and functions.
	errNoScriptSHA          = "NOSCRIPT No matching script. Please use EVAL."
	errNumkeysTooMany       = "ERR Number of keys can't be greater than number of args"
	errNumkeysNegative      = "ERR Number of keys can't be negative"
	errBadNumkeys           = "ERR Bad number of keys provided"
	errFunctionNotFound     = "ERR Function not found"
	errScriptWriteFlagRO    = "ERR Can not execute a script with write flag using *_ro command."
	errScriptUnknownCommand = "ERR Unknown Redis command called from script"
	// SCRIPT DEBUG (ldb.go); errScriptDebugYes is HotKV's: Redis runs
	// a YES session in a forked child, which HotKV does not have.
	errScriptDebugMode     = "ERR Use SCRIPT DEBUG YES/SYNC/NO"
	errScriptDebugPipeline = "ERR SCRIPT DEBUG must be called outside a pipeline"
	errScriptDebugYes      = "ERR SCRIPT DEBUG YES runs the script in a forked child, which HotKV does not have: use SCRIPT DEBUG SYNC (changes are kept)"
	errScriptDebugSHA      = "ERR Please use EVAL instead of EVALSHA for debugging"
	errScriptArity         = "ERR Wrong number of args calling Redis command from script"
	errScriptReadOnly      = "ERR Write commands are not allowed from read-only scripts."
	errBusyScript          = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction        = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	errNotBusy             = "NOTBUSY No scripts in execution right now."
	errUnkillable          = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	errScriptFlushOption   = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	errFunctionFlushOption = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	errFunctionLoadOption  = "ERR Unknown option given: %s"
	errLibraryNameMissing  = "ERR library name argument was not given"
	errUnknownArgument     = "ERR Unknown argument %s"
	errRestorePolicy       = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
	// Snapshots.
	errBgsaveInProgress = "ERR Background save already in progress"
	errBgsaveOtherChild = "ERR Another child process is active (AOF?): can't BGSAVE right now. " +
		"Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
	// BGREWRITEAOF.
	errAOFRewriteInProgress = "ERR Background append only file rewriting already in progress"
	errAOFRewriteFailed     = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information."
	// Writes refused after a failed save (stop-writes-on-bgsave-error).
	errMisconfRDB = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. " +
		"Commands that may modify the data set are disabled, because this instance is configured to report errors " +
		"during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for " +
		"details about the RDB error."
	errSaveFailed         = "ERR"
	errShutdownFailed     = "ERR Errors trying to SHUTDOWN. Check logs."
	errDebugReloadSave    = "ERR Error trying to save the DB, can't reload"
	errDebugReloadLoad    = "ERR Error trying to load the RDB dump"
	errDebugReloadOptions = "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."
	// HotKV's own: Redis 7.0 exits when there is no file to load.
	errDebugPackedThreshold = "ERR argument must be a memory value bigger than 1 and smaller than 4gb"
	errDebugLoadAOFNone     = "ERR DEBUG LOADAOF: there is no append only file to load"
	// DUMP and RESTORE.
	errBusyKey     = "BUSYKEY Target key name already exists."
	errRestoreTTL  = "ERR Invalid TTL value, must be >= 0"
	errRestoreIdle = "ERR Invalid IDLETIME value, must be >= 0"
	errRestoreFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	// HotKV's own (allow-key-locking, SCRIPT FLAGS).
	errDynamicKey = "ERR Dynamic keys are not allowed in Lua scripts when 'allow-key-locking' flag is set. Key was: "

	// FT.* (RediSearch 2.10's texts: no ERR code). The search package
	// keeps those of schemas and queries (search/errors.go).
	errFTIndexExists      = "Index already exists"
	errFTNoQuery          = "No query string provided"
	errFTNoSuchIndex      = ": no such index" // after the index name
	errFTUnknownIndex     = "Unknown index name"
	errFTUnknownIndexName = "Unknown Index name"
	errFTProfileKind      = "No `SEARCH` or `AGGREGATE` provided"
	errFTProfileQuery     = "The QUERY keyword is expected"
	errFTProfileCursor    = "FT.PROFILE does not support cursor"
	errFTSugScore         = "ERR invalid score"
	errFTSugUnknownArg    = "Unknown argument `%s`"
	errFTSugPayload       = "Invalid payload: " + errACNoArg
	errFTSugUnrecognized  = "Unrecognized argument: %s"
	errFTSugQueryLength   = "Invalid query length"
	errFTSugQuery         = "Invalid query"
	// RediSearch's ArgsCursor errors (AC_Strerror), after "<option>: ".
	errACNoArg            = "Expected an argument, but none provided"
	errACParse            = "Could not convert argument to expected type"
	errACLimit            = "Value is outside acceptable bounds"
	errFTSpellDistance    = "bad distance given, distance must be a natural number between 1 to 4"
	errFTSpellTerms       = "bad format, exlude/include operation was not given"
	errFTSpellNoDict      = "Dict does not exist: "
	errFTCursorNotFound   = "Cursor not found"
	errFTCursorNoSuch     = "Cursor does not exist"
	errFTCursorSubcommand = "Unknown subcommand"
	errFTCursorBadID      = "Bad cursor ID"
	errFTCursorCount      = "Bad value for COUNT"
	errFTAliasExists      = "Alias already exists"
	errFTAliasTarget      = "Unknown index name (or name is an alias itself)"
	errFTAliasNotExists   = "Alias does not exist"
	errFTAliasNotBelong   = "Alias does not belong to provided spec"
	errFTNoDict           = "could not open dict key"
	errFTDialectArg       = "Need an argument for DIALECT"
	errFTConfigInvalid    = "Invalid option"
	errFTConfigImmutable  = "Not modifiable at runtime"
	errFTConfigMissing    = "Expected an argument, but none provided"
	errFTConfigConvert    = "Could not convert argument to expected type"
	errFTConfigBounds     = "Value is outside acceptable bounds"
	errFTConfigDialectMax = "Default dialect version cannot be higher than 4"
	// HotKV's own: its queries have DIALECT 1 and 2 only.
	errFTConfigDialect   = "DEFAULT_DIALECT 4 is not supported by HotKV yet"
	errScriptGlobal      = "ERR This command needs the global lock and is not allowed in scripts with the 'allow-key-locking' flag"
	errScriptUnknownFlag = "ERR Unexpected flag: %s"
)

// keys
const (
	errUnsupportedOption = "ERR Unsupported option %s"
	errExpireGTLT        = "ERR GT and LT options at the same time are not compatible"
	errInvalidCursor     = "ERR invalid cursor"
	errXReadUnbalanced   = "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
	errCopyUnknownType   = "ERR unknown type object"
	errCopyModuleKey     = "ERR not supported for this module key"
	errInvalidFirstDB    = "ERR invalid first DB index"
	errInvalidSecondDB   = "ERR invalid second DB index"
	errIntRange32        = "ERR value is out of range, value must between -2147483648 and 2147483647"
	errLFUNotSelected    = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errLFUSelected       = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// strings
const (
	errDecrOverflow = "ERR decrement would overflow"
	errLcsNotString = "ERR The specified keys must contain string values"
	errLcsLenAndIdx = "ERR If you want both the length and indexes, please just use IDX."
	errLcsTooLong   = "ERR String too long for LCS"
	errLcsMemory    = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// command
const (
	errGetKeysInvalidCommand = "ERR Invalid command specified"
	errGetKeysNoKeys         = "ERR The command has no key arguments"
	errGetKeysArity          = "ERR Invalid number of arguments specified for command"
	errGetKeysInvalidArgs    = "ERR Invalid arguments specified for command"
)

// server, config
const (
	errNoShutdownInProgress = "ERR No shutdown in progress."
	errProtectedMode        = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."
	errModuleNotAllowed     = `ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
	errModuleLoad           = "ERR Error loading the extension. Please check the server logs."
	errModuleUnload         = "ERR Error unloading module: no such module with that name"
	errModuleUnloadTypes    = "ERR Error unloading module: the module exports one or more module-side data types, can't unload"
	errDebugNotAllowed      = `ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`
	errMustBePositive       = "ERR value is out of range, must be positive"
	errSlowlogCount         = "ERR count should be greater than or equal to -1"
	errLatencyNoSamples     = "ERR No samples available for event '%s'"
	errStreamKeyGone        = "UNBLOCKED the stream key no longer exists"
	errPfdebugNoKey         = "ERR The specified key does not exist"
	errPfdebugUnknown       = "ERR Unknown PFDEBUG subcommand '%s'"
	errMigrateKeysNotEmpty  = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	errMigrateConnect       = "IOERR error or timeout connecting to the client"
	errMigrateIO            = "IOERR error or timeout %s to target instance" // writing, reading
	errMigrateTarget        = "ERR Target instance replied with error: "
	errConfigInternal       = "ERR " // + the config package's error text, when it is not a *config.Error
)

// client, connection, monitor
const (
	errClientIDPositive  = "ERR client-id should be greater than 0"
	errInvalidClientID   = "ERR Invalid client ID"
	errUnknownClientType = "ERR Unknown client type '%s'"
	errNoSuchUser        = "ERR No such user '%s'"
	errSetinfoOption     = "ERR Unrecognized option '%s'"
	errSetinfoChars      = "ERR %s cannot contain spaces, newlines or special characters."
	errHelloProtoNotInt  = "ERR Protocol version is not an integer or out of range"
	errHelloOption       = "ERR Syntax error in HELLO option '%s'"
	// ACL (acl.c, and processCommand's, EXEC's and scriptCall's checks).
	errNoPermCommand     = "NOPERM this user has no permissions to run the '%s' command"
	errNoPermKey         = "NOPERM this user has no permissions to access one of the keys used as arguments"
	errNoPermChannel     = "NOPERM this user has no permissions to access one of the channels used as arguments"
	errScriptNoPerm      = "ERR The user executing the script "
	errExecNoPerm        = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: "
	errACLUserSpaces     = "ERR Usernames can't contain spaces or null characters"
	errACLDeleteDefault  = "ERR The 'default' user cannot be removed"
	errACLNoFile         = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."
	errACLSave           = "ERR There was an error trying to save the ACLs. Please check the server logs for more information"
	errACLUnknownCat     = "ERR Unknown category '%.128s'"
	errACLGenpassBits    = "ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096"
	errACLDryrunNoUser   = "ERR User '%s' not found"
	errACLDryrunNoCmd    = "ERR Command '%s' not found"
	errSortByNoPerm      = "ERR BY option of SORT denied due to insufficient ACL permissions."
	errSortGetNoPerm     = "ERR GET option of SORT denied due to insufficient ACL permissions."
	errUserDeclaration   = "Error in user declaration '%s': %s"
	errUserDirectiveArgs = "Bad directive or wrong number of arguments"
	errACLBothUsersFile  = "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."
	errHelloNoAuth       = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
)

// blocking
const (
	errUnblocked           = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
	errUnblockedRoleChange = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"
	errUnblockReason       = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
)

// sets
const (
	errSRandCountRange       = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errSInterCardNumkeys     = "ERR numkeys should be greater than 0"
	errSInterCardTooManyKeys = "ERR Number of keys can't be greater than number of args"
	errSInterCardLimit       = "ERR LIMIT can't be negative"
)

// lists
const (
	errListIndexRange     = "ERR index out of range"
	errListRankZero       = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errListCountNegative  = "ERR COUNT can't be negative"
	errListMaxlenNegative = "ERR MAXLEN can't be negative"
	errListNumkeys        = "ERR numkeys should be greater than 0"
	errListCount          = "ERR count should be greater than 0"
)

// hashes
const (
	errHashNotInt          = "ERR hash value is not an integer"
	errHashNotFloat        = "ERR hash value is not a float"
	errHashIncrNaN         = "ERR value is NaN or Infinity"
	errHashRandRange       = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errHashRandValuesRange = "ERR value is out of range"
)

// sorted sets
const (
	errZAddXXNX            = "ERR XX and NX options at the same time are not compatible"
	errZAddIncrPair        = "ERR INCR option supports a single increment-element pair"
	errZScoreNaN           = "ERR resulting score is not a number (NaN)"
	errZMinMaxFloat        = "ERR min or max is not a float"
	errZMinMaxLex          = "ERR min or max not valid string range item"
	errZRangeLimit         = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	errZRangeWithscoresLex = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	errZWeightFloat        = "ERR weight value is not a float"
	errZNeedKey            = "ERR at least 1 input key is needed for '%s' command"
	errZLimitNegative      = "ERR LIMIT can't be negative"
	errZNumkeys            = "ERR numkeys should be greater than 0"
	errZCount              = "ERR count should be greater than 0"
	errZCountRange         = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errZCountWithscores    = "ERR value is out of range"
)

// SORT
const (
	errSortScores = "ERR One or more scores can't be converted into double"
)

// transactions
const (
	errNotInMulti           = "ERR Command not allowed inside a transaction"
	errSyncNoMasterLink     = "NOMASTERLINK Can't SYNC while not connected with my master"
	errSyncFailingOver      = "NOMASTERLINK Can't SYNC while failing over"
	errReplicaKeyspace      = "ERR Replica can't interact with the keyspace"
	errPsyncFailoverMaster  = "ERR PSYNC FAILOVER can't be sent to a master."
	errPsyncFailoverReplID  = "ERR PSYNC FAILOVER replid must match my replid."
	errReplicaofFailingOver = "ERR REPLICAOF not allowed while failing over."
	errNoFailover           = "ERR No failover in progress."
	errFailoverTimeout      = "ERR FAILOVER timeout must be greater than 0"
	errFailoverInProgress   = "ERR FAILOVER already in progress."
	errFailoverReplica      = "ERR FAILOVER is not valid when server is a replica."
	errFailoverNoReplicas   = "ERR FAILOVER requires connected replicas."
	errFailoverForce        = "ERR FAILOVER with force option requires both a timeout and target HOST and IP."
	errFailoverNotReplica   = "ERR FAILOVER target HOST and PORT is not a replica."
	errFailoverNotOnline    = "ERR FAILOVER target replica is not online."
	errSyncFilterNeedsEOF   = "ERR Filtered replica requires EOF capability"
	errReplconfRDBOnly      = "ERR value is out of range, value must between 0 and 1"
	errReplconfFilter       = "ERR Unsupported rdb-filter-only option: %s"
	errSyncPendingOutput    = "ERR SYNC and PSYNC are invalid with pending output"
	errReplicaofFromReplica = "ERR Command is not valid when client is a replica."
	errReadOnlyReplica      = "READONLY You can't write against a read only replica."
	errWaitOnReplica        = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
	errScriptStale          = "ERR Can not execute the command on a stale replica"
	errNoReplicas           = "NOREPLICAS Not enough good replicas to write."
	errLoading              = "LOADING Redis is loading the dataset in memory"
	errMasterDown           = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	errReplconfOption       = "ERR Unrecognized REPLCONF option: %s"
	errNestedMulti          = "ERR MULTI calls can not be nested"
	errWatchInMulti         = "ERR WATCH inside MULTI is not allowed"
	errExecWithoutMulti     = "ERR EXEC without MULTI"
	errDiscardWithoutMulti  = "ERR DISCARD without MULTI"
	errExecAbort            = "EXECABORT Transaction discarded because of previous errors."
	errExecAbortBecause     = "EXECABORT Transaction discarded because of: "

	// Startup (OpenLog, Listen, WritePidFile): Redis's config.c and
	// server.c wording; errSyslog is HotKV's own (Redis's openlog cannot
	// fail).
	errLogFile    = "Can't open the log file: %v"
	errSyslog     = "Can't open the system log: %v"
	errPidFile    = "Failed to write PID file: %v"
	errUnixSocket = "Failed opening Unix socket: %v"
	// HotKV's own: a directive CheckStartup refuses.
	errUnsupportedDirective = "Unsupported directive '%s %s': %s"
	errReplconfIPTooLong    = "ERR REPLCONF ip-address provided by replica instance is too long: %d bytes"
	errRenameCommand        = "Bad directive 'rename-command %s %s': %s"
)
