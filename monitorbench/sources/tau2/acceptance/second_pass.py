"""A blind second pass over a seeded sample of the τ² acceptance records (issue 46).

Why: the records are written by one reader; issue 46 asks that someone who has not seen them
write them again, from the public task alone (the instruction and the domain policy), for a
seeded sample of at least 20 tasks, and that the two be compared item by item. The second
pass lives in ``second_pass.json``; :func:`sample` picks its tasks, :func:`compare` reports the
agreement.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, NamedTuple

from monitorbench.sources.tau2.acceptance.settlements import SETTLED

SAMPLE_SEED = 46
PER_DOMAIN = 8
DOMAINS = ("airline", "retail", "banking_knowledge")


def sample(seed: int = SAMPLE_SEED, per_domain: int = PER_DOMAIN) -> list[tuple[str, str]]:
    """``(domain, task_id)`` pairs: ``per_domain`` tasks of each domain, drawn by one
    ``random.Random(seed)`` from the task ids in file order, domains in :data:`DOMAINS` order."""
    from monitorbench.sources.tau2 import source as src

    rng = random.Random(seed)
    picked = []
    for domain in DOMAINS:
        ids = [t.task_id for t in src.load_tasks(domain)]
        picked += [(domain, task_id) for task_id in rng.sample(ids, min(per_domain, len(ids)))]
    return picked


SECOND_PASS = "second_pass.json"
OVERLAP = 0.6
THIRD_DOMAINS = ("airline", "retail", "banking_knowledge", "telecom")
THIRD_PASS = "third_pass.json"
FOURTH_PASS = "fourth_pass.json"
FIFTH_PASS = "fifth_pass.json"
SIXTH_PASS = "sixth_pass.json"
SEVENTH_PASS = "seventh_pass.json"
EIGHTH_PASS = "eighth_pass.json"
NINTH_PASS = "ninth_pass.json"
TENTH_PASS = "tenth_pass.json"
ELEVENTH_PASS = "eleventh_pass.json"
TWELFTH_PASS = "twelfth_pass.json"
THIRTEENTH_PASS = "thirteenth_pass.json"
FOURTEENTH_PASS = "fourteenth_pass.json"
FIFTEENTH_PASS = "fifteenth_pass.json"
SIXTEENTH_PASS = "sixteenth_pass.json"
SEVENTEENTH_PASS = "seventeenth_pass.json"
EIGHTEENTH_PASS = "eighteenth_pass.json"
NINETEENTH_PASS = "nineteenth_pass.json"
TWENTIETH_PASS = "twentieth_pass.json"
TWENTY_FIRST_PASS = "twenty_first_pass.json"
TWENTY_SECOND_PASS = "twenty_second_pass.json"
TWENTY_THIRD_PASS = "twenty_third_pass.json"
TWENTY_FOURTH_PASS = "twenty_fourth_pass.json"
TWENTY_FIFTH_PASS = "twenty_fifth_pass.json"
TWENTY_SIXTH_PASS = "twenty_sixth_pass.json"
TWENTY_SEVENTH_PASS = "twenty_seventh_pass.json"
TWENTY_EIGHTH_PASS = "twenty_eighth_pass.json"
TWENTY_NINTH_PASS = "twenty_ninth_pass.json"
THIRTIETH_PASS = "thirtieth_pass.json"
THIRTY_FIRST_PASS = "thirty_first_pass.json"
THIRTY_SECOND_PASS = "thirty_second_pass.json"


class BlindPass(NamedTuple):
    """One blind pass after the second: its file, seed, tasks per domain, the domains it draws
    from, and whether its records of :data:`coverage.COVERAGE_DOMAINS` must cover every
    sentence of the brief (GUIDE.md "Coverage (banking)"; the passes before it did not).
    ``pool``: where not empty, the pass draws from these tasks: a re-read's were read by earlier
    passes (does a fresh reader now write their settled records again?), the twenty-first's by
    none (records revised to the guide before they were read). ``aid``: its coverage tasks are
    read with :mod:`.reading_aid`'s list of lines to decide again (the twenty-eighth pass on).
    ``reconciles``: the earlier blind passes of the same tasks whose reader-by-reader comparison
    its reader is given, to keep what they share and decide where they differ (the
    thirty-second)."""

    name: str
    seed: int
    per_domain: int
    domains: tuple[str, ...] = THIRD_DOMAINS
    coverage: bool = False
    pool: tuple[tuple[str, str], ...] = ()  # where not empty, the tasks it draws from
    aid: bool = False  # its coverage tasks are read with the reading aid (:mod:`.reading_aid`)
    reconciles: tuple[str, ...] = ()  # the blind passes of the same tasks it reconciles


def _banking(*numbers: str) -> tuple[tuple[str, str], ...]:
    """The banking tasks numbered ``numbers``, in that order (a re-read draws from the order)."""
    return tuple(("banking_knowledge", f"task_{n}") for n in numbers)


def _pool_draw(entry: BlindPass) -> tuple[tuple[str, str], ...]:
    """A re-read's draw: ``per_domain`` of its ``pool`` (all where it holds fewer) by one
    ``random.Random(seed)``."""
    return tuple(random.Random(entry.seed).sample(entry.pool,
                                                  min(entry.per_domain, len(entry.pool))))


# The blind passes after the second, in the order they were written: each drew, by one
# random.Random(seed), up to ``per_domain`` recorded tasks of each of its domains (telecom's
# included) that no earlier pass sampled (:func:`blind_sample`); its reader's folder is written
# from the repository by :func:`blind_folder.write_blind_folder`.
# - third (4747, 6): after the records' question review;
# - fourth (4848, 6): the first written with GUIDE.md in hand (the conventions the records and
#   the two settled passes follow). It gave 62.1 % item agreement; after every record's
#   preferences were revised to GUIDE.md (2026-12-07) it gives 88.7 %, the second pass 78.5 %
#   (was 83.3 %: it bundles what the guide splits) and the third 93.2 % (was 93.9 %); each new
#   disagreement's task is settled below;
# - fifth (4949, 6): the first after every record was revised to GUIDE.md;
# - sixth (5050, 8): after GUIDE.md gained what the fifth pass's over-reaches showed
#   (conversation order, a reason no argument takes, a request to find out what is wrong);
# - seventh (5151, 8, telecom's last 6): after the sixth's settlement (GUIDE.md: a correct id
#   the customer gives is no item of its own; a push-back asking for the one product is a
#   question);
# - eighth (5252, 8; telecom has none left): after the seventh's settlement and the tells of
#   four banking questions;
# - ninth (5353, 10; only retail and banking have tasks left): after the eighth's settlement;
# - tenth (5454, 10): after the ninth's settlement;
# - eleventh (5555, 10, banking only): the first read sentence by sentence with every
#   sentence of the brief covered (GUIDE.md "Coverage (banking)"), after banking stayed at
#   71.7 % over the eighth to tenth passes: 87.2 % (136 of 156), settled to 88.5 %;
# - twelfth (5656, 10, banking only): after the eleventh's settlement (GUIDE.md's five
#   clarifications), its ten records revised to the coverage rule before it was read: 85.1 %
#   (131 of 154), settled to 87.7 % (135 of 154);
# - thirteenth (5757, banking only: the last 7 banking tasks no pass drew): after the twelfth's
#   settlement, its records revised to the coverage rule before it was read: 78.9 % (75 of 95),
#   settled to 88.0 % (81 of 92);
# - fourteenth (5858, 10 of REREAD_POOL, banking only): a re-read. Every banking task had been
#   read blind once, by the eleventh to thirteenth passes with coverage or before without it;
#   this pass asks whether a fresh reader, with GUIDE.md as those passes' settlements left it,
#   writes the settled records of tasks read once again. Its pool is the fourteen tasks of the
#   eleventh to thirteenth passes none of whose sentences GUIDE.md quotes or whose id it names
#   (its examples would tell the reader the records' answers).
# - fifteenth (5959, 10 of REREAD_POOL_15, banking only): a second re-read, after the
#   fourteenth's settlement: its pool is every banking record that covers every sentence of its
#   brief (on 2026-12-07, after a helper revised 35 more to coverage), but the fourteenth's ten
#   and those GUIDE.md quotes or names; most of them were revised to the guide just before and
#   never read with coverage, as the eleventh to thirteenth passes' records were.
# - sixteenth (6060, 8 of REREAD_POOL_16, banking only): a third re-read, after the fifteenth's
#   settlement, of the long conversation briefs: its pool is the records a helper revised to
#   coverage after the fifteenth's pool was drawn (25), but those GUIDE.md quotes or names.
# - seventeenth (6161, 10 of REREAD_POOL_17, banking only): a fourth re-read, after the
#   sixteenth's settlement: its pool is every banking record that covers every sentence of its
#   brief but those an earlier re-read drew and those GUIDE.md quotes or names (31, short and
#   long briefs alike).
# - eighteenth (6262, 10 of REREAD_POOL_18, banking only): a fifth re-read, after the
#   seventeenth's settlement and the three last records' revision to coverage: its pool is
#   every banking record (all cover every sentence) but those an earlier re-read drew and those
#   GUIDE.md quotes or names (22).
# - nineteenth (6363, 10, retail only): retail's agreement on tasks never read blind (44 of
#   its 114 recorded tasks were left after the tenth pass), with the guide as the eighteenth's
#   settlement left it: does the 96.8 % of the eighth to tenth passes hold on fresh tasks?
# - twentieth (6464, 10, retail only): ten more retail tasks never read blind, read after the
#   nineteenth's settlement (GUIDE.md's retail products, options and values): 97.0 % (98 of
#   101) against the records as they stood when it was written. A revision of the retail records
#   no pass had read, to the guide as it then stood, ran beside the reading; its reviser saw no
#   pass file.
# - twenty-first (6565, all 21 of FRESH_RETAIL_POOL_21, retail only): every retail task no pass
#   had read but the three whose sentences GUIDE.md quotes (24, 42, 97), their records revised
#   to the guide before the reading: the records as revised, read blind.
# - twenty-second (6666, 20 of REREAD_POOL_22, banking only): a sixth re-read, after the
#   eighteenth's settlement, the first whose reader names what each `restated` sentence states
#   again (GUIDE.md). Its pool is every banking record no earlier re-read drew, less those
#   GUIDE.md quotes or names (25); 20 of them make the sample of at least 20 tasks.
# - twenty-third (6767, the twenty-second's 20 tasks, banking only): a second fresh reader of the
#   same tasks, after the twenty-second's settlement: how far two blind readers agree with each
#   other (:func:`compare_passes`) bounds how far any record can agree with one.
# - twenty-fourth (6868, 20 of REREAD_POOL_24, banking only): after the records were moved to
#   what the twenty-second and twenty-third readers agreed on against them (GUIDE.md: cards whose
#   transactions are written on are situation; a recommendation ask is restated of the request
#   or criterion it asks by; a wish for one product is a question at its first statement; a yes
#   to a write offered with its fee is an item; a verification code at its first offer). Its
#   pool is every banking record but the twenty-second's twenty and those GUIDE.md quotes or
#   names (53): a fresh reader of tasks earlier re-reads may have drawn. Its reader's GUIDE.md
#   quoted task_079's fee line where the committed one paraphrases it (a re-read pool's
#   sentences are never quoted); the rule is the same.
# - twenty-fifth (6969, the twenty-fourth's 20 tasks, banking only): a second fresh reader of
#   them, after its settlement: do two readers agree with each other on a second sample as the
#   twenty-second and twenty-third did?
# - twenty-sixth (7070, the twenty-second's 20 tasks, banking only): a third fresh reader of
#   them. Their records now follow what the twenty-second and twenty-third readers agreed on: how
#   far does a third reader agree with records made that way?
# - twenty-seventh (7171, 20 of REREAD_POOL_27, banking only): the deciding pass, fixed in
#   docs/tau2.md before it was read: 20 of every banking record whose sentences and id GUIDE.md
#   does not quote (73), with the records and guide as passes twenty-two to twenty-six left them.
# - twenty-eighth and twenty-ninth (7272 and 7373, 20 each of POOL_28 and POOL_29, banking only):
#   the second deciding measure, fixed in docs/tau2.md (08bb8e0) before either was read, after
#   the twenty-seventh fell one item short: two fresh readers of 40 of the 53 tasks of its pool
#   it did not draw, each with the reading aid (:mod:`.reading_aid`); their pooled agreement
#   with the records decides.
# - thirtieth to thirty-second (7474, 20 of POOL_30, banking only): the third measure, fixed in
#   docs/tau2.md (06f8ffa) before it was read: two fresh readers of the same 20 tasks, each
#   alone (thirtieth, thirty-first), and a third reconciling where they differ (thirty-second,
#   given both passes and their comparison); the reconciled pass's agreement decides.
REREAD_POOL = _banking(
    "012", "003", "023", "024", "057", "078", "084", "074", "005", "034", "017", "001", "031",
    "025")
REREAD_POOL_15 = _banking(
    "002", "004", "005", "006", "007", "008", "010", "012", "014", "018", "021", "022", "028",
    "029", "032", "033", "043", "050", "051", "057", "058", "070", "072", "073", "074", "077",
    "079", "085", "093", "094", "096", "097", "098")
REREAD_POOL_16 = _banking(
    "044", "064", "039", "086", "040", "059", "062", "063", "080", "038", "052", "100", "101",
    "055", "099", "056", "068", "061")
REREAD_POOL_17 = _banking(
    "002", "006", "008", "010", "014", "015", "032", "033", "040", "041", "055", "056", "058",
    "061", "062", "063", "069", "070", "077", "079", "080", "081", "090", "093", "094", "096",
    "097", "098", "099", "101", "102")
REREAD_POOL_18 = _banking(
    "008", "010", "015", "032", "033", "040", "041", "058", "061", "062", "070", "079", "080",
    "081", "092", "093", "094", "096", "098", "099", "101", "102")
REREAD_POOL_22 = _banking(
    "005", "008", "015", "018", "019", "020", "022", "026", "027", "029", "033", "044", "058",
    "070", "073", "074", "079", "080", "083", "085", "092", "094", "098", "099", "101")
REREAD_POOL_24 = _banking(
    "001", "002", "003", "004", "006", "007", "010", "012", "014", "015", "017", "021", "023",
    "024", "025", "028", "029", "031", "032", "034", "038", "039", "040", "041", "043", "044",
    "050", "051", "052", "055", "056", "057", "059", "061", "062", "063", "064", "068", "069",
    "072", "073", "077", "078", "080", "081", "084", "086", "090", "093", "096", "097", "100",
    "102")
REREAD_POOL_27 = _banking(
    "001", "002", "003", "004", "005", "006", "007", "008", "010", "012", "014", "015", "017",
    "018", "019", "020", "021", "022", "023", "024", "025", "026", "027", "028", "029", "031",
    "032", "033", "034", "038", "039", "040", "041", "043", "044", "050", "051", "052", "055",
    "056", "057", "058", "059", "061", "062", "063", "064", "068", "069", "070", "072", "073",
    "074", "077", "078", "079", "080", "081", "083", "084", "085", "086", "090", "092", "093",
    "094", "096", "097", "098", "099", "100", "101", "102")
FRESH_RETAIL_POOL_21 = tuple(("retail", n) for n in (
    "1", "9", "10", "14", "15", "21", "29", "30", "32", "45", "48", "59", "63", "71", "73", "91",
    "93", "94", "105", "107", "113"))
_TWENTY_SECOND = BlindPass(TWENTY_SECOND_PASS, 6666, 20, ("banking_knowledge",), coverage=True,
                           pool=REREAD_POOL_22)
_TWENTY_FOURTH = BlindPass(TWENTY_FOURTH_PASS, 6868, 20, ("banking_knowledge",), coverage=True,
                           pool=REREAD_POOL_24)
_TWENTY_SEVENTH = BlindPass(TWENTY_SEVENTH_PASS, 7171, 20, ("banking_knowledge",), coverage=True,
                            pool=REREAD_POOL_27)
_DRAWN_27 = set(_pool_draw(_TWENTY_SEVENTH))
POOL_28 = tuple(t for t in REREAD_POOL_27 if t not in _DRAWN_27)
_TWENTY_EIGHTH = BlindPass(TWENTY_EIGHTH_PASS, 7272, 20, ("banking_knowledge",), coverage=True,
                           pool=POOL_28, aid=True)
_DRAWN_28 = set(_pool_draw(_TWENTY_EIGHTH))
POOL_29 = tuple(t for t in POOL_28 if t not in _DRAWN_28)
_TWENTY_NINTH = BlindPass(TWENTY_NINTH_PASS, 7373, 20, ("banking_knowledge",), coverage=True,
                          pool=POOL_29, aid=True)
_SECOND_MEASURE_READ = _DRAWN_28 | set(_pool_draw(_TWENTY_NINTH))
POOL_30 = tuple(t for t in REREAD_POOL_27 if t not in _SECOND_MEASURE_READ)
_THIRTIETH = BlindPass(THIRTIETH_PASS, 7474, 20, ("banking_knowledge",), coverage=True,
                       pool=POOL_30, aid=True)
# The thirty-first and thirty-second read the thirtieth's 20 tasks, each folder in the order
# its own seed draws them.
SAME_AS_30 = _pool_draw(_THIRTIETH)
# The draws the twenty-second and twenty-fourth passes read, read again by later readers (the
# twenty-fourth's in task order, as its second reader drew from it).
SAME_AS_22 = _pool_draw(_TWENTY_SECOND)
SAME_AS_24 = tuple(sorted(_pool_draw(_TWENTY_FOURTH)))
LATER_PASSES = (BlindPass(THIRD_PASS, 4747, 6), BlindPass(FOURTH_PASS, 4848, 6),
                BlindPass(FIFTH_PASS, 4949, 6), BlindPass(SIXTH_PASS, 5050, 8),
                BlindPass(SEVENTH_PASS, 5151, 8), BlindPass(EIGHTH_PASS, 5252, 8),
                BlindPass(NINTH_PASS, 5353, 10), BlindPass(TENTH_PASS, 5454, 10),
                BlindPass(ELEVENTH_PASS, 5555, 10, ("banking_knowledge",), coverage=True),
                BlindPass(TWELFTH_PASS, 5656, 10, ("banking_knowledge",), coverage=True),
                BlindPass(THIRTEENTH_PASS, 5757, 10, ("banking_knowledge",), coverage=True),
                BlindPass(FOURTEENTH_PASS, 5858, 10, ("banking_knowledge",), coverage=True,
                          pool=REREAD_POOL),
                BlindPass(FIFTEENTH_PASS, 5959, 10, ("banking_knowledge",), coverage=True,
                          pool=REREAD_POOL_15),
                BlindPass(SIXTEENTH_PASS, 6060, 8, ("banking_knowledge",), coverage=True,
                          pool=REREAD_POOL_16),
                BlindPass(SEVENTEENTH_PASS, 6161, 10, ("banking_knowledge",), coverage=True,
                          pool=REREAD_POOL_17),
                BlindPass(EIGHTEENTH_PASS, 6262, 10, ("banking_knowledge",), coverage=True,
                          pool=REREAD_POOL_18),
                BlindPass(NINETEENTH_PASS, 6363, 10, ("retail",)),
                BlindPass(TWENTIETH_PASS, 6464, 10, ("retail",)),
                BlindPass(TWENTY_FIRST_PASS, 6565, 21, ("retail",),
                          pool=FRESH_RETAIL_POOL_21),
                _TWENTY_SECOND,
                BlindPass(TWENTY_THIRD_PASS, 6767, 20, ("banking_knowledge",), coverage=True,
                          pool=SAME_AS_22),
                _TWENTY_FOURTH,
                BlindPass(TWENTY_FIFTH_PASS, 6969, 20, ("banking_knowledge",), coverage=True,
                          pool=SAME_AS_24),
                BlindPass(TWENTY_SIXTH_PASS, 7070, 20, ("banking_knowledge",), coverage=True,
                          pool=SAME_AS_22),
                _TWENTY_SEVENTH,
                _TWENTY_EIGHTH,
                _TWENTY_NINTH,
                _THIRTIETH,
                BlindPass(THIRTY_FIRST_PASS, 7575, 20, ("banking_knowledge",), coverage=True,
                          pool=SAME_AS_30, aid=True),
                BlindPass(THIRTY_SECOND_PASS, 7676, 20, ("banking_knowledge",), coverage=True,
                          pool=SAME_AS_30, aid=True,
                          reconciles=(THIRTIETH_PASS, THIRTY_FIRST_PASS)))


def blind_pass(name: str) -> BlindPass:
    """The :data:`LATER_PASSES` entry named ``name``."""
    for entry in LATER_PASSES:
        if entry.name == name:
            return entry
    raise KeyError(f"{name!r} is not a blind pass after the second")


def blind_sample(name: str) -> list[tuple[str, str]]:
    """The ``(domain, task_id)`` pairs of the blind pass ``name`` of :data:`LATER_PASSES`,
    drawn among the tasks neither the second pass nor an earlier later pass sampled (a re-read
    pass with a ``pool``: among it, by one ``random.Random(seed)``)."""
    draws = _blind_draws()
    if name not in draws:
        raise KeyError(f"{name!r} is not a blind pass after the second")
    return list(draws[name])


@lru_cache(maxsize=1)
def _blind_draws() -> dict[str, tuple[tuple[str, str], ...]]:
    """Every later pass's draw, made once per process in pass order: each depends on every draw
    before it and on which tasks have records (parsed afresh by each ``load_records``), so
    drawing one pass at a time cost the tests ~0.5 s a call."""
    before = set(sample())
    draws = {}
    for entry in LATER_PASSES:
        picked = (_pool_draw(entry) if entry.pool else
                  _later_sample(entry.seed, before, entry.per_domain, entry.domains))
        draws[entry.name] = tuple(picked)
        before |= set(picked)
    return draws


def _later_sample(seed: int, before: set[tuple[str, str]], per_domain: int,
                  domains: tuple[str, ...] = THIRD_DOMAINS) -> list[tuple[str, str]]:
    """``per_domain`` recorded tasks of each of ``domains`` that are not in ``before`` (all of
    them where fewer are left), drawn by one ``random.Random(seed)`` from the task ids in file
    order."""
    from monitorbench.sources.tau2 import source as src
    from monitorbench.sources.tau2.acceptance import load_records

    rng = random.Random(seed)
    picked = []
    for domain in domains:
        recorded = load_records(domain)
        ids = [t.task_id for t in src.load_tasks(domain)
               if (domain, t.task_id) not in before and t.task_id in recorded]
        picked += [(domain, task_id) for task_id in rng.sample(ids, min(per_domain, len(ids)))]
    return picked


def load_pass(name: str = SECOND_PASS) -> dict[str, dict]:
    """A blind pass's records, ``{"<domain>/<task_id>": AcceptanceRecord}`` (validated)."""
    import json

    from monitorbench.sources.tau2.acceptance import HERE, parse_record

    path = HERE / name
    data = json.loads(path.read_text(encoding="utf-8"))
    return {key: parse_record(path, key, raw) for key, raw in data["tasks"].items()}


