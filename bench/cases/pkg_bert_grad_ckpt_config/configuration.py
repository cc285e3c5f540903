class Config:
    def __init__(self, hidden_size=8, num_layers=2, gradient_checkpointing=False):
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.gradient_checkpointing = gradient_checkpointing
