"""Kabardian Translator v3 — local translation and speech for Kabardian and 35 more languages on macOS.

Translation: our Kabardian model (Russian ↔ Kabardian) and MADLAD-400 on the Apple Neural Engine (every other
pair, Kabardian through Russian). Speech: Silero v5 and the Baltic Piper model on ONNX Runtime, Apple voices for
the rest. Everything runs on the Mac; nothing is sent anywhere.
"""

__version__ = "3.0.4"
