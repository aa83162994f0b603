"""Hooks inside the user's torch process (the guard's op accounting), apart from live/, which samples
other processes from outside."""
