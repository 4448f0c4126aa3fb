"""bench/case_cost_roles.py charges each perf sample to the process that spent it and to the
kernel path on its stack: the README's account of where bubblewrap's CPU per case goes (issue 49)
rests on that charge, so it is checked here on a dump in perf script's own format."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DUMP = """\
      perf-exec   100/100   PERF_RECORD_COMM exec: python3.11:100/100
     python3.11   100/100   PERF_RECORD_FORK(101:101):(100:100)
     python3.11   100/100   PERF_RECORD_FORK(100:110):(100:100)
     python3.11   101/101   PERF_RECORD_COMM exec: bwrap:101/101
          bwrap   101/101   PERF_RECORD_FORK(102:102):(101:101)
          bwrap   102/102   PERF_RECORD_FORK(103:103):(102:102)
          bwrap   103/103   PERF_RECORD_COMM exec: python3.11:103/103
     python3.11   103/103   PERF_RECORD_FORK(104:104):(103:103)
     python3.11   103/103   PERF_RECORD_FORK(105:105):(103:103)
           bash   200/200   PERF_RECORD_FORK(201:201):(200:200)
     python3.11   105/105   cpu-clock: 
\tffffffff81000001 do_wp_page
\tffffffff81000002 exc_page_fault
\t          d4ad7 _PyEval_EvalFrameDefault

     python3.11   105/105   cpu-clock: 
\tffffffff81000003 unmap_page_range
\tffffffff81000004 do_exit

     python3.11   103/103   cpu-clock: 
\tffffffff81000005 copy_process
\tffffffff81000006 kernel_clone

     python3.11   104/104   cpu-clock: 
\tffffffff81000007 do_sys_poll

          bwrap   102/102   cpu-clock: 
\t          12345 main

     python3.11   100/100   cpu-clock: 
\t          12345 _PyEval_EvalFrameDefault

     python3.11   100/110   cpu-clock: 
\t          12345 _PyEval_EvalFrameDefault

        swapper     0/0     cpu-clock: 
\tffffffff81000008 pv_native_safe_halt

            cat   201/201   cpu-clock: 
\t          12345 main

    kworker/0:1    77/77    cpu-clock: 
\tffffffff81000009 worker_thread
"""


def _roles():
    spec = importlib.util.spec_from_file_location("case_cost_roles",
                                                  REPO / "bench" / "case_cost_roles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_sample_is_charged_to_its_process_and_kernel_path(tmp_path: Path) -> None:
    dump = tmp_path / "dump.txt"
    dump.write_text(DUMP)
    got = _roles().charge(dump)
    assert got == {
        ("case children", "page faults"): 1,  # the innermost marked frame decides
        ("case children", "exit"): 1,
        ("worker", "fork"): 1,
        ("cases' init", "poll, pipes"): 1,
        ("bwrap", "user code, other kernel"): 1,
        ("framework", "user code, other kernel"): 2,  # the bench and its judging thread
        ("idle", "user code, other kernel"): 1,
        ("other", "user code, other kernel"): 1,  # not under the bench: another job's
        ("kernel threads", "user code, other kernel"): 1,  # never seen forked
    }
