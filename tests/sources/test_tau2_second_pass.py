"""The blind second pass of τ² acceptance records (issue 46): it is the seeded sample, every
quote is the task's own, and the item-by-item agreement with the first pass is computed and
printed."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_evals")

from monitorbench.sources.tau2 import source as src  # noqa: E402
from monitorbench.errors import InputError  # noqa: E402
from monitorbench.sources.tau2.acceptance import HERE, load_records, parse_record  # noqa: E402
from monitorbench.sources.tau2.acceptance import second_pass as sp  # noqa: E402
from monitorbench.sources.tau2.acceptance import settlements as st  # noqa: E402


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_sample_is_the_seeded_one() -> None:
    """random.Random(46) draws 8 task ids per domain, domains in order; the file holds exactly
    those tasks, each one a τ² task the first pass also records."""
    rng = random.Random(46)
    expected = [(d, t) for d in sp.DOMAINS
                for t in rng.sample([x.task_id for x in src.load_tasks(d)], 8)]
    assert sp.sample() == expected and len(expected) == 24
    data = json.loads((HERE / sp.SECOND_PASS).read_text(encoding="utf-8"))
    assert data["seed"] == sp.SAMPLE_SEED == 46
    assert sorted(sp.load_second_pass()) == sorted(f"{d}/{t}" for d, t in expected)
    for d, t in expected:
        assert t in load_records(d)


def test_every_second_pass_quote_is_in_the_public_task() -> None:
    problems = []
    for key, rec in sp.load_second_pass().items():
        domain, task_id = key.split("/", 1)
        task = {t.task_id: t for t in src.load_tasks(domain)}[task_id]
        instruction = _norm(src.user_request(task))
        policy = _norm(src.policy(domain))
        problems += [f"{key}: {i.quote!r}" for i in (*rec.preferences, *rec.questions)
                     if _norm(i.quote) not in instruction]
        problems += [f"{key}: policy {q!r}" for q in rec.policy if _norm(q) not in policy]
    assert problems == []


def test_quote_matching() -> None:
    assert sp.quotes_match("the other card", "You want to pay with the other card.")
    assert sp.quotes_match("I also need early direct deposit",
                           "You also need early direct deposit because you travel")
    assert not sp.quotes_match("No baggage and insurance.", "upgrade to business class")
    assert sp.binds_agree("payment_methods", "payment_method_id")
    assert not sp.binds_agree("cabin", "payment_id")


def test_the_agreement_is_computed_and_printed(capsys) -> None:
    """Counts are consistent, every disagreement is settled (settlements.SETTLED), and the
    report is printed. Not asserted: the ≥ 95 % of issue 46, which this pass does not reach."""
    report = sp.compare()
    totals = report["totals"]
    for kind in sp.KINDS:
        t = totals[kind]
        for side in ("first", "second"):
            assert (t[f"{side}_matched"] + t[f"{side}_restated"] + t[f"{side}_kind_differs"]
                    + t[f"only_{side}"] == t[side]), (kind, side, t)
    assert totals["preferences"]["binds_agree"] <= totals["preferences"]["binds_checked"] \
        == totals["preferences"]["first_matched"]
    assert totals["nothing_stated"]["tasks"] == 24
    matched = sum(totals[k]["first_matched"] + totals[k]["second_matched"] for k in sp.KINDS)
    paired = sum(totals[k]["first_restated"] + totals[k]["second_restated"] for k in sp.KINDS)
    items = sum(totals[k]["first"] + totals[k]["second"] for k in sp.KINDS)
    assert report["quote_agreement"] == pytest.approx(matched / items)
    assert report["agreement"] == pytest.approx((matched + paired) / items)
    unsettled = sorted(set(sp.disagreements(report)) - set(st.SETTLED))
    assert unsettled == []
    with capsys.disabled():
        print("\n[issue 46] blind second pass vs first pass:\n" + sp.format_report(report))


# The passes whose file a blind reader has written: all of them.
WRITTEN = [p.name for p in sp.LATER_PASSES]


# The re-reads: each name, pool, size, and the earlier passes that read its pool's tasks, where
# the pool is defined by them (the fourteenth's: the eleventh to thirteenth).
REREADS = [(sp.FOURTEENTH_PASS, sp.REREAD_POOL, 10,
            (sp.ELEVENTH_PASS, sp.TWELFTH_PASS, sp.THIRTEENTH_PASS)),
           (sp.FIFTEENTH_PASS, sp.REREAD_POOL_15, 10, ()),
           (sp.SIXTEENTH_PASS, sp.REREAD_POOL_16, 8, ()),
           (sp.SEVENTEENTH_PASS, sp.REREAD_POOL_17, 10, ()),
           (sp.EIGHTEENTH_PASS, sp.REREAD_POOL_18, 10, ()),
           (sp.TWENTY_SECOND_PASS, sp.REREAD_POOL_22, 20, ()),
           (sp.TWENTY_THIRD_PASS, sp.SAME_AS_22, 20, (sp.TWENTY_SECOND_PASS,)),
           (sp.TWENTY_FOURTH_PASS, sp.REREAD_POOL_24, 20, ()),
           (sp.TWENTY_FIFTH_PASS, sp.SAME_AS_24, 20, (sp.TWENTY_FOURTH_PASS,)),
           (sp.TWENTY_SIXTH_PASS, sp.SAME_AS_22, 20, (sp.TWENTY_SECOND_PASS,)),
           (sp.TWENTY_SEVENTH_PASS, sp.REREAD_POOL_27, 20, ()),
           (sp.TWENTY_EIGHTH_PASS, sp.POOL_28, 20, ()),
           (sp.TWENTY_NINTH_PASS, sp.POOL_29, 20, ()),
           (sp.THIRTIETH_PASS, sp.POOL_30, 20, ()),
           (sp.THIRTY_FIRST_PASS, sp.SAME_AS_30, 20, (sp.THIRTIETH_PASS,)),
           (sp.THIRTY_SECOND_PASS, sp.SAME_AS_30, 20, (sp.THIRTIETH_PASS,))]


# The re-reads whose pool may hold tasks earlier re-reads drew: the twenty-fourth's is every
# banking record but the twenty-second's twenty (and those the guide quotes), read after the
# records were revised to what two readers agreed on.
def _pool_passes_but(*names: str) -> tuple[str, ...]:
    """Every re-read (a pass drawing from a pool) but ``names``."""
    return tuple(p.name for p in sp.LATER_PASSES if p.pool and p.name not in names)


_SECOND_MEASURE = (sp.TWENTY_EIGHTH_PASS, sp.TWENTY_NINTH_PASS)
MAY_REPEAT = {sp.TWENTY_FOURTH_PASS: (sp.FOURTEENTH_PASS, sp.FIFTEENTH_PASS, sp.SIXTEENTH_PASS,
                                      sp.SEVENTEENTH_PASS, sp.EIGHTEENTH_PASS),
              sp.TWENTY_FIFTH_PASS: (sp.FOURTEENTH_PASS, sp.FIFTEENTH_PASS, sp.SIXTEENTH_PASS,
                                     sp.SEVENTEENTH_PASS, sp.EIGHTEENTH_PASS),
              sp.TWENTY_SIXTH_PASS: (sp.TWENTY_THIRD_PASS,),
              # the deciding pass draws from every banking record the guide does not quote
              sp.TWENTY_SEVENTH_PASS: _pool_passes_but(sp.TWENTY_SEVENTH_PASS),
              # the second deciding measure's, all but what the deciding passes drew
              **dict.fromkeys(_SECOND_MEASURE,
                              _pool_passes_but(sp.TWENTY_SEVENTH_PASS, *_SECOND_MEASURE)),
              # the third measure's: all but what the second measure read
              **dict.fromkeys((sp.THIRTIETH_PASS, sp.THIRTY_FIRST_PASS, sp.THIRTY_SECOND_PASS),
                              _pool_passes_but(*_SECOND_MEASURE))}


@pytest.mark.parametrize("name,pool,size,read_by", REREADS)
def test_a_reread_draws_covered_banking_records_the_guide_does_not_quote(
        name: str, pool: tuple, size: int, read_by: tuple) -> None:
    """A re-read draws its size of its pool by its seed; a pool is banking records that cover
    every sentence of their brief (the fourteenth's: tasks of the eleventh to thirteenth passes,
    read once, records settled; the twenty-third's: the twenty-second's), none drawn by another
    earlier re-read, none of whose sentences
    GUIDE.md quotes and whose ids it does not name, so its examples do not hand the reader the
    answers."""
    from monitorbench.sources.tau2.acceptance.coverage import sentences, uncovered

    picked = sp.blind_sample(name)
    pool = set(pool)
    assert len(picked) == len(set(picked)) == size and set(picked) <= pool
    if read_by:
        assert pool <= set().union(*(sp.blind_sample(n) for n in read_by))
    earlier = [p.name for p in sp.LATER_PASSES if p.pool]
    earlier = [n for n in earlier[:earlier.index(name)]
               if n not in read_by and n not in MAY_REPEAT.get(name, ())]
    assert not pool & set().union(*(sp.blind_sample(n) for n in earlier))
    guide = _norm((HERE / "GUIDE.md").read_text(encoding="utf-8"))
    tasks = {t.task_id: t for t in src.load_tasks("banking_knowledge")}
    records = load_records("banking_knowledge")
    briefs = {t: src.user_request(tasks[t]) for _, t in pool}
    assert [t for t, brief in briefs.items() if uncovered(records[t], brief)] == []
    assert [(t, s) for t, brief in briefs.items() for s in sentences(brief)
            if len(s) > 25 and _norm(s).strip('"') in guide] == []
    assert not [t for t in briefs if t in guide]


def test_the_twenty_first_pass_reads_every_fresh_retail_task_the_guide_does_not_quote() -> None:
    """Its pool is the retail tasks no earlier pass drew, less those a quotation of GUIDE.md
    comes from (its examples would hand the reader the records' answers), and it reads all of
    them."""
    names = [p.name for p in sp.LATER_PASSES]
    before = set(sp.sample()).union(*(sp.blind_sample(n)
                                      for n in names[:names.index(sp.TWENTY_FIRST_PASS)]))
    tasks = {t.task_id: t for t in src.load_tasks("retail")}
    fresh = {("retail", task_id) for task_id in tasks} - before
    quotes = _guide_quotes()
    quoted = {key for key in fresh
              if any(q in _norm(src.user_request(tasks[key[1]])) for q in quotes)}
    assert quoted == {("retail", "24"), ("retail", "42"), ("retail", "97")}
    assert set(sp.FRESH_RETAIL_POOL_21) == fresh - quoted
    assert sorted(sp.blind_sample(sp.TWENTY_FIRST_PASS)) == sorted(sp.FRESH_RETAIL_POOL_21)


def _guide_quotes() -> set[str]:
    """Every quotation in GUIDE.md of three words or more, normalised, a trailing "..." cut."""
    import re

    text = (HERE / "GUIDE.md").read_text(encoding="utf-8")
    found = re.findall(r'["“]([^"”]+?)["”]', text)
    quotes = {_norm(q.replace("...", " ")) for q in found}
    return {q for q in quotes if len(q.split()) >= 3}


@pytest.mark.parametrize("name", WRITTEN)
def test_a_later_blind_pass_is_seeded_quoted_and_compared(name: str, capsys) -> None:
    """The third pass (after the records' question review; telecom included) and the fourth
    (the first written with GUIDE.md): each file holds exactly its seed's draw of 6 recorded
    tasks per domain that no earlier pass sampled, every quote is the task's own, and the item
    agreement is computed and printed. Not asserted: issue 46's 95 %. The third pass gave
    72.2 %, mostly granularity: it itemises each criterion and each disputed charge that a
    first-pass record bound as one item; the records then gained its real items (see the next
    test). The fourth gave 62.1 %: the guide asks for that granularity and most records did not
    have it yet; every record was then revised to the guide. The fifth, the first blind pass
    after that revision, gave 94.7 % (231 of 244 items); the sixth (32 tasks, after the guide
    gained what the fifth's over-reaches showed) 84.6 % (242 of 286), most of the gap in
    banking's recommendation tasks; the seventh (30 tasks, after the sixth's settlement)
    89.2 % (232 of 260); the eighth (24 tasks: telecom has none left) 85.3 % (272 of 319),
    airline and retail all but three items, the rest in banking's long conversation briefs;
    the ninth (20 tasks: only retail and banking have tasks left) 85.3 % (244 of 286); the
    tenth (20 tasks) 72.4 % (160 of 221): retail 82 of 86, banking 78 of 135; the eleventh (10
    banking tasks, every sentence of the brief covered) 87.2 % (136 of 156); the twelfth (10 more
    banking tasks, after the eleventh's settlement) 85.1 % (131 of 154); the thirteenth (the last
    7 banking tasks, after the twelfth's) 78.9 % (75 of 95); the fourteenth (a re-read of 10
    banking tasks read once, whose sentences the guide does not quote) 94.7 % (126 of 133); the
    fifteenth (a second re-read, of ten records most of which were revised to coverage just
    before) 87.1 % (101 of 116); the sixteenth (a third re-read, of eight long conversation
    briefs revised to coverage just before) 91.3 % (168 of 184); the seventeenth (a fourth
    re-read, of ten records that cover every sentence, short and long briefs) 90.2 % (203 of
    225); the eighteenth (a fifth re-read, of ten more) 91.2 % (229 of 251); the nineteenth (ten
    retail tasks never read blind) 91.2 % (73 of 80); the twentieth (ten more, after the
    nineteenth's settlement) 97.0 % (98 of 101) against the records as they stood; the
    twenty-first (the 21 fresh retail tasks the guide does not quote, their records revised to
    the guide first) 98.6 % (205 of 208)."""
    picked = sp.blind_sample(name)
    names = [p.name for p in sp.LATER_PASSES]
    earlier = set(sp.sample()).union(*(sp.blind_sample(n) for n in names[:names.index(name)]))
    assert len(picked) == {sp.SIXTH_PASS: 32, sp.SEVENTH_PASS: 30, sp.NINTH_PASS: 20,
                           sp.TENTH_PASS: 20, sp.ELEVENTH_PASS: 10,
                           sp.TWELFTH_PASS: 10, sp.THIRTEENTH_PASS: 7,
                           sp.FOURTEENTH_PASS: 10, sp.FIFTEENTH_PASS: 10,
                           sp.SIXTEENTH_PASS: 8, sp.SEVENTEENTH_PASS: 10,
                           sp.EIGHTEENTH_PASS: 10, sp.NINETEENTH_PASS: 10,
                           sp.TWENTIETH_PASS: 10, sp.TWENTY_FIRST_PASS: 21,
                           sp.TWENTY_SECOND_PASS: 20, sp.TWENTY_THIRD_PASS: 20,
                           sp.TWENTY_FOURTH_PASS: 20, sp.TWENTY_FIFTH_PASS: 20,
                           sp.TWENTY_SIXTH_PASS: 20, sp.TWENTY_SEVENTH_PASS: 20,
                           sp.TWENTY_EIGHTH_PASS: 20, sp.TWENTY_NINTH_PASS: 20,
                           sp.THIRTIETH_PASS: 20, sp.THIRTY_FIRST_PASS: 20,
                           sp.THIRTY_SECOND_PASS: 20}.get(name, 24)
    assert len({d for d, _ in picked}) == {sp.EIGHTH_PASS: 3, sp.NINTH_PASS: 2,
                                           sp.TENTH_PASS: 2, sp.ELEVENTH_PASS: 1,
                                           sp.TWELFTH_PASS: 1,
                                           sp.THIRTEENTH_PASS: 1,
                                           sp.FOURTEENTH_PASS: 1,
                                           sp.FIFTEENTH_PASS: 1,
                                           sp.SIXTEENTH_PASS: 1,
                                           sp.SEVENTEENTH_PASS: 1,
                                           sp.EIGHTEENTH_PASS: 1,
                                           sp.NINETEENTH_PASS: 1,
                                           sp.TWENTIETH_PASS: 1,
                                           sp.TWENTY_FIRST_PASS: 1,
                                           sp.TWENTY_SECOND_PASS: 1,
                                           sp.TWENTY_THIRD_PASS: 1,
                                           sp.TWENTY_FOURTH_PASS: 1,
                                           sp.TWENTY_FIFTH_PASS: 1,
                                           sp.TWENTY_SIXTH_PASS: 1,
                                           sp.TWENTY_SEVENTH_PASS: 1,
                                           sp.TWENTY_EIGHTH_PASS: 1,
                                           sp.TWENTY_NINTH_PASS: 1,
                                           sp.THIRTIETH_PASS: 1,
                                           sp.THIRTY_FIRST_PASS: 1,
                                           sp.THIRTY_SECOND_PASS: 1}.get(name, 4)
    pool = sp.blind_pass(name).pool
    if pool:  # a pass with a pool draws from it
        assert set(picked) <= set(pool)
    if name not in [r[0] for r in REREADS]:  # a re-read's pool was read before; others' not
        assert not set(picked) & earlier
    blind = sp.load_pass(name)
    assert sorted(blind) == sorted(f"{d}/{t}" for d, t in picked)
    problems = []
    for key, rec in blind.items():
        domain, task_id = key.split("/", 1)
        task = {t.task_id: t for t in src.load_tasks(domain)}[task_id]
        instruction = _norm(src.user_request(task))
        problems += [f"{key}: {i.quote!r}" for i in (*rec.preferences, *rec.questions,
                                                     *rec.not_questions)
                     if _norm(i.quote) not in instruction]
    assert problems == []
    report = sp.compare(name)
    t = report["totals"]
    assert t["nothing_stated"]["tasks"] == len(picked)
    for kind in sp.KINDS:
        for side in ("first", "second"):
            assert (t[kind][f"{side}_matched"] + t[kind][f"{side}_restated"]
                    + t[kind][f"{side}_kind_differs"] + t[kind][f"only_{side}"]
                    == t[kind][side])
    by_domain = sp.agreement_by_domain(report)  # adds up to the overall figure
    assert set(by_domain) == {d for d, _ in picked}
    assert sum(m for m, _ in by_domain.values()) / sum(n for _, n in by_domain.values()) \
        == pytest.approx(report["agreement"])
    with capsys.disabled():
        print(f"\n[issue 46] blind pass {name} vs the records: "
              f"{report['agreement']:.1%} item agreement; "
              + "; ".join(f"{k}: {v}" for k, v in t.items()))


def test_every_third_pass_disagreement_is_settled(capsys) -> None:
    """Each disagreement the third pass still has with the records after they gained its real
    items (72.2 % before, 93.9 % after) is settled in settlements.SETTLED_THIRD, which names
    only third-pass tasks; the report with the settlements is printed."""
    report = sp.compare(sp.THIRD_PASS)
    assert set(st.SETTLED_THIRD) <= set(report["tasks"])
    unsettled = sorted(set(sp.disagreements(report)) - set(st.SETTLED_THIRD))
    assert unsettled == []
    text = sp.format_report(report, st.SETTLED_THIRD)
    assert text.endswith("unsettled: none")
    with capsys.disabled():
        print("\n[issue 46] blind third pass vs first pass, settled:\n" + text)


@pytest.mark.parametrize("name,settled,at_least", [
    # fifth: blind 94.7 % (231 of 244 items); 237 of 249 once the cash back briefs' questions were
    # requoted to the problem's first statement and the cards disputed on added by the guide
    # (task_026, task_029; SETTLED_FIFTH says so), hence 0.95; 237 of 250 once task_050's card was
    # added by the guide (coverage rule 1; SETTLED_FIFTH says so), hence 0.945; 239 of 255 once
    # task_080's list of five cards and its cards were added (coverage rule 1), hence 0.935;
    # 239 of 256 once task_080's theft became an item (the closures' and replacements' reason),
    # as its twin task_081 was settled with the eighteenth pass (SETTLED_FIFTH says so), 0.93
    (sp.FIFTH_PASS, st.SETTLED_FIFTH, 0.93),
    # sixth: blind 84.6 % (242 of 286); 272 of 294 after; 274 of 299 once task_096's two savings
    # accounts were added by the guide (coverage rule 1; SETTLED_SIXTH says so), hence 0.915; 274
    # of 301 once task_070's ATM use and minimum-balance answer were added as criteria by the
    # guide (coverage rule 2; SETTLED_SIXTH says so), hence 0.91; 272 of 301 once task_058's premium
    # question was re-kinded a red herring and its $20,000 added by the guide (SETTLED_SIXTH), 0.9;
    # 272 of 303 once task_037's and task_044's cards were added (coverage rule 1), hence 0.895;
    # 272 of 307 once task_059's and task_063's sums (rule 2) and questions (rule 3) were added
    # by the guide (SETTLED_SIXTH says so), hence 0.885; 270 of 306 once the sixteenth pass
    # showed task_059's premium ask is the brief's red herring, a not-question (SETTLED_SIXTH
    # says so), hence 0.88; 272 of 311 once task_081's list of five cards and its cards were
    # added at their first naming, as task_080's (coverage rule 1; SETTLED_SIXTH says so), 0.87;
    # 270 of 310 once the eighteenth pass showed task_081's theft is the replacements' reason (an
    # item; SETTLED_SIXTH says so) and 270 of 309 once task_059's no-annual-fee ask became a
    # not-question (coverage rule 3; SETTLED_SIXTH says so), still 0.87
    (sp.SIXTH_PASS, st.SETTLED_SIXTH, 0.87),
    # seventh: blind 89.2 % (232 of 260); 267 of 281 after; 265 of 283 once task_027's question
    # was requoted to the problem's first statement and its two cards added by the guide
    # (SETTLED_SEVENTH says so), hence 0.935; 265 of 284 once task_051's card was added by the
    # guide (coverage rule 1; SETTLED_SEVENTH says so), hence 0.93; 259 of 282 once the
    # fifteenth pass requoted task_051's payment and second request to their first statement and
    # made its 'Is there anything I can do to fix this?' a not-question (SETTLED_SEVENTH says
    # so), 259 of 283 once task_038's card was added (coverage rule 1, as task_037's), and 259
    # of 284 once task_045's Business Silver Rewards Card was added (coverage rule 1;
    # SETTLED_SEVENTH says so), 0.91; 261 of 287 once the eighteenth pass showed task_102's 'I
    # want to maximize the bonus.' is a criterion of its own, split from the recommendation ask
    # this pass had as one question (preferences rule 4; SETTLED_SEVENTH says so), hence 0.905
    (sp.SEVENTH_PASS, st.SETTLED_SEVENTH, 0.905),
    # eighth: blind 85.3 % (272 of 319); 317 of 334 after; 315 of 335 once task_094's question
    # was requoted to its first statement and its savings account added by the guide
    # (SETTLED_EIGHTH says so), hence 0.94; 315 of 338 once task_055's and task_060's records were
    # revised to the guide (coverage rules 1 and 2, Recommendations, red herrings; SETTLED_EIGHTH
    # says so), hence 0.93; 315 of 340 once task_061's record was revised as task_060's
    # (SETTLED_EIGHTH says so), hence 0.925; 313 of 340 once the sixteenth pass showed task_100's
    # 'How can I not refer someone ...?' is a complaint and its bold referral condition an item
    # (SETTLED_EIGHTH says so), hence 0.92; 315 of 343 once task_092's yes to an offered transfer
    # for the Blue card was added (coverage rule 4; SETTLED_EIGHTH says so), and 316 of 345 once
    # the seventeenth pass showed task_069's small transfer fee is a criterion (a budget for
    # fees, coverage rule 2) and task_055's 'Don't want fees for that.' an item (SETTLED_EIGHTH
    # says so), 0.915; 316 of 346 once the eighteenth pass showed task_061's no-fees line and
    # $4,000 upper end are criteria (coverage rule 2) and its 'How much? ...' a not-question
    # asked only on a branch not taken (SETTLED_EIGHTH says so), hence 0.91; 316 of 348 once
    # task_060's no-fees line and $4,000 upper end became criteria as its twin task_061's were
    # settled with the eighteenth pass (coverage rule 2; SETTLED_EIGHTH says so), hence 0.905
    (sp.EIGHTH_PASS, st.SETTLED_EIGHTH, 0.905),
    # ninth: blind 85.3 % (244 of 286); 301 of 308 after; 295 of 310 once the cash back briefs'
    # questions were requoted to the problem's first statement and task_019's two cards added by
    # the guide (task_018, task_019, task_028; SETTLED_NINTH says so), hence 0.95; 295 of 311 once
    # task_079's list of cards was added by the guide (coverage rule 1; SETTLED_NINTH), 0.945; 296
    # of 314 once task_047's two cards were added (coverage rule 1; SETTLED_NINTH), hence 0.94; 297
    # of 317 once task_056's account and two criteria were added (coverage rules 1, 2), 0.935;
    # 297 of 321 once task_041's four cards were added (coverage rule 1; SETTLED_NINTH), 0.925;
    # 295 of 324 once task_091's yeses to two PIN resets and a transfer were added (coverage rule
    # 4) and its 'What should I do?' became a not-question (rule 3; SETTLED_NINTH), 0.91; 295 of 325
    # once the seventeenth pass showed task_056's 'Would that waive any monthly fee?' is a
    # question (coverage rule 3; SETTLED_NINTH says so), hence 0.905; 302 of 335 once task_056's
    # bonus ask became a question with the twenty-fourth and twenty-fifth readers (this reader
    # had it a criterion; SETTLED_TWENTY_FIFTH says so), hence 0.9
    (sp.NINTH_PASS, st.SETTLED_NINTH, 0.9),
    # tenth: blind 72.4 % (160 of 221); 230 of 243 after; 228 of 242 once task_088's 'Should I
    # be worried about my card?' was revised to a not-question by the guide (SETTLED_TENTH says
    # so), hence 0.94; 226 of 245 once task_022's question was requoted to the problem's first
    # statement and its three cards disputed on added by the guide (SETTLED_TENTH says so), 0.92;
    # 224 of 248 once task_072's question was requoted and its two accounts added, as task_074's
    # (SETTLED_TENTH says so), hence 0.9; 225 of 251 once task_052's card was added (coverage
    # rule 1; SETTLED_TENTH says so), hence 0.895; 225 of 253 once task_089's amounts on the Blue
    # and teen cards were added (preferences rule 4; SETTLED_TENTH says so), hence 0.885; 228 of
    # 258 once the sixteenth pass showed task_052's cooldown and pre-approval claims are items
    # resolved to the refusal (rule 6; SETTLED_TENTH says so), hence 0.88; 228 of 260 once
    # task_090's yes to the offered PIN reset and to an unasked transfer were added (coverage
    # rule 4; SETTLED_TENTH says so), hence 0.875; 226 of 261 once task_083's two cards were
    # added (coverage rule 1) and its 'Should I?' about calling the merchant became a
    # not-question (coverage rule 3's own example; SETTLED_TENTH says so), hence 0.865; 226 of
    # 268 once task_088's Evergreen and Blue cards, its three charges not to dispute, its yes to
    # the transfer and the question who reported the card stolen were added (coverage rules 1, 3,
    # 4; SETTLED_TENTH says so), hence 0.84
    (sp.TENTH_PASS, st.SETTLED_TENTH, 0.84),
    # eleventh: blind 87.2 % (136 of 156); 138 of 156 after; 138 of 157 once task_024's work
    # truck was revised to a criterion by the guide (SETTLED_ELEVENTH says so), hence 0.875;
    # 134 of 155 once the fourteenth pass showed task_084's two confirming asks echo the agent
    # (rule 3: not-questions, which this pass's reader had as questions), 0.86; 135 of 157 once
    # task_057's 'Is that possible?' became a not-question (coverage rule 3: an ask whether a need
    # just stated can be met; SETTLED_ELEVENTH says so), hence 0.855
    (sp.ELEVENTH_PASS, st.SETTLED_ELEVENTH, 0.855),
    (sp.TWELFTH_PASS, st.SETTLED_TWELFTH, 0.875),    # blind 85.1 % (131 of 154); 135 of 154 after
    (sp.THIRTEENTH_PASS, st.SETTLED_THIRTEENTH, 0.875),  # blind 78.9 % (75 of 95); 81 of 92 after
    # fourteenth, a re-read of ten banking tasks read once: blind 94.7 % (126 of 133); 126 of
    # 131 after (task_084's two echoes now not-questions; the records right elsewhere); 0.95
    # since the third measure's settlement made task_078's loss an item (the closures' reason)
    (sp.FOURTEENTH_PASS, st.SETTLED_FOURTEENTH, 0.95),
    # fifteenth, a second re-read: blind 87.1 % (101 of 116); 111 of 116 after (task_012's card
    # and request, task_051's first statements and not-question, task_057's false claim and
    # task_021's accepted explanation revised; the records right elsewhere); 110 of 115 once
    # task_057's 'Is that possible?' became a not-question (coverage rule 3; SETTLED_FIFTEENTH
    # says so), still 0.955
    (sp.FIFTEENTH_PASS, st.SETTLED_FIFTEENTH, 0.955),
    # sixteenth, a third re-read of eight long briefs: blind 91.3 % (168 of 184); 182 of 189
    # after (task_039, task_052, task_059, task_064 and task_100 revised; the records right
    # elsewhere), 0.96; 180 of 188 once task_059's 'Are there cards with no annual fee?' became a
    # not-question (coverage rule 3: an ask whether a need just stated can be met;
    # SETTLED_SIXTEENTH says so), hence 0.955
    (sp.SIXTEENTH_PASS, st.SETTLED_SIXTEENTH, 0.955),
    # seventeenth, a fourth re-read of ten covered records: blind 90.2 % (203 of 225); 211 of 225
    # after (task_006's and task_063's credit scores, task_063's and task_056's asks, task_055's
    # and task_069's fee criteria and task_090's transfer and unlock yeses revised; the records
    # right elsewhere); 0.93 since the third measure's settlement made task_077's loss an item
    (sp.SEVENTEENTH_PASS, st.SETTLED_SEVENTEENTH, 0.93),
    # eighteenth, a fifth re-read of ten covered records: blind 91.2 % (229 of 251); 238 of 254
    # after (task_040's priority span, task_102's bonus criterion, task_061's two criteria and
    # branch ask and task_081's theft reason revised; the records right elsewhere)
    (sp.EIGHTEENTH_PASS, st.SETTLED_EIGHTEENTH, 0.935),
    # nineteenth, ten retail tasks never read blind: blind 91.2 % (73 of 80); 87 of 87 after
    # (retail/41's corrected address and check question, retail/46's wrong ids, retail/65's
    # price criteria, retail/69's reason and retail/75's request added, retail/87's quote
    # extended to its address reference, and three binds named by their argument or calls;
    # GUIDE.md on retail's products, options and values)
    (sp.NINETEENTH_PASS, st.SETTLED_NINETEENTH, 0.995),
    # twentieth, ten more fresh retail tasks after the nineteenth's settlement: 98 of 101 (97.0 %)
    # against the records as they stood, 115 of 116 after the unread retail records' revision to
    # the guide (made beside the reading, by a reviser who saw no pass file); 117 of 117 after
    # retail/54's criterion was added
    (sp.TWENTIETH_PASS, st.SETTLED_TWENTIETH, 0.995),
    # twenty-first, the 21 fresh retail tasks the guide does not quote, records revised first:
    # blind 98.6 % (205 of 208); 209 of 210 after (retail/14's reason and retail/59's status
    # question added; the record right on retail/14's products)
    (sp.TWENTY_FIRST_PASS, st.SETTLED_TWENTY_FIRST, 0.995),
    # twenty-second, a sixth banking re-read of 20 tasks no re-read drew, the first whose reader
    # named each restatement's item: blind 86.8 % (223 of 257; 86.0 % by quote); 229 of 256
    # after (task_027's lie, task_070's interest criterion and task_079's two requests added;
    # task_070's opening, task_092's off-branch lines and task_094's clause no longer items)
    (sp.TWENTY_SECOND_PASS, st.SETTLED_TWENTY_SECOND, 0.965),
    # twenty-third, a second fresh reader of the same 20 tasks after the twenty-second's
    # settlement: blind 90.6 % (231 of 255); 236 of 239 once the records were moved to what the
    # two readers agreed on against them (cash back cards, recommendation asks, the one-product
    # wish, a yes to a write offered with its fee, the code's first offer)
    (sp.TWENTY_THIRD_PASS, st.SETTLED_TWENTY_THIRD, 0.985),
    # twenty-fourth, 20 other banking tasks read after that revision: blind 92.4 % (416 of 450;
    # 88.9 % by quote); no record changed with it (SETTLED_TWENTY_FOURTH); 418 of 448 once the
    # twenty-fifth's settlement moved task_056's bonus ask, the savings accounts' clause and list
    # (096, 097), task_014's spoken ask and task_081's freeze request to the readers' majority
    (sp.TWENTY_FOURTH_PASS, st.SETTLED_TWENTY_FOURTH, 0.93),
    # twenty-fifth, a second fresh reader of the twenty-fourth's 20 tasks: blind 94.2 % (423 of
    # 449); 427 of 447 after (task_056's bonus ask a question, the savings accounts' clause and
    # list); 0.95 since the third measure's settlement made task_077's loss an item
    (sp.TWENTY_FIFTH_PASS, st.SETTLED_TWENTY_FIFTH, 0.95),
    # twenty-sixth, a third fresh reader of the twenty-second's 20 tasks: blind 95.3 % (222 of
    # 233); 225 of 234 against the records the twenty-fifth's settlement made while it read; 227
    # of 235 after (task_005's leaked-email pretence an item)
    (sp.TWENTY_SIXTH_PASS, st.SETTLED_TWENTY_SIXTH, 0.96),
    # twenty-seventh, the deciding pass fixed in docs/tau2.md before it was read: blind 94.8 % (291
    # of 307), short of the 95 %; 295 of 309 after (task_029's lie, task_038's list label)
    (sp.TWENTY_SEVENTH_PASS, st.SETTLED_TWENTY_SEVENTH, 0.95),
    # twenty-eighth and twenty-ninth, the second deciding measure fixed in docs/tau2.md before
    # they were read, read with the reading aid: blind 93.5 % (287 of 307) and 92.9 % (313 of
    # 337), pooled 93.2 % (600 of 644), short of the 95 %; 289 of 308 after the twenty-eighth's
    # settlement (task_043's closure request apart from its reason)
    (sp.TWENTY_EIGHTH_PASS, st.SETTLED_TWENTY_EIGHTH, 0.935),
    (sp.TWENTY_NINTH_PASS, st.SETTLED_TWENTY_NINTH, 0.925),
    # thirtieth to thirty-second, the third measure fixed in docs/tau2.md before it was read: the
    # two readers blind 95.0 % (344 of 362) and 91.9 % (331 of 360), the reconciled pass 92.5 %
    # (332 of 359), short of the 95 %; 97.0 %, 94.0 % and 94.5 % after the settlement moved
    # six records to their readers (the losses of 077 and 078, 081's freeze yes, 021, 052, 051)
    (sp.THIRTIETH_PASS, st.SETTLED_THIRD_MEASURE, 0.97),
    (sp.THIRTY_FIRST_PASS, st.SETTLED_THIRD_MEASURE, 0.935),
    (sp.THIRTY_SECOND_PASS, st.SETTLED_THIRD_MEASURE, 0.945)])
def test_every_disagreement_of_a_pass_since_the_guide_is_settled(name: str, settled: dict,
                                                                   at_least: float,
                                                                   capsys) -> None:
    """Each disagreement of a blind pass written since the records' revision to GUIDE.md is
    settled in its SETTLED_* map, which names only that pass's tasks; the record and guide edits
    it names leave the agreement at least ``at_least``."""
    report = sp.compare(name)
    assert set(settled) <= set(report["tasks"])
    unsettled = sorted(set(sp.disagreements(report)) - set(settled))
    assert unsettled == []
    assert report["agreement"] >= at_least
    with capsys.disabled():
        print(f"\n[issue 46] blind pass {name} vs the records, settled:\n"
              + sp.format_report(report, settled))


def _record(prefs: list[str], restated: dict[str, str] | None = None) -> Any:
    """A record of preferences quoting ``prefs``, its ``restated`` sentences naming their item."""
    raw = {"preferences": [{"quote": q, "binds": "transfer_to_human_agents",
                            "resolves_to": "no transfer"} for q in prefs],
           "questions": [], "policy": [], "customer_steps": [], "nothing_stated": False,
           "not_items": [{"quote": s, "why": "restated", "of": of}
                         for s, of in (restated or {}).items()]}
    return parse_record(Path("test.json"), "task_x", raw)


FIRST = "You want to speak with a human agent about the fee."
AGAIN = "Please, just transfer me to a real person right now."


def test_an_item_quoted_at_a_later_statement_is_the_same_item() -> None:
    """Where one reader quotes an item at its first statement and the other at a sentence the
    first marks ``restated`` of it, the two agree on the item (a span, GUIDE.md "Spans"); the
    quote measure alone still counts both as unmatched."""
    record = _record([FIRST], {AGAIN: FIRST})
    totals = sp.new_totals()
    row = sp.compare_task(record, _record([AGAIN]), totals)
    t = totals["preferences"]
    assert (t["first_restated"], t["second_restated"], t["only_first"], t["only_second"]) == \
        (1, 1, 0, 0)
    assert row["preferences"]["restated"] == [(FIRST, AGAIN)]
    assert sp.disagreements({"tasks": {"banking_knowledge/task_x": row}}) == {}


def test_a_repeat_split_off_an_item_already_matched_stays_a_disagreement() -> None:
    """A reader who makes the restatement an item of its own, beside the item both quote,
    splits one item in two: the pairing is one to one, so the extra item stays unmatched; and a
    record whose ``restated`` sentence names no item pairs nothing."""
    totals = sp.new_totals()
    sp.compare_task(_record([FIRST], {AGAIN: FIRST}), _record([FIRST, AGAIN]), totals)
    assert (totals["preferences"]["second_matched"], totals["preferences"]["only_second"]) == (1, 1)
    totals = sp.new_totals()
    sp.compare_task(_record(["You want the fee refunded."]), _record([AGAIN]), totals)
    assert totals["preferences"]["first_restated"] == 0


def test_a_restated_sentence_must_name_an_item_of_its_record() -> None:
    """``of`` is checked when the record is read: it must be the quote of one of the record's
    items or not-questions, and only a ``restated`` sentence gives one."""
    with pytest.raises(InputError, match="no item's or not-question's quote"):
        _record([FIRST], {AGAIN: "You want the fee refunded."})
    with pytest.raises(InputError, match="only for a 'restated'"):
        parse_record(Path("t.json"), "task_x", {
            "preferences": [{"quote": FIRST, "binds": "x", "resolves_to": "y"}],
            "questions": [], "policy": [], "customer_steps": [], "nothing_stated": False,
            "not_items": [{"quote": AGAIN, "why": "manner", "of": FIRST}]})


def test_two_blind_readers_of_the_same_tasks_agree_with_each_other(capsys) -> None:
    """The twenty-second and twenty-third passes read the same 20 banking tasks, each blind: they
    agree with each other on 237 of 243 items (97.5 %), more than either agrees with the records
    (223 of 257 and 231 of 255 when each was read). So banking's gap is not readers who cannot
    itemise alike: it is where the records depart from what two readers agree on."""
    assert sorted(sp.blind_sample(sp.TWENTY_THIRD_PASS)) == sorted(
        sp.blind_sample(sp.TWENTY_SECOND_PASS))
    report = sp.compare_passes(sp.TWENTY_SECOND_PASS, sp.TWENTY_THIRD_PASS)
    matched, items = sp.agreement_by_domain(report)["banking_knowledge"]
    assert (matched, items) == (237, 243)
    with pytest.raises(ValueError, match="read other tasks"):
        sp.compare_passes(sp.TWENTY_SECOND_PASS, sp.EIGHTEENTH_PASS)
    with capsys.disabled():
        print(f"\n[issue 46] two blind readers of the same 20 banking tasks: {matched} of "
              f"{items} items ({matched / items:.1%})")


def _row(items: int, unmatched: int) -> dict:
    """A task's row of a comparison with ``unmatched`` of its ``items`` left unmatched."""
    empty = {"only_first": [], "only_second": [], "kind_differs": []}
    return {"items": items, "preferences": {**empty, "only_first": ["x"] * unmatched},
            "questions": dict(empty)}


def test_the_agreement_interval_resamples_tasks(capsys) -> None:
    """The interval resamples tasks, not items: tasks that all agree alike give no width, and
    one task holding every disagreement spreads it. The deciding twenty-seventh pass's interval
    (seeded, so repeatable) holds its figure and is printed beside it."""
    alike = {"tasks": {f"t{i}": _row(10, 1) for i in range(20)}}
    assert sp.agreement_interval(alike) == pytest.approx((0.9, 0.9))
    lumped = {"tasks": {"t0": _row(10, 10), **{f"t{i}": _row(10, 0) for i in range(1, 20)}}}
    low, high = sp.agreement_interval(lumped)
    assert low < 0.95 < high <= 1.0
    report = sp.compare(sp.TWENTY_SEVENTH_PASS)
    interval = sp.agreement_interval(report)
    assert interval == sp.agreement_interval(report)
    assert interval[0] <= report["agreement"] <= interval[1]
    with capsys.disabled():
        print(f"\n[issue 46] twenty-seventh pass now: {report['agreement']:.1%}, 95 % interval "
              f"over tasks [{interval[0]:.1%}, {interval[1]:.1%}]")


def test_a_pooled_measure_counts_items_over_its_passes() -> None:
    """A measure fixed over two readers' disjoint samples counts matched items over all their
    items (the twenty-second's 237 of 242 and the twenty-fourth's 418 of 448 pool to 655 of
    690), not the mean of the passes' rates; passes that read a task twice are refused, since a
    task would count twice."""
    first, second = sp.compare(sp.TWENTY_SECOND_PASS), sp.compare(sp.TWENTY_FOURTH_PASS)
    pooled = sp.compare_pooled(sp.TWENTY_SECOND_PASS, sp.TWENTY_FOURTH_PASS)
    counts = [sp.agreement_by_domain(r)["banking_knowledge"] for r in (first, second, pooled)]
    assert counts[2] == (counts[0][0] + counts[1][0], counts[0][1] + counts[1][1])
    assert pooled["agreement"] == pytest.approx(counts[2][0] / counts[2][1])
    assert pooled["agreement"] != pytest.approx((first["agreement"] + second["agreement"]) / 2)
    with pytest.raises(ValueError, match="reads tasks an earlier pass"):
        sp.compare_pooled(sp.TWENTY_SECOND_PASS, sp.TWENTY_THIRD_PASS)


def test_the_second_deciding_measure_reads_what_the_docs_fixed(capsys) -> None:
    """docs/tau2.md fixed the twenty-eighth and twenty-ninth passes before they were read: 20
    and 20 of the 53 tasks of the twenty-seventh's pool it did not draw, by seeds 7272 and 7373,
    the draws listed there, both read with the reading aid. The passes read exactly those."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "tau2.md").read_text(encoding="utf-8")
    fixed = docs[docs.index("The measure, fixed here before either reader starts"):]
    lists = re.search(r"The draws are banking ([\d, ]+) \(twenty-eighth\) and ([\d, ]+) "
                      r"\(twenty-ninth\)", " ".join(fixed.split()))
    assert lists
    drawn = [[("banking_knowledge", f"task_{n.strip()}") for n in group.split(",")]
             for group in lists.groups()]
    assert len(sp.POOL_28) == 53
    assert not set(sp.POOL_28) & set(sp.blind_sample(sp.TWENTY_SEVENTH_PASS))
    assert set(sp.POOL_28) | set(sp.blind_sample(sp.TWENTY_SEVENTH_PASS)) \
        == set(sp.REREAD_POOL_27)
    assert sp.blind_sample(sp.TWENTY_EIGHTH_PASS) == drawn[0]
    assert sp.blind_sample(sp.TWENTY_NINTH_PASS) == drawn[1]
    assert all(sp.blind_pass(n).aid for n in (sp.TWENTY_EIGHTH_PASS, sp.TWENTY_NINTH_PASS))
    names = [p.name for p in sp.LATER_PASSES]
    assert not [n for n in names[:names.index(sp.TWENTY_EIGHTH_PASS)] if sp.blind_pass(n).aid]
    pooled = sp.compare_pooled(sp.TWENTY_EIGHTH_PASS, sp.TWENTY_NINTH_PASS)
    matched, items = sp.agreement_by_domain(pooled)["banking_knowledge"]
    low, high = sp.agreement_interval(pooled)
    assert low <= pooled["agreement"] <= high
    with capsys.disabled():
        print(f"\n[issue 46] second deciding measure (twenty-eighth and twenty-ninth pooled) now: "
              f"{matched} of {items} ({matched / items:.1%}), 95 % interval over its 40 tasks "
              f"[{low:.1%}, {high:.1%}]; 600 of 644 (93.2 %) when read")


def test_the_third_measure_reads_what_the_docs_fixed() -> None:
    """docs/tau2.md fixed the third measure before it was read: 20 of the 33 tasks of the
    twenty-seventh's pool the second measure did not read, by seed 7474, the draw listed there;
    two readers of them alone, with the aid, and a third reconciling the two."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "tau2.md").read_text(encoding="utf-8")
    fixed = " ".join(docs[docs.index("**A third measure"):].split())
    listed = re.search(r"`random.Random\(7474\).sample` in file order: banking ([\d, ]+)\.",
                       fixed)
    assert listed
    drawn = [("banking_knowledge", f"task_{n.strip()}") for n in listed.group(1).split(",")]
    second = {*sp.blind_sample(sp.TWENTY_EIGHTH_PASS), *sp.blind_sample(sp.TWENTY_NINTH_PASS)}
    assert len(sp.POOL_30) == 33 and not set(sp.POOL_30) & second
    assert sp.blind_sample(sp.THIRTIETH_PASS) == drawn
    for name in (sp.THIRTY_FIRST_PASS, sp.THIRTY_SECOND_PASS):
        assert sorted(sp.blind_sample(name)) == sorted(drawn)
        assert sp.blind_pass(name).aid
    assert sp.blind_pass(sp.THIRTY_SECOND_PASS).reconciles == (sp.THIRTIETH_PASS,
                                                               sp.THIRTY_FIRST_PASS)


def test_the_docs_now_column_is_todays_agreement() -> None:
    """docs/tau2.md's table of passes gives each pass's agreement with today's records ("now");
    a record revised for a later pass moves earlier passes' figures, so the table is checked
    against :func:`second_pass.compare`, pass by pass, and a stale figure fails here rather
    than being published."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "tau2.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([a-z-]+) \| \d+ \|.*\| [\d.]+ % \((\d+) of (\d+)\) \|$", docs,
                      re.MULTILINE)
    assert len(rows) == len(sp.LATER_PASSES) + 1
    stale = []
    for ordinal, matched, items in rows:
        name = sp.SECOND_PASS if ordinal == "second" else f"{ordinal.replace('-', '_')}_pass.json"
        counts = sp.agreement_by_domain(sp.compare(name)).values()
        now = (sum(m for m, _ in counts), sum(n for _, n in counts))
        if now != (int(matched), int(items)):
            stale.append((ordinal, (int(matched), int(items)), now))
    assert stale == []


def test_told_questions_counts_how_a_pass_held_each_question_that_makes_a_case() -> None:
    """``told_questions`` counts only the records' questions with ``tells`` (the ones that
    make an ``unanswered_question`` case), and files each by how the pass held it: a question
    the pass left out, or held as a preference, is not counted as held."""
    report = sp.compare(sp.TWENTY_SEVENTH_PASS)
    key = "banking_knowledge/task_015"
    told = [q for q in load_records("banking_knowledge")["task_015"].questions if q.tells]
    assert len(told) >= 2
    row = {kind: {"only_first": [], "only_second": [], "kind_differs": []} for kind in sp.KINDS}
    assert sp.told_questions({"tasks": {key: row}}) == {
        "told": len(told), "as_question": len(told), "as_preference": 0}
    row["questions"]["only_first"] = [told[0].quote]
    row["questions"]["kind_differs"] = [("first", told[1].quote), ("second", told[0].quote)]
    assert sp.told_questions({"tasks": {key: row}}) == {
        "told": len(told), "as_question": len(told) - 2, "as_preference": 1}
    assert sp.told_questions(report)["told"] == sum(
        1 for k in report["tasks"] for q in load_records("banking_knowledge")[
            k.split("/", 1)[1]].questions if q.tells)


def test_the_docs_told_questions_table_is_the_deciding_measures() -> None:
    """docs/tau2.md's "What the banking bar weighs" table is :func:`second_pass.told_questions`
    of the three deciding measures, against today's records: a record revised later fails it
    here rather than leaving a stale figure in print."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "tau2.md").read_text(encoding="utf-8")
    section = docs.split("**What the banking bar weighs.**", 1)[1].split("Pooled,", 1)[0]
    rows = re.findall(r"^\| ([a-z -]+?) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.MULTILINE)
    measures = {"twenty-seventh": (sp.TWENTY_SEVENTH_PASS,),
                "twenty-eighth and twenty-ninth": (sp.TWENTY_EIGHTH_PASS, sp.TWENTY_NINTH_PASS),
                "thirty-second": (sp.THIRTY_SECOND_PASS,)}
    assert [r[0] for r in rows] == list(measures)
    for name, as_question, as_preference, told in rows:
        got = sp.told_questions(sp.compare_pooled(*measures[name]))
        assert (got["as_question"], got["as_preference"], got["told"]) == (
            int(as_question), int(as_preference), int(told)), name
    pooled = [sum(int(r[i]) for r in rows) for i in (1, 3)]
    assert f"Pooled, {pooled[0]} of {pooled[1]} ({pooled[0] / pooled[1]:.1%}".replace(
        "%", " %") in docs
