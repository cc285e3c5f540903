def stft_magnitude(signals, window, n_fft=512, hop_length=160, win_length=320):
    spec = signals.stft(
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        pad_mode="constant",
        return_complex=True,
    )
    return spec.abs()
