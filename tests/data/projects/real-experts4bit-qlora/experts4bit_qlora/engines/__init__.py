"""engines — see experts4bit_qlora/README-LAYOUT.md for what belongs here."""
