def frame_signal(x, frame_length, hop_length):
    return x.unfold(-1, frame_length, hop_length)