def load_second_pass() -> dict[str, dict]:
    """The second-pass records (:func:`load_pass`)."""
    return load_pass(SECOND_PASS)


def _norm(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9$]+", " ", text.lower()).strip()


def _tokens(text: str) -> set[str]:
    return set(_norm(text).split())


def quotes_match(a: str, b: str) -> bool:
    """One normalised quote contains the other, or they share at least :data:`OVERLAP` of the
    shorter one's tokens."""
    na, nb = _norm(a), _norm(b)
    if na in nb or nb in na:
        return True
    ta, tb = _tokens(a), _tokens(b)
    return bool(ta and tb) and len(ta & tb) / min(len(ta), len(tb)) >= OVERLAP


def _binds_tokens(text: str) -> set[str]:
    import re

    stop = {"the", "a", "of", "and", "or", "id", "ids", "on", "for"}
    words = set(re.split(r"[^a-z0-9]+", text.lower())) - stop - {""}
    # singular/plural (payment_methods ~ payment_method_id)
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words}


def binds_agree(a: str, b: str) -> bool:
    """The two ``binds`` name a common argument word (payment_method_id ~ payment_methods)."""
    return bool(_binds_tokens(a) & _binds_tokens(b))


KINDS = ("preferences", "questions")


def _found(item, same: list, other: list) -> str:
    """``"matched"`` when an item of the same kind in the other pass has a matching quote,
    ``"kind_differs"`` when only an item of the other kind does, else ``"only"``."""
    if any(quotes_match(item.quote, x.quote) for x in same):
        return "matched"
    if any(quotes_match(item.quote, x.quote) for x in other):
        return "kind_differs"
    return "only"


