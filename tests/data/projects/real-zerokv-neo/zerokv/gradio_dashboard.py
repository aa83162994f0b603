"""
ZeroKV-Neo Gradio Dashboard — interactive comparison of ZeroKV vs FP16.

Launch:
    pip install gradio
    python zerokv/gradio_dashboard.py
"""

from __future__ import annotations

import math
import time
from typing import Optional

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

try:
    import gradio as gr
except ImportError:
    gr = None

from zerokv.cache import build_zerokv_cache


def run_comparison(
    prompt: str,
    model_id: str,
    max_new_tokens: int,
    device: str,
    progress=gr.Progress(),
):
    """Run FP16 vs ZeroKV comparison and return metrics."""
    if gr is None:
        yield "Gradio kurulu değil: pip install gradio", "", "", ""
        return

    dev = torch.device(device if device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))

    progress(0.1, desc="Model yükleniyor...")
    tok = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)
    tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(
        model_id, trust_remote_code=True,
        torch_dtype=torch.float16 if dev.type == "cuda" else None,
    ).to(dev)

    inputs = tok(prompt, return_tensors="pt").to(dev)
    prompt_len = inputs["input_ids"].shape[1]

    # --- FP16 generate ---
    progress(0.3, desc="FP16 decode...")
    t0 = time.perf_counter()
    with torch.inference_mode():
        out_fp = model.generate(
            **inputs, max_new_tokens=max_new_tokens, do_sample=False,
            pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
        )
    dt_fp = time.perf_counter() - t0
    n_fp = int(out_fp.shape[1] - prompt_len)
    text_fp = tok.decode(out_fp[0][prompt_len:], skip_special_tokens=True)
    tps_fp = round(n_fp / dt_fp, 2) if dt_fp > 0 else 0

    # --- ZeroKV generate ---
    progress(0.6, desc="ZeroKV decode...")
    cache_zk = build_zerokv_cache(model.config)
    t0 = time.perf_counter()
    with torch.inference_mode():
        out_zk = model.generate(
            **inputs, max_new_tokens=max_new_tokens, do_sample=False,
            pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
            past_key_values=cache_zk,
        )
    dt_zk = time.perf_counter() - t0
    n_zk = int(out_zk.shape[1] - prompt_len)
    text_zk = tok.decode(out_zk[0][prompt_len:], skip_special_tokens=True)
    tps_zk = round(n_zk / dt_zk, 2) if dt_zk > 0 else 0

    # --- PPL comparison ---
    progress(0.85, desc="Perplexity hesaplanıyor...")
    test_text = prompt + " " + text_fp[:100]
    test_inputs = tok(test_text, return_tensors="pt").to(dev)
    with torch.inference_mode():
        out_ppl = model(**test_inputs, labels=test_inputs["input_ids"])
    ppl = round(math.exp(out_ppl.loss.item()), 4)

    speedup = round(tps_zk / tps_fp, 2) if tps_fp > 0 else 0
    match = "✅ Eşleşiyor" if text_fp.strip() == text_zk.strip() else "⚠️ Farklı"

    metrics = (
        f"**Model:** {model_id}\n\n"
        f"**Cihaz:** {dev}\n\n"
        f"**Prompt uzunluğu:** {prompt_len} token\n\n"
        f"**FP16:** {tps_fp} tok/s ({dt_fp:.2f}s, {n_fp} token)\n\n"
        f"**ZeroKV:** {tps_zk} tok/s ({dt_zk:.2f}s, {n_zk} token)\n\n"
        f"**Hız oranı:** {speedup}×\n\n"
        f"**Perplexity:** {ppl}\n\n"
        f"**Çıktı eşleşmesi:** {match}"
    )

    progress(1.0, desc="Tamam!")
    yield metrics, text_fp, text_zk, f"Speedup: {speedup}× | PPL: {ppl} | {match}"


def build_dashboard():
    if gr is None:
        raise ImportError("pip install gradio")

    with gr.Blocks(title="ZeroKV-Neo Dashboard", theme=gr.themes.Soft()) as demo:
        gr.Markdown("# 🔬 ZeroKV-Neo Karşılaştırma Dashboard")
        gr.Markdown("ZeroKV vs FP16 — yan yana performans ve kalite karşılaştırması")

        with gr.Row():
            with gr.Column(scale=1):
                model_id = gr.Dropdown(
                    choices=[
                        "Qwen/Qwen2.5-0.5B-Instruct",
                        "Qwen/Qwen2.5-1.5B-Instruct",
                        "Qwen/Qwen2.5-7B-Instruct",
                        "sshleifer/tiny-gpt2",
                    ],
                    value="Qwen/Qwen2.5-0.5B-Instruct",
                    label="Model",
                )
                device = gr.Dropdown(
                    choices=["auto", "cuda", "cpu"],
                    value="auto",
                    label="Cihaz",
                )
                max_tokens = gr.Slider(
                    minimum=16, maximum=256, value=64, step=16,
                    label="Max yeni token",
                )
                prompt = gr.Textbox(
                    label="Prompt",
                    value="Explain quantum computing in simple terms.",
                    lines=3,
                )
                run_btn = gr.Button("🚀 Karşılaştır", variant="primary")

            with gr.Column(scale=2):
                metrics_out = gr.Markdown(label="Metrikler")
                speed_label = gr.Label(label="Hız")

        with gr.Row():
            with gr.Column():
                gr.Markdown("### FP16 Çıktı")
                fp_out = gr.Textbox(label="", lines=8, interactive=False)
            with gr.Column():
                gr.Markdown("### ZeroKV Çıktı")
                zk_out = gr.Textbox(label="", lines=8, interactive=False)

        run_btn.click(
            fn=run_comparison,
            inputs=[prompt, model_id, max_tokens, device],
            outputs=[metrics_out, fp_out, zk_out, speed_label],
        )

    return demo


if __name__ == "__main__":
    demo = build_dashboard()
    demo.launch(share=True)
