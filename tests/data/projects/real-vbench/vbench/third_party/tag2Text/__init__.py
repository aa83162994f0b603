import sys
sys.path.append('third_party/grit_src')