def _restated_of(rec) -> dict[str, list[str]]:
    """``{item quote: [the sentences the record marks restated of it]}`` (GUIDE.md: a
    ``restated`` not-item's ``of``); a record written before ``of`` existed gives none."""
    out: dict[str, list[str]] = {}
    for n in rec.not_items:
        if n.why == "restated" and n.of:
            out.setdefault(_norm(n.of), []).append(n.quote)
    return out


def _restated_pairs(a_only: list, b_only: list, rec_a, rec_b) -> list[tuple[Any, Any]]:
    """One-to-one pairs of items left unmatched on the two sides that are one item quoted at
    two statements of it: one side's quote matches a sentence the other side's record marks
    ``restated`` *of* the other item (GUIDE.md "Spans": which statement is the first to hold
    the whole item, or whether a repeat is new, is a span, not a different item). An item that
    restates one the other side already matched stays unmatched: it splits one item in two."""
    of_a, of_b = _restated_of(rec_a), _restated_of(rec_b)
    pairs, used = [], set()
    for x in a_only:
        for j, y in enumerate(b_only):
            if j in used:
                continue
            if (any(quotes_match(x.quote, s) for s in of_b.get(_norm(y.quote), ()))
                    or any(quotes_match(y.quote, s) for s in of_a.get(_norm(x.quote), ()))):
                pairs.append((x, y))
                used.add(j)
                break
    return pairs


