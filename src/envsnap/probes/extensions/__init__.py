"""The ``extensions`` section: probe.py walks site-packages for ELF objects, elf_scan.py and fatbin.py
read what each needs and embeds, cache.py keeps the facts per file."""
