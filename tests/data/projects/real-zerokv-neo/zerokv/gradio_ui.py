"""Optional Gradio dashboard."""

from __future__ import annotations

import json
import time
from typing import Any, Generator, List, Tuple

try:
    import gradio as gr
except ImportError:
    gr = None

from zerokv.engine import ZeroKVEngine


def launch_demo(engine: ZeroKVEngine, share: bool = False) -> Any:
    if gr is None:
        raise ImportError("Install gradio: pip install gradio")

    def respond(
        message: str, history: List
    ) -> Generator[Tuple[str, List, str], None, None]:
        history = list(history or [])
        history.append([message, ""])
        yield "", history, "_Üretiliyor…_"

        t0 = time.perf_counter()
        buf: List[str] = []
        for chunk in engine.generate(
            message,
            max_new_tokens=256,
            temperature=0.4,
            top_p=0.9,
            stream=True,
        ):
            buf.append(chunk)
            history[-1][1] = "".join(buf)
            yield "", history, "_Üretiliyor…_"

        dt = time.perf_counter() - t0
        stats = engine.stats()
        uf = stats.get("user_friendly") or {}
        human_md = uf.get("markdown", "")
        raw = json.dumps(stats, indent=2, default=str)
        tail = (
            f"**{dt:.2f}s** (duvar saati) | mode `{engine.kv_mode.value}` | "
            f"load `{engine.load_tag}` | akış"
        )
        panel = (
            human_md
            + "\n\n<details><summary>Teknik (ham JSON)</summary>\n\n```json\n"
            + raw
            + "\n```\n</details>\n\n"
            + tail
        )
        yield "", history, panel

    with gr.Blocks(title="ZeroKV-Neo", theme=gr.themes.Soft()) as demo:
        gr.Markdown("# ZeroKV-Neo")
        chat = gr.Chatbot(label="Chat", height=400)
        msg = gr.Textbox(label="Message")
        out_stats = gr.Markdown()
        clear = gr.Button("Clear history")

        def _clear() -> Tuple[str, List, str]:
            return "", [], ""

        clear.click(_clear, outputs=[msg, chat, out_stats])
        msg.submit(respond, [msg, chat], [msg, chat, out_stats])

    demo.launch(share=share)
    return demo