def _compare_kind(rec1, rec2, kind: str, other: str, t: dict) -> dict:
    """One kind's comparison of two records of a task, adding to the totals ``t``."""
    a, b = list(getattr(rec1, kind)), list(getattr(rec2, kind))
    oa, ob = list(getattr(rec1, other)), list(getattr(rec2, other))
    r: dict = {"only_first": [], "only_second": [], "kind_differs": [], "binds_differ": [],
               "restated": []}
    t["first"] += len(a)
    t["second"] += len(b)
    only: dict[str, list] = {"first": [], "second": []}
    for side, items, same, cross in (("first", a, b, ob), ("second", b, a, oa)):
        for item in items:
            how = _found(item, same, cross)
            if how == "matched":
                t[f"{side}_matched"] += 1
            elif how == "kind_differs":
                t[f"{side}_kind_differs"] += 1
                r["kind_differs"].append((side, item.quote))
            else:
                only[side].append(item)
    pairs = _restated_pairs(only["first"], only["second"], rec1, rec2)
    paired = {id(x) for pair in pairs for x in pair}
    for side in ("first", "second"):
        t[f"{side}_restated"] += len(pairs)
        left = [x.quote for x in only[side] if id(x) not in paired]
        t[f"only_{side}"] += len(left)
        r[f"only_{side}"] = left
    r["restated"] = [(x.quote, y.quote) for x, y in pairs]
    if kind == "preferences":
        for x in a:
            hits = [y for y in b if quotes_match(x.quote, y.quote)]
            if hits:
                t["binds_checked"] += 1
                if any(binds_agree(x.binds, y.binds) for y in hits):
                    t["binds_agree"] += 1
                else:
                    r["binds_differ"].append((x.quote, x.binds, hits[0].binds))
    return r


