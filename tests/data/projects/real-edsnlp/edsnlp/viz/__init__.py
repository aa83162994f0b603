from .quick_examples import QuickExample
