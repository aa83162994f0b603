from pytorch_seed import seed, SavedRNG
