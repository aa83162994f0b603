
# ============================================================
#  chat.py — talk to your hybrid brsx model (STANDALONE)
#  Reads config.json, rebuilds whatever blocks it lists
#  (mamba/transformer/cnn/gru), loads model.pt + tokenizer.json.
#  Only needs: torch, tokenizers   (pip install torch tokenizers)
#  Run:  python chat.py
# ============================================================
import os, json
import torch
import torch.nn as nn
import torch.nn.functional as F
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with open(os.path.join(HERE, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    tok = Tokenizer.from_file(os.path.join(HERE, "tokenizer.json"))

    model = BrsxHybrid(config).to(device)
    model.load_state_dict(torch.load(os.path.join(HERE, "model.pt"),
                                     map_location=device))
    model.eval()

    from collections import Counter
    summ = ", ".join(f"{k}x{v}" for k, v in Counter(config["blocks"]).items())
    print("=" * 60)
    print("  brsx hybrid - chat (standalone)")
    print("=" * 60)
    print(f"  {summ} | ~{model.n_params()/1e6:.1f}M params | {device}")
    print("  Exit: empty line or 'exit'.")
    print("-" * 60)

    while True:
        try:
            prompt = input("\n  You> ").strip()
        except (EOFError, KeyboardInterrupt):
            print("\n  Bye!"); break
        if not prompt or prompt.lower() in ("exit", "quit"):
            print("  Bye!"); break
        ids = tok.encode(prompt).ids or [0]
        x = torch.tensor([ids], dtype=torch.long, device=device)
        out = model.generate(x, max_new_tokens=200, temperature=0.8, top_k=40)
        text = tok.decode(out[0].tolist())
        print(f"\n  brsx> {text}")


if __name__ == "__main__":
    main()
