"""API tokens in the Python client: the server's own token found by address
alone, VERNIER_TOKEN and VERNIER_TOKEN_FILE, and the errors of a bad token,
a token file others may read, and a role that does not allow the call."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import vernier
from vernier._transport import _token_file_name

from specs import quadratic_spec


@pytest.fixture(autouse=True)
def no_token_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("VERNIER_TOKEN", "VERNIER_TOKEN_FILE"):
        monkeypatch.delenv(variable, raising=False)


def admin_token(server: vernier.LocalServer) -> str:
    return Path(server.data_dir, "admin.token").read_text().strip()


def test_the_servers_own_token_needs_no_argument(server: vernier.LocalServer) -> None:
    with vernier.Client(server.target) as client:
        client.list_studies()
    # localhost and 127.0.0.1 reach the same server and the same file.
    port = server.target.rsplit(":", 1)[1]
    with vernier.Client(f"localhost:{port}") as client:
        client.list_studies()


def test_token_file_names_match_the_servers() -> None:
    assert _token_file_name("127.0.0.1:7730") == "loopback-7730"
    assert _token_file_name("[::1]:7730") == "loopback-7730"
    assert _token_file_name("gpu-head.example:7730") == "gpu-head.example-7730"


def test_a_bad_token_is_unauthenticated(server: vernier.LocalServer) -> None:
    with vernier.Client(server.target, token="vnr_" + "0" * 64) as client:
        with pytest.raises(vernier.Unauthenticated, match="not one this server issued"):
            client.list_studies()


def test_token_from_the_environment_and_a_file(server: vernier.LocalServer, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               study_name: str) -> None:
    monkeypatch.setenv("VERNIER_TOKEN", "vnr_wrong")
    with vernier.Client(server.target) as client:
        with pytest.raises(vernier.Unauthenticated):
            client.list_studies()
    monkeypatch.delenv("VERNIER_TOKEN")
    token_file = tmp_path / "token"
    token_file.write_text(admin_token(server) + "\n")
    os.chmod(token_file, 0o644)
    monkeypatch.setenv("VERNIER_TOKEN_FILE", str(token_file))
    with pytest.raises(vernier.InvalidArgument, match="chmod 600"):
        vernier.Client(server.target)
    os.chmod(token_file, stat.S_IRUSR | stat.S_IWUSR)
    with vernier.Client(server.target) as client:
        client.create_study(study_name, quadratic_spec())


def test_a_viewer_reads_but_may_not_create(server: vernier.LocalServer, study_name: str) -> None:
    import grpc
    from vernier.v1 import auth_pb2, auth_service_pb2, auth_service_pb2_grpc

    with grpc.insecure_channel(server.target) as channel:
        created = auth_service_pb2_grpc.AuthServiceStub(channel).CreateToken(
            auth_service_pb2.CreateTokenRequest(user="vic", role=auth_pb2.VIEWER),
            metadata=(("authorization", f"Bearer {admin_token(server)}"),), timeout=30)
    with vernier.Client(server.target, token=created.token) as viewer:
        viewer.list_studies()
        with pytest.raises(vernier.PermissionDenied, match="needs the developer role"):
            viewer.create_study(study_name, quadratic_spec())
