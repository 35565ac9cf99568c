"""The Python example of docs spec transactions.md, run verbatim.

The example connects to ``localhost:6379``; the test server runs on a free
port, so while the example runs ``hotkv.HotKV`` is replaced by a shim that
sends ``localhost:6379`` to the test server. The example text itself is not
changed (and is checked against the spec file when that file is present).
"""

import pathlib
import types

import pytest

import hotkv

SPEC = pathlib.Path("/work/shared/spec/transactions.md")

PYTHON_EXAMPLE = '''\
import hotkv

client = hotkv.HotKV(host="localhost", port=6379)

def take_one(pipe):
    stock = int(pipe.get("stock:widget") or 0)  # runs at once, after WATCH
    pipe.multi()                                # queue from here on
    pipe.set("stock:widget", stock - 1)

client.transaction(take_one, "stock:widget")    # retries on WatchError
'''


def test_example_matches_spec():
    if not SPEC.exists():
        pytest.skip(f"{SPEC} not present")
    assert PYTHON_EXAMPLE in SPEC.read_text()


def _run_example(server, monkeypatch):
    real = hotkv.HotKV

    def redirected(*args, host="localhost", port=6379, **kwargs):
        if host == "localhost" and port == 6379:
            host, port = server.host, server.port
        return real(*args, host=host, port=port, **kwargs)

    shim = types.ModuleType("hotkv")
    shim.__dict__.update(hotkv.__dict__)
    shim.HotKV = redirected
    monkeypatch.setitem(__import__("sys").modules, "hotkv", shim)
    namespace = {"__name__": "spec_example"}
    exec(compile(PYTHON_EXAMPLE, "transactions.md", "exec"), namespace)
    return namespace


def test_python_example_runs_verbatim(hotkv_server, client, monkeypatch):
    client.set("stock:widget", 5)
    ns = _run_example(hotkv_server, monkeypatch)
    assert client.get("stock:widget") == "4"
    assert isinstance(ns["client"], hotkv.HotKV)
    # Running the transaction again takes one more.
    assert ns["client"].transaction(ns["take_one"], "stock:widget") == [True]
    assert client.get("stock:widget") == "3"


def test_python_example_on_missing_key(hotkv_server, client, monkeypatch):
    _run_example(hotkv_server, monkeypatch)
    assert client.get("stock:widget") == "-1"


# The redis-cli examples of the same spec, through the client.

def test_multi_exec(client):
    pipe = client.pipeline()
    pipe.incr("account:42:balance").lpush("account:42:history", "deposit")
    assert pipe.execute() == [1, 1]


def test_discard(client):
    with client.pipeline() as pipe:
        pipe.set("draft", "not saved")
        pipe.reset()  # DISCARD
    assert client.get("draft") is None


def test_queue_error_aborts(client):
    import redis
    pipe = client.pipeline()
    pipe.set("a", 1)
    pipe.execute_command("INCR")  # wrong number of arguments
    with pytest.raises(redis.exceptions.ResponseError):
        pipe.execute()
    assert client.get("a") is None


def test_runtime_error_no_rollback(client):
    import redis
    client.set("name", "Ada")
    pipe = client.pipeline()
    pipe.incr("name").set("visited", "yes")
    res = pipe.execute(raise_on_error=False)
    assert isinstance(res[0], redis.exceptions.ResponseError)
    assert res[1] is True
    assert client.get("visited") == "yes"
