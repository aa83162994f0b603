from advsecurenet.shared.colors import *
