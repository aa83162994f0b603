class OPQ:
  def __init__(self):
    pass