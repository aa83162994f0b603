"""
Provide low-level torch accelerated operations. This backend requires that
torch be installed. Works best with a GPU but still offers good
improvements with a CPU.

"""
