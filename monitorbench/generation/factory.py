"""Builds the configured generator and runs it once per task through a content-addressed cache."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Sequence

from monitorbench.config import (GeneratorConfig, GeneratorKind, OpenAIGeneratorConfig,
                                 ScaffoldConfig)
from monitorbench.errors import InputError
from monitorbench.generation.base import ERROR, GenerationResult, Generator, cache_key
from monitorbench.generation.baselines import ScriptedGenerator
from monitorbench.generation.harnesses.safe_files import discard
from monitorbench.generation.replay import ReplayGenerator
from monitorbench.generation.scaffolds.context import GENERATION_PLACE
from monitorbench.sandbox.base import Sandbox, SandboxSpec
from monitorbench.suites.format import Task

log = logging.getLogger(__name__)


def make_generator(gen: GeneratorConfig, scaffold: ScaffoldConfig, *, sandbox: Sandbox,
                   spec_for: Callable[[Task], SandboxSpec], cache_dir: Path) -> Generator:
    kind = GeneratorKind(gen.kind)
    if kind is GeneratorKind.scripted:
        return ScriptedGenerator(str(gen.baseline))
    if kind is GeneratorKind.replay:
        return ReplayGenerator(gen.dir)
    if scaffold.harness.name:  # a real agent program drives the model (generation/harnesses)
        from monitorbench.generation.harnesses.generator import build_harness_generator
        return build_harness_generator(gen, scaffold, sandbox=sandbox, spec_for=spec_for)
    try:
        from monitorbench.generation.model_generator import build_model_generator
    except ImportError as e:
        raise InputError("conf/generator", "generator.kind",
                         f"model generators are unavailable ({e})",
                         "install the project with its model extras (pip install -e '.[hf]')") from e
    return build_model_generator(gen, scaffold, sandbox=sandbox, spec_for=spec_for,
                                 cache_dir=cache_dir)


class GenerationCache:
    """One directory per generation: ``<root>/<cache_key>/{result.json, verifier/, trace.jsonl}``.

    A generation is written into a temporary sibling and renamed into place when complete, so a
    killed run never leaves a half-written verifier that a re-run would trust. A generation that
    ended in ``error`` (the provider unreachable after its retries, a generator bug) is not
    cached: it is kept under ``<root>/.failed/<cache_key>`` for inspection and the next run tries
    again, while the replies it did get stay in the response cache.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self.misses = 0
        self._count = threading.Lock()  # tasks are generated in parallel for remote models

    def get_or_generate(self, generator: Generator, task: Task, public_dir: Path
                        ) -> GenerationResult:
        key = cache_key(generator.identity, task)
        final = self.root / key
        result_file = final / "result.json"
        if result_file.is_file():
            with self._count:
                self.hits += 1
            stored = GenerationResult.from_json(json.loads(result_file.read_text()))
            return _relocate(stored, final, src=Path("."))
        with self._count:
            self.misses += 1
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=self.root))
        try:
            result = generator.generate(task, public_dir, tmp)
        except Exception as e:  # a generator bug must not kill the sweep: record it as U
            result = GenerationResult(task.task_id, ERROR, detail=f"{type(e).__name__}: {e}")
        stored = _relocate(result, Path("."), src=tmp)  # paths relative to the entry
        (tmp / "result.json").write_text(json.dumps(stored.to_json(), indent=1))
        if result.status == ERROR:
            failed = self.root / ".failed" / key
            failed.parent.mkdir(exist_ok=True)
            discard(failed)  # moved aside first: an entry that cannot be removed never blocks
            os.replace(tmp, failed)
            return _relocate(stored, failed, src=Path("."))
        result = _relocate(stored, final, src=Path("."))
        try:   # the rename is the test: checking first races a twin job between check and rename
            os.replace(tmp, final)
        except OSError:
            if not (final / "result.json").is_file():
                raise
            discard(tmp)  # another job finished it first
        return result


def _relocate(result: GenerationResult, dst: Path, *, src: Path) -> GenerationResult:
    """A copy of ``result`` whose paths under ``src`` are re-rooted at ``dst``.

    Cache entries store paths relative to the entry, so an outputs/ directory that moves (a
    fresh clone, a cluster scratch dir) keeps working.
    """
    def move(p: Path | None) -> Path | None:
        if p is None:
            return None
        try:
            return dst / Path(p).relative_to(src)
        except ValueError:
            return Path(p)
    return GenerationResult(result.task_id, result.status, move(result.verifier_dir),
                            result.detail, dict(result.stats), move(result.trace_path))


def ended_why(result: GenerationResult, limit: int = 400) -> str:
    """``": <detail>"`` for the line that says a generation ended: the detail holds the end in
    words (scaffolds/reason.py), e.g. why there is no verifier, which the status alone hides
    (issue 48); capped, since an error's detail can quote a long server reply."""
    detail = " ".join(result.detail.split())
    if not detail:
        return ""
    return f": {detail[:limit]}" + ("..." if len(detail) > limit else "")


def generation_workers(gen: GeneratorConfig) -> int:
    """Tasks generated at once. A remote model serves several requests at a time, so tasks run
    in parallel up to the provider's request concurrency (its client semaphore caps requests in
    flight as well); a local model decodes one request at a time and scripted or replayed
    verifiers cost nothing, so they go one task after another."""
    if isinstance(gen, OpenAIGeneratorConfig):
        return max(1, int(gen.request.concurrency))
    return 1


def generate_all(generator: Generator, cache: GenerationCache,
                 tasks: Sequence[tuple[Task, Path]], workers: int = 1,
                 progress: Callable[[], None] | None = None) -> dict[str, GenerationResult]:
    """One generation per (task, public dir), through ``cache``; results in task order. Slow
    generations (model calls) are logged as they finish, so a long run says where it is;
    ``progress`` is called once per finished task."""
    def one(i: int, task: Task, public_dir: Path) -> GenerationResult:
        t0 = time.time()
        place = GENERATION_PLACE.set(f"{i}/{len(tasks)}")   # named by the scaffolds' step lines
        try:
            result = cache.get_or_generate(generator, task, public_dir)
        finally:
            GENERATION_PLACE.reset(place)
        if time.time() - t0 > 1.0:
            log.info("generation %d/%d %s: %s in %.0f s%s", i, len(tasks), task.task_id,
                     result.status, time.time() - t0, ended_why(result))
        if progress is not None:
            progress()
        return result

    if workers <= 1:
        results = [one(i, t, d) for i, (t, d) in enumerate(tasks, 1)]
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="generate") as pool:
            results = list(pool.map(lambda a: one(*a),
                                    [(i, t, d) for i, (t, d) in enumerate(tasks, 1)]))
    return {t.task_id: r for (t, _), r in zip(tasks, results)}
