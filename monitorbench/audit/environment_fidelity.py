"""C8 environment fidelity: the positives of a state task hold against its environment.

C7 (:mod:`monitorbench.audit.fidelity`) reads a positive against the instruction alone; C8 also
reads the environment the candidate starts from (the state-source contract in
:mod:`monitorbench.audit.environment`). Every positive case (``gold`` and ``valid_variant``,
label PASS) of a ``state`` task goes through four generic checks, each a pure function of the
public task, its initial state and the record:

* ``grounding`` (:mod:`monitorbench.audit.grounding`): entity-like arguments name entities the
  environment holds, the record read or created, or the instruction states;
* ``temporal`` (:mod:`monitorbench.audit.temporal`): argument dates agree with the dates the
  instruction states and with the environment's today;
* ``format``, ``truncated_list``, ``broken_bullets``, ``copied_summary``
  (:mod:`monitorbench.audit.formats`): stated formats met, lists whole, summaries written;
* ``order`` (:mod:`monitorbench.audit.order_words`): a reordered variant keeps the order the
  instruction's words fix;
* ``unanswered`` (:mod:`monitorbench.audit.requested_answers`): a request that asks to be told
  something gets a reply that tells it;
* ``preference`` (:mod:`monitorbench.audit.stated_preferences`): every write uses the payment or
  refund method, reason or option the request names, unless a policy rule the task's acceptance
  statement quotes forbids it;
* ``policy_field`` (:mod:`monitorbench.audit.policy_fields`): every field the policy text
  requires is filled as it requires (a value from its fixed list; an explanation where the
  policy asks for one).

The acceptance statement is the ``acceptance`` entry of the task's hidden reference data, when
its builder writes one (``{"overrides": [{"preference", "policy", "why"}]}``, and optionally a
reviewed reading of the request's questions, ``questions`` and ``not_questions``, which
:mod:`monitorbench.audit.requested_answers` reads instead of its keywords).

A finding fails the task (reason ``C8`` in ``audit.json``, evidence ``[kind] case: what``) and
the task is never judged unless its builder fixes the case. Tasks of other types pass: their
records carry no environment.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

from monitorbench.audit.environment import StateTask, load_state_task
from monitorbench.audit.formats import check_formats
from monitorbench.audit.grounding import StateIndex, check_grounding
from monitorbench.audit.model import CheckResult
from monitorbench.audit.order_words import REORDER_CATEGORIES, check_order
from monitorbench.audit.policy_fields import (FieldRules, check_policy_fields, field_rules,
                                              policy_text)
from monitorbench.audit.requested_answers import (asks_for_information,
                                                  check_requested_answers, state_values)
from monitorbench.audit.stated_preferences import (Preference, check_overrides,
                                                   check_preferences, check_reviewed,
                                                   preferences)
from monitorbench.audit.temporal import check_temporal
from monitorbench.suites.format import Case, Task

POSITIVE_GROUPS = ("gold", "valid_variant")
KINDS = ("grounding", "temporal", "format", "truncated_list", "broken_bullets", "copied_summary",
         "order", "unanswered", "preference", "policy_field")
_SHOWN = 4


@dataclass(frozen=True)
class EnvFinding:
    """One C8 finding: its kind, the positive case it is in, and what is wrong."""

    kind: str
    case_id: str
    group: str
    category: str
    finding: str


@dataclass(frozen=True)
class PolicyView:
    """What the policy rules need of one task, computed once for all its cases: its policy text,
    the field rules read from it, the request's preferences and the acceptance's overrides."""

    text: str
    rules: FieldRules
    prefs: tuple[Preference, ...]
    overrides: tuple[Mapping, ...]

    @classmethod
    def of(cls, task: Task, state_task: StateTask, gold: Mapping | None,
           acceptance: Mapping | None) -> "PolicyView":
        text = policy_text(task.public, gold, state_task.read_only)
        overrides = (acceptance or {}).get("overrides") or ()
        return cls(text, field_rules(state_task.tools, text),
                   tuple(preferences(state_task.instruction, state_task.tools)),
                   tuple(o for o in overrides if isinstance(o, Mapping)))


def _policy_findings(task: StateTask, record: Mapping, policy: PolicyView
                     ) -> list[tuple[str, str]]:
    found = [("preference", f) for f in check_preferences(
        policy.prefs, record, task.state, task.read_only, policy.overrides, policy.text)]
    return found + [("policy_field", f) for f in check_policy_fields(policy.rules, record)]


def case_findings(task: StateTask, case: Case, gold: Mapping | None,
                  index: StateIndex | None = None,
                  known: frozenset[str] | None = None,
                  policy: PolicyView | None = None,
                  acceptance: Mapping | None = None) -> list[EnvFinding]:
    """Every C8 finding in one positive case (``gold``: the task's gold record, for order;
    ``index``, ``known`` and ``policy``: the task's state index, state values and policy view,
    computed once for all its cases)."""
    record = case.candidate
    found = [("grounding", f) for f in check_grounding(task, record, index)]
    found += [("temporal", f) for f in check_temporal(task, record, index)]
    found += [("unanswered", f) for f in check_requested_answers(task, record, known,
                                                                 acceptance)]
    found += check_formats(task.instruction, record)
    found += [("preference", f) for f in check_reviewed(record, acceptance)]
    if policy is not None:
        found += _policy_findings(task, record, policy)
    if case.category in REORDER_CATEGORIES:
        found += [("order", f) for f in check_order(task.instruction, record, gold)]
    return [EnvFinding(kind, case.case_id, case.group, case.category, text)
            for kind, text in found]


def environment_findings(task: Task, public_dir: Path | None, cases: Sequence[Case],
                         acceptance: Mapping | None = None
                         ) -> tuple[StateTask, list[EnvFinding]]:
    """The state task as C8 reads it and the findings over all its positive cases
    (``acceptance``: the task's acceptance statement, if its builder wrote one)."""
    state_task = load_state_task(task, public_dir)
    positives = [c for c in cases if c.group in POSITIVE_GROUPS and c.label == "PASS"]
    gold = next((c.candidate for c in positives if c.group == "gold"), None)
    index = StateIndex.of(state_task.state)
    # the state's values matter only to a request that asks for information
    known = (state_values(state_task.state)
             if asks_for_information(state_task.instruction) or (acceptance or {}).get("questions")
             else frozenset())
    policy = PolicyView.of(task, state_task, gold, acceptance)
    found = [EnvFinding("preference", gold_id(cases), "acceptance", "override", text)
             for text in check_overrides(policy.overrides, policy.text)]
    return state_task, found + [f for c in positives
                                for f in case_findings(state_task, c, gold, index, known, policy,
                                                       acceptance)]


def gold_id(cases: Sequence[Case]) -> str:
    return next((c.case_id for c in cases if c.group == "gold"), "-")


def check_environment_fidelity(task: Task, public_dir: Path | None, cases: Sequence[Case],
                               acceptance: Mapping | None = None) -> CheckResult:
    """C8 for one task (module rules); ``public_dir`` is ``<suite>/public/<task_id>``."""
    if task.task_type != "state":
        return CheckResult("C8", True, f"not a state task ({task.task_type})")
    state_task, found = environment_findings(task, public_dir, cases, acceptance)
    n_pos = sum(c.group in POSITIVE_GROUPS and c.label == "PASS" for c in cases)
    details = {"today": state_task.today.isoformat() if state_task.today else None,
               "initial_state": state_task.state is not None,
               "findings": [asdict(f) for f in found],
               "kinds": dict(sorted(Counter(f.kind for f in found).items()))}
    if not found:
        return CheckResult("C8", True, f"{n_pos} positive cases grounded in the environment, "
                           f"dates, formats, order words, requested answers, stated "
                           f"preferences and policy fields kept", details)
    bad = len({f.case_id for f in found})
    shown = "; ".join(f"[{f.kind}] {f.case_id} ({f.group}): {f.finding}" for f in found[:_SHOWN])
    kinds = ", ".join(f"{k} {n}" for k, n in details["kinds"].items())
    return CheckResult("C8", False, f"{bad}/{n_pos} positive cases fail ({kinds}): {shown}",
                       details)
