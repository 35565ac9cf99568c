"""Test fixtures: build the HotKV server from this repository and run it.

The session fixture ``hotkv_server`` runs ``go build ./cmd/hotkv`` from the
repository root into a temporary directory, starts the binary on a free
port (``--save ""`` and a temporary ``--dir``), plus a TLS port using
certificates written by ``go run ./internal/testcerts/gencerts``, and stops
it at the end. ``auth_server`` is a second server with ``--requirepass
s3cret``. Set ``HOTKV_BINARY`` to use an already built binary instead.
"""

import os
import pathlib
import shutil
import socket
import subprocess
import time

import pytest

import hotkv

REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _build(tmpdir):
    binary = os.environ.get("HOTKV_BINARY")
    if binary:
        return binary
    go = shutil.which("go")
    if go is None:
        pytest.fail("'go' not found on PATH: needed to build the HotKV server "
                    "(or set HOTKV_BINARY)")
    out = tmpdir / "hotkv"
    proc = subprocess.run(
        [go, "build", "-o", str(out), "./cmd/hotkv"],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"go build failed:\n{proc.stdout}\n{proc.stderr}")
    return str(out)


class Server:
    def __init__(self, host, port, proc, tls_port=None, certs=None):
        self.host, self.port, self.proc = host, port, proc
        #: TLS port (tls-auth-clients yes) and the directory holding ca.crt,
        #: server.crt/key and client.crt/key, for the server started with TLS.
        self.tls_port, self.certs = tls_port, certs

    @property
    def url(self):
        return f"hotkv://{self.host}:{self.port}"


def _start(binary, tmp, extra_args=(), password=None):
    """Start ``binary`` on a free port in ``tmp`` with ``extra_args``; wait
    until it answers PING (sent with ``password``). Returns the process."""
    data = tmp / "data"
    data.mkdir()
    port = _free_port()
    log = open(tmp / "server.log", "w+")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--save", "", "--dir", str(data),
         *extra_args],
        stdout=log, stderr=subprocess.STDOUT,
    )
    proc.log = log
    probe = hotkv.HotKV(host="127.0.0.1", port=port, password=password,
                        socket_timeout=1)
    deadline = time.monotonic() + 15
    while True:
        if proc.poll() is not None:
            log.seek(0)
            pytest.fail(f"hotkv exited with {proc.returncode}:\n{log.read()}")
        try:
            if probe.ping():
                break
        except Exception:
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("hotkv did not answer PING within 15s")
            time.sleep(0.05)
    probe.close()
    return port, proc


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.log.close()


@pytest.fixture(scope="session")
def hotkv_binary(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("hotkv-bin"))


@pytest.fixture(scope="session")
def hotkv_certs(tmp_path_factory):
    """Directory with ca.crt, server.crt/key and client.crt/key, written by
    ``go run ./internal/testcerts/gencerts DIR``."""
    certs = tmp_path_factory.mktemp("certs")
    go = shutil.which("go")
    if go is None:
        pytest.fail("'go' not found on PATH: needed to generate test certificates")
    proc = subprocess.run(
        [go, "run", "./internal/testcerts/gencerts", str(certs)],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"gencerts failed:\n{proc.stdout}\n{proc.stderr}")
    return certs


@pytest.fixture(scope="session")
def hotkv_server(tmp_path_factory, hotkv_binary, hotkv_certs):
    """The shared server: a plain port, and a TLS port that requires client
    certificates (tls-auth-clients yes, the default)."""
    tmp = tmp_path_factory.mktemp("hotkv")
    tls_port = _free_port()
    port, proc = _start(hotkv_binary, tmp, [
        "--tls-port", str(tls_port),
        "--tls-cert-file", str(hotkv_certs / "server.crt"),
        "--tls-key-file", str(hotkv_certs / "server.key"),
        "--tls-ca-cert-file", str(hotkv_certs / "ca.crt"),
    ])
    try:
        yield Server("127.0.0.1", port, proc, tls_port, hotkv_certs)
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def auth_server(tmp_path_factory, hotkv_binary):
    """A server started with ``--requirepass s3cret``."""
    tmp = tmp_path_factory.mktemp("hotkv-auth")
    port, proc = _start(hotkv_binary, tmp, ["--requirepass", "s3cret"],
                        password="s3cret")
    try:
        yield Server("127.0.0.1", port, proc)
    finally:
        _stop(proc)


@pytest.fixture
def client(hotkv_server):
    c = hotkv.HotKV(host=hotkv_server.host, port=hotkv_server.port,
                    decode_responses=True)
    c.flushall()
    yield c
    c.close()


@pytest.fixture
def other_client(hotkv_server):
    c = hotkv.HotKV(host=hotkv_server.host, port=hotkv_server.port,
                    decode_responses=True)
    yield c
    c.close()
