import threading

import pytest
import redis

import hotkv
from hotkv import HotKV, TransactionRetriesExceeded


# ---- transaction() ---------------------------------------------------------

def test_transaction_returns_exec_results(client):
    client.set("n", 1)

    def f(pipe):
        n = int(pipe.get("n"))
        pipe.multi()
        pipe.set("n", n + 1)
        pipe.incr("n")

    assert client.transaction(f, "n") == [True, 3]
    assert client.get("n") == "3"


def test_transaction_value_from_callable(client):
    def f(pipe):
        pipe.multi()
        pipe.set("x", "y")
        return "value"

    assert client.transaction(f, "x", value_from_callable=True) == "value"


def test_transaction_retries_when_watched_key_changes(client, other_client):
    client.set("stock", 10)
    calls = []

    def f(pipe):
        calls.append(1)
        stock = int(pipe.get("stock"))
        if len(calls) == 1:
            other_client.decr("stock")  # concurrent writer, once
        pipe.multi()
        pipe.set("stock", stock - 1)

    assert client.transaction(f, "stock") == [True]
    assert len(calls) == 2
    assert client.get("stock") == "8"


def test_transaction_retries_exceeded(client, other_client):
    client.set("hot", 0)
    calls = []

    def f(pipe):
        calls.append(1)
        v = int(pipe.get("hot"))
        other_client.incr("hot")  # always changes the watched key
        pipe.multi()
        pipe.set("hot", -1000 - v)

    with pytest.raises(TransactionRetriesExceeded) as info:
        client.transaction(f, "hot", max_retries=3)
    err = info.value
    assert isinstance(err, redis.exceptions.WatchError)
    assert len(calls) == 4  # first attempt + 3 retries
    assert err.attempts == 4 and err.max_retries == 3
    assert err.watched == ("hot",)
    msg = str(err)
    assert "4 attempts" in msg and "max_retries=3" in msg and "hot" in msg
    assert client.get("hot") == "4"  # the transaction never wrote


def test_transaction_default_max_retries_is_5(client, other_client):
    calls = []

    def f(pipe):
        calls.append(1)
        other_client.incr("k")
        pipe.multi()
        pipe.set("k", 0)

    with pytest.raises(TransactionRetriesExceeded):
        client.transaction(f, "k")
    assert len(calls) == 6


def test_transaction_func_error_propagates_and_resets(client):
    def f(pipe):
        pipe.get("a")
        raise KeyError("boom")

    with pytest.raises(KeyError):
        client.transaction(f, "a")
    # The client is still usable.
    assert client.set("a", 1) and client.get("a") == "1"


def test_concurrent_transfers_preserve_total(hotkv_server, client):
    accounts = [hotkv.key("bank", f"acct{i}") for i in range(4)]
    for a in accounts:
        client.set(a, 1000)
    attempts = []
    errors = []
    n_threads, n_transfers = 8, 40

    def worker(tid):
        c = HotKV(host=hotkv_server.host, port=hotkv_server.port)
        try:
            for i in range(n_transfers):
                src = accounts[(tid + i) % 4]
                dst = accounts[(tid + i + 1 + tid % 3) % 4]
                amount = (tid * 7 + i) % 13 + 1

                def transfer(pipe):
                    attempts.append(1)
                    a = int(pipe.get(src))
                    b = int(pipe.get(dst))
                    pipe.multi()
                    pipe.set(src, a - amount)
                    pipe.set(dst, b + amount)

                c.transaction(transfer, src, dst, max_retries=10_000)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    total = sum(int(client.get(a)) for a in accounts)
    assert total == 4000
    assert len(attempts) >= n_threads * n_transfers
    print(f"{n_threads * n_transfers} transfers, {len(attempts)} attempts "
          f"({len(attempts) - n_threads * n_transfers} retries)")


# ---- key() -----------------------------------------------------------------

def test_key():
    assert hotkv.key("user:42", "balance") == "{user:42}:balance"
    assert hotkv.key("user:42") == "{user:42}"
    assert hotkv.key("queue", "wait") == "{queue}:wait"
    assert hotkv.key(42, "a", 1) == "{42}:a:1"
    with pytest.raises(ValueError):
        hotkv.key("")
    with pytest.raises(ValueError):
        hotkv.key("a}b", "c")


def test_key_same_slot(client):
    a, b = hotkv.key("user:42", "balance"), hotkv.key("user:42", "history")
    try:
        sa = client.execute_command("CLUSTER", "KEYSLOT", a)
    except redis.exceptions.ResponseError:
        pytest.skip("CLUSTER KEYSLOT not available")
    assert sa == client.execute_command("CLUSTER", "KEYSLOT", b)
    assert sa == client.execute_command("CLUSTER", "KEYSLOT", "user:42")


