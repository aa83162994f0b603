UPET_AVAILABLE_MODELS = [
    "pet-mad-xs",
    "pet-mad-s",
    "pet-mad-m",
    "pet-omat-xs",
    "pet-omat-s",
    "pet-omat-m",
    "pet-omat-l",
    "pet-omat-xl",
    "pet-oam-l",
    "pet-oam-xl",
    "pet-omad-xs",
    "pet-omad-s",
    "pet-omad-l",
    "pet-omatpes-l",
    "pet-omol-s",
    "pet-omol-m",
    "pet-omol-l",
    "pet-mols-s",
    "pet-spice-s",
    "pet-spice-l",
]

DEPRECATED_MODELS: list[str] = []

# PET-MAD DOS
PET_MAD_DOS_LATEST_STABLE_VERSION = "1.0"
PET_MAD_DOS_AVAILABLE_VERSIONS = ["1.0"]