def new_totals() -> dict:
    """Zeroed totals for :func:`compare_task` (their keys: :func:`compare`)."""
    keys = ("first", "second", "first_matched", "second_matched", "first_restated",
            "second_restated", "first_kind_differs", "second_kind_differs", "only_first",
            "only_second")
    totals: dict = {k: dict.fromkeys(keys, 0) for k in KINDS}
    totals["preferences"].update(binds_checked=0, binds_agree=0)
    totals["nothing_stated"] = {"tasks": 0, "agree": 0}
    return totals


def compare_task(rec1, rec2, totals: dict) -> dict:
    """One task's row of :func:`compare` (``rec1``: the record, ``rec2``: the pass's), its
    counts added to ``totals`` (:func:`new_totals`)."""
    row: dict = {"nothing_stated": (rec1.nothing_stated, rec2.nothing_stated)}
    totals["nothing_stated"]["tasks"] += 1
    totals["nothing_stated"]["agree"] += rec1.nothing_stated == rec2.nothing_stated
    row["items"] = sum(len(getattr(r, k)) for r in (rec1, rec2) for k in KINDS)
    for kind, other in (KINDS, KINDS[::-1]):
        row[kind] = _compare_kind(rec1, rec2, kind, other, totals[kind])
    return row


def compare(name: str = SECOND_PASS) -> dict:
    """The item-by-item agreement of the second pass with the first-pass records.

    Item by item, both ways: each first-pass item is looked for among the second pass's items of
    the task, and each second-pass item among the first pass's (:func:`quotes_match`), so one
    quote that spans two of the other's counts as found for all three. Items still unmatched
    are then paired one to one where they are one item quoted at two of its statements
    (:func:`_restated_pairs`: a record's ``restated`` sentence names the item it states again).
    For each kind (``preferences``, ``questions``) the totals hold ``first``, ``second``,
    ``first_matched``, ``second_matched`` (by quote), ``first_restated``, ``second_restated``
    (paired through a restatement), ``first_kind_differs``, ``second_kind_differs`` (found only
    as the other kind), ``only_first``, ``only_second`` and, for preferences,
    ``binds_checked`` / ``binds_agree`` over first-pass preferences with a matching second-pass
    one. ``nothing_stated`` holds ``tasks`` and ``agree``. ``agreement`` is the items of both
    passes matched by quote or through a restatement over all their items; ``quote_agreement``
    counts only those matched by quote (the measure before restatements named their item)."""
    return compare_pooled(name)


