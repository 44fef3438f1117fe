"""``wmq serve`` behind the generated HAProxy configuration (docs/scale.md): with a certificate
the balancer speaks https and tells the server so in ``X-Forwarded-Proto``; the server, trusting
the balancer, sets ``Secure`` cookies and takes ``https://`` as a passkey's origin. A client's
own ``X-Forwarded-Proto`` never reaches the server. The certificate is made here (self-signed,
with ``cryptography``); the server and HAProxy are the real ones.
"""

from __future__ import annotations

import datetime
import ipaddress
import signal
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests import serverkit
from tests.softkey import SoftKey
from tests.test_server_passkeys import Site, error_of
from weimaque.deploy import haproxy, postgres, redis

pytestmark = pytest.mark.skipif(
    not haproxy.available(), reason="Debian's haproxy is not installed (make installs it)"
)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for ``localhost`` and 127.0.0.1: (HAProxy's PEM of it and its key, the
    certificate alone for clients to trust)."""
    key = ec.derive_private_key(20261205, ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    alt = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    shown = cert.public_bytes(serialization.Encoding.PEM)
    secret = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    pem, crt = folder / "site.pem", folder / "site.crt"
    pem.write_bytes(shown + secret)
    crt.write_bytes(shown)
    return pem, crt


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[serverkit.Server]:
    folder = tmp_path_factory.mktemp("behind")
    server = serverkit.Server(folder, {"player_burst": 1000}, extra=["--trust-proxy", "127.0.0.1"])
    try:
        yield server
    finally:
        server.stop()


def test_behind_tls_cookies_are_secure_and_passkeys_work(
    backend: serverkit.Server, tmp_path: Path
) -> None:
    pem, crt = self_signed(tmp_path)
    balancer = haproxy.LocalHAProxy(
        tmp_path / "haproxy", [("127.0.0.1", backend.port)], tls_cert=pem
    )
    try:
        assert balancer.url.startswith("https://")
        assert f"ssl crt {pem}" in balancer.config.read_text("utf-8")
        trust = ssl.create_default_context(cafile=str(crt))
        trust.check_hostname = False  # opened as 127.0.0.1, named localhost
        site = Site(balancer.port, trust)
        status, headers, made = site.call("POST", "/api/players", {"name": "甲"})
        assert status == 201, made
        cookie = headers["set-cookie"].lower()
        assert "wmq_player=" in cookie and "secure" in cookie and "httponly" in cookie
        # A passkey's origin is the page's, https://localhost:PORT, on both ceremonies.
        soft = SoftKey(11)
        status, _, added = site.register(made["key"], soft)
        assert status == 201, added
        status, headers, signed = site.sign_in(soft)
        assert status == 200 and signed["player"]["name"] == "甲", signed
        assert "secure" in headers["set-cookie"].lower()
        # The transfer page's QR code is of the https page too.
        status, _, moved = site.call("POST", "/api/me/transfer", key=made["key"])
        assert status == 200 and moved["code"], moved
    finally:
        balancer.close()


def test_a_clients_forwarded_proto_never_reaches_the_server(
    backend: serverkit.Server, tmp_path: Path
) -> None:
    balancer = haproxy.LocalHAProxy(tmp_path / "haproxy", [("127.0.0.1", backend.port)])
    try:
        site = Site(balancer.port)
        lying = {"X-Forwarded-Proto": "https"}
        status, headers, made = site.call("POST", "/api/players", {"name": "乙"}, headers=lying)
        assert status == 201, made
        assert "secure" not in headers["set-cookie"].lower()
        # A passkey made for https://… is refused: the page is http://….
        soft = SoftKey(12)
        status, _, asked = site.call("POST", "/api/me/passkeys/options", key=made["key"])
        assert status == 200, asked
        answer = {
            "ticket": asked["ticket"],
            "credential": soft.register(asked["options"], f"https://{site.netloc}"),
        }
        answer_got = site.call("POST", "/api/me/passkeys", answer, key=made["key"], headers=lying)
        assert "origin" in error_of(answer_got, 400, "bad_passkey").lower()
    finally:
        balancer.close()


def test_the_generated_config_sets_the_scheme_and_binds_tls(tmp_path: Path) -> None:
    pem, _ = self_signed(tmp_path)
    text = haproxy.haproxy_config([("127.0.0.1", 8001)], bind="*:443", tls_cert=pem)
    assert f"bind *:443 ssl crt {pem}\n" in text
    assert "http-request set-header X-Forwarded-Proto https if { ssl_fc }" in text
    assert "http-request set-header X-Forwarded-Proto http if !{ ssl_fc }" in text
    path = tmp_path / "tls.cfg"
    path.write_text(text, encoding="utf-8")
    haproxy.check_config(path)
    # Behind another proxy, that proxy's headers are kept.
    assert "X-Forwarded-Proto" not in haproxy.haproxy_config([("127.0.0.1", 8001)], edge=False)
    with pytest.raises(ValueError, match="without spaces"):
        haproxy.haproxy_config([("127.0.0.1", 8001)], tls_cert="/a b/site.pem")


@pytest.mark.skipif(
    not (postgres.available() and redis.available()),
    reason="Debian's postgresql and redis-server are not installed (make test does)",
)
def test_wmq_cluster_with_a_certificate_serves_https(tmp_path: Path) -> None:
    pem, crt = self_signed(tmp_path)
    code = "from weimaque.cli.app import main; main()"
    missing = subprocess.run(
        [sys.executable, "-c", code, "cluster", "--tls-cert", str(tmp_path / "none.pem")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2 and "none.pem" in missing.stderr, missing
    port = haproxy.free_port()
    args = ["cluster", "--servers", "1", "--port", str(port), "--tls-cert", str(pem)]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
        shown = "".join(lines)
        assert f"https://127.0.0.1:{port}/" in shown, shown
        trust = ssl.create_default_context(cafile=str(crt))
        trust.check_hostname = False
        status, headers, made = Site(port, trust).call("POST", "/api/players", {"name": "丙"})
        assert status == 201 and "secure" in headers["set-cookie"].lower(), made
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and "stopped" in rest, rest
