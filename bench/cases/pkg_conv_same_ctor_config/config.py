ENCODER_CFG = {"channels": (2, 8, 4), "kernel_size": 3, "padding": "same"}