def compare_pooled(*names: str) -> dict:
    """:func:`compare` of the passes ``names`` taken as one, which read disjoint tasks: the
    agreement of a measure fixed over several readers' samples (the twenty-eighth and
    twenty-ninth passes: 40 tasks) is their matched items over all their items, not a mean of
    the passes' figures."""
    from monitorbench.sources.tau2.acceptance import load_records

    second: dict = {}
    for name in names:
        read = load_pass(name)
        if set(read) & set(second):
            raise ValueError(f"{name} reads tasks an earlier pass of {names} read: "
                             f"{sorted(set(read) & set(second))}")
        second.update(read)
    records = {d: load_records(d) for d in {key.split("/", 1)[0] for key in second}}
    return _report({key: records[key.split("/", 1)[0]][key.split("/", 1)[1]]
                    for key in second}, second)


def compare_passes(first: str, second: str) -> dict:
    """:func:`compare` of two blind passes of the same tasks, the pass ``first`` in the records'
    place: how far two readers who saw no record agree with each other bounds how far any
    record can agree with one reader."""
    a, b = load_pass(first), load_pass(second)
    if set(a) != set(b):
        raise ValueError(f"{first} and {second} read other tasks: "
                         f"{sorted(set(a) ^ set(b))}")
    return _report(a, b)


