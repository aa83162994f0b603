from xitorch.grad.jachess import *
