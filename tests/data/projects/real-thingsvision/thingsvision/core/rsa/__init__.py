from .helpers import compute_rdm, correlate_rdms, plot_rdm
