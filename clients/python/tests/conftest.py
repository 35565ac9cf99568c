"""Test fixtures: build the HotKV server from this repository and run it.

The session fixture ``hotkv_server`` runs ``go build ./cmd/hotkv`` from the
repository root into a temporary directory, starts the binary on a free
port (``--save ""`` and a temporary ``--dir``) and stops it at the end.
Set ``HOTKV_BINARY`` to use an already built binary instead.
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
    def __init__(self, host, port, proc):
        self.host, self.port, self.proc = host, port, proc

    @property
    def url(self):
        return f"hotkv://{self.host}:{self.port}"


@pytest.fixture(scope="session")
def hotkv_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hotkv")
    binary = _build(tmp)
    data = tmp / "data"
    data.mkdir()
    port = _free_port()
    log = open(tmp / "server.log", "w+")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--save", "", "--dir", str(data)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    probe = hotkv.HotKV(host="127.0.0.1", port=port, socket_timeout=1)
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
    try:
        yield Server("127.0.0.1", port, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


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
