"""The golden corpus of study specs (tests/data/spec_corpus) through the
Python client and a real server: every spec file reads as its NAME.textproto
says, or fails with exactly the message in its NAME.error. The C++ reader runs
over the same files in tests/tuner/config/spec_corpus_test.cc, so the client
accepts every spec `vernier jobs submit` accepts, with the same messages."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import grpc
import pytest
from google.protobuf import text_format

import vernier
from vernier.v1 import study_pb2

SOURCE_DIR = Path(os.environ.get("VERNIER_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CORPUS = SOURCE_DIR / "tests" / "data" / "spec_corpus"
SPEC_SUFFIXES = (".yaml", ".json")


def spec_files() -> List[Path]:
    return sorted(path for path in CORPUS.iterdir() if path.suffix in SPEC_SUFFIXES)


def expected_spec(path: Path) -> study_pb2.StudySpec:
    return text_format.Parse(path.with_suffix(".textproto").read_text(), study_pb2.StudySpec())


def as_text(spec: study_pb2.StudySpec) -> str:
    return text_format.MessageToString(spec)


def test_every_spec_file_has_exactly_one_expectation() -> None:
    specs = spec_files()
    assert specs, f"no corpus at {CORPUS}"
    for path in specs:
        kinds = [path.with_suffix(suffix).exists() for suffix in (".textproto", ".error")]
        assert kinds.count(True) == 1, f"{path.name} needs exactly one of .textproto and .error"
    for path in CORPUS.iterdir():
        assert path.suffix in SPEC_SUFFIXES + (".textproto", ".error"), path.name
        if path.suffix in (".textproto", ".error"):
            assert any(path.with_suffix(suffix).exists() for suffix in SPEC_SUFFIXES), path.name


@pytest.mark.parametrize("path", spec_files(), ids=lambda path: path.name)
def test_the_client_reads_the_corpus_as_the_cli_does(
        client: vernier.Client, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Messages name the file as it was given: by its base name, as in the
    # expectations.
    monkeypatch.chdir(CORPUS)
    if path.with_suffix(".textproto").exists():
        assert as_text(client.parse_study_spec(path.name)) == as_text(expected_spec(path))
        return
    expected_message = path.with_suffix(".error").read_text().rstrip()
    with pytest.raises(vernier.InvalidArgument) as caught:
        client.parse_study_spec(path.name)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.message == expected_message


@pytest.mark.parametrize("path", [path for path in spec_files()
                                  if path.with_suffix(".textproto").exists()],
                         ids=lambda path: path.name)
def test_a_study_created_from_a_valid_corpus_file_stores_its_spec(
        client: vernier.Client, study_name: str, path: Path) -> None:
    study = client.create_study(study_name, path, seed=5)
    expected = expected_spec(path)
    expected.seed = 5
    assert as_text(study.spec) == as_text(expected)
