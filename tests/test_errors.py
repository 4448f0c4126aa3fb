"""InputError must reach the user intact, including from worker processes."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from monitorbench.errors import InputError


def test_input_error_raised_in_a_spawned_worker_keeps_file_field_and_fix() -> None:
    """Suites build in spawned processes; a bad option there must surface as the same
    InputError in the parent, not as a BrokenProcessPool."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=ctx) as pool:
        future = pool.submit(exec, "from monitorbench.errors import InputError\n"
                                   "raise InputError('conf/task/x.yaml', 'suites[0].options', "
                                   "'unknown option', 'remove it')")
        with pytest.raises(InputError) as e:
            future.result()
    assert (e.value.file, e.value.field, e.value.fix) == ("conf/task/x.yaml",
                                                          "suites[0].options", "remove it")
    assert "unknown option" in str(e.value)
