"""Reading ``monitorbench view``'s served pages in Chromium as a user does: open a task that has
wrong verdicts, filter to them, open a wrong case's candidate and read what the page says about
it, the verifier's code and its generation trace. Shared by the tests that view real runs
(README line 1's sweep, the SmolLM2 run, tests/test_view.py's jobs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class WrongCase:
    """What the page showed of one task's first wrong verdict."""

    task: str
    n_wrong: int
    label: str
    outcome: str
    reason: str
    candidate: str
    printed: str
    code: str | None
    trace: list[str]          # the generation trace's event names, in order


# The run page's task rows: (task id, wrong count), the task link being the first cell.
TASK_ROWS_JS = """() => [...document.querySelectorAll('tr')]
  .filter(r => r.querySelector("td:first-child a[href^='t/']")).map(r => {
  const c = r.querySelectorAll('td'); return [c[0].innerText, Number(c[7].innerText)]; })"""


def read_a_wrong_case(page, run_url: str, task: str | None = None) -> WrongCase:
    """On the run page at ``run_url``: open ``task`` (None: the first task with a wrong
    verdict), tick 'wrong verdicts only', check that exactly the wrong rows stay, open the
    first one's candidate, and read the case, the code and the trace."""
    page.goto(run_url)
    rows = dict(page.evaluate(TASK_ROWS_JS))
    task = task or next(t for t, wrong in rows.items() if wrong > 0)
    page.click(f"a:text-is('{task}')")
    page.wait_for_selector("#wrong-only")
    total = page.locator("tr.case:visible").count()
    page.check("#wrong-only")
    visible = page.locator("tr.case:visible")
    assert 0 < visible.count() == rows[task] <= total, (task, rows[task], total)
    assert page.text_content("#shown") == str(rows[task])
    row = visible.first
    cells = row.locator("td")
    row.locator("summary", has_text="candidate").click()
    printed = ""
    if row.locator("details.printed").count():
        row.locator("details.printed summary").click()
        printed = row.locator("details.printed pre").inner_text()
    code = (page.locator("#verifier-code + pre").inner_text()
            if page.locator("#verifier-code").count() else None)
    return WrongCase(task, rows[task], cells.nth(3).inner_text(), cells.nth(4).inner_text(),
                     cells.nth(5).inner_text(),
                     row.locator("details", has_text="candidate").inner_text(), printed, code,
                     page.locator("tr.event td:nth-child(2)").all_inner_texts())
