"""
automodel.py — AutoForge single entry point

    from brsx import automodel
    automodel.run()

Asks 1/2/3/4 and runs the main file inside the matching folder.
Works both as an installed package and when run directly.
"""

import os
import sys
import importlib

print("Our package gets updates frequently. It is recommended to run the command pip install --upgrade brsx before each use to make sure you're using the latest version.")

print("=" * 60)
print("  TIP: For HuggingFace fine-tune (option 3), keep transformers current:")
print("       pip install --upgrade transformers")
print("  If you hit a torchaudio / torchvision error (brsx doesn't need them):")
print("       pip uninstall torchaudio torchvision -y")
print("=" * 60)

HERE = os.path.dirname(os.path.abspath(__file__))

# key → (label, description, folder, module file (no .py), entry function)
TASKS = {
    "1": ("Transformer training",
          "Train a standard Transformer from scratch",
          "train_transformer", "full", "main"),
    "2": ("MTP Transformer training",
          "Train with Multi-Token Prediction heads",
          "mtp", "brsx_mtp", "train_mtp"),
    "3": ("HuggingFace model fine-tune",
          "Fine-tune a HuggingFace model (local or hub)",
          "ft_hf_models", "fine_tune", "main"),
    "4": ("brsx (.pt) model fine-tune",
          "Fine-tune an existing brsx .pt model",
          "ft_brsx_model", "brsx_finetune", "main"),
    "5": ("MTP model fine-tune",
          "Fine-tune an existing MTP model (LoRA or full)",
          "mtp_ft", "brsx_mtp_finetune", "main"),
    "6": ("Auto-config (no training)",
          "Just tell me the model my hardware can handle",
          "auto_config", "brsx_autoconfig", "main"),
    "7": ("Dataset prep",
          "Convert/clean data (txt/json/jsonl/csv/parquet) into a training file",
          "data", "brsx_dataprep", "main"),
    "8": ("Export to safetensors",
          "Convert a model's weights to the .safetensors format",
          "safetensors", "brsx_to_safetensors", "main"),
    "9": ("Hybrid training",
          "Train a mix of mamba/transformer/cnn/gru blocks (you choose the layers)",
          "hybrid", "brsx_hybrid_train", "main"),
    "10": ("Hybrid fine-tune",
           "Fine-tune a hybrid model (full or LoRA, auto by VRAM)",
           "hybrid_ft", "brsx_hybrid_finetune", "main"),
    "11": ("Chat with a safetensors model",
           "Load and chat with a transformer model stored as .safetensors.It could be a Huggingface model or a translated BRSX model.",
           "safetensors_chat", "brsx_safetensors_chat", "main"),
}


def _run_task(folder, module_name, func_name):
    """Add the task folder to sys.path, import the module, call its entry func.

    Each folder is added to sys.path so the module's own imports
    (import brsx_calibrate, from brsx_train import GPT, ...) keep working
    exactly as they do when the file is run directly inside its folder.
    """
    folder_path = os.path.join(HERE, folder)
    if not os.path.isdir(folder_path):
        print(f"  ! Folder not found: {folder_path}")
        return

    if folder_path not in sys.path:
        sys.path.insert(0, folder_path)

    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        print(f"  ! Couldn't load {module_name}.py from {folder}/: {e}")
        return

    entry = getattr(module, func_name, None)
    if not callable(entry):
        print(f"  ! {module_name}.py has no callable {func_name}().")
        return

    entry()


def _print_menu():
    print("=" * 60)
    print("                    brsx — AutoModel")
    print("=" * 60)
    print("  What would you like to do?")
    print("-" * 60)
    for key, (label, desc, *_ ) in TASKS.items():
        print(f"    {key}) {label}")
        print(f"       {desc}")
    print("    q) Quit")
    print("-" * 60)


def run():
    _print_menu()
    valid = set(TASKS) | {"q", "quit", "exit"}
    while True:
        choice = input("  Choice: ").strip().lower()
        if choice in valid:
            break
        print(f"  ! Pick one of: {', '.join(TASKS)} or q")

    if choice in ("q", "quit", "exit"):
        print("  See you!")
        return

    label, _desc, folder, module_name, func_name = TASKS[choice]
    print(f"\n  → {label}\n")
    _run_task(folder, module_name, func_name)


if __name__ == "__main__":
    run()
