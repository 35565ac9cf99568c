"""Lua scripts that run under HotKV's key-based locking."""

KEY_LOCKING_SHEBANG = "#!lua flags=allow-key-locking\n"


def with_key_locking(source):
    """Prepend ``#!lua flags=allow-key-locking`` unless ``source`` already
    starts with a shebang (``#!``), which is then left exactly as it is."""
    if isinstance(source, bytes):
        if source.startswith(b"#!"):
            return source
        return KEY_LOCKING_SHEBANG.encode() + source
    if source.startswith("#!"):
        return source
    return KEY_LOCKING_SHEBANG + source


class KeyLockedScript:
    """A Lua script run with EVALSHA (SCRIPT LOAD + retry on NOSCRIPT).

    Wraps redis-py's ``Script`` (from ``register_script``). Pass every key
    the script touches in ``keys``: with ``allow-key-locking`` the server
    locks only their hash tags and rejects other keys.
    """

    def __init__(self, client, source):
        self.source = with_key_locking(source)
        self._script = client.register_script(self.source)

    @property
    def sha(self):
        """SHA1 of the script source (with the shebang)."""
        return self._script.sha

    def __call__(self, keys=None, args=None, client=None):
        return self._script(keys=keys, args=args, client=client)

    def __repr__(self):
        return f"<KeyLockedScript sha={self.sha}>"
