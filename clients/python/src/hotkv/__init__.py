"""HotKV client for Python, built on redis-py.

    import hotkv
    client = hotkv.HotKV(host="localhost", port=6379)
"""

from .client import HotKV, HotKVPipeline, translate_url
from .exceptions import HotKVConnectionError, TransactionRetriesExceeded
from .keys import key
from .scripting import KEY_LOCKING_SHEBANG, KeyLockedScript, with_key_locking

__version__ = "0.1.0"

__all__ = [
    "HotKV",
    "HotKVPipeline",
    "HotKVConnectionError",
    "TransactionRetriesExceeded",
    "KeyLockedScript",
    "KEY_LOCKING_SHEBANG",
    "key",
    "translate_url",
    "with_key_locking",
]
