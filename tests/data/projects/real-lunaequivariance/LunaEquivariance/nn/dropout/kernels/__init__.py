"""Philox-exact fused Dropout with compact, reusable random decisions."""
