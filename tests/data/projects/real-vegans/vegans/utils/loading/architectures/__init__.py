from .mnist import (
    load_mnist_generator, load_mnist_adversary, load_mnist_encoder, load_mnist_decoder, load_mnist_autoencoder
)
from .celeba import (
    load_celeba_generator, load_celeba_adversary, load_celeba_encoder, load_celeba_decoder
)
from .example import (
    load_example_generator, load_example_adversary, load_example_encoder, load_example_decoder, load_example_autoencoder
)