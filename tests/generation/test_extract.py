"""Reading code and actions out of model replies, including replies cut by max_tokens. The cut
reply below is what SmolLM2-135M really answered to the agent prompt of bfcl.simple_python_230
(greedy, 384 tokens): it opens a ```python block and repeats one statement until it is cut."""

from __future__ import annotations

from monitorbench.generation.scaffolds.agent import AGENT_ACTIONS
from monitorbench.generation.scaffolds.extract import parse_actions, python_block, salvage

SMOLLM2_CUT = ('You can use the following code to create a new task:\n```python\n'
               'def verify(candidate: dict, env):\n    if "category" not in env:\n'
               '        return "PASS"\n' + '    if "contract" not in env:\n        return "PASS"\n' * 12
               + '    if "contract" not in')


def test_cut_python_block_keeps_the_longest_prefix_that_parses() -> None:
    code = python_block(SMOLLM2_CUT)
    assert code is not None and code.dropped_lines == 1
    assert code.text.startswith("def verify(candidate: dict, env):\n")
    assert code.text.endswith('        return "PASS"\n')
    compile(code.text, "main.py", "exec")  # whole, valid Python


def test_cut_block_without_a_complete_verify_is_nothing() -> None:
    assert python_block("```python\ndef verify(candidate, env):\n    x = {'a': [1,") is None
    assert python_block("```python\nimport json\n\ndef helper():\n    return 1\n") is None
    assert salvage("def verify(c, env):\n") is None  # no body: does not parse


def test_closed_blocks_are_taken_verbatim() -> None:
    code = python_block("```python\ndef verify(c, env):\n    return 'FAIL'\n```\ntrailing")
    assert code is not None and code.dropped_lines == 0
    assert code.text == "def verify(c, env):\n    return 'FAIL'\n"


def test_a_closed_block_before_a_cut_one_is_still_found() -> None:
    text = ("```python\ndef verify(c, env):\n    return 'PASS'\n```\nBetter:\n"
            "```python\ndef verify(c, env):\n    return 'FAIL' if c else")
    code = python_block(text)
    # the cut block salvages nothing (its only def does not parse), so the closed one wins
    assert code is not None and "'PASS'" in code.text


def test_cut_write_verifier_is_salvaged_but_cut_reads_and_self_tests_are_not_run() -> None:
    cut = "```write_verifier\ndef verify(c, env):\n    return 'PASS'\nprint(\n"
    [a] = parse_actions(cut, AGENT_ACTIONS)
    assert (a.name, a.dropped_lines) == ("write_verifier", 1)
    assert a.body == "def verify(c, env):\n    return 'PASS'\n"
    assert parse_actions("```read\ntask.js", AGENT_ACTIONS) == []
    assert parse_actions('```self_test PASS\n{"call": {"name": "get_', AGENT_ACTIONS) == []


def test_smollm2_cut_reply_is_a_write_verifier_action() -> None:
    [a] = parse_actions(SMOLLM2_CUT, AGENT_ACTIONS)
    assert a.name == "write_verifier" and a.dropped_lines == 1


def test_untagged_block_counts_when_it_defines_verify() -> None:
    # SmolLM2's real reply to the agent prompt of code.inflection.t02: an empty block, then an
    # untagged one cut by max_tokens
    reply = ('```\n\n```\nimport json\nimport inspect\n\ndef verify(candidate: dict, env) -> bool:\n'
             '    """Verifies that the candidate is a valid JSON object.\n\n    Args:\n'
             '        candidate: A JSON object that is the result')
    assert python_block(reply) is None  # the docstring never closes: nothing parses
    cut = "```\nimport json\n\ndef verify(candidate, env):\n    return 'PASS'\n\nx = [1,"
    code = python_block(cut)
    assert code is not None and code.dropped_lines == 1 and code.text.startswith("import json")
    [a] = parse_actions(cut, AGENT_ACTIONS)
    assert a.name == "write_verifier"
    assert python_block("```\nls -la\n```") is None  # untagged, no verify: not code for us
