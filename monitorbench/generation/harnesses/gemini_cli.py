"""Gemini CLI (npm ``@google/gemini-cli``): speaks the Gemini API only. ``GOOGLE_GEMINI_BASE_URL``
moves the host but not the protocol (``models/*:streamGenerateContent``), which neither
OpenAI-compatible nor Anthropic-compatible endpoints (llama.cpp, vLLM, OpenAI) answer. It is
listed so that selecting it fails with this reason instead of a confusing run; monitorbench does
not translate protocols."""

from __future__ import annotations

from monitorbench.generation.harnesses.install import Package
from monitorbench.generation.harnesses.spec import Harness

GEMINI_CLI = Harness(
    name="gemini_cli", package=Package("npm", "@google/gemini-cli", "0.61.0"),
    reach="Gemini API only", command=None, native_events=None,
    unsupported="Gemini CLI speaks only the Gemini API (GOOGLE_GEMINI_BASE_URL changes the host, "
                "not the protocol), so it cannot use an OpenAI- or Anthropic-compatible endpoint")