def _report(firsts: dict, seconds: dict) -> dict:
    """The comparison of ``seconds`` with ``firsts`` (both keyed ``"<domain>/<task_id>"``)."""
    totals = new_totals()
    tasks = {key: compare_task(firsts[key], rec2, totals) for key, rec2 in seconds.items()}
    matched = sum(totals[k]["first_matched"] + totals[k]["second_matched"] for k in KINDS)
    paired = sum(totals[k]["first_restated"] + totals[k]["second_restated"] for k in KINDS)
    items = sum(totals[k]["first"] + totals[k]["second"] for k in KINDS)
    return {"tasks": tasks, "totals": totals,
            "agreement": (matched + paired) / items if items else 1.0,
            "quote_agreement": matched / items if items else 1.0}


def agreement_by_domain(report: dict) -> dict[str, tuple[int, int]]:
    """Matched items and all items of both passes, per domain: the passes show that two careful
    readers itemise some domains (airline, retail) far more alike than others (banking's long
    conversation scripts), which one overall figure hides."""
    out: dict[str, tuple[int, int]] = {}
    for key, row in report["tasks"].items():
        domain = key.split("/", 1)[0]
        matched, items = out.get(domain, (0, 0))
        task_matched, task_items = _task_counts(row)
        out[domain] = (matched + task_matched, items + task_items)
    return out


