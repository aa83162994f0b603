# `pyjuice.distributions` is an alias of `pyjuice.nodes.distributions`

from pyjuice.nodes.distributions import *