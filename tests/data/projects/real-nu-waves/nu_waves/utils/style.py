from matplotlib import pyplot as plt

plt.rcParams.update({
    "font.size": 16,
    "axes.titlesize": 14,
    "axes.labelsize": 14,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "legend.fontsize": 13,
    "mathtext.fontset": "cm",
    "font.family": "serif",
    "figure.dpi": 150,
    "savefig.dpi": 200,
})
