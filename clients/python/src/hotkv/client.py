"""The HotKV client: redis-py's ``Redis`` plus HotKV conveniences."""

import time
from contextlib import contextmanager

import redis
from redis.client import Pipeline
from redis.exceptions import ConnectionError as _RedisConnectionError
from redis.exceptions import WatchError

from .exceptions import HotKVConnectionError, TransactionRetriesExceeded
from .scripting import KeyLockedScript

#: URL schemes accepted by :meth:`HotKV.from_url`, mapped to redis-py's.
URL_SCHEMES = {
    "hotkv": "redis",
    "hotkvs": "rediss",
    "redis": "redis",
    "rediss": "rediss",
    "unix": "unix",
}


def translate_url(url):
    """Rewrite a ``hotkv://`` / ``hotkvs://`` URL to ``redis://`` / ``rediss://``.

    ``redis://``, ``rediss://`` and ``unix://`` URLs are returned unchanged;
    any other scheme raises ``ValueError``.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"invalid HotKV URL {url!r}: expected scheme://host:port")
    target = URL_SCHEMES.get(scheme.lower())
    if target is None:
        raise ValueError(
            f"unsupported URL scheme {scheme!r} in {url!r}: use one of "
            + ", ".join(s + "://" for s in URL_SCHEMES)
        )
    return f"{target}://{rest}"


def _address(connection_pool):
    kw = getattr(connection_pool, "connection_kwargs", {}) or {}
    if kw.get("path"):
        return kw["path"]
    return f"{kw.get('host', 'localhost')}:{kw.get('port', 6379)}"


@contextmanager
def _translate_connection_errors(connection_pool):
    try:
        yield
    except HotKVConnectionError:
        raise
    except _RedisConnectionError as e:
        # Only plain ConnectionError: keep AuthenticationError,
        # BusyLoadingError, ... (its subclasses) as they are.
        if type(e) is not _RedisConnectionError:
            raise
        raise HotKVConnectionError(_address(connection_pool), e) from e


class HotKVPipeline(Pipeline):
    """redis-py ``Pipeline`` raising :class:`HotKVConnectionError`."""

    def immediate_execute_command(self, *args, **options):
        with _translate_connection_errors(self.connection_pool):
            return super().immediate_execute_command(*args, **options)

    def execute(self, *args, **kwargs):
        with _translate_connection_errors(self.connection_pool):
            return super().execute(*args, **kwargs)


class HotKV(redis.Redis):
    """A HotKV client. Every redis-py ``Redis`` command is available.

    >>> client = HotKV(host="localhost", port=6379)
    >>> client = HotKV.from_url("hotkv://localhost:6379/0")
    """

    @classmethod
    def from_url(cls, url, **kwargs):
        """Create a client from ``hotkv://``, ``hotkvs://`` (TLS),
        ``redis://``, ``rediss://`` or ``unix://`` URLs."""
        return super().from_url(translate_url(url), **kwargs)

    @property
    def address(self):
        """``"host:port"`` (or the unix socket path) this client talks to."""
        return _address(self.connection_pool)

    def execute_command(self, *args, **options):
        with _translate_connection_errors(self.connection_pool):
            return super().execute_command(*args, **options)

    def pipeline(self, transaction=True, shard_hint=None):
        pipe = super().pipeline(transaction, shard_hint)
        pipe.__class__ = HotKVPipeline
        return pipe

    def transaction(
        self,
        func,
        *watched,
        max_retries=5,
        shard_hint=None,
        value_from_callable=False,
        watch_delay=None,
    ):
        """Run ``func(pipe)`` as an optimistic (WATCH/MULTI/EXEC) transaction.

        The ``watched`` keys are WATCHed, then ``func`` is called with a
        pipeline: commands it sends run at once (reads) until it calls
        ``pipe.multi()``; after that they are queued and sent with EXEC.
        If a watched key changed before EXEC, the whole cycle is retried, up
        to ``max_retries`` times; then :class:`TransactionRetriesExceeded`
        is raised. Returns the list of EXEC replies (or ``func``'s return
        value when ``value_from_callable`` is true).
        """
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        attempts = 0
        with self.pipeline(True, shard_hint) as pipe:
            while True:
                attempts += 1
                try:
                    if watched:
                        pipe.watch(*watched)
                    func_value = func(pipe)
                    exec_value = pipe.execute()
                    return func_value if value_from_callable else exec_value
                except WatchError as e:
                    pipe.reset()
                    if attempts > max_retries:
                        raise TransactionRetriesExceeded(
                            watched, attempts, max_retries
                        ) from e
                    if watch_delay is not None and watch_delay > 0:
                        time.sleep(watch_delay)
                except BaseException:
                    pipe.reset()
                    raise

    def key_locked_script(self, source):
        """Return a callable script that runs with ``allow-key-locking``.

        ``#!lua flags=allow-key-locking`` is prepended when ``source`` has
        no shebang line. Calls use EVALSHA, falling back to SCRIPT LOAD on
        NOSCRIPT. Call it as ``script(keys=[...], args=[...])``.
        """
        return KeyLockedScript(self, source)
