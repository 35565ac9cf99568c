"""Connecting over TLS (CA file + client certificate) and with a password."""

import pytest
import redis

from redis.backoff import NoBackoff
from redis.retry import Retry

from hotkv import HotKV

# For the tests that expect a failure: do not retry it.
NO_RETRY = {"retry": Retry(NoBackoff(), 0)}


def _tls_kwargs(certs, client_cert=True):
    kw = {"ssl": True, "ssl_ca_certs": str(certs / "ca.crt")}
    if client_cert:
        kw["ssl_certfile"] = str(certs / "client.crt")
        kw["ssl_keyfile"] = str(certs / "client.key")
    return kw


def _ping_set_get(c, key):
    assert c.ping() is True
    assert c.set(key, "value-" + key) is True
    assert c.get(key) == "value-" + key


def test_tls_with_client_certificate(hotkv_server, other_client):
    """CA file + client certificate: PING, SET/GET over the TLS port; the
    value is visible over the plain port too."""
    c = HotKV(host="127.0.0.1", port=hotkv_server.tls_port,
              decode_responses=True, **_tls_kwargs(hotkv_server.certs))
    try:
        _ping_set_get(c, "tls:py")
    finally:
        c.close()
    assert other_client.get("tls:py") == "value-tls:py"


def test_tls_hotkvs_url(hotkv_server):
    """hotkvs:// URL with the certificate files as keyword arguments."""
    certs = hotkv_server.certs
    c = HotKV.from_url(
        f"hotkvs://127.0.0.1:{hotkv_server.tls_port}/0",
        ssl_ca_certs=str(certs / "ca.crt"),
        ssl_certfile=str(certs / "client.crt"),
        ssl_keyfile=str(certs / "client.key"),
        decode_responses=True,
    )
    try:
        assert c.connection_pool.connection_class is redis.connection.SSLConnection
        _ping_set_get(c, "tls:py:url")
    finally:
        c.close()


def test_tls_without_client_certificate_fails(hotkv_server):
    """tls-auth-clients yes: a client that presents no certificate is refused."""
    c = HotKV(host="127.0.0.1", port=hotkv_server.tls_port, socket_timeout=5,
              **NO_RETRY, **_tls_kwargs(hotkv_server.certs, client_cert=False))
    try:
        # TLS 1.3: the server's "certificate required" alert arrives when
        # the client reads the reply.
        with pytest.raises(redis.exceptions.ConnectionError,
                           match="(?i)certificate"):
            c.ping()
    finally:
        c.close()


def test_tls_untrusted_server_fails(hotkv_server, tmp_path):
    """Without the test CA the server's certificate is not trusted."""
    c = HotKV(host="127.0.0.1", port=hotkv_server.tls_port, ssl=True,
              socket_timeout=5, **NO_RETRY)
    try:
        with pytest.raises(redis.exceptions.ConnectionError,
                           match="(?i)certificate"):
            c.ping()
    finally:
        c.close()


def test_password_required(auth_server):
    """Without a password a command gets NOAUTH (redis-py raises
    AuthenticationError for it, without the NOAUTH code in the message)."""
    # RESP2: no HELLO, so the command itself is refused.
    c = HotKV(host=auth_server.host, port=auth_server.port, protocol=2,
              **NO_RETRY)
    try:
        with pytest.raises(redis.exceptions.AuthenticationError,
                           match="^Authentication required"):
            c.set("auth:py", "x")
    finally:
        c.close()
    # The default: redis-py sends HELLO 3 when connecting, refused with NOAUTH.
    c = HotKV(host=auth_server.host, port=auth_server.port, **NO_RETRY)
    try:
        with pytest.raises(redis.exceptions.AuthenticationError,
                           match="client already authenticated"):
            c.set("auth:py", "x")
    finally:
        c.close()


def test_wrong_password_refused(auth_server):
    c = HotKV(host=auth_server.host, port=auth_server.port, password="wrong",
              **NO_RETRY)
    try:
        with pytest.raises(redis.exceptions.AuthenticationError):
            c.ping()
    finally:
        c.close()


@pytest.mark.parametrize("username", [None, "default"])
def test_password(auth_server, username):
    c = HotKV(host=auth_server.host, port=auth_server.port,
              username=username, password="s3cret", decode_responses=True)
    try:
        _ping_set_get(c, f"auth:py:{username}")
    finally:
        c.close()


def test_password_in_url(auth_server):
    c = HotKV.from_url(
        f"hotkv://default:s3cret@{auth_server.host}:{auth_server.port}/0",
        decode_responses=True)
    try:
        _ping_set_get(c, "auth:py:url")
    finally:
        c.close()
