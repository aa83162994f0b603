# weighted block-sparse constants

ROW_WINDOW_SIZE = 16
TCB_WIDTH = 8
TCB_SIZE = ROW_WINDOW_SIZE * TCB_WIDTH