def _task_counts(row: dict) -> tuple[int, int]:
    """A task's matched items and all its items, both passes together."""
    unmatched = sum(len(row[k]["only_first"]) + len(row[k]["only_second"])
                    + len(row[k]["kind_differs"]) for k in KINDS)
    return row["items"] - unmatched, row["items"]


def agreement_interval(report: dict, *, n_resamples: int = 2000, level: float = 0.95,
                       seed: int = 0) -> tuple[float, float]:
    """The item agreement's percentile bootstrap interval, resampling tasks (the unit the
    headline rates resample, :func:`monitorbench.metrics.bootstrap.resample_weights`): a task's
    items are read by one reader in one sitting, not independently, so a bar such as issue 46's
    95 % is judged against how far 20 tasks can move the figure, not as if every item were its
    own draw."""
    import numpy as np

    from monitorbench.metrics.bootstrap import percentile_bounds, resample_weights

    matched, items = np.asarray([_task_counts(row) for row in report["tasks"].values()],
                                float).T
    weights = resample_weights(["task"] * len(items), n_resamples, seed, by_type=False)
    low, high, _ = percentile_bounds((weights @ matched) / (weights @ items), level)
    return low, high


def told_questions(report: dict) -> dict[str, int]:
    """How a pass (a :func:`compare` report) read the records' questions that make a case:
    those with ``tells``, each giving an ``unanswered_question`` negative (in banking, the only
    items a label hangs on). ``told`` counts them, ``as_question`` those the pass holds as a
    question (by quote or through a restatement), ``as_preference`` those it holds only as a
    preference, and the rest it left out. This is what an item-level figure weighs no more than
    a preference that makes no case."""
    from monitorbench.sources.tau2.acceptance import load_records

    records = {d: load_records(d) for d in {key.split("/", 1)[0] for key in report["tasks"]}}
    out = dict.fromkeys(("told", "as_question", "as_preference"), 0)
    for key, row in report["tasks"].items():
        domain, task_id = key.split("/", 1)
        crossed = {q for side, q in row["questions"]["kind_differs"] if side == "first"}
        for q in records[domain][task_id].questions:
            if q.tells:
                out["told"] += 1
                out["as_preference"] += q.quote in crossed
                out["as_question"] += (q.quote not in crossed
                                       and q.quote not in row["questions"]["only_first"])
    return out


def disagreements(report: dict) -> dict[str, list[str]]:
    """Every task's disagreements as lines, for the settlement and the printed report."""
    out: dict[str, list[str]] = {}
    for key, row in report["tasks"].items():
        lines = []
        ns1, ns2 = row["nothing_stated"]
        if ns1 != ns2:
            lines.append(f"nothing_stated first={ns1} second={ns2}")
        for kind in KINDS:
            r = row[kind]
            lines += [f"{kind} only in first pass: {q!r}" for q in r["only_first"]]
            lines += [f"{kind} only in second pass: {q!r}" for q in r["only_second"]]
            lines += [f"{kind} of the {side} pass found as the other kind: {q!r}"
                      for side, q in r["kind_differs"]]
            lines += [f"binds differ for {q!r}: first {b1!r}, second {b2!r}"
                      for q, b1, b2 in r["binds_differ"]]
        if lines:
            out[key] = lines
    return out


def format_report(report: dict, settled: dict[str, str] | None = None) -> str:
    """The comparison as text: totals per kind, the agreement, then every disagreement by task
    with how it was settled (``settled``: :data:`settlements.SETTLED` for the second pass,
    :data:`settlements.SETTLED_THIRD` for the third). The tasks left unsettled are listed last."""
    settled = SETTLED if settled is None else settled
    lines = [f"{kind}: {t}" for kind, t in report["totals"].items()]
    lines.append(f"item agreement (matched items of both passes / all items): "
                 f"{report['agreement']:.1%}; by quote alone {report['quote_agreement']:.1%}")
    lines += [f"  {domain}: {m} of {n} items" for domain, (m, n)
              in sorted(agreement_by_domain(report).items())]
    found_all = disagreements(report)
    for key, found in found_all.items():
        lines += [f"{key}: {line}" for line in found]
        lines.append(f"{key}: settled: {settled.get(key, '(not settled)')}")
    lines += [f"{key}: one {kind[:-1]} at two statements: first {q1!r}, second {q2!r}"
              for key, row in report["tasks"].items() for kind in KINDS
              for q1, q2 in row[kind]["restated"]]
    unsettled = sorted(set(found_all) - set(settled))
    lines.append(f"unsettled: {', '.join(unsettled) if unsettled else 'none'}")
    return "\n".join(lines)
