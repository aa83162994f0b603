"""
ZeroKV-Neo HuggingFace Spaces App.

Deploy at: https://huggingface.co/new-space
- SDK: Gradio
- Hardware: T4 (free) or A10G (paid)
- Requirements: requirements.txt below
"""

import os
import time
from threading import Thread

import gradio as gr
import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    TextIteratorStreamer,
)

# ZeroKV imports (installed via requirements.txt)
try:
    from zerokv.cache import build_zerokv_cache
    from zerokv.metrics import cleanup_after_inference
    HAS_ZEROKV = True
except ImportError:
    HAS_ZEROKV = False

# Model presets
MODELS = {
    "Qwen2.5-0.5B (fastest)": "Qwen/Qwen2.5-0.5B-Instruct",
    "Qwen2.5-1.5B (balanced)": "Qwen/Qwen2.5-1.5B-Instruct",
    "Qwen2.5-3B (quality)": "Qwen/Qwen2.5-3B-Instruct",
    "Qwen2.5-7B-AWQ (best)": "Qwen/Qwen2.5-7B-Instruct-AWQ",
}

# Global state
model = None
tokenizer = None
cache_zk = None
cache_fp = None
current_model_id = None


def load_model(model_name: str, precision_mode: bool = False):
    """Load model and build ZeroKV cache."""
    global model, tokenizer, cache_zk, cache_fp, current_model_id

    model_id = MODELS.get(model_name, model_name)
    if model_id == current_model_id:
        return f"Model already loaded: {model_id}"

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.float16 if device.type == "cuda" else None

    tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)
    tokenizer.pad_token = tokenizer.eos_token

    model = AutoModelForCausalLM.from_pretrained(
        model_id,
        trust_remote_code=True,
        torch_dtype=dtype,
        device_map="auto" if device.type == "cuda" else None,
    )
    model.eval()

    if HAS_ZEROKV:
        cache_zk = build_zerokv_cache(model.config, precision_mode=precision_mode)

    current_model_id = model_id
    return f"Loaded: {model_id} on {device}"


def generate_response(
    message: str,
    history: list,
    model_name: str,
    precision_mode: bool,
    max_tokens: int,
    temperature: float,
):
    """Generate response with ZeroKV vs FP16 comparison."""
    global model, tokenizer, cache_zk

    if model is None:
        load_model(model_name, precision_mode)

    messages = [{"role": "user", "content": message}]
    formatted = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True
    )
    inputs = tokenizer(formatted, return_tensors="pt").to(model.device)
    n_in = inputs["input_ids"].shape[1]

    gen_kwargs = {
        "max_new_tokens": max_tokens,
        "do_sample": temperature > 0,
        "temperature": temperature,
        "top_p": 0.9,
        "pad_token_id": tokenizer.pad_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }

    # ZeroKV generation
    if HAS_ZEROKV and cache_zk is not None:
        zk_kwargs = {**gen_kwargs, "past_key_values": cache_zk}
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
        zk_kwargs["streamer"] = streamer

        t0 = time.perf_counter()
        thread = Thread(target=model.generate, kwargs={**inputs, **zk_kwargs})
        thread.start()

        response = ""
        for token in streamer:
            response += token
            yield response, "", "", "Generating..."

        thread.join()
        dt_zk = time.perf_counter() - t0
        n_zk = len(tokenizer.encode(response))
        tps_zk = round(n_zk / dt_zk, 1) if dt_zk > 0 else 0
        cleanup_after_inference()
    else:
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(**inputs, **gen_kwargs)
        dt_zk = time.perf_counter() - t0
        n_zk = int(out.shape[1] - n_in)
        response = tokenizer.decode(out[0][n_in:], skip_special_tokens=True)
        tps_zk = round(n_zk / dt_zk, 1) if dt_zk > 0 else 0

    # FP16 generation (for comparison)
    t0 = time.perf_counter()
    with torch.inference_mode():
        out_fp = model.generate(**inputs, **gen_kwargs)
    dt_fp = time.perf_counter() - t0
    n_fp = int(out_fp.shape[1] - n_in)
    tps_fp = round(n_fp / dt_fp, 1) if dt_fp > 0 else 0

    speedup = round(tps_zk / tps_fp, 2) if tps_fp > 0 else 1.0

    stats = (
        f"**ZeroKV:** {tps_zk} tok/s ({dt_zk:.1f}s)\n\n"
        f"**FP16:** {tps_fp} tok/s ({dt_fp:.1f}s)\n\n"
        f"**Speedup:** {speedup}×"
    )

    match = "✅ Eşleşiyor" if response.strip() == tokenizer.decode(out_fp[0][n_in:], skip_special_tokens=True).strip() else "⚠️ Farklı"

    return response, stats, match, f"Model: {current_model_id}"


def build_app():
    with gr.Blocks(title="ZeroKV-Neo", theme=gr.themes.Soft()) as app:
        gr.Markdown("# 🔬 ZeroKV-Neo — Adaptive KV Cache Compression")
        gr.Markdown("Compare ZeroKV vs FP16 inference in real-time. Select a model and start chatting!")

        with gr.Row():
            with gr.Column(scale=1):
                model_name = gr.Dropdown(
                    choices=list(MODELS.keys()),
                    value="Qwen2.5-1.5B (balanced)",
                    label="Model",
                )
                precision_mode = gr.Checkbox(
                    label="Precision Mode (exact recall, less compression)",
                    value=False,
                )
                max_tokens = gr.Slider(
                    minimum=32, maximum=512, value=128, step=32,
                    label="Max Tokens",
                )
                temperature = gr.Slider(
                    minimum=0.0, maximum=1.5, value=0.7, step=0.1,
                    label="Temperature",
                )
                load_btn = gr.Button("📦 Load Model", variant="secondary")
                load_status = gr.Textbox(label="Status", interactive=False)

            with gr.Column(scale=2):
                chatbot = gr.Chatbot(label="Chat", height=400)
                msg = gr.Textbox(label="Message", placeholder="Type your message...")
                clear = gr.Button("Clear")

        with gr.Row():
            stats_out = gr.Markdown(label="Performance")
            match_out = gr.Markdown(label="Output Match")
            model_info = gr.Markdown(label="Model Info")

        def do_load(model_name, precision_mode):
            status = load_model(model_name, precision_mode)
            return status

        load_btn.click(do_load, [model_name, precision_mode], [load_status])

        def respond(message, history, model_name, precision_mode, max_tokens, temperature):
            if model is None:
                load_model(model_name, precision_mode)

            history = list(history or [])
            history.append([message, ""])
            yield "", history, "", "", ""

            for response, stats, match, info in generate_response(
                message, history, model_name, precision_mode, max_tokens, temperature
            ):
                history[-1][1] = response
                yield "", history, stats, match, info

            history[-1][1] = response
            yield "", history, stats, match, model_info

        msg.submit(
            respond,
            [msg, chatbot, model_name, precision_mode, max_tokens, temperature],
            [msg, chatbot, stats_out, match_out, model_info],
        )
        clear.click(lambda: ("", [], "", "", ""), outputs=[msg, chatbot, stats_out, match_out, model_info])

    return app


if __name__ == "__main__":
    app = build_app()
    app.launch(share=True)
