"""Exceptions raised by the HotKV client (all subclass redis-py's)."""

from redis.exceptions import ConnectionError as _RedisConnectionError
from redis.exceptions import WatchError


class TransactionRetriesExceeded(WatchError):
    """``HotKV.transaction()`` gave up: a watched key kept changing.

    Subclass of :class:`redis.exceptions.WatchError`, so code catching
    ``WatchError`` keeps working.
    """

    def __init__(self, watched, attempts, max_retries):
        self.watched = tuple(watched)
        self.attempts = attempts
        self.max_retries = max_retries
        keys = ", ".join(_show(k) for k in self.watched) or "(none)"
        super().__init__(
            f"transaction aborted after {attempts} attempts "
            f"(max_retries={max_retries}): a watched key changed before EXEC "
            f"every time (watched keys: {keys})"
        )


class HotKVConnectionError(_RedisConnectionError):
    """Could not reach (or lost the connection to) a HotKV server.

    Subclass of :class:`redis.exceptions.ConnectionError`. ``address`` is
    ``"host:port"`` (or the unix socket path).
    """

    def __init__(self, address, cause=None):
        self.address = address
        self.cause = cause
        msg = f"cannot connect to HotKV server at {address}"
        if cause is not None and str(cause):
            msg += f": {cause}"
        super().__init__(msg)


def _show(key):
    if isinstance(key, bytes):
        try:
            return key.decode()
        except UnicodeDecodeError:
            return repr(key)
    return str(key)
