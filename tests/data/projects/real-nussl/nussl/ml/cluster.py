from sklearn.mixture import GaussianMixture
from sklearn.cluster import KMeans, MiniBatchKMeans
