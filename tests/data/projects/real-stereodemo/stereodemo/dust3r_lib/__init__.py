# Minimal DUSt3R inference implementation.
# Sourced from https://github.com/ibaiGorordo/dust3r-pytorch-inference-minimal
# Original DUSt3R: https://github.com/naver/dust3r (CC BY-NC-SA 4.0)