# ---- key-locked scripts ------------------------------------------------------

COUNTER = """\
local current = tonumber(redis.call('GET', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
return 1
"""


def test_with_key_locking():
    assert hotkv.with_key_locking("return 1") == \
        "#!lua flags=allow-key-locking\nreturn 1"
    kept = "#!lua flags=no-writes,allow-key-locking\nreturn 1"
    assert hotkv.with_key_locking(kept) == kept
    assert hotkv.with_key_locking(b"return 1") == \
        b"#!lua flags=allow-key-locking\nreturn 1"


def test_key_locked_script(client):
    script = client.key_locked_script(COUNTER)
    assert script.source.startswith("#!lua flags=allow-key-locking\n")
    k = hotkv.key("user:42", "quota")
    assert [script(keys=[k], args=[2]) for _ in range(3)] == [1, 1, 0]
    assert client.get(k) == "2"


def test_key_locked_script_rejects_undeclared_key(client):
    script = client.key_locked_script(
        "redis.call('SET', KEYS[1], 1)\n"
        "return redis.call('SET', '{other}:active', 1)\n")
    with pytest.raises(redis.exceptions.ResponseError) as info:
        script(keys=[hotkv.key("queue", "wait")])
    assert "Dynamic keys are not allowed" in str(info.value)


def test_key_locked_script_same_tag_dynamic_key(client):
    script = client.key_locked_script(
        "local destination = '{queue}:' .. ARGV[1]\n"
        "local job = redis.call('LPOP', KEYS[1])\n"
        "if job then\n  redis.call('RPUSH', destination, job)\nend\n"
        "return job\n")
    client.rpush("{queue}:wait", "job1")
    assert script(keys=["{queue}:wait"], args=["active"]) == "job1"
    assert client.lrange("{queue}:active", 0, -1) == ["job1"]


def test_key_locked_script_noscript_fallback(client):
    script = client.key_locked_script("return redis.call('INCR', KEYS[1])")
    k = hotkv.key("c", "n")
    assert script(keys=[k]) == 1
    assert client.script_exists(script.sha) == [True]
    assert client.script_flush()
    assert client.script_exists(script.sha) == [False]
    assert script(keys=[k]) == 2  # NOSCRIPT -> SCRIPT LOAD -> EVALSHA
    assert client.script_exists(script.sha) == [True]


# ---- from_url ------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["hotkv", "redis"])
def test_from_url(hotkv_server, scheme):
    url = f"{scheme}://{hotkv_server.host}:{hotkv_server.port}/0"
    c = HotKV.from_url(url, decode_responses=True)
    try:
        assert isinstance(c, HotKV)
        assert c.ping()
        c.set("from_url", scheme)
        assert c.get("from_url") == scheme
        assert c.address == f"{hotkv_server.host}:{hotkv_server.port}"
    finally:
        c.close()


def test_translate_url():
    assert hotkv.translate_url("hotkv://h:1/0") == "redis://h:1/0"
    assert hotkv.translate_url("hotkvs://u:p@h:1") == "rediss://u:p@h:1"
    assert hotkv.translate_url("redis://h:1") == "redis://h:1"
    assert hotkv.translate_url("rediss://h:1") == "rediss://h:1"
    with pytest.raises(ValueError):
        hotkv.translate_url("http://h:1")
    with pytest.raises(ValueError):
        hotkv.translate_url("localhost:6379")


def test_from_url_hotkvs_uses_tls():
    c = HotKV.from_url("hotkvs://example.invalid:6380")
    assert c.connection_pool.connection_class is redis.connection.SSLConnection
    assert c.address == "example.invalid:6380"


# ---- connection errors ---------------------------------------------------------

def _closed_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_error_names_address():
    port = _closed_port()
    c = HotKV(host="127.0.0.1", port=port, socket_connect_timeout=1)
    with pytest.raises(hotkv.HotKVConnectionError) as info:
        c.ping()
    err = info.value
    assert isinstance(err, redis.exceptions.ConnectionError)
    assert err.address == f"127.0.0.1:{port}"
    assert f"127.0.0.1:{port}" in str(err)
    assert "cannot connect to HotKV server" in str(err)


def test_connection_error_in_transaction_and_pipeline():
    port = _closed_port()
    c = HotKV.from_url(f"hotkv://127.0.0.1:{port}", socket_connect_timeout=1)
    with pytest.raises(hotkv.HotKVConnectionError, match=f"127.0.0.1:{port}"):
        c.transaction(lambda pipe: None, "k")
    with pytest.raises(hotkv.HotKVConnectionError, match=f"127.0.0.1:{port}"):
        c.pipeline().set("a", 1).execute()
