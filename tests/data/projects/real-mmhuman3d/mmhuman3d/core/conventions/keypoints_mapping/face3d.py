FACE3D_IND = [
    'right_eye_1', 'right_eye_4', 'left_eye_4', 'left_eye_1', 'nose_middle',
    'right_mouth_1', 'left_mouth_1'
]
