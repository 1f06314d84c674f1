"""The client over TLS: a real `vernier serve` with certificates from
scripts/make-certs.sh, the CA and client certificate from arguments or the
environment, and clear errors without them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

import vernier

from specs import quadratic_spec

SOURCE_DIR = Path(os.environ.get("VERNIER_SOURCE_DIR", Path(__file__).resolve().parents[2]))
TLS_VARIABLES = ("VERNIER_TLS_CA", "VERNIER_TLS_CERT", "VERNIER_TLS_KEY", "VERNIER_TLS_SERVER_NAME")


def make_certs(directory: Path, user: str, *names: str) -> Path:
    subprocess.run([str(SOURCE_DIR / "scripts" / "make-certs.sh"), "--user", user, str(directory),
                    *names], check=True, capture_output=True)
    return directory


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # vernier.test: a name the server's certificate holds that no host
    # dialled is (tls_server_name).
    return make_certs(tmp_path_factory.mktemp("certs"), "alice", "vernier.test")


@pytest.fixture(scope="module")
def other_certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("other"), "mallory")


@pytest.fixture(autouse=True)
def no_tls_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in TLS_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def tls_flags(certs: Path, mutual: bool) -> list:
    flags = ["--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
             "--tls-ca", str(certs / "ca.pem")]
    if mutual:
        flags += ["--tls-client-ca", str(certs / "ca.pem"), "--tls-agent-cert",
                  str(certs / "agent.pem"), "--tls-agent-key", str(certs / "agent.key")]
    return flags


@pytest.fixture(scope="module")
def tls_server(certs: Path) -> Iterator[vernier.LocalServer]:
    with vernier.LocalServer(extra_args=tls_flags(certs, mutual=False)) as server:
        yield server


@pytest.fixture(scope="module")
def mutual_server(certs: Path) -> Iterator[vernier.LocalServer]:
    with vernier.LocalServer(extra_args=tls_flags(certs, mutual=True)) as server:
        yield server


def test_a_client_trusting_the_ca_works(tls_server: vernier.LocalServer, certs: Path,
                                        study_name: str) -> None:
    with vernier.Client(tls_server.target, tls_ca=str(certs / "ca.pem")) as client:
        created = client.create_study(study_name, quadratic_spec())
        assert client.get_study(study_name).proto == created.proto


def test_the_ca_comes_from_the_environment(tls_server: vernier.LocalServer, certs: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERNIER_TLS_CA", str(certs / "ca.pem"))
    with vernier.Client(tls_server.target) as client:
        assert client.ping(timeout=10.0)
        client.list_studies()


def test_without_the_ca_the_error_says_to_pass_it(tls_server: vernier.LocalServer) -> None:
    with vernier.Client(tls_server.target, timeout=5.0) as client:
        with pytest.raises(vernier.Unavailable) as caught:
            client.list_studies()
    assert f"cannot reach the Vernier server at {tls_server.target}" in caught.value.message
    assert "pass tls_ca= or set VERNIER_TLS_CA" in caught.value.message


def test_another_ca_is_refused(tls_server: vernier.LocalServer, other_certs: Path) -> None:
    with vernier.Client(tls_server.target, timeout=5.0,
                        tls_ca=str(other_certs / "ca.pem")) as client:
        with pytest.raises(vernier.Unavailable) as caught:
            client.list_studies()
    assert "does tls_ca sign its certificate" in caught.value.message


def test_the_server_name_override_is_checked(tls_server: vernier.LocalServer, certs: Path) -> None:
    with vernier.Client(tls_server.target, tls_ca=str(certs / "ca.pem"),
                        tls_server_name="localhost") as client:
        client.list_studies()
    with vernier.Client(tls_server.target, timeout=5.0, tls_ca=str(certs / "ca.pem"),
                        tls_server_name="elsewhere.example") as client:
        with pytest.raises(vernier.Unavailable):
            client.list_studies()


def test_mutual_tls_needs_a_client_certificate(mutual_server: vernier.LocalServer,
                                               certs: Path, other_certs: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with vernier.Client(mutual_server.target, timeout=5.0, tls_ca=str(certs / "ca.pem")) as client:
        with pytest.raises(vernier.Unavailable):
            client.list_studies()
    with vernier.Client(mutual_server.target, timeout=5.0, tls_ca=str(certs / "ca.pem"),
                        tls_cert=str(other_certs / "client.pem"),
                        tls_key=str(other_certs / "client.key")) as client:
        with pytest.raises(vernier.Unavailable):
            client.list_studies()
    with vernier.Client(mutual_server.target, tls_ca=str(certs / "ca.pem"),
                        tls_cert=str(certs / "client.pem"),
                        tls_key=str(certs / "client.key")) as client:
        client.list_studies()
    monkeypatch.setenv("VERNIER_TLS_CA", str(certs / "ca.pem"))
    monkeypatch.setenv("VERNIER_TLS_CERT", str(certs / "client.pem"))
    monkeypatch.setenv("VERNIER_TLS_KEY", str(certs / "client.key"))
    with vernier.Client(mutual_server.target) as client:
        client.list_studies()


def test_bad_tls_files_are_named(certs: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.Client("127.0.0.1:1", tls_ca=str(missing))
    assert caught.value.message == f"tls_ca {missing}: no such file"
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not PEM\n")
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.Client("127.0.0.1:1", tls_ca=str(garbage))
    assert caught.value.message == f"tls_ca {garbage}: no PEM certificate in it (BEGIN CERTIFICATE)"
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.Client("127.0.0.1:1", tls_ca=str(certs / "ca.pem"), tls_cert=str(certs / "client.pem"),
                       tls_key=str(certs / "client.pem"))
    assert "tls_key" in caught.value.message and "no PEM private key" in caught.value.message
    with pytest.raises(vernier.InvalidArgument) as caught:
        vernier.Client("127.0.0.1:1", tls_ca=str(certs / "ca.pem"), tls_cert=str(certs / "client.pem"))
    assert caught.value.message == "tls_cert needs tls_key (mutual TLS takes both)"


def test_plots_read_the_views_with_the_clients_tls_settings(tls_server: vernier.LocalServer,
                                                            certs: Path, study_name: str) -> None:
    """vernier.plot reads the dashboard's views over HTTPS with the client's
    CA and server name, as its gRPC calls do: a name the certificate holds
    passes, another is refused, with a message that says why."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    import vernier.plot

    ca = str(certs / "ca.pem")
    with vernier.Client(tls_server.target, tls_ca=ca, tls_server_name="vernier.test") as client:
        assert client.http_url.startswith("https://")
        study = client.create_study(study_name, quadratic_spec())
        study.optimize(lambda trial: (trial.parameters["x"] - 1.0) ** 2, n_trials=3)
        ax = vernier.plot.plot_optimization_history(study)
        assert len(ax.collections[0].get_offsets()) == 3
        pyplot.close("all")
    # The same study read with a server name the certificate does not hold
    # (its gRPC calls would be refused first, so the view is asked alone).
    from vernier._transport import TlsFiles, Transport
    transport = Transport(tls_server.target, 5.0, TlsFiles(ca=ca, server_name="elsewhere.example"))
    with pytest.raises(vernier.Unavailable) as caught:
        vernier.Study(transport, study.proto).dashboard()
    transport.close()
    assert "TLS handshake" in caught.value.message
    assert "tls_server_name=elsewhere.example" in caught.value.message
