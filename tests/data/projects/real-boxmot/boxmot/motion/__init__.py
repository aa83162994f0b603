# Mikel Broström 🔥 BoxMOT 🧾 AGPL-3.0 license
