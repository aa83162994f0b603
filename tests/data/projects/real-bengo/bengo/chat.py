"""Interactive generation against a trained model or adapter."""
import threading
from pathlib import Path

import yaml

from .i18n import t
from .ui import short_path, ui

STOPWORDS = {"/exit", "/quit", "/q", "exit", "quit"}


def run_snapshot(path):
    """Settings saved next to the weights by a bengo run, if any."""
    snapshot = Path(path, "bengo.yaml")
    if not snapshot.is_file():
        return {}
    try:
        values = yaml.safe_load(snapshot.read_text(encoding="utf-8"))
    except (yaml.YAMLError, OSError):
        return {}
    return values if isinstance(values, dict) else {}


def build_prompt(text, dataset_format, tokenizer):
    if dataset_format == "messages" and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template([{"role": "user", "content": text}],
                                             tokenize=False, add_generation_prompt=True)
    if dataset_format == "alpaca":
        return f"### Instruction:\n{text}\n\n### Response:\n"
    return text


def load(path, snapshot=None):
    """Return (model, tokenizer). Adapters are rejoined to the base they were trained on."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    snapshot = run_snapshot(path) if snapshot is None else snapshot
    cuda = torch.cuda.is_available()
    dtype = (torch.bfloat16 if cuda and torch.cuda.is_bf16_supported() else
             torch.float16 if cuda else torch.float32)
    is_adapter = Path(path, "adapter_config.json").is_file()
    tokenizer = AutoTokenizer.from_pretrained(path)
    kwargs = {"torch_dtype": dtype, "low_cpu_mem_usage": True}
    if cuda:
        kwargs["device_map"] = {"": torch.cuda.current_device()}

    if not is_adapter:
        model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
        return model.eval(), tokenizer, path

    from peft import PeftConfig, PeftModel
    info = PeftConfig.from_pretrained(path)
    base_name = info.base_model_name_or_path
    if snapshot.get("revision"):
        kwargs["revision"] = snapshot["revision"]
    if snapshot.get("method") == "qlora" and cuda and _has_bitsandbytes():
        from transformers import BitsAndBytesConfig
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=dtype,
        )
    base = AutoModelForCausalLM.from_pretrained(base_name, **kwargs)
    model = PeftModel.from_pretrained(base, path).eval()
    model.config.use_cache = True
    return model, tokenizer, base_name


def _has_bitsandbytes():
    try:
        import bitsandbytes  # noqa: F401
    except ImportError:
        return False
    return True


def generate(model, tokenizer, prompt, max_new_tokens=256, temperature=0.7, on_token=None):
    import torch
    from transformers import TextIteratorStreamer

    inputs = tokenizer(prompt, add_special_tokens=False, return_tensors="pt").to(model.device)
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
    options = dict(**inputs, max_new_tokens=max_new_tokens, streamer=streamer,
                   pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
    if temperature and temperature > 0:
        options.update(do_sample=True, temperature=temperature, top_p=0.9)
    else:
        options.update(do_sample=False)
    thread = threading.Thread(target=_safe_generate, args=(model, options), daemon=True)
    with torch.inference_mode():
        thread.start()
        pieces = []
        for piece in streamer:
            pieces.append(piece)
            if on_token:
                on_token("".join(pieces))
        thread.join()
    return "".join(pieces)


def _safe_generate(model, options):
    import torch
    with torch.inference_mode():
        model.generate(**options)


def session(path, max_new_tokens=256, temperature=0.7, single_prompt=None):
    from rich.live import Live
    from rich.text import Text

    interface = ui()
    snapshot = run_snapshot(path)
    dataset_format = snapshot.get("dataset_format", "alpaca")
    interface.note(t("chat.loading"))
    model, tokenizer, base_name = load(path, snapshot)
    if not snapshot:
        interface.note(t("chat.no_config"), style="hint")
    interface.blank()
    interface.panel(interface.fields([
        ("model", short_path(path)),
        ("base_model", short_path(base_name)),
        ("dataset_format", dataset_format),
    ]), title=t("chat.title"))

    def ask(text):
        prompt = build_prompt(text, dataset_format, tokenizer)
        body = Text("", style="value")
        with Live(body, console=interface.console, refresh_per_second=8) as live:
            def update(current):
                live.update(Text("  " + current.strip(), style="value"))
            generate(model, tokenizer, prompt, max_new_tokens, temperature, on_token=update)

    if single_prompt:
        ask(single_prompt)
        interface.blank()
        return 0
    interface.note(t("chat.ready"))
    while True:
        interface.blank()
        try:
            message = interface.console.input(f"[brand]  {t('chat.you')} >[/brand] ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not message:
            continue
        if message.lower() in STOPWORDS:
            break
        interface.blank()
        try:
            ask(message)
        except KeyboardInterrupt:
            interface.note("...")
    interface.blank()
    interface.note(t("chat.bye"))
    return 0
