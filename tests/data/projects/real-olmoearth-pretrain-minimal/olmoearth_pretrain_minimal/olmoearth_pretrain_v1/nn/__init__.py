"""OlmoEarth Pretrain neural network modules."""
