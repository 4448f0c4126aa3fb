"""The transformers provider on a tiny randomly initialised Llama with a byte-level BPE tokenizer
trained in the test, a peft LoRA adapter saved and reloaded, and (slow) the embedded SmolLM2."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = [pytest.mark.hf, pytest.mark.usefixtures("one_torch_thread")]

from monitorbench.config import Effort  # noqa: E402
from monitorbench.providers.hf_local import TransformersChatModel  # noqa: E402

LINES = [f"def verify(candidate, env): return 'PASS' if candidate[{i}] else 'FAIL'"
         for i in range(20)] + [f"user asks about task {i} and the assistant answers" for i in range(20)]
TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
MSGS = [{"role": "system", "content": "write code"}, {"role": "user", "content": "task 3"}]


def _tiny_model(root: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(LINES, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<eos>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<eos>", pad_token="<pad>")
    fast.chat_template = TEMPLATE
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=64, intermediate_size=128,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                      max_position_embeddings=512, eos_token_id=fast.eos_token_id,
                      pad_token_id=fast.pad_token_id)
    path = root / "tiny"
    LlamaForCausalLM(cfg).save_pretrained(path)
    fast.save_pretrained(path)
    return path


def _greedy(model: TransformersChatModel, seed: int = 0, temperature: float = 0.0):
    return model.complete(MSGS, max_tokens=12, temperature=temperature, top_p=1.0, seed=seed,
                          effort=Effort.NONE)


def test_tiny_llama_generates_with_the_chat_template(tmp_path) -> None:
    path = _tiny_model(tmp_path)
    model = TransformersChatModel(str(path))
    a, b = _greedy(model), _greedy(model)
    assert a.text == b.text and a.completion_tokens == 12
    _, tok = model.load()
    expected_prompt = tok.apply_chat_template(MSGS, add_generation_prompt=True, tokenize=False)
    assert a.prompt_tokens == len(tok(expected_prompt)["input_ids"])
    s1, s1_again = _greedy(model, 1, 1.0), _greedy(model, 1, 1.0)
    assert s1.text == s1_again.text  # sampling is reproducible per seed
    ident = model.identity
    assert ident["provider"] == "transformers" and len(ident["weights_sha256"]) == 64


def test_changed_weights_change_the_identity(tmp_path) -> None:
    path = _tiny_model(tmp_path)
    before = TransformersChatModel(str(path)).identity
    from transformers import LlamaForCausalLM

    m = LlamaForCausalLM.from_pretrained(path)
    with torch.no_grad():
        m.lm_head.weight.add_(0.01)
    m.save_pretrained(path)
    assert TransformersChatModel(str(path)).identity["weights_sha256"] != before["weights_sha256"]


def test_same_weights_load_once_per_process_and_changed_weights_load_anew(tmp_path) -> None:
    path = _tiny_model(tmp_path)
    first = TransformersChatModel(str(path))
    model, tok = first.load()
    again, again_tok = TransformersChatModel(str(path)).load()
    assert again is model and again_tok is tok  # the same objects: no second load
    from transformers import LlamaForCausalLM

    m = LlamaForCausalLM.from_pretrained(path)
    with torch.no_grad():
        m.lm_head.weight.add_(0.01)
    m.save_pretrained(path)
    changed, _ = TransformersChatModel(str(path)).load()
    assert changed is not model
    assert torch.equal(changed.lm_head.weight, m.lm_head.weight)
    assert not torch.equal(changed.lm_head.weight, model.lm_head.weight)


def test_lora_adapter_reloads_with_identical_logits(tmp_path) -> None:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    path = _tiny_model(tmp_path)
    peft_model = get_peft_model(AutoModelForCausalLM.from_pretrained(path),
                                LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    with torch.no_grad():  # LoRA B starts at zero; give the adapter a real effect
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    peft_model.save_pretrained(tmp_path / "adapter")
    peft_model.eval()

    adapted = TransformersChatModel(str(path), adapter=str(tmp_path / "adapter"))
    loaded, tok = adapted.load()
    ids = tok("def verify(candidate, env):", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        want = peft_model(ids).logits
        got = loaded(ids).logits
        base = TransformersChatModel(str(path)).load()[0](ids).logits
    assert torch.equal(got, want)
    assert not torch.allclose(got, base)
    assert "adapter_sha256" in adapted.identity
    assert adapted.identity != TransformersChatModel(str(path)).identity


def test_context_window_caps_the_reply_and_refuses_a_prompt_that_fills_it(tmp_path) -> None:
    from monitorbench.providers.base import ContextOverflow

    model = TransformersChatModel(str(_tiny_model(tmp_path)))  # max_position_embeddings=512
    _, tok = model.load()

    def prompt_tokens(n_words: int) -> tuple[list[dict[str, str]], int]:
        msgs = [{"role": "user", "content": " ".join(["verify"] * n_words)}]
        text = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        return msgs, len(tok(text)["input_ids"])

    lo, hi = 1, 600  # the longest prompt that still fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if prompt_tokens(mid)[1] < 512 else (lo, mid - 1)
    near, n = prompt_tokens(lo)
    assert 512 - 64 < n < 512
    reply = model.complete(near, max_tokens=64, temperature=0.0, top_p=1.0, seed=0,
                           effort=Effort.NONE)
    assert reply.prompt_tokens == n and reply.completion_tokens == 512 - n, reply
    full, n = prompt_tokens(600)
    assert n >= 512
    with pytest.raises(ContextOverflow, match="512-token context window"):
        model.complete(full, max_tokens=8, temperature=0.0, top_p=1.0, seed=0,
                       effort=Effort.NONE)


def test_directory_without_weights_is_an_input_error(tmp_path) -> None:
    from monitorbench.errors import InputError

    with pytest.raises(InputError, match="no weight files"):
        TransformersChatModel(str(tmp_path))


@pytest.mark.slow
@pytest.mark.xdist_group("smollm2")  # beside tests/test_model_monitors.py's SmolLM2 run: one load
def test_embedded_smollm2_answers(tmp_path) -> None:
    model = TransformersChatModel("smollm2", gguf_file=None)
    reply = model.complete([{"role": "user", "content": "Say hello."}], max_tokens=8,
                           temperature=0.0, top_p=1.0, seed=0, effort=Effort.NONE)
    assert reply.completion_tokens > 0 and reply.text.strip()
    assert model.identity["gguf_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
