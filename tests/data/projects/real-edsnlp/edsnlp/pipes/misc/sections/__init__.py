from .sections import SectionsMatcher

Sections = SectionsMatcher
